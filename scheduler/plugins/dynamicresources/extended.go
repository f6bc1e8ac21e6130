package dynamicresources

// DRA-backed extended resources (DRAExtendedResource). A pod asking for an
// extended resource that a DeviceClass backs (spec.extendedResourceName,
// or the implicit deviceclass.resource.kubernetes.io/<class>) gets one
// special claim, last in the claim list: PreFilter finds the one an
// earlier cycle created or makes an in-memory one named
// "<extended-resources>"; Filter gives each node its own variant asking
// for what the node lacks as device-plugin allocatable (NodeResourcesFit
// leaves exactly those to this plugin); PreBind creates the claim and
// records the container-to-request mappings in the pod's
// status.extendedResourceClaimStatus; PostFilter and Unreserve delete a
// created claim that is stale.

import (
	"fmt"
	"hash/fnv"
	"slices"
	"sort"

	v1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	resourcehelper "k8s.io/component-helpers/resource"

	"github.com/schedtui/schedtui/scheduler/framework"
)

// specialClaimInMemName names the special claim until PreBind creates it:
// deliberately not a valid claim name, as upstream's.
const specialClaimInMemName = "<extended-resources>"

// extendedState is the special claim's part of the cycle state.
type extendedState struct {
	// index of the special claim in stateData.claims, -1 if none.
	index int
	// requests are the pod's scalar requests (pod-level included).
	requests map[v1.ResourceName]int64
	// tempUID is the in-memory claim's UID, which keys its in-flight
	// allocation even after PreBind created the claim under another UID.
	tempUID types.UID
	// nodes are Filter's per-node variants (nil claim: nothing to
	// allocate through DRA on that node), guarded by stateData.mu.
	nodes map[string]nodeExtendedClaim
}

type nodeExtendedClaim struct {
	claim    *resourcev1.ResourceClaim
	mappings []v1.ContainerExtendedResourceRequest
}

func (s *stateData) isExtended(i int) bool { return s.ext.index >= 0 && i == s.ext.index }

func (s *stateData) noUserClaim() bool {
	n := len(s.claims)
	if s.ext.index >= 0 {
		n--
	}
	return n == 0
}

// preFilterExtended returns the pod's special claim, nil if the pod asks
// for no DRA-backed extended resource (or the gate is off).
func (pl *DynamicResources) preFilterExtended(pod *v1.Pod, s *stateData) *resourcev1.ResourceClaim {
	s.ext.index = -1
	if !pl.fts.EnableDRAExtendedResource {
		return nil
	}
	// Only a pod requesting more than cpu, memory and ephemeral storage
	// can ask for an extended resource; summing the requests (every
	// cycle) allocated more than the rest of PreFilter.
	if !framework.RequestsBeyondBasics(pod) {
		return nil
	}
	objs := pl.h.Objects()
	reqs := resourcehelper.PodRequests(pod, resourcehelper.PodResourcesOptions{})
	mapped := false
	for name, q := range reqs {
		if !q.IsZero() && framework.IsDRAExtendedResourceName(name) && objs.DeviceClassForResource(name) != nil {
			mapped = true
			break
		}
	}
	if !mapped {
		return nil
	}
	s.ext.requests = framework.NewResource(reqs).ScalarResources
	if c := findExtendedResourceClaim(pod, objs.ResourceClaims()); c != nil {
		s.ext.tempUID = c.UID
		return c
	}
	isTrue := true
	c := &resourcev1.ResourceClaim{
		ObjectMeta: metav1.ObjectMeta{
			Namespace:    pod.Namespace,
			Name:         specialClaimInMemName,
			UID:          types.UID("extended-resources-" + string(pod.UID)),
			GenerateName: pod.Name + "-extended-resources-",
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "v1", Kind: "Pod", Name: pod.Name, UID: pod.UID, Controller: &isTrue,
			}},
			Annotations: map[string]string{resourcev1.ExtendedResourceClaimAnnotation: "true"},
		},
	}
	s.ext.tempUID = c.UID
	return c
}

// findExtendedResourceClaim is a claim an earlier cycle created for the
// pod: annotated as the extended-resource claim and controlled by the pod.
func findExtendedResourceClaim(pod *v1.Pod, claims []*resourcev1.ResourceClaim) *resourcev1.ResourceClaim {
	for _, c := range claims {
		if c.Annotations[resourcev1.ExtendedResourceClaimAnnotation] != "true" {
			continue
		}
		for _, o := range c.OwnerReferences {
			if o.Name == pod.Name && o.Controller != nil && *o.Controller && o.UID == pod.UID {
				return c
			}
		}
	}
	return nil
}

// filterExtended is the node's variant of the special claim: nil when the
// node provides every requested resource through a device plugin (or the
// pod has no special claim). A resource neither allocatable on the node
// nor backed by a class does not fit; a claim left from an earlier cycle
// with requests cannot be used again (PostFilter deletes it).
func (pl *DynamicResources) filterExtended(s *stateData, pod *v1.Pod, nodeInfo *framework.NodeInfo) (*resourcev1.ResourceClaim, []v1.ContainerExtendedResourceRequest, *framework.Status) {
	if s.ext.index < 0 {
		return nil, nil, nil
	}
	claim := s.claims[s.ext.index]
	if claim.Spec.Devices.Requests != nil {
		return nil, nil, statusUnschedulable("cannot schedule extended resource claim")
	}
	objs := pl.h.Objects()
	viaDRA := map[v1.ResourceName]int64{}
	for name, q := range s.ext.requests {
		if !framework.IsDRAExtendedResourceName(name) || q == 0 {
			continue
		}
		allocatable, onNode := nodeInfo.Allocatable.ScalarResources[name]
		if objs.DeviceClassForResource(name) != nil && allocatable == 0 {
			viaDRA[name] = q
		} else if !onNode {
			return nil, nil, statusUnschedulable("cannot fit resource")
		}
	}
	if s.noUserClaim() && len(viaDRA) == 0 {
		return nil, nil, nil
	}
	if claim.Status.Allocation != nil {
		return nil, nil, nil
	}
	c := claim.DeepCopy()
	reqs, mappings := extendedRequests(pod, viaDRA, objs)
	c.Spec.Devices.Requests = reqs
	return c, mappings, nil
}

// extendedRequests builds the device requests and container mappings for
// the resources to allocate through DRA, as upstream: per resource (in
// name order), each long-lived container (regular or sidecar) gets its
// own request "container-<i>-request-<j>" (i: index in init containers
// then containers, j: index of the resource among the container's sorted
// request names); a plain init container first reuses the long-lived
// requests from its own index on and asks only for the remainder, and of
// the plain init containers' requests only the largest is kept.
func extendedRequests(pod *v1.Pod, viaDRA map[v1.ResourceName]int64, objs framework.ObjectLister) ([]resourcev1.DeviceRequest, []v1.ContainerExtendedResourceRequest) {
	containers := slices.Concat(pod.Spec.InitContainers, pod.Spec.Containers)
	var longLived, shortLived []int
	for i, c := range containers {
		sidecar := c.RestartPolicy != nil && *c.RestartPolicy == v1.ContainerRestartPolicyAlways
		if i < len(pod.Spec.InitContainers) && !sidecar {
			shortLived = append(shortLived, i)
		} else {
			longLived = append(longLived, i)
		}
	}
	names := make([]v1.ResourceName, 0, len(viaDRA))
	for n := range viaDRA {
		names = append(names, n)
	}
	slices.Sort(names)
	var requests []resourcev1.DeviceRequest
	var mappings []v1.ContainerExtendedResourceRequest
	for _, name := range names {
		class := objs.DeviceClassForResource(name)
		if class == nil {
			continue
		}
		var longMappings, shortMappings []v1.ContainerExtendedResourceRequest
		longRequests := make([]*resourcev1.DeviceRequest, len(containers))
		for _, i := range longLived {
			r, m := containerRequest(i, &containers[i], name, class.Name, nil)
			longRequests[i] = r
			longMappings = append(longMappings, m...)
		}
		var largest *resourcev1.DeviceRequest
		shortNames := sets.New[string]()
		for _, i := range shortLived {
			r, m := containerRequest(i, &containers[i], name, class.Name, longRequests[i:])
			if r != nil {
				shortNames.Insert(r.Name)
				if largest == nil || largest.Exactly.Count < r.Exactly.Count {
					largest = r
				}
			}
			shortMappings = append(shortMappings, m...)
		}
		if largest != nil && len(shortNames) > 1 {
			shortNames.Delete(largest.Name)
			for i := range shortMappings {
				if shortNames.Has(shortMappings[i].RequestName) {
					shortMappings[i].RequestName = largest.Name
				}
			}
		}
		if largest != nil {
			requests = append(requests, *largest)
		}
		for _, r := range longRequests {
			if r != nil {
				requests = append(requests, *r)
			}
		}
		mappings = append(mappings, longMappings...)
		mappings = append(mappings, shortMappings...)
	}
	sort.Slice(requests, func(i, j int) bool { return requests[i].Name < requests[j].Name })
	return requests, mappings
}

// containerRequest is one container's request for a resource, after what
// the reusable requests (later long-lived containers', for a plain init
// container) already provide; nil when they cover it all or the
// container does not ask for the resource.
func containerRequest(index int, c *v1.Container, name v1.ResourceName, class string, reusable []*resourcev1.DeviceRequest) (*resourcev1.DeviceRequest, []v1.ContainerExtendedResourceRequest) {
	q, ok := c.Resources.Requests[name]
	if !ok {
		return nil, nil
	}
	want, ok := q.AsInt64()
	if !ok || want == 0 {
		return nil, nil
	}
	var mappings []v1.ContainerExtendedResourceRequest
	var have int64
	for _, r := range reusable {
		if r == nil {
			continue
		}
		have += r.Exactly.Count
		mappings = append(mappings, v1.ContainerExtendedResourceRequest{ContainerName: c.Name, ResourceName: string(name), RequestName: r.Name})
		if have >= want {
			return nil, mappings
		}
	}
	keys := make([]string, 0, len(c.Resources.Requests))
	for k := range c.Resources.Requests {
		keys = append(keys, string(k))
	}
	slices.Sort(keys)
	reqName := fmt.Sprintf("container-%d-request-%d", index, max(slices.Index(keys, string(name)), 0))
	req := &resourcev1.DeviceRequest{Name: reqName, Exactly: &resourcev1.ExactDeviceRequest{
		DeviceClassName: class, AllocationMode: resourcev1.DeviceAllocationModeExactCount, Count: want - have,
	}}
	mappings = append(mappings, v1.ContainerExtendedResourceRequest{ContainerName: c.Name, ResourceName: string(name), RequestName: reqName})
	return req, mappings
}

// createExtendedClaim is PreBind's create of the node's variant: the API
// server names it from generateName and gives it a UID.
func (pl *DynamicResources) createExtendedClaim(s *stateData, nodeName string) (*resourcev1.ResourceClaim, error) {
	s.mu.Lock()
	n, ok := s.ext.nodes[nodeName]
	s.mu.Unlock()
	if !ok || n.claim == nil {
		return nil, fmt.Errorf("extended resource claim not found for node %s", nodeName)
	}
	c := n.claim.DeepCopy()
	c.Status.Allocation = nil
	c.Name = pl.generateClaimName(c.Namespace, c.GenerateName, s.ext.tempUID)
	c.UID = types.UID(fmt.Sprintf("%x", fnvHash(string(s.ext.tempUID)+"/"+c.Name)))
	c.CreationTimestamp = metav1.NewTime(pl.h.Now())
	return c, nil
}

// generateClaimName is generateName plus five characters, as the API
// server's name generator, derived from seed rather than drawn at random
// so that runs stay reproducible without touching the engine's random
// source (which picks among tied nodes); a taken name is skipped.
func (pl *DynamicResources) generateClaimName(namespace, base string, seed types.UID) string {
	const alphabet = "bcdfghjklmnpqrstvwxz2456789"
	for attempt := 0; ; attempt++ {
		h := fnvHash(fmt.Sprintf("%s/%d", seed, attempt))
		suffix := make([]byte, 5)
		for i := range suffix {
			suffix[i] = alphabet[h%uint64(len(alphabet))]
			h /= uint64(len(alphabet))
		}
		name := base + string(suffix)
		if _, err := pl.h.Objects().ResourceClaim(namespace, name); err != nil {
			return name
		}
	}
}

func fnvHash(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

// recordExtendedStatus is PreBind's patch of the pod's status: the
// created claim's name and the container mappings of the node.
func recordExtendedStatus(s *stateData, pod *v1.Pod, claim *resourcev1.ResourceClaim, nodeName string) error {
	s.mu.Lock()
	mappings := s.ext.nodes[nodeName].mappings
	s.mu.Unlock()
	if len(mappings) == 0 {
		return fmt.Errorf("nil or empty request mappings, no update of pod %s/%s ExtendedResourceClaimStatus", pod.Namespace, pod.Name)
	}
	pod.Status.ExtendedResourceClaimStatus = &v1.PodExtendedResourceClaimStatus{RequestMappings: mappings, ResourceClaimName: claim.Name}
	return nil
}

// deleteExtendedClaim deletes a created special claim: its finalizer
// dropped (an update), then the delete, which the scheduler applies to a
// written claim marked deleted without finalizers
// (framework.ClaimWriterPlugin).
func (pl *DynamicResources) deleteExtendedClaim(s *stateData, claim *resourcev1.ResourceClaim) {
	cur, err := pl.h.Objects().ResourceClaim(claim.Namespace, claim.Name)
	if err != nil {
		// Already gone (NotFound is fine for upstream's delete too).
		return
	}
	c := cur.DeepCopy()
	if i := slices.Index(c.Finalizers, resourcev1.Finalizer); i >= 0 {
		c.Finalizers = slices.Delete(c.Finalizers, i, i+1)
		s.write(c)
		c = c.DeepCopy()
	}
	// With another finalizer left, the delete only marks the claim.
	now := metav1.NewTime(pl.h.Now())
	c.DeletionTimestamp = &now
	s.write(c)
}
