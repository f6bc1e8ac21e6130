package apiserver

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// checkNamesAgree fails t when a hand-written check answers s otherwise
// than upstream's regular expressions.
func checkNamesAgree(t *testing.T, s string) {
	t.Helper()
	for _, c := range []struct {
		name     string
		fast     bool
		upstream []string
	}{
		{"DNS-1123 subdomain", isDNS1123Subdomain(s), validation.IsDNS1123Subdomain(s)},
		{"DNS-1123 label", isDNS1123Label(s), validation.IsDNS1123Label(s)},
		{"label key", isLabelKey(s), validation.IsQualifiedName(s)},
		{"label value", isLabelValue(s), validation.IsValidLabelValue(s)},
		{"annotation key", isAnnotationKey(s), validation.IsQualifiedName(strings.ToLower(s))},
		{"name", NameIsDNSSubdomain(s, false) == nil, apimachineryvalidation.NameIsDNSSubdomain(s, false)},
		{"generateName", NameIsDNSSubdomain(s, true) == nil, apimachineryvalidation.NameIsDNSSubdomain(s, true)},
		{"namespace name", NameIsDNSLabel(s, false) == nil, apimachineryvalidation.NameIsDNSLabel(s, false)},
		{"generated namespace name", NameIsDNSLabel(s, true) == nil, apimachineryvalidation.NameIsDNSLabel(s, true)},
	} {
		if c.fast != (len(c.upstream) == 0) {
			t.Fatalf("%s %q: hand-written check says %v, upstream says %q", c.name, s, c.fast, c.upstream)
		}
	}
}

// TestNamesAgree compares the hand-written name checks with upstream's
// on the edges (lengths at the limits, each separator at each end) and on
// random strings over the characters that matter.
func TestNamesAgree(t *testing.T) {
	edges := []string{"", "a", "A", "0", "-", ".", "_", "/", "a/", "/a", "a/b", "a/b/c", "a.b/c", "a..b", "a.-b", "a-.b",
		".a", "a.", "-a", "a-", "_a", "a_", "a_b", "a.b", "a-b", "Ab", "aB", "EXAMPLE.com/x", "example.com/X", "é", "a\n", "a b",
		strings.Repeat("a", 63), strings.Repeat("a", 64), strings.Repeat("a", 253), strings.Repeat("a", 254),
		strings.Repeat("a", 63) + "." + strings.Repeat("b", 63), strings.Repeat("a.", 126) + "a", strings.Repeat("a.", 126) + "ab",
		strings.Repeat("a", 253) + "/b", strings.Repeat("a", 254) + "/b", "p/" + strings.Repeat("n", 63), "p/" + strings.Repeat("n", 64),
		"kubernetes.io/hostname", "web-7c5ddbdf54-", "a-", "ab-", "a.-", "-", "--", "a--", "node.kubernetes.io/not-ready", "pod-template-hash", "app.kubernetes.io/name", "nginx-7c5ddbdf54-x8x2m"}
	for _, s := range edges {
		checkNamesAgree(t, s)
	}
	alphabet := []byte("ab0Z-._/é")
	rng := rand.New(rand.NewPCG(3, 5))
	for range 50000 {
		b := make([]byte, rng.IntN(12))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		checkNamesAgree(t, string(b))
	}
}

// FuzzNamesAgree is TestNamesAgree on the fuzzer's strings.
func FuzzNamesAgree(f *testing.F) {
	for _, s := range []string{"", "a", "a/b", "example.com/Name", "a..b", "-a", strings.Repeat("a", 64)} {
		f.Add(s)
	}
	f.Fuzz(checkNamesAgree)
}

// TestObjectMetaSkipsOnlyValidLabels checks that metadata validation finds
// the same errors with the labels and annotations the checks let through
// left out, and that those it rejects are still reported.
func TestObjectMetaSkipsOnlyValidLabels(t *testing.T) {
	path := field.NewPath("metadata")
	for _, m := range []metav1.ObjectMeta{
		{Name: "ok", Namespace: "ns", Labels: map[string]string{"app": "web", "example.com/tier": "Front_1"}, Annotations: map[string]string{"Example.COM/Note": "x"}},
		{Name: "bad-label", Namespace: "ns", Labels: map[string]string{"app": "-web"}},
		{Name: "bad-key", Namespace: "ns", Labels: map[string]string{"a/b/c": "x"}, Annotations: map[string]string{"ok": "x"}},
		{Name: "bad-annotation", Namespace: "ns", Labels: map[string]string{"app": "web"}, Annotations: map[string]string{"-x": "y"}},
		{Name: "too-big", Namespace: "ns", Annotations: map[string]string{"big": strings.Repeat("x", apimachineryvalidation.TotalAnnotationSizeLimitB)}},
		{Name: "Bad_Name", Namespace: "ns"},
	} {
		want := apimachineryvalidation.ValidateObjectMetaAccessor(&m, true, apimachineryvalidation.NameIsDNSSubdomain, path)
		got := ValidateObjectMeta(&m, true, NameIsDNSSubdomain)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: got %v, upstream %v", m.Name, got, want)
		}
		if m.Name != "ok" && len(got) == 0 {
			t.Errorf("%s: no error", m.Name)
		}
		skipped := metaWithoutValidLabels(&m).(*metav1.ObjectMeta)
		if m.Name == "ok" && (skipped.Labels != nil || skipped.Annotations != nil || m.Labels == nil) {
			t.Errorf("valid labels and annotations were not left out, or the original was changed: %+v, %+v", skipped, m)
		}
	}
}

// TestPlainlyValidMetaAgrees: metadata plainlyValidMeta lets through is
// metadata upstream's validation finds nothing in, field by field at each
// edge upstream checks, and ValidateObjectMeta reports what upstream does
// for every variant.
func TestPlainlyValidMetaAgrees(t *testing.T) {
	yes, no := true, false
	base := func() metav1.ObjectMeta {
		return metav1.ObjectMeta{Name: "web-7c5ddbdf54-x8x2m", GenerateName: "web-7c5ddbdf54-", Namespace: "team-a",
			Labels:      map[string]string{"app": "web", "pod-template-hash": "7c5ddbdf54"},
			Annotations: map[string]string{"kubernetes.io/psp": "restricted"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-7c5ddbdf54", UID: "u1", Controller: &yes},
				{APIVersion: "v1", Kind: "Node", Name: "n", UID: "u2", Controller: &no}},
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kube-controller-manager", Operation: metav1.ManagedFieldsOperationUpdate, FieldsType: "FieldsV1"},
				{Manager: "kubelet", Operation: metav1.ManagedFieldsOperationApply, Subresource: "status"}}}
	}
	long := func(n int) string { return strings.Repeat("a", n) }
	variants := map[string]func(m *metav1.ObjectMeta){
		"valid":               func(m *metav1.ObjectMeta) {},
		"no generateName":     func(m *metav1.ObjectMeta) { m.GenerateName = "" },
		"nothing but names":   func(m *metav1.ObjectMeta) { *m = metav1.ObjectMeta{Name: m.Name, Namespace: m.Namespace} },
		"no name":             func(m *metav1.ObjectMeta) { m.Name = "" },
		"bad name":            func(m *metav1.ObjectMeta) { m.Name = "Bad_Name" },
		"long name":           func(m *metav1.ObjectMeta) { m.Name = long(254) },
		"bad generateName":    func(m *metav1.ObjectMeta) { m.GenerateName = "-Bad-" },
		"no namespace":        func(m *metav1.ObjectMeta) { m.Namespace = "" },
		"subdomain namespace": func(m *metav1.ObjectMeta) { m.Namespace = "a.b" },
		"long namespace":      func(m *metav1.ObjectMeta) { m.Namespace = long(64) },
		"negative generation": func(m *metav1.ObjectMeta) { m.Generation = -1 },
		"finalizer":           func(m *metav1.ObjectMeta) { m.Finalizers = []string{"example.com/f"} },
		"bad label":           func(m *metav1.ObjectMeta) { m.Labels = map[string]string{"app": "-web"} },
		"bad annotation":      func(m *metav1.ObjectMeta) { m.Annotations = map[string]string{"-x": "y"} },
		"big annotation": func(m *metav1.ObjectMeta) {
			m.Annotations = map[string]string{"a": long(apimachineryvalidation.TotalAnnotationSizeLimitB)}
		},
		"owner without apiVersion": func(m *metav1.ObjectMeta) { m.OwnerReferences[0].APIVersion = "" },
		"owner apiVersion a/b/c":   func(m *metav1.ObjectMeta) { m.OwnerReferences[0].APIVersion = "a/b/c" },
		"owner apiVersion /":       func(m *metav1.ObjectMeta) { m.OwnerReferences[0].APIVersion = "/" },
		"owner apiVersion apps/":   func(m *metav1.ObjectMeta) { m.OwnerReferences[0].APIVersion = "apps/" },
		"owner apiVersion /v1":     func(m *metav1.ObjectMeta) { m.OwnerReferences[0].APIVersion = "/v1" },
		"owner without kind":       func(m *metav1.ObjectMeta) { m.OwnerReferences[0].Kind = "" },
		"owner without name":       func(m *metav1.ObjectMeta) { m.OwnerReferences[1].Name = "" },
		"owner without uid":        func(m *metav1.ObjectMeta) { m.OwnerReferences[1].UID = "" },
		"event owner":              func(m *metav1.ObjectMeta) { m.OwnerReferences[1].Kind = "Event" },
		"events.k8s.io event owner": func(m *metav1.ObjectMeta) {
			m.OwnerReferences[1].APIVersion, m.OwnerReferences[1].Kind = "events.k8s.io/v1", "Event"
		},
		"two controllers":               func(m *metav1.ObjectMeta) { m.OwnerReferences[1].Controller = &yes },
		"managed without operation":     func(m *metav1.ObjectMeta) { m.ManagedFields[0].Operation = "" },
		"managed by patch":              func(m *metav1.ObjectMeta) { m.ManagedFields[1].Operation = "Patch" },
		"managed fields type":           func(m *metav1.ObjectMeta) { m.ManagedFields[0].FieldsType = "FieldsV2" },
		"long manager":                  func(m *metav1.ObjectMeta) { m.ManagedFields[0].Manager = long(129) },
		"longest manager":               func(m *metav1.ObjectMeta) { m.ManagedFields[0].Manager = long(128) },
		"unprintable manager":           func(m *metav1.ObjectMeta) { m.ManagedFields[0].Manager = "a\x00b" },
		"manager beyond ASCII":          func(m *metav1.ObjectMeta) { m.ManagedFields[0].Manager = "gérant" },
		"manager not UTF-8":             func(m *metav1.ObjectMeta) { m.ManagedFields[0].Manager = "a\xffb" },
		"long subresource":              func(m *metav1.ObjectMeta) { m.ManagedFields[1].Subresource = long(257) },
		"longest subresource":           func(m *metav1.ObjectMeta) { m.ManagedFields[1].Subresource = long(256) },
		"capital annotation key":        func(m *metav1.ObjectMeta) { m.Annotations = map[string]string{"Example.COM/Note": "x"} },
		"generateName ending in a dash": func(m *metav1.ObjectMeta) { m.GenerateName = "a-" },
	}
	plain := 0
	for name, change := range variants {
		for _, namespaced := range []bool{true, false} {
			for _, nameFn := range []struct {
				fast, upstream apimachineryvalidation.ValidateNameFunc
			}{{NameIsDNSSubdomain, apimachineryvalidation.NameIsDNSSubdomain}, {NameIsDNSLabel, apimachineryvalidation.NameIsDNSLabel}} {
				m := base()
				change(&m)
				if !namespaced && name != "no namespace" {
					m.Namespace = ""
				}
				want := apimachineryvalidation.ValidateObjectMetaAccessor(&m, namespaced, nameFn.upstream, field.NewPath("metadata"))
				if plainlyValidMeta(&m, namespaced, nameFn.fast) {
					plain++
					if len(want) > 0 {
						t.Errorf("%s (namespaced %v): plainly valid, upstream finds %v", name, namespaced, want)
					}
				}
				if got := ValidateObjectMeta(&m, namespaced, nameFn.fast); fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("%s (namespaced %v): got %v, upstream %v", name, namespaced, got, want)
				}
			}
		}
	}
	// The valid variants take the fast path.
	if m := base(); !plainlyValidMeta(&m, true, NameIsDNSSubdomain) || plain < 20 {
		t.Errorf("valid metadata is not plainly valid (%d variants were)", plain)
	}
}

// TestLabelSelectorsAgree: validateLabelSelector reports what upstream's
// ValidateLabelSelector does for selectors at each edge it checks, under
// each option, and lets the valid ones through without it.
func TestLabelSelectorsAgree(t *testing.T) {
	req := func(key string, op metav1.LabelSelectorOperator, values ...string) *metav1.LabelSelector {
		return &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"},
			MatchExpressions: []metav1.LabelSelectorRequirement{{Key: key, Operator: op, Values: values}}}
	}
	selectors := map[string]*metav1.LabelSelector{
		"nil":                  nil,
		"empty":                {},
		"labels":               {MatchLabels: map[string]string{"app": "web", "example.com/tier": "Front_1"}},
		"bad label key":        {MatchLabels: map[string]string{"a/b/c": "x"}},
		"bad label value":      {MatchLabels: map[string]string{"app": "-web"}},
		"in":                   req("app", metav1.LabelSelectorOpIn, "a", "b"),
		"not in":               req("example.com/app", metav1.LabelSelectorOpNotIn, "a"),
		"in without values":    req("app", metav1.LabelSelectorOpIn),
		"exists":               req("app", metav1.LabelSelectorOpExists),
		"exists with values":   req("app", metav1.LabelSelectorOpExists, "a"),
		"does not exist":       req("app", metav1.LabelSelectorOpDoesNotExist),
		"unknown operator":     req("app", "Gt", "1"),
		"bad key":              req("-app", metav1.LabelSelectorOpExists),
		"bad value":            req("app", metav1.LabelSelectorOpIn, "ok", "not ok"),
		"long value":           req("app", metav1.LabelSelectorOpIn, strings.Repeat("a", 64)),
		"empty value":          req("app", metav1.LabelSelectorOpIn, ""),
		"bad key and operator": req("a/b/c", "Lt"),
	}
	plain := 0
	for name, sel := range selectors {
		for _, opts := range []metav1validation.LabelSelectorValidationOptions{{}, {AllowInvalidLabelValueInSelector: true}, {AllowUnknownOperatorInRequirement: true}} {
			p := field.NewPath("spec", "selector")
			want := metav1validation.ValidateLabelSelector(sel, opts, p)
			if plainLabelSelector(sel, opts) {
				plain++
				if len(want) > 0 {
					t.Errorf("%s %+v: plainly valid, upstream finds %v", name, opts, want)
				}
			}
			if got := validateLabelSelector(sel, opts, func() *field.Path { return p }); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%s %+v: got %v, upstream %v", name, opts, got, want)
			}
		}
	}
	if plain < 15 {
		t.Errorf("%d selectors and options took the fast path, want the valid ones (at least 15)", plain)
	}
}
