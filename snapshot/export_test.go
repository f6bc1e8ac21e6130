package snapshot

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/schedtui/schedtui/internal/docread"
	"github.com/schedtui/schedtui/snapshot/apiserver"
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

// CompareJSONSharing decodes and checks (defaults, prepares, validates)
// each of objects whose apiVersion and kind were checked as the loader
// does, all in one table of shared parts, twice over (the second time,
// every part remembered the first is found by its bytes), and each alone
// with nothing shared. diff describes the first object that differs, in
// its value, its warnings or its errors; found counts the parts found by
// their JSON bytes.
func CompareJSONSharing(objects []JSONObject) (found int, diff string) {
	table := newSharedParts()
	for pass := 1; pass <= 2; pass++ {
		for _, o := range objects {
			ki := supportedKinds[o.Kind]
			if !o.Exact || ki == nil {
				continue
			}
			got, want := checkJSON(ki, o.Data, table), checkJSON(ki, o.Data, nil)
			if !reflect.DeepEqual(got, want) {
				return found, fmt.Sprintf("pass %d, a %s decoded and checked with its parts shared:\n%+v\nwithout:\n%+v\n%s", pass, o.Kind, got, want, o.Data)
			}
		}
	}
	for k := range partKinds {
		found += table.hits[k] + table.nodeFound[k]
	}
	return found, ""
}

// checkedJSON is an object decoded and checked, and its problems.
type checkedJSON struct {
	obj            runtime.Object
	warnings, errs []docread.FieldIssue
	invalid        field.ErrorList
	dropped        []apiserver.DroppedField
}

// checkJSON decodes data, an object of ki, and checks it as the loader
// does, its parts shared in table (nil: nothing shared).
func checkJSON(ki *kindInfo, data []byte, table *sharedParts) checkedJSON {
	var c checkedJSON
	var found *foundParts
	c.obj, c.warnings, c.errs, found = decodeObjectSharing(ki, data, true, table)
	acc, err := meta.Accessor(c.obj)
	if c.obj == nil || err != nil {
		return c
	}
	normalizeNamespace(ki, acc)
	c.invalid, c.dropped = defaultAndValidate(ki, c.obj, acc, apiserver.ValidationOptions{}, table, found)
	// In the order of their messages: a map's (labels') are in the
	// order Go walks it, another each time.
	slices.SortFunc(c.invalid, func(a, b *field.Error) int { return strings.Compare(a.Error(), b.Error()) })
	return c
}
