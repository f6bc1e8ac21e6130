package apiserver

// Defaulting and validation of the resource.k8s.io/v1 kinds dynamic resource
// allocation reads (k8s.io/kubernetes v1.37.1 pkg/apis/resource/v1/defaults.go
// and pkg/apis/resource/validation), limited to the fields the DynamicResources
// plugin and the device allocator read: what the API server would have
// rejected and the allocator would otherwise have to guess about.

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/environment"
	dracel "k8s.io/dynamic-resource-allocation/cel"

	"github.com/schedtui/schedtui/scheduler/framework"
)

// defaultDeviceRequests is SetDefaults_ExactDeviceRequest and
// SetDefaults_DeviceSubRequest with the tolerations' operator default.
// DeviceTaint.timeAdded, which the API server sets to the time of the
// create, is left as it is: the scheduler never reads it, and a snapshot
// must load the same way twice.
func defaultDeviceRequests(reqs []resourcev1.DeviceRequest) {
	for i := range reqs {
		if e := reqs[i].Exactly; e != nil {
			e.AllocationMode, e.Count = defaultAllocationMode(e.AllocationMode, e.Count)
			defaultDeviceTolerations(e.Tolerations)
		}
		for j := range reqs[i].FirstAvailable {
			s := &reqs[i].FirstAvailable[j]
			s.AllocationMode, s.Count = defaultAllocationMode(s.AllocationMode, s.Count)
			defaultDeviceTolerations(s.Tolerations)
		}
	}
}

func defaultAllocationMode(mode resourcev1.DeviceAllocationMode, count int64) (resourcev1.DeviceAllocationMode, int64) {
	if mode == "" {
		mode = resourcev1.DeviceAllocationModeExactCount
	}
	if mode == resourcev1.DeviceAllocationModeExactCount && count == 0 {
		count = 1
	}
	return mode, count
}

func defaultDeviceTolerations(tols []resourcev1.DeviceToleration) {
	for i := range tols {
		if tols[i].Operator == "" {
			tols[i].Operator = resourcev1.DeviceTolerationOpEqual
		}
	}
}

func defaultResourceClaim(c *resourcev1.ResourceClaim) {
	defaultDeviceRequests(c.Spec.Devices.Requests)
	if a := c.Status.Allocation; a != nil {
		for i := range a.Devices.Results {
			defaultDeviceTolerations(a.Devices.Results[i].Tolerations)
		}
	}
}

func validateDeviceClaim(dc *resourcev1.DeviceClaim, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := map[string]bool{}
	for i, r := range dc.Requests {
		rp := p.Child("requests").Index(i)
		errs = append(errs, validateRequestName(r.Name, rp.Child("name"))...)
		if seen[r.Name] {
			errs = append(errs, field.Duplicate(rp.Child("name"), r.Name))
		}
		seen[r.Name] = true
		switch {
		case r.Exactly == nil && len(r.FirstAvailable) == 0:
			errs = append(errs, field.Required(rp, "exactly one of `exactly` or `firstAvailable` is required"))
		case r.Exactly != nil && len(r.FirstAvailable) > 0:
			errs = append(errs, field.Invalid(rp, nil, "exactly one of `exactly` or `firstAvailable` is required, but multiple fields are set"))
		case r.Exactly != nil:
			e := r.Exactly
			errs = append(errs, validateDeviceSelection(e.DeviceClassName, e.Selectors, e.AllocationMode, e.Count, rp.Child("exactly"))...)
		default:
			subSeen := map[string]bool{}
			for j, s := range r.FirstAvailable {
				sp := rp.Child("firstAvailable").Index(j)
				errs = append(errs, validateRequestName(s.Name, sp.Child("name"))...)
				if subSeen[s.Name] {
					errs = append(errs, field.Duplicate(sp.Child("name"), s.Name))
				}
				subSeen[s.Name] = true
				errs = append(errs, validateDeviceSelection(s.DeviceClassName, s.Selectors, s.AllocationMode, s.Count, sp)...)
			}
		}
	}
	return errs
}

func validateRequestName(name string, p *field.Path) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(p, "")}
	}
	var errs field.ErrorList
	for _, msg := range validation.IsDNS1123Label(name) {
		errs = append(errs, field.Invalid(p, name, msg))
	}
	return errs
}

func validateDeviceSelection(class string, selectors []resourcev1.DeviceSelector, mode resourcev1.DeviceAllocationMode, count int64, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if class == "" {
		errs = append(errs, field.Required(p.Child("deviceClassName"), ""))
	} else {
		for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(class, false) {
			errs = append(errs, field.Invalid(p.Child("deviceClassName"), class, msg))
		}
	}
	errs = append(errs, validateSelectors(selectors, p.Child("selectors"))...)
	switch mode {
	case resourcev1.DeviceAllocationModeAll:
		if count != 0 {
			errs = append(errs, field.Invalid(p.Child("count"), count, fmt.Sprintf("must not be specified when allocationMode is '%s'", mode)))
		}
	case resourcev1.DeviceAllocationModeExactCount:
		if count <= 0 {
			errs = append(errs, field.Invalid(p.Child("count"), count, "must be greater than zero"))
		}
	default:
		errs = append(errs, field.NotSupported(p.Child("allocationMode"), mode,
			[]resourcev1.DeviceAllocationMode{resourcev1.DeviceAllocationModeAll, resourcev1.DeviceAllocationModeExactCount}))
	}
	return errs
}

// validateSelectors compiles each CEL expression as the API server does on
// create (the DRA CEL environment, the cost limit), so that a snapshot
// cannot carry a selector the allocator would fail on.
func validateSelectors(selectors []resourcev1.DeviceSelector, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, s := range selectors {
		sp := p.Index(i)
		if s.CEL == nil {
			errs = append(errs, field.Required(sp.Child("cel"), ""))
			continue
		}
		ep := sp.Child("cel", "expression")
		if len(s.CEL.Expression) > resourcev1.CELSelectorExpressionMaxLength {
			errs = append(errs, field.TooLong(ep, "", resourcev1.CELSelectorExpressionMaxLength))
			continue
		}
		envType := environment.NewExpressions
		res := dracel.GetCompiler(dracel.Features{EnableConsumableCapacity: true}).
			CompileCELExpression(s.CEL.Expression, dracel.Options{EnvType: &envType})
		switch {
		case res.Error != nil:
			errs = append(errs, celFieldError(ep, s.CEL.Expression, res.Error))
		case res.MaxCost > resourcev1.CELSelectorExpressionMaxCost:
			errs = append(errs, field.Forbidden(ep, "too complex, exceeds cost limit"))
		}
	}
	return errs
}

func celFieldError(p *field.Path, expr string, err *apiservercel.Error) *field.Error {
	switch err.Type {
	case apiservercel.ErrorTypeRequired:
		return field.Required(p, err.Detail)
	case apiservercel.ErrorTypeInvalid:
		return field.Invalid(p, expr, err.Detail)
	default:
		return field.InternalError(p, err)
	}
}

func validateResourceClaim(c *resourcev1.ResourceClaim) field.ErrorList {
	return validateDeviceClaim(&c.Spec.Devices, field.NewPath("spec", "devices"))
}

func validateResourceClaimTemplate(t *resourcev1.ResourceClaimTemplate) field.ErrorList {
	return validateDeviceClaim(&t.Spec.Spec.Devices, field.NewPath("spec", "spec", "devices"))
}

func validateDeviceClass(c *resourcev1.DeviceClass) field.ErrorList {
	errs := validateSelectors(c.Spec.Selectors, field.NewPath("spec", "selectors"))
	if n := c.Spec.ExtendedResourceName; n != nil {
		if !framework.IsExtendedResourceName(v1.ResourceName(*n)) {
			errs = append(errs, field.Invalid(field.NewPath("spec", "extendedResourceName"), *n, "must be a valid extended resource name"))
		}
	}
	return errs
}

func validateResourceSlice(s *resourcev1.ResourceSlice) field.ErrorList {
	var errs field.ErrorList
	p := field.NewPath("spec")
	if s.Spec.Driver == "" {
		errs = append(errs, field.Required(p.Child("driver"), ""))
	}
	if s.Spec.Pool.Name == "" {
		errs = append(errs, field.Required(p.Child("pool", "name"), ""))
	}
	if s.Spec.Pool.ResourceSliceCount <= 0 {
		errs = append(errs, field.Invalid(p.Child("pool", "resourceSliceCount"), s.Spec.Pool.ResourceSliceCount, "must be greater than zero"))
	}
	set := 0
	if s.Spec.NodeName != nil {
		set++
		for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(*s.Spec.NodeName, false) {
			errs = append(errs, field.Invalid(p.Child("nodeName"), *s.Spec.NodeName, msg))
		}
	}
	if s.Spec.NodeSelector != nil {
		set++
		errs = append(errs, validateNodeSelector(s.Spec.NodeSelector, p.Child("nodeSelector"))...)
	}
	if s.Spec.AllNodes != nil && *s.Spec.AllNodes {
		set++
	}
	if s.Spec.PerDeviceNodeSelection != nil && *s.Spec.PerDeviceNodeSelection {
		set++
	}
	switch {
	case set == 0:
		errs = append(errs, field.Required(p, "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required"))
	case set > 1:
		errs = append(errs, field.Invalid(p, nil, "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required, but multiple fields are set"))
	}
	if s.Spec.SharedCounters != nil && s.Spec.Devices != nil {
		errs = append(errs, field.Invalid(p, "", "only one of `sharedCounters` or `devices` is allowed"))
	}
	names := map[string]bool{}
	for i, d := range s.Spec.Devices {
		dp := p.Child("devices").Index(i)
		if d.Name == "" {
			errs = append(errs, field.Required(dp.Child("name"), ""))
		} else {
			for _, msg := range validation.IsDNS1123Label(d.Name) {
				errs = append(errs, field.Invalid(dp.Child("name"), d.Name, msg))
			}
		}
		if names[d.Name] {
			errs = append(errs, field.Duplicate(dp.Child("name"), d.Name))
		}
		names[d.Name] = true
		for j, t := range d.Taints {
			errs = append(errs, validateDeviceTaint(t, dp.Child("taints").Index(j))...)
		}
	}
	return errs
}

func validateDeviceTaint(t resourcev1.DeviceTaint, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range validation.IsQualifiedName(t.Key) {
		errs = append(errs, field.Invalid(p.Child("key"), t.Key, msg))
	}
	switch t.Effect {
	case resourcev1.DeviceTaintEffectNoSchedule, resourcev1.DeviceTaintEffectNoExecute, resourcev1.DeviceTaintEffectNone:
	case "":
		errs = append(errs, field.Required(p.Child("effect"), ""))
	default:
		errs = append(errs, field.NotSupported(p.Child("effect"), t.Effect, []resourcev1.DeviceTaintEffect{
			resourcev1.DeviceTaintEffectNoExecute, resourcev1.DeviceTaintEffectNoSchedule, resourcev1.DeviceTaintEffectNone}))
	}
	return errs
}

func validateDeviceTaintRule(r *resourcev1.DeviceTaintRule) field.ErrorList {
	return validateDeviceTaint(r.Spec.Taint, field.NewPath("spec", "taint"))
}
