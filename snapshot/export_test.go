package snapshot

import (
	"sync"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/schedtui/schedtui/internal/docread"
)

// JSONObject is an object the loader decoded from JSON: its kind, its
// bytes, and whether its apiVersion and kind were checked (the fast path
// is taken only then).
type JSONObject struct {
	Kind  string
	Data  []byte
	Exact bool
}

// ObserveJSONDecodes hands every object the loader decodes from JSON,
// until stop is called, to seen (one call at a time).
func ObserveJSONDecodes(seen func(JSONObject)) (stop func()) {
	var mu sync.Mutex
	jsonDecodeObserver = func(ki *kindInfo, data []byte, exact bool) {
		mu.Lock()
		defer mu.Unlock()
		seen(JSONObject{Kind: ki.kind, Data: append([]byte(nil), data...), Exact: exact})
	}
	return func() { jsonDecodeObserver = nil }
}

// DecodeJSONBothWays decodes data, an object of kind, with the fast path
// (fast is nil when it refuses the object) and with the strict decoder
// alone, as decodeObjectChecked would for an object whose apiVersion and
// kind were checked.
func DecodeJSONBothWays(kind string, data []byte) (fast, strict runtime.Object, warnings, errs []docread.FieldIssue) {
	ki := supportedKinds[kind]
	fast = decodeFastJSON(ki, data)
	strict, warnings, errs = decodeObjectStrict(ki, data, true)
	return fast, strict, warnings, errs
}

// DecodeJSONObject decodes data, an object of kind whose apiVersion and
// kind were checked, as the loader does (strict: without the fast path).
// It reports whether the object decoded with no problem.
func DecodeJSONObject(kind string, data []byte, strict bool) bool {
	ki := supportedKinds[kind]
	var obj runtime.Object
	var warnings, errs []docread.FieldIssue
	if strict {
		obj, warnings, errs = decodeObjectStrict(ki, data, true)
	} else {
		obj, warnings, errs = decodeObjectChecked(ki, data, true)
	}
	return obj != nil && len(warnings) == 0 && len(errs) == 0
}

// FastJSONKinds are the kinds the fast path decodes.
func FastJSONKinds() []string {
	var kinds []string
	for k, ki := range supportedKinds {
		if ki.fastJSON {
			kinds = append(kinds, k)
		}
	}
	return kinds
}
