package apiserver

import (
	"strings"
	"unicode"

	"k8s.io/apimachinery/pkg/api/validate/content"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Upstream checks names, label keys and label values with regular
// expressions (k8s.io/apimachinery/pkg/api/validate/content), which at
// 300,000 pods took an eighth of loading a snapshot. The functions below
// answer the same yes or no by hand, without allocating; a name they
// accept is accepted upstream too, and whatever they reject still goes to
// upstream's function, so every message is upstream's. TestNamesAgree and
// FuzzNamesAgree compare them with upstream's on every shape of string.

// labelKeyNameMaxLength is the limit of a label key's name part
// (content's labelKeyMaxLength, not exported).
const labelKeyNameMaxLength = 63

func isLowerAlnum(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }

func isAlnum(c byte) bool { return isLowerAlnum(c) || c >= 'A' && c <= 'Z' }

// dns1123Label reports whether s matches [a-z0-9]([-a-z0-9]*[a-z0-9])?
// (no length limit: a subdomain's parts have none).
func dns1123Label(s string) bool {
	if s == "" || !isLowerAlnum(s[0]) || !isLowerAlnum(s[len(s)-1]) {
		return false
	}
	for i := 1; i < len(s)-1; i++ {
		if c := s[i]; c != '-' && !isLowerAlnum(c) {
			return false
		}
	}
	return true
}

// isDNS1123Label is content.IsDNS1123Label without messages.
func isDNS1123Label(s string) bool { return len(s) <= content.DNS1123LabelMaxLength && dns1123Label(s) }

// isDNS1123Subdomain is content.IsDNS1123Subdomain without messages:
// labels joined by dots, 253 bytes at most.
func isDNS1123Subdomain(s string) bool {
	if len(s) > content.DNS1123SubdomainMaxLength {
		return false
	}
	for {
		i := strings.IndexByte(s, '.')
		if i < 0 {
			return dns1123Label(s)
		}
		if !dns1123Label(s[:i]) {
			return false
		}
		s = s[i+1:]
	}
}

// labelName reports whether s matches ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]
// (without the length limit).
func labelName(s string) bool {
	if s == "" || !isAlnum(s[0]) || !isAlnum(s[len(s)-1]) {
		return false
	}
	for i := 1; i < len(s)-1; i++ {
		if c := s[i]; c != '-' && c != '_' && c != '.' && !isAlnum(c) {
			return false
		}
	}
	return true
}

// isLabelKey is content.IsLabelKey (IsQualifiedName) without messages: a
// name of 63 bytes at most, after an optional DNS subdomain prefix and a
// slash.
func isLabelKey(s string) bool {
	name := s
	if i := strings.IndexByte(s, '/'); i >= 0 {
		prefix := s[:i]
		name = s[i+1:]
		if prefix == "" || !isDNS1123Subdomain(prefix) {
			return false
		}
	}
	return len(name) <= labelKeyNameMaxLength && labelName(name)
}

// isLabelValue is content.IsLabelValue without messages: empty, or a
// label name of 63 bytes at most.
func isLabelValue(s string) bool {
	return s == "" || len(s) <= content.LabelValueMaxLength && labelName(s)
}

// isAnnotationKey is upstream's check of an annotation key: a label key
// once lower-cased.
func isAnnotationKey(s string) bool {
	for i := 0; i < len(s); i++ {
		// Upstream lower-cases the key first: ASCII capitals, and letters
		// beyond ASCII whose lower case may be ASCII ("İ" is "i", the
		// Kelvin sign "k").
		if c := s[i]; c >= 'A' && c <= 'Z' || c >= 0x80 {
			return isLabelKey(strings.ToLower(s))
		}
	}
	return isLabelKey(s)
}

// validLabels reports whether every key and value of labels is valid, so
// that metav1validation.ValidateLabels would find nothing.
func validLabels(labels map[string]string) bool {
	for k, v := range labels {
		if !isLabelKey(k) || !isLabelValue(v) {
			return false
		}
	}
	return true
}

// validateLabels is metav1validation.ValidateLabels, which it calls only
// for labels that have something to report.
func validateLabels(labels map[string]string, at pathTo) field.ErrorList {
	if validLabels(labels) {
		return nil
	}
	return metav1validation.ValidateLabels(labels, at())
}

// validateLabelName is metav1validation.ValidateLabelName, which it calls
// only for a key that has something to report.
func validateLabelName(key string, at pathTo) field.ErrorList {
	if isLabelKey(key) {
		return nil
	}
	return metav1validation.ValidateLabelName(key, at())
}

// NameIsDNSSubdomain and NameIsDNSLabel are upstream's ValidateNameFuncs
// of the same names, answering at once for a name or generateName prefix
// the checks above accept.
var (
	NameIsDNSSubdomain = fastNameFunc(isDNS1123Subdomain, apimachineryvalidation.NameIsDNSSubdomain)
	NameIsDNSLabel     = fastNameFunc(isDNS1123Label, apimachineryvalidation.NameIsDNSLabel)
)

func fastNameFunc(valid func(string) bool, nameFn apimachineryvalidation.ValidateNameFunc) apimachineryvalidation.ValidateNameFunc {
	return func(name string, prefix bool) []string {
		checked := name
		if prefix && len(name) > 1 && strings.HasSuffix(name, "-") {
			// Upstream's maskTrailingDash: a prefix may end in a dash,
			// so its last two bytes are replaced by one "a".
			checked = name[:len(name)-2] + "a"
		}
		if valid(checked) {
			return nil
		}
		return nameFn(name, prefix)
	}
}

// metaWithoutValidLabels returns meta itself, or a shallow copy without
// the labels and annotations that upstream's object meta validation would
// find nothing in, which it then need not look at.
func metaWithoutValidLabels(meta metav1.Object) metav1.Object {
	a, ok := meta.(metav1.ObjectMetaAccessor)
	if !ok {
		return meta
	}
	om, ok := a.GetObjectMeta().(*metav1.ObjectMeta)
	if !ok {
		return meta
	}
	skipLabels := len(om.Labels) > 0 && validLabels(om.Labels)
	skipAnnotations := len(om.Annotations) > 0 && validAnnotations(om.Annotations)
	if !skipLabels && !skipAnnotations {
		return meta
	}
	cp := *om
	if skipLabels {
		cp.Labels = nil
	}
	if skipAnnotations {
		cp.Annotations = nil
	}
	return &cp
}

// validAnnotations reports whether apimachineryvalidation.ValidateAnnotations
// would find nothing in annotations: every key valid, the total size
// within the limit.
func validAnnotations(annotations map[string]string) bool {
	if apimachineryvalidation.ValidateAnnotationsSize(annotations) != nil {
		return false
	}
	for k := range annotations {
		if !isAnnotationKey(k) {
			return false
		}
	}
	return true
}

// plainlyValidMeta reports metadata in which upstream's
// ValidateObjectMetaAccessor (with nameFn, for a kind namespaced or not)
// finds nothing, checked field by field as it does without building a
// path: names (nameFn answers at once for a valid one, see fastNameFunc),
// namespace, generation, labels, annotations, owner references and
// managed fields. Finalizers, rare on what a snapshot holds, are left to
// upstream; so is anything these checks do not accept.
func plainlyValidMeta(meta metav1.Object, namespaced bool, nameFn apimachineryvalidation.ValidateNameFunc) bool {
	if g := meta.GetGenerateName(); g != "" && len(nameFn(g, true)) > 0 {
		return false
	}
	if n := meta.GetName(); n == "" || len(nameFn(n, false)) > 0 {
		return false
	}
	// ValidateNamespaceName is NameIsDNSLabel.
	if ns := meta.GetNamespace(); namespaced && !isDNS1123Label(ns) || !namespaced && ns != "" {
		return false
	}
	if meta.GetGeneration() < 0 || len(meta.GetFinalizers()) > 0 {
		return false
	}
	if l := meta.GetLabels(); len(l) > 0 && !validLabels(l) {
		return false
	}
	if a := meta.GetAnnotations(); len(a) > 0 && !validAnnotations(a) {
		return false
	}
	return plainOwnerReferences(meta.GetOwnerReferences()) && plainManagedFields(meta.GetManagedFields())
}

// plainOwnerReferences reports owner references in which upstream's
// ValidateOwnerReferences finds nothing: each names its API version
// (<group>/<version> or <version>), kind, name and UID, and is no banned
// owner; at most one is the controller.
func plainOwnerReferences(refs []metav1.OwnerReference) bool {
	controllers := 0
	for i := range refs {
		r := &refs[i]
		if r.APIVersion == "" || r.Kind == "" || r.Name == "" || r.UID == "" || strings.Count(r.APIVersion, "/") > 1 {
			return false
		}
		gv, err := schema.ParseGroupVersion(r.APIVersion)
		if err != nil || gv.Version == "" {
			return false
		}
		if _, banned := apimachineryvalidation.BannedOwners[gv.WithKind(r.Kind)]; banned {
			return false
		}
		if r.Controller != nil && *r.Controller {
			controllers++
		}
	}
	return controllers <= 1
}

// plainManagedFields reports managed fields in which upstream's
// ValidateManagedFields finds nothing: an Apply or Update operation,
// FieldsV1 or no fields type, a manager of printable characters within
// its length, a subresource within its.
func plainManagedFields(entries []metav1.ManagedFieldsEntry) bool {
	for i := range entries {
		e := &entries[i]
		if e.Operation != metav1.ManagedFieldsOperationApply && e.Operation != metav1.ManagedFieldsOperationUpdate ||
			e.FieldsType != "" && e.FieldsType != "FieldsV1" ||
			len(e.Manager) > metav1validation.FieldManagerMaxLength ||
			len(e.Subresource) > metav1validation.MaxSubresourceNameLength {
			return false
		}
		for _, r := range e.Manager {
			if !unicode.IsPrint(r) {
				return false
			}
		}
	}
	return true
}

// validateLabelSelector is metav1validation.ValidateLabelSelector, which it
// calls only for a selector that has something to report (the pods'
// affinity terms and spread constraints took a tenth of a second of
// upstream's regular expressions at 300,000 pods).
func validateLabelSelector(ps *metav1.LabelSelector, opts metav1validation.LabelSelectorValidationOptions, at pathTo) field.ErrorList {
	if plainLabelSelector(ps, opts) {
		return nil
	}
	return metav1validation.ValidateLabelSelector(ps, opts, at())
}

// plainLabelSelector reports a selector in which ValidateLabelSelector
// under opts finds nothing: valid match labels, and requirements of a
// known operator (or any, when opts allow it) with values where it needs
// them and none where it forbids them, a valid key, and valid values
// unless opts allow invalid ones.
func plainLabelSelector(ps *metav1.LabelSelector, opts metav1validation.LabelSelectorValidationOptions) bool {
	if ps == nil {
		return true
	}
	if !validLabels(ps.MatchLabels) {
		return false
	}
	for i := range ps.MatchExpressions {
		r := &ps.MatchExpressions[i]
		switch r.Operator {
		case metav1.LabelSelectorOpIn, metav1.LabelSelectorOpNotIn:
			if len(r.Values) == 0 {
				return false
			}
		case metav1.LabelSelectorOpExists, metav1.LabelSelectorOpDoesNotExist:
			if len(r.Values) > 0 {
				return false
			}
		default:
			if !opts.AllowUnknownOperatorInRequirement {
				return false
			}
		}
		if !isLabelKey(r.Key) {
			return false
		}
		if !opts.AllowInvalidLabelValueInSelector {
			for _, v := range r.Values {
				if !isLabelValue(v) {
					return false
				}
			}
		}
	}
	return true
}
