package apiserver

// Workload-aware scheduling's objects as the API server takes them:
// Workload and PodGroup (scheduling.k8s.io/v1beta1), CompositePodGroup
// (v1alpha3, the version 1.37 serves), and a pod's spec.schedulingGroup.
// Written from the behaviour of k8s.io/kubernetes v1.37.1
// pkg/apis/scheduling/v1beta1 (defaults, the declarative validation
// generated from the API's tags), pkg/apis/scheduling/validation (the
// hand-written rules over a Workload's template tree), pkg/api/pod/util.go
// dropDisabledSchedulingGroup and pkg/apis/core/validation
// validateSchedulingGroup. The declarative rules are spelled with
// apimachinery's validate package, which words their messages; the
// CompositePodGroup's are k8s.io/api's own generated validation.

import (
	"context"
	"fmt"

	v1 "k8s.io/api/core/v1"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/api/operation"
	"k8s.io/apimachinery/pkg/api/validate"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Gate names, as the API server's declarative validation names its
// options.
const (
	gateCompositePodGroup               = "CompositePodGroup"
	gateTopologyAwareWorkloadScheduling = "TopologyAwareWorkloadScheduling"
	gatePodGroupPreemptionPolicy        = "PodGroupPreemptionPolicy"
)

// workloadMaxTemplateDepth is the deepest a Workload's tree of composite
// templates may go (pkg/apis/scheduling WorkloadMaxTemplateDepth).
const workloadMaxTemplateDepth = 4

// maxPriority is the highest priority a template or group may name
// (the API's +k8s:maximum on priority).
const maxPriority = int32(1000000000)

// validateSchedulingGroup: the one member of the union (podGroupName) is
// required, and names a PodGroup (a DNS subdomain).
func validateSchedulingGroup(sg *v1.PodSchedulingGroup, p *field.Path) field.ErrorList {
	np := p.Child("podGroupName")
	if sg.PodGroupName == nil {
		return field.ErrorList{field.Invalid(np, sg.PodGroupName, "must specify one of: `podGroupName`")}
	}
	var errs field.ErrorList
	for _, msg := range NameIsDNSSubdomain(*sg.PodGroupName, false) {
		errs = append(errs, field.Invalid(np, *sg.PodGroupName, msg))
	}
	return errs
}

// --- defaulting ----------------------------------------------------------------

// defaultPodGroup: a group without a disruption mode is disrupted one pod
// at a time.
func defaultPodGroup(pg *schedulingv1beta1.PodGroup) {
	if pg.Spec.DisruptionMode == nil {
		pg.Spec.DisruptionMode = &schedulingv1beta1.DisruptionMode{Single: &schedulingv1beta1.SingleDisruptionMode{}}
	}
}

func defaultCompositePodGroup(cpg *schedulingv1alpha3.CompositePodGroup) {
	if cpg.Spec.DisruptionMode == nil {
		cpg.Spec.DisruptionMode = &schedulingv1alpha3.CompositeDisruptionMode{Single: &schedulingv1alpha3.SingleCompositeDisruptionMode{}}
	}
}

// defaultGroupPreemptionPolicy: with PodGroupPreemptionPolicy a group
// may preempt lower priorities unless it says otherwise.
func defaultGroupPreemptionPolicy(obj runtime.Object, opts ValidationOptions) {
	if !opts.PodGroupPreemptionPolicy {
		return
	}
	switch o := obj.(type) {
	case *schedulingv1beta1.PodGroup:
		if o.Spec.PreemptionPolicy == nil {
			o.Spec.PreemptionPolicy = ptrTo(schedulingv1beta1.PreemptLowerPriority)
		}
	case *schedulingv1alpha3.CompositePodGroup:
		if o.Spec.PreemptionPolicy == nil {
			o.Spec.PreemptionPolicy = ptrTo(schedulingv1alpha3.PreemptLowerPriority)
		}
	}
}

// --- validation ------------------------------------------------------------------

// workloadValidation is one object's validation: a create, with the
// gates as the declarative rules' options. An object read back from an
// API server (stored) keeps its gated fields whatever the gates: the
// server took them.
type workloadValidation struct {
	ctx context.Context
	op  operation.Operation
}

func newWorkloadValidation(opts ValidationOptions, stored bool) *workloadValidation {
	return &workloadValidation{ctx: context.Background(), op: operation.Operation{Type: operation.Create, Options: map[string]bool{
		gateCompositePodGroup:               stored || opts.CompositePodGroup,
		gateTopologyAwareWorkloadScheduling: stored || opts.TopologyAwareWorkloadScheduling,
		gatePodGroupPreemptionPolicy:        stored || opts.PodGroupPreemptionPolicy,
	}}}
}

// gated says whether a field set behind gate may be validated further:
// with the gate off a new object may not set it (Forbidden, added to
// errs). The loader never meets that: it has dropped such a field from a
// new object first (DropDisabledFields), as the API server's
// PrepareForCreate does before it validates.
func (v *workloadValidation) gated(gate string, set bool, p *field.Path, errs *field.ErrorList) bool {
	if !set {
		return false
	}
	if v.op.Options[gate] {
		return true
	}
	*errs = append(*errs, field.Forbidden(p, ""))
	return false
}

// requiredName: a required name (RequiredValue, then the format).
func (v *workloadValidation) requiredName(name string, p *field.Path,
	format func(context.Context, operation.Operation, *field.Path, *string, *string) field.ErrorList) field.ErrorList {
	if errs := validate.RequiredValue(v.ctx, v.op, p, &name, nil); len(errs) > 0 {
		return errs
	}
	return format(v.ctx, v.op, p, &name, nil)
}

// optionalLongName: an optional name (a DNS subdomain when set).
func (v *workloadValidation) optionalLongName(name *string, p *field.Path) field.ErrorList {
	if name == nil || *name == "" {
		return nil
	}
	return validate.LongName(v.ctx, v.op, p, name, nil)
}

func (v *workloadValidation) priority(className string, priority *int32, p *field.Path) field.ErrorList {
	errs := v.optionalLongName(&className, p.Child("priorityClassName"))
	if priority != nil {
		errs = append(errs, validate.Maximum(v.ctx, v.op, p.Child("priority"), priority, nil, maxPriority)...)
	}
	return errs
}

var preemptionPolicies = sets.New(schedulingv1beta1.PreemptLowerPriority, schedulingv1beta1.PreemptNever)

func (v *workloadValidation) preemptionPolicy(policy *schedulingv1beta1.PreemptionPolicy, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if v.gated(gatePodGroupPreemptionPolicy, policy != nil, p, &errs) {
		errs = append(errs, validate.Enum(v.ctx, v.op, p, policy, nil, preemptionPolicies, nil)...)
	}
	return errs
}

// topology: at most one constraint, each a label key.
func (v *workloadValidation) topology(constraints []schedulingv1beta1.TopologyConstraint, p *field.Path) field.ErrorList {
	tp := p.Child("topology")
	if errs := validate.MaxItems(v.ctx, v.op, tp, constraints, nil, 1); len(errs) > 0 {
		return errs
	}
	var errs field.ErrorList
	for i := range constraints {
		errs = append(errs, v.requiredName(constraints[i].Key, tp.Index(i).Child("key"), validate.LabelKey[string])...)
	}
	return errs
}

var (
	// A group's and a composite group's scheduling policy alike.
	policyMembers         = validate.NewUnionMembership(validate.NewUnionMember("basic"), validate.NewUnionMember("gang"))
	disruptionModeMembers = validate.NewUnionMembership(validate.NewUnionMember("single"), validate.NewUnionMember("all"))
	claimSourceMembers    = validate.NewUnionMembership(validate.NewUnionMember("resourceClaimName"), validate.NewUnionMember("resourceClaimTemplateName"))
	workloadSpecMembers   = validate.NewUnionMembership(validate.NewUnionMember("podGroupTemplates"), validate.NewUnionMember("compositePodGroupTemplates"))
)

// minCount: required, at least 1 (a gang's minCount, a composite gang's
// minGroupCount).
func (v *workloadValidation) minCount(n int32, p *field.Path) field.ErrorList {
	if errs := validate.RequiredValue(v.ctx, v.op, p, &n, nil); len(errs) > 0 {
		return errs
	}
	return validate.Minimum(v.ctx, v.op, p, &n, nil, 1)
}

func (v *workloadValidation) schedulingPolicy(sp *schedulingv1beta1.PodGroupSchedulingPolicy, p *field.Path) field.ErrorList {
	errs := validate.Union(v.ctx, v.op, p, sp, nil, policyMembers,
		func(sp *schedulingv1beta1.PodGroupSchedulingPolicy) bool { return sp.Basic != nil },
		func(sp *schedulingv1beta1.PodGroupSchedulingPolicy) bool { return sp.Gang != nil })
	if sp.Gang != nil {
		errs = append(errs, v.minCount(sp.Gang.MinCount, p.Child("gang", "minCount"))...)
	}
	return errs
}

func (v *workloadValidation) disruptionMode(dm *schedulingv1beta1.DisruptionMode, p *field.Path) field.ErrorList {
	if dm == nil {
		return nil
	}
	return validate.Union(v.ctx, v.op, p, dm, nil, disruptionModeMembers,
		func(dm *schedulingv1beta1.DisruptionMode) bool { return dm.Single != nil },
		func(dm *schedulingv1beta1.DisruptionMode) bool { return dm.All != nil })
}

// resourceClaims: at most 4, unique by name, each naming a claim or a
// template.
func (v *workloadValidation) resourceClaims(claims []schedulingv1beta1.PodGroupResourceClaim, p *field.Path) field.ErrorList {
	if errs := validate.MaxItems(v.ctx, v.op, p, claims, nil, schedulingv1beta1.MaxPodGroupResourceClaims); len(errs) > 0 {
		return errs
	}
	errs := validate.ValSliceUnique(v.ctx, v.op, p, claims, nil, func(a, b *schedulingv1beta1.PodGroupResourceClaim) bool { return a.Name == b.Name })
	for i := range claims {
		c, cp := &claims[i], p.Index(i)
		errs = append(errs, validate.Union(v.ctx, v.op, cp, c, nil, claimSourceMembers,
			func(c *schedulingv1beta1.PodGroupResourceClaim) bool { return c.ResourceClaimName != nil },
			func(c *schedulingv1beta1.PodGroupResourceClaim) bool { return c.ResourceClaimTemplateName != nil })...)
		errs = append(errs, v.requiredName(c.Name, cp.Child("name"), validate.ShortName[string])...)
		if c.ResourceClaimName != nil {
			errs = append(errs, validate.LongName(v.ctx, v.op, cp.Child("resourceClaimName"), c.ResourceClaimName, nil)...)
		}
		if c.ResourceClaimTemplateName != nil {
			errs = append(errs, validate.LongName(v.ctx, v.op, cp.Child("resourceClaimTemplateName"), c.ResourceClaimTemplateName, nil)...)
		}
	}
	return errs
}

func validatePodGroup(pg *schedulingv1beta1.PodGroup, opts ValidationOptions) field.ErrorList {
	v := newWorkloadValidation(opts, IsStored(&pg.ObjectMeta))
	s, p := &pg.Spec, field.NewPath("spec")
	var errs field.ErrorList
	// The hand-written rule (its declarative twin is alpha).
	if s.ParentCompositePodGroupName != nil && s.WorkloadRef == nil {
		errs = append(errs, field.Required(p.Child("workloadRef"), "must be set when parentCompositePodGroupName is set"))
	}
	if pp := p.Child("parentCompositePodGroupName"); v.gated(gateCompositePodGroup, s.ParentCompositePodGroupName != nil, pp, &errs) {
		errs = append(errs, validate.LongName(v.ctx, v.op, pp, s.ParentCompositePodGroupName, nil)...)
	}
	if ref := s.WorkloadRef; ref != nil {
		rp := p.Child("workloadRef")
		errs = append(errs, v.requiredName(ref.WorkloadName, rp.Child("workloadName"), validate.LongName[string])...)
		errs = append(errs, v.requiredName(ref.TemplateName, rp.Child("templateName"), validate.ShortName[string])...)
	}
	errs = append(errs, v.schedulingPolicy(&s.SchedulingPolicy, p.Child("schedulingPolicy"))...)
	if cp := p.Child("schedulingConstraints"); v.gated(gateTopologyAwareWorkloadScheduling, s.SchedulingConstraints != nil, cp, &errs) {
		errs = append(errs, v.topology(s.SchedulingConstraints.Topology, cp)...)
	}
	errs = append(errs, v.resourceClaims(s.ResourceClaims, p.Child("resourceClaims"))...)
	if s.DisruptionMode == nil {
		errs = append(errs, validate.RequiredPointer(v.ctx, v.op, p.Child("disruptionMode"), s.DisruptionMode, nil)...)
	}
	errs = append(errs, v.disruptionMode(s.DisruptionMode, p.Child("disruptionMode"))...)
	errs = append(errs, v.priority(s.PriorityClassName, s.Priority, p)...)
	errs = append(errs, v.preemptionPolicy(s.PreemptionPolicy, p.Child("preemptionPolicy"))...)
	return errs
}

func validateWorkload(w *schedulingv1beta1.Workload, opts ValidationOptions) field.ErrorList {
	v := newWorkloadValidation(opts, IsStored(&w.ObjectMeta))
	s, p := &w.Spec, field.NewPath("spec")
	errs := validate.Union(v.ctx, v.op, p, s, nil, workloadSpecMembers,
		func(s *schedulingv1beta1.WorkloadSpec) bool { return len(s.PodGroupTemplates) > 0 },
		func(s *schedulingv1beta1.WorkloadSpec) bool { return len(s.CompositePodGroupTemplates) > 0 })
	if ref := s.ControllerRef; ref != nil {
		rp := p.Child("controllerRef")
		errs = append(errs, v.optionalLongName(&ref.APIGroup, rp.Child("apiGroup"))...)
		errs = append(errs, v.requiredName(ref.Kind, rp.Child("kind"), validate.PathSegmentName[string])...)
		errs = append(errs, v.requiredName(ref.Name, rp.Child("name"), validate.PathSegmentName[string])...)
	}
	errs = append(errs, v.podGroupTemplates(s.PodGroupTemplates, p.Child("podGroupTemplates"))...)
	if cp := p.Child("compositePodGroupTemplates"); v.gated(gateCompositePodGroup, len(s.CompositePodGroupTemplates) > 0, cp, &errs) {
		errs = append(errs, v.compositeTemplates(s.CompositePodGroupTemplates, cp)...)
	}
	return append(errs, validateWorkloadTree(s, p)...)
}

// templateList checks a list of templates as a whole: at most 8, unique
// by name. Over the limit nothing else is checked (the rule
// short-circuits): ok is false.
func templateList[T any](v *workloadValidation, ts []T, p *field.Path, name func(*T) string) (errs field.ErrorList, ok bool) {
	if errs := validate.MaxItems(v.ctx, v.op, p, ts, nil, schedulingv1beta1.WorkloadMaxPodGroupTemplates); len(errs) > 0 {
		return errs, false
	}
	return validate.ValSliceUnique(v.ctx, v.op, p, ts, nil, func(a, b *T) bool { return name(a) == name(b) }), true
}

func (v *workloadValidation) podGroupTemplates(ts []schedulingv1beta1.PodGroupTemplate, p *field.Path) field.ErrorList {
	errs, ok := templateList(v, ts, p, func(t *schedulingv1beta1.PodGroupTemplate) string { return t.Name })
	if !ok {
		return errs
	}
	for i := range ts {
		t, tp := &ts[i], p.Index(i)
		errs = append(errs, v.requiredName(t.Name, tp.Child("name"), validate.ShortName[string])...)
		errs = append(errs, v.schedulingPolicy(&t.SchedulingPolicy, tp.Child("schedulingPolicy"))...)
		if cp := tp.Child("schedulingConstraints"); v.gated(gateTopologyAwareWorkloadScheduling, t.SchedulingConstraints != nil, cp, &errs) {
			errs = append(errs, v.topology(t.SchedulingConstraints.Topology, cp)...)
		}
		errs = append(errs, v.resourceClaims(t.ResourceClaims, tp.Child("resourceClaims"))...)
		errs = append(errs, v.disruptionMode(t.DisruptionMode, tp.Child("disruptionMode"))...)
		errs = append(errs, v.priority(t.PriorityClassName, t.Priority, tp)...)
		errs = append(errs, v.preemptionPolicy(t.PreemptionPolicy, tp.Child("preemptionPolicy"))...)
	}
	return errs
}

func (v *workloadValidation) compositeTemplates(ts []schedulingv1beta1.CompositePodGroupTemplate, p *field.Path) field.ErrorList {
	errs, ok := templateList(v, ts, p, func(t *schedulingv1beta1.CompositePodGroupTemplate) string { return t.Name })
	if !ok {
		return errs
	}
	for i := range ts {
		t, tp := &ts[i], p.Index(i)
		errs = append(errs, v.requiredName(t.Name, tp.Child("name"), validate.ShortName[string])...)
		sp := tp.Child("schedulingPolicy")
		errs = append(errs, validate.Union(v.ctx, v.op, sp, &t.SchedulingPolicy, nil, policyMembers,
			func(sp *schedulingv1beta1.CompositePodGroupSchedulingPolicy) bool { return sp.Basic != nil },
			func(sp *schedulingv1beta1.CompositePodGroupSchedulingPolicy) bool { return sp.Gang != nil })...)
		if g := t.SchedulingPolicy.Gang; g != nil {
			errs = append(errs, v.minCount(g.MinGroupCount, sp.Child("gang", "minGroupCount"))...)
		}
		if c := t.SchedulingConstraints; c != nil {
			errs = append(errs, v.topology(c.Topology, tp.Child("schedulingConstraints"))...)
		}
		if dm := t.DisruptionMode; dm != nil {
			errs = append(errs, validate.Union(v.ctx, v.op, tp.Child("disruptionMode"), dm, nil, disruptionModeMembers,
				func(dm *schedulingv1beta1.CompositeDisruptionMode) bool { return dm.Single != nil },
				func(dm *schedulingv1beta1.CompositeDisruptionMode) bool { return dm.All != nil })...)
		}
		errs = append(errs, v.priority(t.PriorityClassName, t.Priority, tp)...)
		errs = append(errs, v.preemptionPolicy(t.PreemptionPolicy, tp.Child("preemptionPolicy"))...)
		errs = append(errs, v.podGroupTemplates(t.PodGroupTemplates, tp.Child("podGroupTemplates"))...)
		errs = append(errs, v.compositeTemplates(t.CompositePodGroupTemplates, tp.Child("compositePodGroupTemplates"))...)
	}
	return errs
}

// validateWorkloadTree is the hand-written part (ValidateWorkloadSpec):
// template names unique across the whole tree, the tree at most
// workloadMaxTemplateDepth deep, one priority for every template, and no
// composite template without a child.
func validateWorkloadTree(s *schedulingv1beta1.WorkloadSpec, p *field.Path) field.ErrorList {
	names := sets.New[string]()
	for _, t := range s.PodGroupTemplates {
		names.Insert(t.Name)
	}
	errs := compositeNamesUnique(s.CompositePodGroupTemplates, p, names)
	cp := p.Child("compositePodGroupTemplates")
	for i := range s.CompositePodGroupTemplates {
		if !withinDepth(&s.CompositePodGroupTemplates[i], 1) {
			errs = append(errs, field.Invalid(cp.Index(i), s.CompositePodGroupTemplates[i].CompositePodGroupTemplates,
				fmt.Sprintf("maximum template hierarchy depth is %d", workloadMaxTemplateDepth)))
		}
	}
	errs = append(errs, samePriorityEverywhere(s, p)...)
	for i := range s.CompositePodGroupTemplates {
		errs = append(errs, compositeHasChild(&s.CompositePodGroupTemplates[i], cp.Index(i))...)
	}
	return errs
}

// compositeNamesUnique walks the composite templates below p: a name
// already used anywhere above or before is a duplicate. (Upstream's walk,
// whose paths put a child list under its parent's list path.)
func compositeNamesUnique(ts []schedulingv1beta1.CompositePodGroupTemplate, p *field.Path, names sets.Set[string]) field.ErrorList {
	var errs field.ErrorList
	list := sets.New[string]()
	for i, t := range ts {
		if names.Has(t.Name) {
			errs = append(errs, field.Duplicate(p.Child("compositePodGroupTemplates").Index(i).Child("name"), t.Name))
		}
		list.Insert(t.Name)
	}
	names.Insert(list.UnsortedList()...)
	for i := range ts {
		tp := p.Child("compositePodGroupTemplates").Index(i)
		children := sets.New[string]()
		for j, c := range ts[i].PodGroupTemplates {
			if names.Has(c.Name) {
				errs = append(errs, field.Duplicate(tp.Child("podGroupTemplates").Index(j).Child("name"), c.Name))
			}
			children.Insert(c.Name)
		}
		names.Insert(children.UnsortedList()...)
		errs = append(errs, compositeNamesUnique(ts[i].CompositePodGroupTemplates, tp, names)...)
	}
	return errs
}

func withinDepth(t *schedulingv1beta1.CompositePodGroupTemplate, depth int) bool {
	if depth == workloadMaxTemplateDepth {
		return false
	}
	for i := range t.CompositePodGroupTemplates {
		if !withinDepth(&t.CompositePodGroupTemplates[i], depth+1) {
			return false
		}
	}
	return true
}

// samePriorityEverywhere: every template names the priority the first one
// does (class name and value, set or not).
func samePriorityEverywhere(s *schedulingv1beta1.WorkloadSpec, p *field.Path) field.ErrorList {
	type priority struct {
		class string
		value *int32
	}
	var first *priority
	same := func(class string, value *int32) bool {
		if first == nil {
			first = &priority{class, value}
			return true
		}
		if first.class != class || (first.value == nil) != (value == nil) {
			return false
		}
		return first.value == nil || *first.value == *value
	}
	for _, t := range s.PodGroupTemplates {
		if !same(t.PriorityClassName, t.Priority) {
			return field.ErrorList{field.Invalid(p, nil, "detected multiple priority configurations")}
		}
	}
	var walk func(t *schedulingv1beta1.CompositePodGroupTemplate) bool
	walk = func(t *schedulingv1beta1.CompositePodGroupTemplate) bool {
		if !same(t.PriorityClassName, t.Priority) {
			return false
		}
		for i := range t.CompositePodGroupTemplates {
			if !walk(&t.CompositePodGroupTemplates[i]) {
				return false
			}
		}
		for _, c := range t.PodGroupTemplates {
			if !same(c.PriorityClassName, c.Priority) {
				return false
			}
		}
		return true
	}
	for i := range s.CompositePodGroupTemplates {
		if !walk(&s.CompositePodGroupTemplates[i]) {
			return field.ErrorList{field.Invalid(p, nil, "all priority and priorityClassName values must be identical, detected multiple values")}
		}
	}
	return nil
}

func compositeHasChild(t *schedulingv1beta1.CompositePodGroupTemplate, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(t.PodGroupTemplates) == 0 && len(t.CompositePodGroupTemplates) == 0 {
		errs = append(errs, field.Invalid(p, t.Name, "must have at least one child PodGroupTemplate or CompositePodGroupTemplate"))
	}
	for i := range t.CompositePodGroupTemplates {
		errs = append(errs, compositeHasChild(&t.CompositePodGroupTemplates[i], p.Child("compositePodGroupTemplates").Index(i))...)
	}
	return errs
}

// validateCompositePodGroup is k8s.io/api's generated validation of the
// alpha kind (its metadata is validated as every object's; the rules it
// marks alpha are not enforced by default).
func validateCompositePodGroup(cpg *schedulingv1alpha3.CompositePodGroup, opts ValidationOptions) field.ErrorList {
	v := newWorkloadValidation(opts, IsStored(&cpg.ObjectMeta))
	var errs field.ErrorList
	for _, e := range schedulingv1alpha3.Validate_CompositePodGroup(v.ctx, v.op, nil, cpg, nil) {
		if !e.IsAlpha() {
			errs = append(errs, e)
		}
	}
	return errs
}
