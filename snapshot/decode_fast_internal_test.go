package snapshot

import (
	"reflect"
	"testing"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
	sigsjson "sigs.k8s.io/json"
)

// TestFastJSONSafeRefusesWhatV2DecodesOtherwise holds fastJSONSafe to the
// types where JSON v2, with the fast path's options, succeeds on input
// the strict decoder refuses or decodes to another value, and to taking
// every kind schedtui reads.
func TestFastJSONSafeRefusesWhatV2DecodesOtherwise(t *testing.T) {
	for kind, ki := range supportedKinds {
		if !ki.fastJSON {
			t.Errorf("%s does not take the fast path", kind)
		}
	}
	type embedded struct{ A int }
	type withAny struct{ A any }
	type withArray struct{ A [2]byte }
	type withDuration struct{ A time.Duration }
	type withTime struct{ A time.Time }
	type withStringOption struct {
		A bool `json:",string"`
	}
	type withUnexportedEmbedded struct{ embedded }
	for _, c := range []struct {
		v    any
		data string
		// differs: v2 takes data and the strict decoder refuses it or
		// decodes another value (the others are refused on principle).
		differs bool
	}{
		{&withAny{}, `{"A":1}`, true}, // v1 keeps int64(1), v2 makes float64(1)
		{&withArray{}, `{"A":"AAA="}`, true},
		{&withDuration{}, `{"A":1}`, false},
		{&withTime{}, `{"A":"2025-03-03T09:00:01Z"}`, false},
		{&withStringOption{}, `{"A":"true"}`, false},
		{&withUnexportedEmbedded{}, `{"A":1}`, false},
	} {
		typ := reflect.TypeOf(c.v).Elem()
		if fastJSONSafe(typ) {
			t.Errorf("fastJSONSafe(%v) = true", typ)
		}
		if !c.differs {
			continue
		}
		fast, strict := reflect.New(typ).Interface(), reflect.New(typ).Interface()
		fastErr := jsonv2.Unmarshal([]byte(c.data), fast, fastJSONOptions)
		strictErrs, err := sigsjson.UnmarshalStrict([]byte(c.data), strict)
		if fastErr != nil || err == nil && len(strictErrs) == 0 && reflect.DeepEqual(fast, strict) {
			t.Errorf("%v from %s: v2 %v, strict %v %v, equal %v: the two no longer differ", typ, c.data, fastErr, err, strictErrs, reflect.DeepEqual(fast, strict))
		}
	}
	for _, typ := range []reflect.Type{reflect.TypeFor[struct{ A, B *int }](), reflect.TypeFor[struct {
		M map[string][]string
		E embedded `json:"e"`
	}]()} {
		if !fastJSONSafe(typ) {
			t.Errorf("fastJSONSafe(%v) = false", typ)
		}
	}
}
