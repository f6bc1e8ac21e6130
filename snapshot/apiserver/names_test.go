package apiserver

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
