package docread

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// FieldIssue is a problem with one field of an object.
type FieldIssue struct {
	Field   string
	Message string
}

var strictFieldRE = regexp.MustCompile(`^(unknown|duplicate) field "(.*)"$`)

// StrictField parses a strict decoder's complaint about one field: what
// is "unknown" or "duplicate"; ok is false for any other message.
func StrictField(msg string) (what, field string, ok bool) {
	m := strictFieldRE.FindStringSubmatch(msg)
	if m == nil {
		return "", "", false
	}
	return m[1], m[2], true
}

// LocateDecodeErrors finds the fields of a JSON document that cannot be
// decoded into a value of type t (bad quantities, wrong JSON types, bad
// timestamps, ...). The Kubernetes decoder stops at the first such error
// and, for errors raised by custom unmarshalers, does not say where it
// was; this walks the generic JSON alongside the Go type and tries each
// leaf on its own. At most max issues are returned.
func LocateDecodeErrors(data []byte, t reflect.Type, max int) []FieldIssue {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil
	}
	w := &locator{max: max}
	w.walk(v, t, "")
	return w.issues
}

type locator struct {
	max    int
	issues []FieldIssue
}

var (
	jsonUnmarshalerType = reflect.TypeOf((*json.Unmarshaler)(nil)).Elem()
	textUnmarshalerType = reflect.TypeOf((*encoding.TextUnmarshaler)(nil)).Elem()
)

func (w *locator) full() bool { return len(w.issues) >= w.max }

func (w *locator) walk(v any, t reflect.Type, path string) {
	if w.full() || v == nil {
		return
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Implements(jsonUnmarshalerType) || reflect.PointerTo(t).Implements(jsonUnmarshalerType) ||
		t.Implements(textUnmarshalerType) || reflect.PointerTo(t).Implements(textUnmarshalerType) {
		w.leaf(v, t, path)
		return
	}
	switch t.Kind() {
	case reflect.Struct:
		m, ok := v.(map[string]any)
		if !ok {
			w.leaf(v, t, path)
			return
		}
		fields := jsonFields(t)
		for _, k := range sortedKeys(m) {
			f, ok := fields[k]
			if !ok {
				continue // unknown fields are reported by strict decoding
			}
			w.walk(m[k], f, JoinField(path, k))
		}
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			w.leaf(v, t, path)
			return
		}
		s, ok := v.([]any)
		if !ok {
			w.leaf(v, t, path)
			return
		}
		for i, e := range s {
			w.walk(e, t.Elem(), path+"["+strconv.Itoa(i)+"]")
		}
	case reflect.Map:
		m, ok := v.(map[string]any)
		if !ok || t.Key().Kind() != reflect.String {
			w.leaf(v, t, path)
			return
		}
		for _, k := range sortedKeys(m) {
			w.walk(m[k], t.Elem(), joinKey(path, k))
		}
	case reflect.Interface:
		// anything goes
	default:
		w.leaf(v, t, path)
	}
}

func (w *locator) leaf(v any, t reflect.Type, path string) {
	b, err := json.Marshal(v)
	if err != nil {
		return
	}
	p := reflect.New(t)
	if err := json.Unmarshal(b, p.Interface()); err != nil {
		w.issues = append(w.issues, FieldIssue{Field: path, Message: cleanJSONError(err)})
	}
}

func cleanJSONError(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Type != nil {
		return "cannot unmarshal " + te.Value + " into a value of type " + te.Type.String()
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// JoinField appends a struct field name to a path.
func JoinField(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// KeyPath appends a map key to a path the way problems render it:
// "requests.cpu", "labels[app.kubernetes.io/name]".
func KeyPath(p *field.Path, key string) *field.Path {
	if isPlainKey(key) {
		return p.Child(key)
	}
	return p.Key(key)
}

// joinKey appends a map key: as ".key" when it is a plain word
// ("requests.cpu"), as "[key]" otherwise ("labels[app.kubernetes.io/name]").
func joinKey(path, key string) string {
	if isPlainKey(key) {
		return JoinField(path, key)
	}
	return path + "[" + key + "]"
}

func isPlainKey(k string) bool {
	if k == "" {
		return false
	}
	for _, c := range k {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

var jsonFieldCache sync.Map // reflect.Type -> map[string]reflect.Type

// jsonFields maps the JSON names of a struct's fields (including those of
// inlined embedded structs) to their types, case-sensitively, as the
// Kubernetes decoder matches them.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	if m, ok := jsonFieldCache.Load(t); ok {
		return m.(map[string]reflect.Type)
	}
	m := map[string]reflect.Type{}
	collectJSONFields(t, m, 0)
	jsonFieldCache.Store(t, m)
	return m
}

func collectJSONFields(t reflect.Type, m map[string]reflect.Type, depth int) {
	if depth > 8 {
		return
	}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		ft := f.Type
		if name == "" && f.Anonymous {
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				collectJSONFields(ft, m, depth+1)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if _, dup := m[name]; !dup {
			m[name] = f.Type
		}
	}
}

// CleanDecodeError is a decoder's error message without its "json: " prefix.
func CleanDecodeError(err error) string {
	msg := err.Error()
	msg = strings.TrimPrefix(msg, "json: ")
	return msg
}

// IssuesFromFieldErrors converts apimachinery field errors.
func IssuesFromFieldErrors(errs field.ErrorList) []FieldIssue {
	out := make([]FieldIssue, 0, len(errs))
	for _, e := range errs {
		if e == nil {
			continue
		}
		out = append(out, FieldIssue{Field: e.Field, Message: e.ErrorBody()})
	}
	return out
}
