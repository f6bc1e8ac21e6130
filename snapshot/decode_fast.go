package snapshot

// The fast path of decoding an object from JSON (decode.go). The strict
// decoder, sigs.k8s.io/json's UnmarshalStrict, is the only voice for
// problems, but it took half of `run`'s CPU on SchedulingBasic's
// 5000-node file (0.23 of 0.46 s): an object is first decoded by
// github.com/go-json-experiment/json (JSON v2, about 2.5 times as fast
// there, with 58 allocations an object against 155;
// BenchmarkDecodeJSONObjects) configured to refuse everything the strict
// decoder would warn about or do differently, and only when that fails is
// the object decoded again, strictly, to word the problem exactly as
// before. The claim that a fast success means the strict decoder would
// have succeeded with no warning and given a deeply equal object is held
// by decode_fast_test.go (every object of the repository's snapshot files
// and of the generated scenarios, both ways; edge cases; a fuzz test).

import (
	"bytes"
	"encoding"
	stdjson "encoding/json"
	"errors"
	"reflect"
	"strings"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// fastJSONOptions make JSON v2 refuse what the strict decoder takes with
// a warning or another meaning: unknown members (strict: "unknown
// field"), duplicate names ("duplicate field"), names that match a
// field only case-insensitively (unknown to the strict decoder, which is
// case-sensitive), and invalid UTF-8 (in the tests' cases both decoders
// replace it with U+FFFD alike: refused to keep such input on the path
// that always read it). The kinds read hold strings, booleans, integers, structs,
// pointers, slices, maps with string keys and types that decode
// themselves, nothing else (fastJSONSafe refuses the rest); for those,
// v2's other defaults are at least as strict as v1's (a number with a
// fraction or an exponent into an integer, a string into a number: both
// refuse), so they only send more objects to the strict decoder.
var fastJSONOptions = jsonv2.JoinOptions(
	jsonv2.RejectUnknownMembers(true),
	jsonv2.MatchCaseInsensitiveNames(false),
	jsontext.AllowDuplicateNames(false),
	jsontext.AllowInvalidUTF8(false),
	jsonv2.WithUnmarshalers(fastJSONUnmarshalers),
)

// fastJSONUnmarshalers decode the types that decode themselves the way
// their UnmarshalJSON does, faster. A metav1.Time's UnmarshalJSON reads
// its string with encoding/json's Unmarshal (a decoder set up for each
// time: 13% of `run`'s CPU on SchedulingBasic's 5000-node JSON file, 9
// times in each node) and parses it with time.Parse (RFC 3339), in local
// time: here the string is JSON v2's token, which for what both accept
// (valid UTF-8, fastJSONOptions) is the same string. Anything but a
// string (null, or what the method refuses) is left to the method.
var fastJSONUnmarshalers = jsonv2.UnmarshalFromFunc(func(dec *jsontext.Decoder, t *metav1.Time) error {
	if dec.PeekKind() != '"' {
		return errors.ErrUnsupported
	}
	tok, err := dec.ReadToken()
	if err != nil {
		return err
	}
	return setTime(t, tok.String())
})

// setTime sets t to the RFC 3339 time s in local time, as
// metav1.Time's UnmarshalJSON does once it has the string.
func setTime(t *metav1.Time, s string) error {
	pt, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return err
	}
	t.Time = pt.Local()
	return nil
}

// lastTime is the last metav1.Time a decoder of pods or nodes decoded
// (share_json.go), by its JSON: the times of one object are mostly the
// same (a node's conditions' eight), and the same string parses to the
// same time.
type lastTime struct {
	raw  []byte
	time metav1.Time
	buf  []byte
}

// decode decodes the metav1.Time dec is at into t as fastJSONUnmarshalers
// does (the string jsontext.AppendUnquote gives is the token's), from l
// when its JSON is l's.
func (l *lastTime) decode(dec *jsontext.Decoder, t *metav1.Time) error {
	if dec.PeekKind() != '"' {
		return errors.ErrUnsupported
	}
	raw, err := dec.ReadValue()
	if err != nil {
		return err
	}
	if l.raw != nil && bytes.Equal(raw, l.raw) {
		*t = l.time
		return nil
	}
	if l.buf, err = jsontext.AppendUnquote(l.buf[:0], raw); err != nil {
		return err
	}
	if err := setTime(t, string(l.buf)); err != nil {
		return err
	}
	l.raw, l.time = append(l.raw[:0], raw...), *t
	return nil
}

// decodeFastJSON decodes data, an object of ki's kind whose apiVersion
// and kind were checked (decodeObjectChecked's exact), with JSON v2. It
// returns nil when JSON v2 refuses it or ki's type is not one the fast
// path is sure of: then the strict decoder decodes it.
func decodeFastJSON(ki *kindInfo, data []byte) runtime.Object {
	if !ki.fastJSON {
		return nil
	}
	obj := ki.newObj()
	if jsonv2.Unmarshal(data, obj, fastJSONOptions) != nil {
		return nil
	}
	return obj
}

// decodeFastJSONSharing is decodeFastJSON; with table not nil, a pod's or
// a node's parts are looked up in it by their bytes (share_json.go) and
// found are those parts.
func decodeFastJSONSharing(ki *kindInfo, data []byte, table *sharedParts) (obj runtime.Object, found *foundParts) {
	if table != nil && ki.fastJSON {
		switch ki.kind {
		case "Pod":
			if pod, found := decodeJSONPod(table, data); pod != nil {
				return pod, found
			}
			return nil, nil
		case "Node":
			if node, found := decodeJSONNode(table, data); node != nil {
				return node, found
			}
			return nil, nil
		}
	}
	return decodeFastJSON(ki, data), nil
}

// jsonDecodeObserver, when not nil, is given every object
// decodeObjectChecked decodes, from the loader's goroutines: the tests
// decode each again both ways (decode_fast_test.go).
var jsonDecodeObserver func(ki *kindInfo, data []byte, exact bool)

var (
	jsonUnmarshalerType = reflect.TypeFor[stdjson.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// fastJSONSafe says whether JSON v2 decodes every value of t as the
// strict decoder (encoding/json's rules, case-sensitive, integers kept
// in interfaces) does, whenever it succeeds. It walks t down to the types
// that decode themselves (UnmarshalJSON: Quantity, Time, IntOrString,
// RawExtension), which both decoders call with the same bytes, and
// refuses what the two decode differently: interfaces (v1 keeps
// integers as int64, v2 makes float64), arrays (v2 takes [N]byte from
// base64), time.Time and time.Duration without a method of their own,
// slices of named bytes, map keys that decode themselves, fields with the
// `string` option and struct fields v2 would inline other than v1 does.
func fastJSONSafe(t reflect.Type) bool {
	return fastJSONWalk(t, map[reflect.Type]bool{})
}

func fastJSONWalk(t reflect.Type, seen map[reflect.Type]bool) bool {
	if seen[t] {
		return true
	}
	seen[t] = true
	if t == reflect.TypeFor[time.Time]() || t == reflect.TypeFor[time.Duration]() {
		// v2 decodes time.Time by its own rules, not its UnmarshalJSON.
		return false
	}
	if reflect.PointerTo(t).Implements(jsonUnmarshalerType) || t.Implements(jsonUnmarshalerType) {
		return true
	}
	switch t.Kind() {
	case reflect.Bool, reflect.String,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return !reflect.PointerTo(t).Implements(textUnmarshalerType)
	case reflect.Pointer:
		return fastJSONWalk(t.Elem(), seen)
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return t.Elem() == reflect.TypeFor[byte]()
		}
		return fastJSONWalk(t.Elem(), seen)
	case reflect.Map:
		k := t.Key()
		if k.Kind() != reflect.String || reflect.PointerTo(k).Implements(textUnmarshalerType) ||
			reflect.PointerTo(k).Implements(jsonUnmarshalerType) {
			return false
		}
		return fastJSONWalk(t.Elem(), seen)
	case reflect.Struct:
		if reflect.PointerTo(t).Implements(textUnmarshalerType) {
			return false
		}
		for i := range t.NumField() {
			f := t.Field(i)
			tag := f.Tag.Get("json")
			if tag == "-" || !f.IsExported() && !f.Anonymous {
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			for opt := range strings.SplitSeq(opts, ",") {
				if opt == "string" {
					return false
				}
			}
			if f.Anonymous && name == "" {
				// Both inline an embedded struct without a JSON name
				// (the API types' TypeMeta, tagged `json:",inline"`),
				// and both take one with a name (ObjectMeta, tagged
				// "metadata") as a field. Any other embedded field
				// (unexported, a pointer, not a struct) is refused
				// rather than reasoned about.
				if !f.IsExported() || f.Type.Kind() != reflect.Struct {
					return false
				}
			}
			if !fastJSONWalk(f.Type, seen) {
				return false
			}
		}
		return true
	default:
		return false
	}
}
