package framework

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/sets"
	resourcehelper "k8s.io/component-helpers/resource"

	"github.com/schedtui/schedtui/scheduler/features"
)

// Defaults the scheduler assumes for containers that request no cpu or
// memory when it spreads load (pkg/scheduler/util).
const (
	DefaultMilliCPURequest int64 = 100
	DefaultMemoryRequest   int64 = 200 * 1024 * 1024
)

// AffinityTerm is a parsed PodAffinityTerm.
type AffinityTerm struct {
	Namespaces        sets.Set[string]
	Selector          labels.Selector
	TopologyKey       string
	NamespaceSelector labels.Selector
}

// Matches reports whether pod, in a namespace with labels nsLabels, is
// selected by the term.
func (at *AffinityTerm) Matches(pod *v1.Pod, nsLabels labels.Set) bool {
	if at.Namespaces.Has(pod.Namespace) || at.NamespaceSelector.Matches(nsLabels) {
		return at.Selector.Matches(labels.Set(pod.Labels))
	}
	return false
}

// WeightedAffinityTerm is a parsed preferred term.
type WeightedAffinityTerm struct {
	AffinityTerm
	Weight int32
}

func newAffinityTerm(pod *v1.Pod, term *v1.PodAffinityTerm) (*AffinityTerm, error) {
	selector, err := metav1.LabelSelectorAsSelector(term.LabelSelector)
	if err != nil {
		return nil, err
	}
	namespaces := sets.New[string]()
	if len(term.Namespaces) == 0 && term.NamespaceSelector == nil {
		namespaces.Insert(pod.Namespace)
	} else {
		namespaces.Insert(term.Namespaces...)
	}
	nsSelector, err := metav1.LabelSelectorAsSelector(term.NamespaceSelector)
	if err != nil {
		return nil, err
	}
	return &AffinityTerm{Namespaces: namespaces, Selector: selector, TopologyKey: term.TopologyKey, NamespaceSelector: nsSelector}, nil
}

func affinityTerms(pod *v1.Pod, terms []v1.PodAffinityTerm) ([]AffinityTerm, error) {
	if terms == nil {
		return nil, nil
	}
	var out []AffinityTerm
	for i := range terms {
		t, err := newAffinityTerm(pod, &terms[i])
		if err != nil {
			return nil, err
		}
		out = append(out, *t)
	}
	return out, nil
}

func weightedAffinityTerms(pod *v1.Pod, terms []v1.WeightedPodAffinityTerm) ([]WeightedAffinityTerm, error) {
	if terms == nil {
		return nil, nil
	}
	var out []WeightedAffinityTerm
	for i := range terms {
		t, err := newAffinityTerm(pod, &terms[i].PodAffinityTerm)
		if err != nil {
			return nil, err
		}
		out = append(out, WeightedAffinityTerm{AffinityTerm: *t, Weight: terms[i].Weight})
	}
	return out, nil
}

// PodResource is a pod's requests as the node accounting sees them.
type PodResource struct {
	Resource Resource
	// Non0CPU and Non0Mem apply the 100m / 200Mi defaults to containers
	// that request nothing, so that many zero-request pods still spread.
	Non0CPU int64
	Non0Mem int64
}

// PodInfo is a pod with its parsed affinity terms and cached requests.
type PodInfo struct {
	Pod                        *v1.Pod
	RequiredAffinityTerms      []AffinityTerm
	RequiredAntiAffinityTerms  []AffinityTerm
	PreferredAffinityTerms     []WeightedAffinityTerm
	PreferredAntiAffinityTerms []WeightedAffinityTerm
	// ParseError is set when a term's selector does not parse; upstream
	// keeps such pods (the apiserver does not validate every selector) and
	// InterPodAffinity's PreFilter reports it for the incoming pod.
	ParseError error
	res        *PodResource
	resGates   ResourceGates
}

// NewPodInfo parses pod's affinity terms.
func NewPodInfo(pod *v1.Pod) *PodInfo {
	pi := &PodInfo{Pod: pod}
	var errs []error
	var prefAff, prefAnti []v1.WeightedPodAffinityTerm
	var reqAff, reqAnti []v1.PodAffinityTerm
	if a := pod.Spec.Affinity; a != nil {
		if a.PodAffinity != nil {
			prefAff = a.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution
			if len(a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution) != 0 {
				reqAff = a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution
			}
		}
		if a.PodAntiAffinity != nil {
			prefAnti = a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution
			if len(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution) != 0 {
				reqAnti = a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution
			}
		}
	}
	var err error
	if pi.RequiredAffinityTerms, err = affinityTerms(pod, reqAff); err != nil {
		errs = append(errs, fmt.Errorf("requiredAffinityTerms: %w", err))
	}
	if pi.RequiredAntiAffinityTerms, err = affinityTerms(pod, reqAnti); err != nil {
		errs = append(errs, fmt.Errorf("requiredAntiAffinityTerms: %w", err))
	}
	if pi.PreferredAffinityTerms, err = weightedAffinityTerms(pod, prefAff); err != nil {
		errs = append(errs, fmt.Errorf("preferredAffinityTerms: %w", err))
	}
	if pi.PreferredAntiAffinityTerms, err = weightedAffinityTerms(pod, prefAnti); err != nil {
		errs = append(errs, fmt.Errorf("preferredAntiAffinityTerms: %w", err))
	}
	// The aggregate's text ("[a, b]", duplicates dropped) is what upstream
	// shows in InterPodAffinity's PreFilter error.
	if agg := utilerrors.NewAggregate(errs); agg != nil {
		pi.ParseError = agg
	}
	return pi
}

// Key is the pod's UID, the key the scheduler cache uses.
func (pi *PodInfo) Key() string { return string(pi.Pod.UID) }

// ResourceGates are the gates that decide how a pod's requests are
// counted: InPlacePodVerticalScaling (a bound pod counts the larger of
// spec and status resources), PodLevelResources (spec.resources) and
// InPlacePodLevelResourcesVerticalScaling (pod-level status resources).
type ResourceGates struct {
	StatusResources         bool
	PodLevelResources       bool
	PodLevelStatusResources bool
}

// ResourceGatesOf picks the resource gates out of all gates.
func ResourceGatesOf(f features.Features) ResourceGates {
	return ResourceGates{
		StatusResources:         f.EnableInPlacePodVerticalScaling,
		PodLevelResources:       f.EnablePodLevelResources,
		PodLevelStatusResources: f.EnableInPlacePodLevelResourcesVerticalScaling,
	}
}

// DefaultResourceGates are v1.37's defaults: all on.
var DefaultResourceGates = ResourceGatesOf(features.Default())

// PodRequestsOptions are the component-helpers options for these gates.
func (g ResourceGates) PodRequestsOptions() resourcehelper.PodResourcesOptions {
	return resourcehelper.PodResourcesOptions{
		UseStatusResources: g.StatusResources,
		InPlacePodLevelResourcesVerticalScalingEnabled: g.PodLevelStatusResources,
		SkipPodLevelResources:                          !g.PodLevelResources,
	}
}

// CalculateResource returns the pod's requests as the scheduler cache
// counts them with v1.37's default gates; see CalculateResourceWith.
func (pi *PodInfo) CalculateResource() PodResource {
	return pi.CalculateResourceWith(DefaultResourceGates)
}

// CalculateResourceWith returns the pod's requests (cached per gates) as
// the scheduler cache counts them: status resources used with
// InPlacePodVerticalScaling, pod-level resources with PodLevelResources.
func (pi *PodInfo) CalculateResourceWith(g ResourceGates) PodResource {
	if pi.res != nil && pi.resGates == g {
		return *pi.res
	}
	requests, non0 := podRequests(pi.Pod, g)
	var r Resource
	r.Add(requests)
	cpu, mem := non0[v1.ResourceCPU], non0[v1.ResourceMemory]
	pi.res = &PodResource{Resource: r, Non0CPU: cpu.MilliValue(), Non0Mem: mem.Value()}
	pi.resGates = g
	return *pi.res
}

// NonMissingContainerRequests returns the cpu/memory defaults applied to
// containers that request nothing: always without pod-level requests; with
// them, only for a resource missing at both levels.
func NonMissingContainerRequests(requests v1.ResourceList, podLevelSet bool) v1.ResourceList {
	cpu := *resource.NewMilliQuantity(DefaultMilliCPURequest, resource.DecimalSI)
	mem := *resource.NewQuantity(DefaultMemoryRequest, resource.DecimalSI)
	if !podLevelSet {
		return v1.ResourceList{v1.ResourceCPU: cpu, v1.ResourceMemory: mem}
	}
	out := v1.ResourceList{}
	if _, ok := requests[v1.ResourceCPU]; !ok {
		out[v1.ResourceCPU] = cpu
	}
	if _, ok := requests[v1.ResourceMemory]; !ok {
		out[v1.ResourceMemory] = mem
	}
	return out
}

// Resource is a set of quantities in the scheduler's integer units:
// millicores for cpu, bytes or counts for the rest.
type Resource struct {
	MilliCPU         int64
	Memory           int64
	EphemeralStorage int64
	AllowedPodNumber int
	ScalarResources  map[v1.ResourceName]int64
}

// NewResource converts a ResourceList.
func NewResource(rl v1.ResourceList) *Resource {
	r := &Resource{}
	r.Add(rl)
	return r
}

// Add adds rl; names that are not scalar resources are ignored.
func (r *Resource) Add(rl v1.ResourceList) {
	for name, q := range rl {
		switch name {
		case v1.ResourceCPU:
			r.MilliCPU += q.MilliValue()
		case v1.ResourceMemory:
			r.Memory += q.Value()
		case v1.ResourcePods:
			r.AllowedPodNumber += int(q.Value())
		case v1.ResourceEphemeralStorage:
			r.EphemeralStorage += q.Value()
		default:
			if IsScalarResourceName(name) {
				r.AddScalar(name, q.Value())
			}
		}
	}
}

// Amount is the amount of one resource, by name: cpu in millicores, pods
// as a count, everything else in its base unit; 0 for a nil Resource.
func (r *Resource) Amount(name v1.ResourceName) int64 {
	if r == nil {
		return 0
	}
	switch name {
	case v1.ResourceCPU:
		return r.MilliCPU
	case v1.ResourceMemory:
		return r.Memory
	case v1.ResourceEphemeralStorage:
		return r.EphemeralStorage
	case v1.ResourcePods:
		return int64(r.AllowedPodNumber)
	}
	return r.ScalarResources[name]
}

// AddScalar adds to a scalar resource.
func (r *Resource) AddScalar(name v1.ResourceName, q int64) {
	r.SetScalar(name, r.ScalarResources[name]+q)
}

// SetScalar sets a scalar resource.
func (r *Resource) SetScalar(name v1.ResourceName, q int64) {
	if r.ScalarResources == nil {
		r.ScalarResources = map[v1.ResourceName]int64{}
	}
	r.ScalarResources[name] = q
}

// Clone copies r.
func (r *Resource) Clone() *Resource {
	c := *r
	if r.ScalarResources != nil {
		c.ScalarResources = make(map[v1.ResourceName]int64, len(r.ScalarResources))
		for k, v := range r.ScalarResources {
			c.ScalarResources[k] = v
		}
	}
	return &c
}

// ImageStateSummary is an image's size and how many nodes have it.
type ImageStateSummary struct {
	Size     int64
	NumNodes int
}

// DefaultBindAllHostIP is the host IP that binds every address.
const DefaultBindAllHostIP = "0.0.0.0"

// ProtocolPort is a (protocol, port) pair.
type ProtocolPort struct {
	Protocol string
	Port     int32
}

// HostPortInfo maps host IP to the (protocol, port) pairs used on it.
type HostPortInfo map[string]map[ProtocolPort]struct{}

func sanitizeHostPort(ip, protocol string) (string, string) {
	if ip == "" {
		ip = DefaultBindAllHostIP
	}
	if protocol == "" {
		protocol = string(v1.ProtocolTCP)
	}
	return ip, protocol
}

// Add records a used port; ports <= 0 are ignored.
func (h HostPortInfo) Add(ip, protocol string, port int32) {
	if port <= 0 {
		return
	}
	ip, protocol = sanitizeHostPort(ip, protocol)
	if h[ip] == nil {
		h[ip] = map[ProtocolPort]struct{}{}
	}
	h[ip][ProtocolPort{protocol, port}] = struct{}{}
}

// Remove forgets a used port.
func (h HostPortInfo) Remove(ip, protocol string, port int32) {
	if port <= 0 {
		return
	}
	ip, protocol = sanitizeHostPort(ip, protocol)
	if m, ok := h[ip]; ok {
		delete(m, ProtocolPort{protocol, port})
		if len(m) == 0 {
			delete(h, ip)
		}
	}
}

// Len counts used (ip, protocol, port) entries.
func (h HostPortInfo) Len() int {
	n := 0
	for _, m := range h {
		n += len(m)
	}
	return n
}

// CheckConflict reports whether binding (ip, protocol, port) conflicts:
// 0.0.0.0 conflicts with the pair on any IP, a specific IP with itself or
// 0.0.0.0.
func (h HostPortInfo) CheckConflict(ip, protocol string, port int32) bool {
	if port <= 0 {
		return false
	}
	ip, protocol = sanitizeHostPort(ip, protocol)
	pp := ProtocolPort{protocol, port}
	if ip == DefaultBindAllHostIP {
		for _, m := range h {
			if _, ok := m[pp]; ok {
				return true
			}
		}
		return false
	}
	for _, key := range []string{DefaultBindAllHostIP, ip} {
		if _, ok := h[key][pp]; ok {
			return true
		}
	}
	return false
}

// HostPorts returns the host ports a pod uses: regular containers and
// restartable (sidecar) init containers with hostPort > 0.
func HostPorts(pod *v1.Pod) []v1.ContainerPort {
	var ports []v1.ContainerPort
	add := func(cs []v1.Container, sidecarsOnly bool) {
		for i := range cs {
			c := &cs[i]
			if sidecarsOnly && (c.RestartPolicy == nil || *c.RestartPolicy != v1.ContainerRestartPolicyAlways) {
				continue
			}
			for _, p := range c.Ports {
				if p.HostPort > 0 {
					ports = append(ports, p)
				}
			}
		}
	}
	add(pod.Spec.Containers, false)
	add(pod.Spec.InitContainers, true)
	return ports
}
