package apiserver

// API validation of the fields scheduling reads, with upstream's messages
// (k8s.io/kubernetes v1.37.1 pkg/apis/core/validation, pkg/apis/apps/validation,
// pkg/apis/policy/validation, pkg/apis/storage/validation,
// pkg/apis/scheduling/validation). It is deliberately not a complete port:
// it rejects what the API server would have rejected and the scheduler
// would otherwise have to guess about.

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	policyv1 "k8s.io/api/policy/v1"
	resourcev1 "k8s.io/api/resource/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	resourcehelper "k8s.io/component-helpers/resource"

	"github.com/schedtui/schedtui/internal/docread"
	"github.com/schedtui/schedtui/scheduler/framework"
)

// Scheduling constants (pkg/apis/scheduling/types.go).
const (
	HighestUserDefinablePriority            = int32(1000000000)
	SystemCriticalPriority                  = 2 * HighestUserDefinablePriority
	SystemPriorityClassPrefix               = "system-"
	SystemClusterCritical                   = SystemPriorityClassPrefix + "cluster-critical"
	SystemNodeCritical                      = SystemPriorityClassPrefix + "node-critical"
	DefaultPriorityWhenNoDefaultClassExists = int32(0)
)

var strictSelector = metav1validation.LabelSelectorValidationOptions{AllowInvalidLabelValueInSelector: false}

// pathTo builds a field's path when an error names it. Built ahead for
// every field of every pod, the paths of valid fields were a third of a
// gigabyte at 300,000 pods; closures that are only called do not escape,
// so a valid field costs none.
type pathTo func() *field.Path

// ValidateObjectMeta validates an object's metadata as the API server
// does for a kind that is namespaced or not, whose names nameFn checks.
// Metadata the checks of plainlyValidMeta accept is valid upstream too
// and is not given to upstream's validation, which builds the path of
// every field it checks (a third of a kilobyte a pod) whether it finds
// an error or not; any other goes to it, so every message is upstream's.
func ValidateObjectMeta(obj metav1.Object, namespaced bool, nameFn apimachineryvalidation.ValidateNameFunc) field.ErrorList {
	if plainlyValidMeta(obj, namespaced, nameFn) {
		return nil
	}
	return apimachineryvalidation.ValidateObjectMetaAccessor(metaWithoutValidLabels(obj), namespaced, nameFn, field.NewPath("metadata"))
}

// --- resources ---------------------------------------------------------------

// validateQuantity mirrors ValidateResourceQuantityValue for container and
// node resources: non-negative, and whole numbers for extended resources.
// The path is built only for an error (see pathTo).
func validateQuantity(name v1.ResourceName, q resource.Quantity, at pathTo) field.ErrorList {
	var errs field.ErrorList
	if q.Cmp(resource.Quantity{}) < 0 {
		errs = append(errs, field.Invalid(at(), q.String(), apimachineryvalidation.IsNegativeErrorMsg))
	}
	if framework.IsExtendedResourceName(name) && q.MilliValue()%1000 != 0 {
		errs = append(errs, field.Invalid(at(), q, "must be an integer"))
	}
	return errs
}

func validateResourceList(rl v1.ResourceList, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, name := range sortedResourceNames(rl) {
		errs = append(errs, validateQuantity(name, rl[name], func() *field.Path { return docread.KeyPath(p, string(name)) })...)
	}
	return errs
}

func sortedResourceNames(rl v1.ResourceList) []v1.ResourceName {
	names := make([]v1.ResourceName, 0, len(rl))
	for n := range rl {
		names = append(names, n)
	}
	for i := 1; i < len(names); i++ {
		for j := i; j > 0 && names[j] < names[j-1]; j-- {
			names[j], names[j-1] = names[j-1], names[j]
		}
	}
	return names
}

// validateResourceRequirements mirrors validateResourceRequirements.
func validateResourceRequirements(r *v1.ResourceRequirements, at pathTo) field.ErrorList {
	var errs field.ErrorList
	limPath := func() *field.Path { return at().Child("limits") }
	reqPath := func() *field.Path { return at().Child("requests") }
	limCPUMem, reqCPUMem, hugePages := false, false, false
	for _, name := range sortedResourceNames(r.Limits) {
		errs = append(errs, validateQuantity(name, r.Limits[name], func() *field.Path { return docread.KeyPath(limPath(), string(name)) })...)
		if framework.IsHugePageResourceName(name) {
			hugePages = true
		}
		if name == v1.ResourceCPU || name == v1.ResourceMemory {
			limCPUMem = true
		}
	}
	for _, name := range sortedResourceNames(r.Requests) {
		q := r.Requests[name]
		errs = append(errs, validateQuantity(name, q, func() *field.Path { return docread.KeyPath(reqPath(), string(name)) })...)
		if lim, ok := r.Limits[name]; ok {
			if q.Cmp(lim) != 0 && !isOvercommitAllowed(name) {
				errs = append(errs, field.Invalid(reqPath(), q.String(), fmt.Sprintf("must be equal to %s limit of %s", name, lim.String())))
			} else if q.Cmp(lim) > 0 {
				errs = append(errs, field.Invalid(reqPath(), q.String(), fmt.Sprintf("must be less than or equal to %s limit of %s", name, lim.String())))
			}
		} else if !isOvercommitAllowed(name) {
			errs = append(errs, field.Required(limPath(), "Limit must be set for non overcommitable resources"))
		}
		if framework.IsHugePageResourceName(name) {
			hugePages = true
		}
		if name == v1.ResourceCPU || name == v1.ResourceMemory {
			reqCPUMem = true
		}
	}
	if !limCPUMem && !reqCPUMem && hugePages {
		errs = append(errs, field.Forbidden(at(), "HugePages require cpu or memory"))
	}
	return errs
}

// --- pods ----------------------------------------------------------------------

var supportedPortProtocols = []string{string(v1.ProtocolSCTP), string(v1.ProtocolTCP), string(v1.ProtocolUDP)}

func validatePorts(ports []v1.ContainerPort, at pathTo) field.ErrorList {
	var errs field.ErrorList
	for i, port := range ports {
		ip := func() *field.Path { return at().Index(i) }
		if port.ContainerPort == 0 {
			errs = append(errs, field.Required(ip().Child("containerPort"), ""))
		} else {
			for _, msg := range validation.IsValidPortNum(int(port.ContainerPort)) {
				errs = append(errs, field.Invalid(ip().Child("containerPort"), port.ContainerPort, msg))
			}
		}
		if port.HostPort != 0 {
			for _, msg := range validation.IsValidPortNum(int(port.HostPort)) {
				errs = append(errs, field.Invalid(ip().Child("hostPort"), port.HostPort, msg))
			}
		}
		switch port.Protocol {
		case v1.ProtocolTCP, v1.ProtocolUDP, v1.ProtocolSCTP:
		case "":
			errs = append(errs, field.Required(ip().Child("protocol"), ""))
		default:
			errs = append(errs, field.NotSupported(ip().Child("protocol"), port.Protocol, supportedPortProtocols))
		}
	}
	return errs
}

// validateHostNetworkPorts is the API server's rule for a pod on the
// node's network: each container's hostPort is its containerPort. A pod
// has its unset hostPorts defaulted to its containerPorts before this
// runs, so for a pod an unset one is an error; a template's are only
// filled in when its pods are created, so a template may leave them
// unset (kube-system/aws-node on EKS does). Init containers' ports are
// not checked (the API server does not either).
func validateHostNetworkPorts(spec *v1.PodSpec, isPod bool, p *field.Path) field.ErrorList {
	if !spec.HostNetwork {
		return nil
	}
	var errs field.ErrorList
	for i := range spec.Containers {
		for j, port := range spec.Containers[i].Ports {
			if hp := port.HostPort; (isPod || hp != 0) && hp != port.ContainerPort {
				errs = append(errs, field.Invalid(p.Child("containers").Index(i).Child("ports").Index(j).Child("hostPort"), hp,
					"must match `containerPort` when `hostNetwork` is true"))
			}
		}
	}
	return errs
}

// validatePodSpec validates a pod's spec (isPod) or a workload's
// template's: they differ in what defaulting has filled in (see
// validateHostNetworkPorts).
func validatePodSpec(spec *v1.PodSpec, isPod bool, opts ValidationOptions, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(spec.Containers) == 0 {
		errs = append(errs, field.Required(p.Child("containers"), ""))
	}
	for i := range spec.InitContainers {
		c := &spec.InitContainers[i]
		errs = append(errs, validateResourceRequirements(&c.Resources, func() *field.Path { return p.Child("initContainers").Index(i).Child("resources") })...)
		errs = append(errs, validatePorts(c.Ports, func() *field.Path { return p.Child("initContainers").Index(i).Child("ports") })...)
	}
	for i := range spec.Containers {
		c := &spec.Containers[i]
		errs = append(errs, validateResourceRequirements(&c.Resources, func() *field.Path { return p.Child("containers").Index(i).Child("resources") })...)
		errs = append(errs, validatePorts(c.Ports, func() *field.Path { return p.Child("containers").Index(i).Child("ports") })...)
	}
	errs = append(errs, validateHostNetworkPorts(spec, isPod, p)...)
	for i := range spec.EphemeralContainers {
		ec := &spec.EphemeralContainers[i]
		ep := p.Child("ephemeralContainers").Index(i)
		if len(ec.Resources.Limits)+len(ec.Resources.Requests)+len(ec.Resources.Claims) > 0 {
			errs = append(errs, field.Forbidden(ep.Child("resources"), "cannot be set for an Ephemeral Container"))
		}
		if len(ec.Ports) > 0 {
			errs = append(errs, field.Forbidden(ep.Child("ports"), "cannot be set for an Ephemeral Container"))
		}
	}
	if len(spec.Overhead) > 0 {
		errs = append(errs, validateResourceList(spec.Overhead, p.Child("overhead"))...)
	}
	if spec.Resources != nil {
		errs = append(errs, validatePodLevelResources(spec, p)...)
	}
	errs = append(errs, validateLabels(spec.NodeSelector, func() *field.Path { return p.Child("nodeSelector") })...)
	if spec.Affinity != nil {
		errs = append(errs, validateAffinity(spec.Affinity, p.Child("affinity"))...)
	}
	if len(spec.Tolerations) > 0 {
		errs = append(errs, validateTolerations(spec.Tolerations, opts.AllowTaintTolerationComparisonOperators, p.Child("tolerations"))...)
	}
	if len(spec.TopologySpreadConstraints) > 0 {
		errs = append(errs, validateTopologySpreadConstraints(spec.TopologySpreadConstraints, p.Child("topologySpreadConstraints"))...)
	}
	if spec.PreemptionPolicy != nil {
		errs = append(errs, validatePreemptionPolicy(spec.PreemptionPolicy, p.Child("preemptionPolicy"))...)
	}
	if spec.SchedulingGroup != nil {
		errs = append(errs, validateSchedulingGroup(spec.SchedulingGroup, p.Child("schedulingGroup"))...)
	}
	return errs
}

// validatePodLevelResources mirrors the API server's checks of a pod's
// spec.resources (PodLevelResources, on in 1.37): only cpu, memory and
// hugepages may be named; requests and limits are valid as a container's;
// and, whatever else failed, each pod-level request is at least what the
// containers request together (init and sidecar containers counted as
// the scheduler counts them) and each pod-level limit at least every
// regular container's limit. Resources the pod does not name are left to
// the containers.
func validatePodLevelResources(spec *v1.PodSpec, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	rp := p.Child("resources")
	supported := sets.List(resourcehelper.SupportedPodLevelResources())
	for _, part := range []struct {
		name string
		list v1.ResourceList
	}{{"limits", spec.Resources.Limits}, {"requests", spec.Resources.Requests}} {
		for _, name := range sortedResourceNames(part.list) {
			if !resourcehelper.IsSupportedPodLevelResource(name) {
				errs = append(errs, field.NotSupported(docread.KeyPath(rp.Child(part.name), string(name)), name, supported))
			}
		}
	}
	errs = append(errs, validateResourceRequirements(spec.Resources, func() *field.Path { return rp })...)
	aggregate := resourcehelper.AggregateContainerRequests(&v1.Pod{Spec: *spec}, resourcehelper.PodResourcesOptions{})
	for _, name := range sortedResourceNames(aggregate) {
		podReq, ok := spec.Resources.Requests[name]
		if sum := aggregate[name]; ok && sum.Cmp(podReq) > 0 {
			errs = append(errs, field.Invalid(docread.KeyPath(rp.Child("requests"), string(name)), podReq.String(),
				fmt.Sprintf("must be greater than or equal to aggregate container requests of %s", sum.String())))
		}
	}
	for i := range spec.Containers {
		limits := spec.Containers[i].Resources.Limits
		for _, name := range sortedResourceNames(limits) {
			podLim, ok := spec.Resources.Limits[name]
			if lim := limits[name]; ok && lim.Cmp(podLim) > 0 {
				// (Upstream's path for it, as it is.)
				at := docread.KeyPath(rp.Child("containers").Index(i), string(name)).Child("limits")
				errs = append(errs, field.Invalid(at, lim.String(), fmt.Sprintf("must be less than or equal to pod limits of %s", podLim.String())))
			}
		}
	}
	return errs
}

func validatePod(pod *v1.Pod, opts ValidationOptions) field.ErrorList {
	return validatePodSpec(&pod.Spec, true, opts, field.NewPath("spec"))
}

func validateNodeSelectorRequirement(rq v1.NodeSelectorRequirement, allowInvalidValue bool, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch rq.Operator {
	case v1.NodeSelectorOpIn, v1.NodeSelectorOpNotIn:
		if len(rq.Values) == 0 {
			errs = append(errs, field.Required(p.Child("values"), "must be specified when `operator` is 'In' or 'NotIn'"))
		}
	case v1.NodeSelectorOpExists, v1.NodeSelectorOpDoesNotExist:
		if len(rq.Values) > 0 {
			errs = append(errs, field.Forbidden(p.Child("values"), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
		}
	case v1.NodeSelectorOpGt, v1.NodeSelectorOpLt:
		if len(rq.Values) != 1 {
			errs = append(errs, field.Required(p.Child("values"), "must be specified single value when `operator` is 'Lt' or 'Gt'"))
		}
	default:
		errs = append(errs, field.Invalid(p.Child("operator"), rq.Operator, "not a valid selector operator"))
	}
	errs = append(errs, validateLabelName(rq.Key, func() *field.Path { return p.Child("key") })...)
	if !allowInvalidValue {
		for i, value := range rq.Values {
			for _, msg := range validation.IsValidLabelValue(value) {
				errs = append(errs, field.Invalid(p.Child("values").Index(i), value, msg))
			}
		}
	}
	return errs
}

func validateNodeFieldSelectorRequirement(rq v1.NodeSelectorRequirement, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch rq.Operator {
	case v1.NodeSelectorOpIn, v1.NodeSelectorOpNotIn:
		if len(rq.Values) != 1 {
			errs = append(errs, field.Required(p.Child("values"), "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"))
		}
	default:
		errs = append(errs, field.Invalid(p.Child("operator"), rq.Operator, "not a valid selector operator"))
	}
	if rq.Key != metav1.ObjectNameField {
		errs = append(errs, field.Invalid(p.Child("key"), rq.Key, "not a valid field selector key"))
	} else {
		for i, v := range rq.Values {
			for _, msg := range NameIsDNSSubdomain(v, false) {
				errs = append(errs, field.Invalid(p.Child("values").Index(i), v, msg))
			}
		}
	}
	return errs
}

func validateNodeSelectorTerm(term v1.NodeSelectorTerm, allowInvalidValue bool, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for j, rq := range term.MatchExpressions {
		errs = append(errs, validateNodeSelectorRequirement(rq, allowInvalidValue, p.Child("matchExpressions").Index(j))...)
	}
	for j, rq := range term.MatchFields {
		errs = append(errs, validateNodeFieldSelectorRequirement(rq, p.Child("matchFields").Index(j))...)
	}
	return errs
}

func validateNodeSelector(ns *v1.NodeSelector, p *field.Path) field.ErrorList {
	tp := p.Child("nodeSelectorTerms")
	if len(ns.NodeSelectorTerms) == 0 {
		return field.ErrorList{field.Required(tp, "must have at least one node selector term")}
	}
	var errs field.ErrorList
	for i, term := range ns.NodeSelectorTerms {
		errs = append(errs, validateNodeSelectorTerm(term, false, tp.Index(i))...)
	}
	return errs
}

func validatePodAffinityTerm(t v1.PodAffinityTerm, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, validateLabelSelector(t.LabelSelector, strictSelector, func() *field.Path { return p.Child("labelSelector") })...)
	errs = append(errs, validateLabelSelector(t.NamespaceSelector, strictSelector, func() *field.Path { return p.Child("namespaceSelector") })...)
	for _, name := range t.Namespaces {
		for _, msg := range apimachineryvalidation.ValidateNamespaceName(name, false) {
			errs = append(errs, field.Invalid(p.Child("namespace"), name, msg))
		}
	}
	if t.TopologyKey == "" {
		errs = append(errs, field.Required(p.Child("topologyKey"), "can not be empty"))
	}
	return append(errs, validateLabelName(t.TopologyKey, func() *field.Path { return p.Child("topologyKey") })...)
}

func validatePodAffinityTerms(terms []v1.PodAffinityTerm, weighted []v1.WeightedPodAffinityTerm, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, t := range terms {
		errs = append(errs, validatePodAffinityTerm(t, p.Child("requiredDuringSchedulingIgnoredDuringExecution").Index(i))...)
	}
	for i, wt := range weighted {
		wp := p.Child("preferredDuringSchedulingIgnoredDuringExecution").Index(i)
		if wt.Weight <= 0 || wt.Weight > 100 {
			errs = append(errs, field.Invalid(wp.Child("weight"), wt.Weight, "must be in the range 1-100"))
		}
		errs = append(errs, validatePodAffinityTerm(wt.PodAffinityTerm, wp.Child("podAffinityTerm"))...)
	}
	return errs
}

func validateAffinity(a *v1.Affinity, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if na := a.NodeAffinity; na != nil {
		np := p.Child("nodeAffinity")
		if na.RequiredDuringSchedulingIgnoredDuringExecution != nil {
			errs = append(errs, validateNodeSelector(na.RequiredDuringSchedulingIgnoredDuringExecution, np.Child("requiredDuringSchedulingIgnoredDuringExecution"))...)
		}
		for i, t := range na.PreferredDuringSchedulingIgnoredDuringExecution {
			tp := np.Child("preferredDuringSchedulingIgnoredDuringExecution").Index(i)
			if t.Weight <= 0 || t.Weight > 100 {
				errs = append(errs, field.Invalid(tp.Child("weight"), t.Weight, "must be in the range 1-100"))
			}
			errs = append(errs, validateNodeSelectorTerm(t.Preference, true, tp.Child("preference"))...)
		}
	}
	if pa := a.PodAffinity; pa != nil {
		errs = append(errs, validatePodAffinityTerms(pa.RequiredDuringSchedulingIgnoredDuringExecution, pa.PreferredDuringSchedulingIgnoredDuringExecution, p.Child("podAffinity"))...)
	}
	if pa := a.PodAntiAffinity; pa != nil {
		errs = append(errs, validatePodAffinityTerms(pa.RequiredDuringSchedulingIgnoredDuringExecution, pa.PreferredDuringSchedulingIgnoredDuringExecution, p.Child("podAntiAffinity"))...)
	}
	return errs
}

func validateTaintEffect(effect v1.TaintEffect, allowEmpty bool, at pathTo) field.ErrorList {
	if !allowEmpty && effect == "" {
		return field.ErrorList{field.Required(at(), "")}
	}
	switch effect {
	case v1.TaintEffectNoSchedule, v1.TaintEffectPreferNoSchedule, v1.TaintEffectNoExecute:
		return nil
	default:
		return field.ErrorList{field.NotSupported(at(), effect, []v1.TaintEffect{v1.TaintEffectNoSchedule, v1.TaintEffectPreferNoSchedule, v1.TaintEffectNoExecute})}
	}
}

// canonicalInteger matches a decimal integer written as strconv.Itoa
// writes it: no sign but a minus, no leading zero, no "-0".
var canonicalInteger = regexp.MustCompile(`^(0|-?[1-9][0-9]*)$`)

// validateComparisonValue is the API server's check of an Lt or Gt
// toleration's value: a decimal integer in canonical form that fits in
// 64 bits (the taint's value is compared with it as such).
func validateComparisonValue(value string, at pathTo) field.ErrorList {
	var errs field.ErrorList
	switch {
	case value == "":
		errs = append(errs, field.Invalid(at(), value, "must be non-empty"))
	case !canonicalInteger.MatchString(value):
		errs = append(errs, field.Invalid(at(), value, "must be a valid decimal integer in canonical form"))
	}
	if _, err := strconv.ParseInt(value, 10, 64); err != nil {
		errs = append(errs, field.Invalid(at(), value, err.Error()))
	}
	return errs
}

// validateTolerations mirrors ValidateTolerations. allowComparison is
// upstream's AllowTaintTolerationComparisonOperators (see
// ValidationOptions): without it Lt and Gt are refused, with it their
// value must be an integer.
func validateTolerations(tols []v1.Toleration, allowComparison bool, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, t := range tols {
		ip := func() *field.Path { return p.Index(i) }
		if t.Key != "" {
			errs = append(errs, validateLabelName(t.Key, func() *field.Path { return ip().Child("key") })...)
		}
		if t.Key == "" && t.Operator != v1.TolerationOpExists {
			errs = append(errs, field.Invalid(ip().Child("operator"), t.Operator,
				"operator must be Exists when `key` is empty, which means \"match all values and all keys\""))
		}
		if t.TolerationSeconds != nil && t.Effect != v1.TaintEffectNoExecute {
			errs = append(errs, field.Invalid(ip().Child("effect"), t.Effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"))
		}
		switch t.Operator {
		case v1.TolerationOpEqual, "":
			if isLabelValue(t.Value) {
				break
			}
			if msgs := validation.IsValidLabelValue(t.Value); len(msgs) != 0 {
				errs = append(errs, field.Invalid(ip().Child("operator"), t.Value, strings.Join(msgs, ";")))
			}
		case v1.TolerationOpExists:
			if t.Value != "" {
				errs = append(errs, field.Invalid(ip().Child("operator"), t.Value, "value must be empty when `operator` is 'Exists'"))
			}
		case v1.TolerationOpLt, v1.TolerationOpGt:
			if allowComparison {
				errs = append(errs, validateComparisonValue(t.Value, func() *field.Path { return ip().Child("value") })...)
				break
			}
			// Upstream's message lists Lt and Gt among the supported
			// values even as it refuses them.
			errs = append(errs, field.NotSupported(ip().Child("operator"), t.Operator,
				[]v1.TolerationOperator{v1.TolerationOpEqual, v1.TolerationOpExists, v1.TolerationOpLt, v1.TolerationOpGt}))
		default:
			errs = append(errs, field.NotSupported(ip().Child("operator"), t.Operator, []v1.TolerationOperator{v1.TolerationOpEqual, v1.TolerationOpExists}))
		}
		if t.Effect != "" {
			errs = append(errs, validateTaintEffect(t.Effect, true, func() *field.Path { return ip().Child("effect") })...)
		}
	}
	return errs
}

func validateTopologySpreadConstraints(cs []v1.TopologySpreadConstraint, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	actions := []string{string(v1.DoNotSchedule), string(v1.ScheduleAnyway)}
	policies := []string{string(v1.NodeInclusionPolicyHonor), string(v1.NodeInclusionPolicyIgnore)}
	for i, c := range cs {
		ip := p.Index(i)
		if c.MaxSkew <= 0 {
			errs = append(errs, field.Invalid(ip.Child("maxSkew"), int64(c.MaxSkew), "must be greater than zero"))
		}
		if c.TopologyKey == "" {
			errs = append(errs, field.Required(ip.Child("topologyKey"), "can not be empty"))
		}
		if c.WhenUnsatisfiable != v1.DoNotSchedule && c.WhenUnsatisfiable != v1.ScheduleAnyway {
			errs = append(errs, field.NotSupported(ip.Child("whenUnsatisfiable"), c.WhenUnsatisfiable, actions))
		}
		for _, rest := range cs[i+1:] {
			if c.TopologyKey == rest.TopologyKey && c.WhenUnsatisfiable == rest.WhenUnsatisfiable {
				errs = append(errs, field.Duplicate(ip.Child("{topologyKey, whenUnsatisfiable}"), fmt.Sprintf("{%v, %v}", c.TopologyKey, c.WhenUnsatisfiable)))
				break
			}
		}
		if c.MinDomains != nil {
			if *c.MinDomains <= 0 {
				errs = append(errs, field.Invalid(ip.Child("minDomains"), int64(*c.MinDomains), "must be greater than zero"))
			}
			if c.WhenUnsatisfiable != v1.DoNotSchedule {
				errs = append(errs, field.Invalid(ip.Child("minDomains"), c.MinDomains,
					fmt.Sprintf("can only use minDomains if whenUnsatisfiable=%s, not %s", v1.DoNotSchedule, c.WhenUnsatisfiable)))
			}
		}
		if c.NodeAffinityPolicy != nil && *c.NodeAffinityPolicy != v1.NodeInclusionPolicyHonor && *c.NodeAffinityPolicy != v1.NodeInclusionPolicyIgnore {
			errs = append(errs, field.NotSupported(ip.Child("nodeAffinityPolicy"), c.NodeAffinityPolicy, policies))
		}
		if c.NodeTaintsPolicy != nil && *c.NodeTaintsPolicy != v1.NodeInclusionPolicyHonor && *c.NodeTaintsPolicy != v1.NodeInclusionPolicyIgnore {
			errs = append(errs, field.NotSupported(ip.Child("nodeTaintsPolicy"), c.NodeTaintsPolicy, policies))
		}
		errs = append(errs, validateLabelSelector(c.LabelSelector, strictSelector, func() *field.Path { return ip.Child("labelSelector") })...)
	}
	return errs
}

func validatePreemptionPolicy(pp *v1.PreemptionPolicy, p *field.Path) field.ErrorList {
	switch *pp {
	case v1.PreemptLowerPriority, v1.PreemptNever:
		return nil
	case "":
		return field.ErrorList{field.Required(p, "")}
	default:
		return field.ErrorList{field.NotSupported(p, pp, []v1.PreemptionPolicy{v1.PreemptLowerPriority, v1.PreemptNever})}
	}
}

// --- nodes ---------------------------------------------------------------------

func validateNode(n *v1.Node) field.ErrorList {
	var errs field.ErrorList
	seen := map[v1.TaintEffect]map[string]bool{}
	tp := field.NewPath("spec", "taints")
	for i, t := range n.Spec.Taints {
		ip := tp.Index(i)
		errs = append(errs, validateLabelName(t.Key, func() *field.Path { return ip.Child("key") })...)
		if msgs := validation.IsValidLabelValue(t.Value); len(msgs) != 0 {
			errs = append(errs, field.Invalid(ip.Child("value"), t.Value, strings.Join(msgs, ";")))
		}
		errs = append(errs, validateTaintEffect(t.Effect, false, func() *field.Path { return ip.Child("effect") })...)
		if seen[t.Effect][t.Key] {
			e := field.Duplicate(ip, t)
			e.Detail = "taints must be unique by key and effect pair"
			errs = append(errs, e)
			continue
		}
		if seen[t.Effect] == nil {
			seen[t.Effect] = map[string]bool{}
		}
		seen[t.Effect][t.Key] = true
	}
	sp := field.NewPath("status")
	errs = append(errs, validateResourceList(n.Status.Capacity, sp.Child("capacity"))...)
	errs = append(errs, validateResourceList(n.Status.Allocatable, sp.Child("allocatable"))...)
	return errs
}

// --- priority classes ----------------------------------------------------------

var systemPriorityClasses = []*schedulingv1.PriorityClass{
	{
		ObjectMeta:  metav1.ObjectMeta{Name: SystemNodeCritical},
		Value:       SystemCriticalPriority + 1000,
		Description: "Used for system critical pods that must not be moved from their current node.",
	},
	{
		ObjectMeta:  metav1.ObjectMeta{Name: SystemClusterCritical},
		Value:       SystemCriticalPriority,
		Description: "Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.",
	},
}

// SystemPriorityClasses returns the built-in classes every cluster has,
// defaulted as stored.
func SystemPriorityClasses() []*schedulingv1.PriorityClass {
	out := make([]*schedulingv1.PriorityClass, 0, len(systemPriorityClasses))
	for _, pc := range systemPriorityClasses {
		c := pc.DeepCopy()
		defaultPriorityClass(c)
		out = append(out, c)
	}
	return out
}

func isKnownSystemPriorityClass(name string, value int32, globalDefault bool) (bool, error) {
	for _, spc := range systemPriorityClasses {
		if spc.Name == name {
			if spc.Value != value {
				return false, fmt.Errorf("value of %v PriorityClass must be %v", spc.Name, spc.Value)
			}
			if spc.GlobalDefault != globalDefault {
				return false, fmt.Errorf("globalDefault of %v PriorityClass must be %v", spc.Name, spc.GlobalDefault)
			}
			return true, nil
		}
	}
	return false, fmt.Errorf("%v is not a known system priority class", name)
}

// validatePriorityClass mirrors ValidatePriorityClass (metadata is
// validated separately).
func validatePriorityClass(pc *schedulingv1.PriorityClass) field.ErrorList {
	var errs field.ErrorList
	if strings.HasPrefix(pc.Name, SystemPriorityClassPrefix) {
		if ok, err := isKnownSystemPriorityClass(pc.Name, pc.Value, pc.GlobalDefault); !ok {
			errs = append(errs, field.Forbidden(field.NewPath("metadata", "name"),
				"priority class names with '"+SystemPriorityClassPrefix+"' prefix are reserved for system use only. error: "+err.Error()))
		}
	} else if pc.Value > HighestUserDefinablePriority {
		errs = append(errs, field.Forbidden(field.NewPath("value"), fmt.Sprintf("maximum allowed value of a user defined priority is %v", HighestUserDefinablePriority)))
	}
	if pc.PreemptionPolicy != nil {
		errs = append(errs, validatePreemptionPolicy(pc.PreemptionPolicy, field.NewPath("preemptionPolicy"))...)
	}
	return errs
}

// --- workloads -----------------------------------------------------------------

func validateLabelSelectorWorkload(sel *metav1.LabelSelector, tmplLabels map[string]string, p *field.Path, kindWord string) field.ErrorList {
	var errs field.ErrorList
	if sel == nil {
		return append(errs, field.Required(p.Child("selector"), ""))
	}
	errs = append(errs, validateLabelSelector(sel, strictSelector, func() *field.Path { return p.Child("selector") })...)
	if len(sel.MatchLabels)+len(sel.MatchExpressions) == 0 {
		errs = append(errs, field.Invalid(p.Child("selector"), sel, "empty selector is invalid for "+kindWord))
	}
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		return append(errs, field.Invalid(p.Child("selector"), sel, "invalid label selector"))
	}
	if !s.Empty() && !s.Matches(labels.Set(tmplLabels)) {
		errs = append(errs, field.Invalid(p.Child("template", "metadata", "labels"), tmplLabels, "`selector` does not match template `labels`"))
	}
	return errs
}

func validateReplicaSet(rs *appsv1.ReplicaSet, opts ValidationOptions) field.ErrorList {
	p := field.NewPath("spec")
	errs := validateLabelSelectorWorkload(rs.Spec.Selector, rs.Spec.Template.Labels, p, "deployment")
	return append(errs, validatePodSpec(&rs.Spec.Template.Spec, false, opts, p.Child("template", "spec"))...)
}

func validateStatefulSet(ss *appsv1.StatefulSet, opts ValidationOptions) field.ErrorList {
	p := field.NewPath("spec")
	errs := validateLabelSelectorWorkload(ss.Spec.Selector, ss.Spec.Template.Labels, p, "statefulset")
	return append(errs, validatePodSpec(&ss.Spec.Template.Spec, false, opts, p.Child("template", "spec"))...)
}

func validateDaemonSet(ds *appsv1.DaemonSet, opts ValidationOptions) field.ErrorList {
	p := field.NewPath("spec")
	var errs field.ErrorList
	errs = append(errs, validateLabelSelector(ds.Spec.Selector, strictSelector, func() *field.Path { return p.Child("selector") })...)
	if s, err := metav1.LabelSelectorAsSelector(ds.Spec.Selector); err == nil && !s.Matches(labels.Set(ds.Spec.Template.Labels)) {
		errs = append(errs, field.Invalid(p.Child("template", "metadata", "labels"), ds.Spec.Template.Labels, "`selector` does not match template `labels`"))
	}
	if ds.Spec.Selector != nil && len(ds.Spec.Selector.MatchLabels)+len(ds.Spec.Selector.MatchExpressions) == 0 {
		errs = append(errs, field.Invalid(p.Child("selector"), ds.Spec.Selector, "empty selector is invalid for daemonset"))
	}
	return append(errs, validatePodSpec(&ds.Spec.Template.Spec, false, opts, p.Child("template", "spec"))...)
}

func validateReplicationController(rc *v1.ReplicationController, opts ValidationOptions) field.ErrorList {
	p := field.NewPath("spec")
	var errs field.ErrorList
	if labels.Set(rc.Spec.Selector).AsSelector().Empty() {
		errs = append(errs, field.Required(p.Child("selector"), ""))
	}
	errs = append(errs, validateLabels(rc.Spec.Selector, func() *field.Path { return p.Child("selector") })...)
	if rc.Spec.Template == nil {
		return append(errs, field.Required(p.Child("template"), ""))
	}
	sel := labels.Set(rc.Spec.Selector).AsSelector()
	if !sel.Empty() && !sel.Matches(labels.Set(rc.Spec.Template.Labels)) {
		errs = append(errs, field.Invalid(p.Child("template", "metadata", "labels"), rc.Spec.Template.Labels, "`selector` does not match template `labels`"))
	}
	return append(errs, validatePodSpec(&rc.Spec.Template.Spec, false, opts, p.Child("template", "spec"))...)
}

func validateService(svc *v1.Service) field.ErrorList {
	return validateLabels(svc.Spec.Selector, func() *field.Path { return field.NewPath("spec", "selector") })
}

func validatePodDisruptionBudget(pdb *policyv1.PodDisruptionBudget) field.ErrorList {
	p := field.NewPath("spec")
	var errs field.ErrorList
	if pdb.Spec.MinAvailable != nil && pdb.Spec.MaxUnavailable != nil {
		errs = append(errs, field.Invalid(p, pdb.Spec, "minAvailable and maxUnavailable cannot be both set"))
	}
	return append(errs, validateLabelSelector(pdb.Spec.Selector, strictSelector, func() *field.Path { return p.Child("selector") })...)
}

// --- storage -------------------------------------------------------------------

func validateStorageClass(sc *storagev1.StorageClass) field.ErrorList {
	var errs field.ErrorList
	if sc.Provisioner == "" {
		errs = append(errs, field.Required(field.NewPath("provisioner"), sc.Provisioner))
	}
	if sc.ReclaimPolicy != nil && *sc.ReclaimPolicy != v1.PersistentVolumeReclaimDelete && *sc.ReclaimPolicy != v1.PersistentVolumeReclaimRetain {
		errs = append(errs, field.NotSupported(field.NewPath("reclaimPolicy"), *sc.ReclaimPolicy,
			[]string{string(v1.PersistentVolumeReclaimDelete), string(v1.PersistentVolumeReclaimRetain)}))
	}
	if sc.VolumeBindingMode != nil && *sc.VolumeBindingMode != storagev1.VolumeBindingImmediate && *sc.VolumeBindingMode != storagev1.VolumeBindingWaitForFirstConsumer {
		errs = append(errs, field.NotSupported(field.NewPath("volumeBindingMode"), *sc.VolumeBindingMode,
			[]string{string(storagev1.VolumeBindingImmediate), string(storagev1.VolumeBindingWaitForFirstConsumer)}))
	}
	return errs
}

var supportedVolumeModes = []string{string(v1.PersistentVolumeBlock), string(v1.PersistentVolumeFilesystem)}

func validateVolumeMode(m *v1.PersistentVolumeMode, p *field.Path) field.ErrorList {
	if m != nil && *m != v1.PersistentVolumeBlock && *m != v1.PersistentVolumeFilesystem {
		return field.ErrorList{field.NotSupported(p, *m, supportedVolumeModes)}
	}
	return nil
}

func validatePersistentVolume(pv *v1.PersistentVolume) field.ErrorList {
	p := field.NewPath("spec")
	errs := validateVolumeMode(pv.Spec.VolumeMode, p.Child("volumeMode"))
	errs = append(errs, validateResourceList(pv.Spec.Capacity, p.Child("capacity"))...)
	if na := pv.Spec.NodeAffinity; na != nil {
		if na.Required == nil {
			errs = append(errs, field.Required(p.Child("nodeAffinity", "required"), "must specify required node constraints"))
		} else {
			errs = append(errs, validateNodeSelector(na.Required, p.Child("nodeAffinity", "required"))...)
		}
	}
	return errs
}

func validatePersistentVolumeClaim(pvc *v1.PersistentVolumeClaim) field.ErrorList {
	p := field.NewPath("spec")
	errs := validateVolumeMode(pvc.Spec.VolumeMode, p.Child("volumeMode"))
	errs = append(errs, validateResourceList(pvc.Spec.Resources.Requests, p.Child("resources", "requests"))...)
	return errs
}

// --- runtime classes -----------------------------------------------------------

func validateRuntimeClass(rc *nodev1.RuntimeClass) field.ErrorList {
	var errs field.ErrorList
	if rc.Overhead != nil {
		errs = append(errs, validateResourceList(rc.Overhead.PodFixed, field.NewPath("overhead", "podFixed"))...)
	}
	if s := rc.Scheduling; s != nil {
		p := field.NewPath("scheduling")
		errs = append(errs, validateLabels(s.NodeSelector, func() *field.Path { return p.Child("nodeSelector") })...)
		// The API server validates a RuntimeClass's tolerations without
		// the comparison operators, whatever its gates.
		errs = append(errs, validateTolerations(s.Tolerations, false, p.Child("tolerations"))...)
	}
	return errs
}

// Default applies the API server's defaulting to an object of a kind
// schedtui reads, in place; other objects are left alone.
func Default(obj runtime.Object) {
	switch o := obj.(type) {
	case *v1.Pod:
		defaultPod(o)
	case *v1.Node:
		defaultNode(o)
	case *v1.Namespace:
		defaultNamespace(o)
	case *v1.PersistentVolume:
		defaultPersistentVolume(o)
	case *v1.PersistentVolumeClaim:
		defaultPersistentVolumeClaim(o)
	case *v1.Service:
		defaultService(o)
	case *v1.ReplicationController:
		defaultReplicationController(o)
	case *schedulingv1.PriorityClass:
		defaultPriorityClass(o)
	case *storagev1.StorageClass:
		defaultStorageClass(o)
	case *storagev1.CSIDriver:
		defaultCSIDriver(o)
	case *storagev1.VolumeAttachment:
		defaultVolumeAttachment(o)
	case *appsv1.ReplicaSet:
		defaultReplicaSet(o)
	case *appsv1.StatefulSet:
		defaultStatefulSet(o)
	case *appsv1.DaemonSet:
		defaultDaemonSet(o)
	case *resourcev1.ResourceClaim:
		defaultResourceClaim(o)
	case *resourcev1.ResourceClaimTemplate:
		defaultDeviceRequests(o.Spec.Spec.Devices.Requests)
	case *schedulingv1beta1.PodGroup:
		defaultPodGroup(o)
	case *schedulingv1alpha3.CompositePodGroup:
		defaultCompositePodGroup(o)
	}
}

// DefaultUnder is Default, then the defaults that an API server applies
// only with the gates opts says (a group's preemptionPolicy under
// PodGroupPreemptionPolicy).
func DefaultUnder(obj runtime.Object, opts ValidationOptions) {
	Default(obj)
	defaultGroupPreemptionPolicy(obj, opts)
}

// ValidationOptions are the API server's feature gates that validation
// reads (upstream's PodValidationOptions and the declarative rules'
// options, from its gates), and with them its gated defaults
// (DefaultUnder) and the fields it drops on create
// (DropDisabledFields).
type ValidationOptions struct {
	// AllowTaintTolerationComparisonOperators: the
	// TaintTolerationComparisonOperators gate, under which tolerations
	// (of pods and of workloads' templates) may use Lt and Gt.
	AllowTaintTolerationComparisonOperators bool
	// GenericWorkload: a new pod, or a new workload's pod template, keeps
	// spec.schedulingGroup.
	GenericWorkload bool
	// TopologyAwareWorkloadScheduling: a new PodGroup, or a new
	// Workload's PodGroup template, keeps schedulingConstraints.
	TopologyAwareWorkloadScheduling bool
	// CompositePodGroup: a new PodGroup keeps the name of its parent, a
	// new Workload its composite templates.
	CompositePodGroup bool
	// PodGroupPreemptionPolicy: new groups and templates keep
	// preemptionPolicy, which a PodGroup defaults.
	PodGroupPreemptionPolicy bool
	// DRAWorkloadResourceClaims: a new PodGroup (or Workload template)
	// keeps its resourceClaims (DropDisabledWorkloadClaims).
	DRAWorkloadResourceClaims bool
}

// Validate validates an object of a kind schedtui reads as the API server
// does on create (beyond its metadata: see ValidateObjectMeta) with the
// gates opts says; other objects pass. An object read back from an API
// server (IsStored) was accepted there: as the API server does when such
// an object is updated, what a gate allows stays valid in it with the
// gate off (its tolerations' Lt and Gt: they are still checked).
func Validate(obj runtime.Object, opts ValidationOptions) field.ErrorList {
	if !opts.AllowTaintTolerationComparisonOperators && storedWithComparisonOperators(obj) {
		opts.AllowTaintTolerationComparisonOperators = true
	}
	switch o := obj.(type) {
	case *v1.Pod:
		return validatePod(o, opts)
	case *v1.Node:
		return validateNode(o)
	case *v1.PersistentVolume:
		return validatePersistentVolume(o)
	case *v1.PersistentVolumeClaim:
		return validatePersistentVolumeClaim(o)
	case *v1.Service:
		return validateService(o)
	case *v1.ReplicationController:
		return validateReplicationController(o, opts)
	case *schedulingv1.PriorityClass:
		return validatePriorityClass(o)
	case *policyv1.PodDisruptionBudget:
		return validatePodDisruptionBudget(o)
	case *storagev1.StorageClass:
		return validateStorageClass(o)
	case *appsv1.ReplicaSet:
		return validateReplicaSet(o, opts)
	case *appsv1.StatefulSet:
		return validateStatefulSet(o, opts)
	case *appsv1.DaemonSet:
		return validateDaemonSet(o, opts)
	case *nodev1.RuntimeClass:
		return validateRuntimeClass(o)
	case *resourcev1.ResourceClaim:
		return validateResourceClaim(o)
	case *resourcev1.ResourceClaimTemplate:
		return validateResourceClaimTemplate(o)
	case *resourcev1.DeviceClass:
		return validateDeviceClass(o)
	case *resourcev1.ResourceSlice:
		return validateResourceSlice(o)
	case *resourcev1.DeviceTaintRule:
		return validateDeviceTaintRule(o)
	case *schedulingv1beta1.Workload:
		return validateWorkload(o, opts)
	case *schedulingv1beta1.PodGroup:
		return append(validatePodGroup(o, opts), validatePodGroupStatus(o)...)
	case *schedulingv1alpha3.CompositePodGroup:
		return append(validateCompositePodGroup(o, opts), validateCompositePodGroupStatus(o)...)
	}
	return nil
}

// storedWithComparisonOperators reports whether obj was read back from an
// API server (IsStored) and its pod spec (see PodSpecOf) has a toleration
// with Lt or Gt.
func storedWithComparisonOperators(obj runtime.Object) bool {
	spec := PodSpecOf(obj)
	if acc, ok := obj.(metav1.Object); spec == nil || !ok || acc.GetResourceVersion() == "" {
		return false
	}
	for _, t := range spec.Tolerations {
		if t.Operator == v1.TolerationOpLt || t.Operator == v1.TolerationOpGt {
			return true
		}
	}
	return false
}

// PodSpecOf is the pod spec obj holds: a pod's, or the template's of a
// workload schedtui reads; nil for any other object.
func PodSpecOf(obj runtime.Object) *v1.PodSpec {
	switch o := obj.(type) {
	case *v1.Pod:
		return &o.Spec
	case *appsv1.ReplicaSet:
		return &o.Spec.Template.Spec
	case *appsv1.StatefulSet:
		return &o.Spec.Template.Spec
	case *appsv1.DaemonSet:
		return &o.Spec.Template.Spec
	case *v1.ReplicationController:
		if o.Spec.Template != nil {
			return &o.Spec.Template.Spec
		}
	}
	return nil
}
