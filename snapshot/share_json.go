package snapshot

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"google.golang.org/protobuf/encoding/protowire"
	v1 "k8s.io/api/core/v1"
)

// Sharing a JSON pod's or node's parts by their bytes, before decoding
// them, as share_protobuf.go and share_protobuf_nodes.go do for protobuf:
// the same parts (podParts, nodeParts), the same "set once defaulted"
// (foundParts.settle, settleNode), a table of their own (sharedParts.rawJSON:
// equal bytes of the two formats are not the same part). From JSON, the
// fast decode (decode_fast.go) and the sharing by equality that follows
// (share.go: each part encoded again, then reflect.DeepEqual) were most of
// a 5000-node load's CPU (docs/performance.md, End to end).
//
// JSON v2 calls a function of ours for each value of a part's Go type
// (jsonv2.WithUnmarshalers); when the value is where a part is (its JSON
// pointer, /spec/containers), its bytes are read whole (ReadValue: a
// slice of the object's JSON) and the field is left as it is, zero.
// Once the object is decoded, each part's bytes are looked up in the
// table under the kind the object's other fields decide (the host-network
// pod's containers; a node's capacity only when its allocatable is given,
// not null; the create-time parts only in a stored pod:
// share_protobuf.go says why); a part met before is set once the object
// is defaulted, and any other is decoded then, from its bytes, with the
// fast decode's options.
//
// Equal bytes give equal parts: JSON v2 decodes a value by its bytes
// alone (no member of the object outside it changes how it is read:
// duplicate names and unknown members are refused inside the value
// itself), and a part is remembered only from an object decoded by the
// fast path (all of it, its parts included, refused by nothing), as
// defaulting left it, which depends on the part alone in the kind it is
// remembered under. The bytes are as written, whitespace inside the value
// included: the same part indented otherwise is another key. Whatever
// fails (the object, or a part decoded from its bytes) sends the object
// to the strict decoder, which decodes it in full, nothing shared by its
// bytes, and words its problems as it always did.

// partJSON is where a part of an Obj (a pod or a node) is in the
// object's JSON, and how it is decoded from its bytes.
type partJSON[Obj any] struct {
	pointer jsontext.Pointer // /metadata/labels, /spec/containers
	typ     reflect.Type     // the field's Go type
	// hook is the function JSON v2 calls for each value of typ (record
	// decides whether it is the part).
	hook func(record func(*jsontext.Decoder, reflect.Type) error) *jsonv2.Unmarshalers
	// decode decodes the part's bytes into its field of obj, zero.
	decode func(obj *Obj, raw []byte) error
}

// outerJSONNames are the JSON names of a pod's or a node's metadata, spec
// and status, by their protobuf field numbers (podMetadata, podSpec,
// podStatus; the node's are the same).
var outerJSONNames = [...]string{podMetadata: "metadata", podSpec: "spec", podStatus: "status"}

// newPartJSON is the partJSON of the part at (field of O) of the object's
// field outer, of.
func newPartJSON[Obj, O any, PO interface {
	*O
	Size() int
}, T any](outer, field protowire.Number, of func(*Obj) PO, at func(PO) *T) partJSON[Obj] {
	typ := reflect.TypeFor[T]()
	return partJSON[Obj]{
		pointer: jsontext.Pointer("/" + outerJSONNames[outer] + "/" + jsonNameOfField(reflect.TypeFor[O](), field)),
		typ:     typ,
		hook: func(record func(*jsontext.Decoder, reflect.Type) error) *jsonv2.Unmarshalers {
			return jsonv2.UnmarshalFromFunc(func(dec *jsontext.Decoder, _ *T) error { return record(dec, typ) })
		},
		decode: func(obj *Obj, raw []byte) error { return jsonv2.Unmarshal(raw, at(of(obj)), fastJSONOptions) },
	}
}

// jsonNameOfField is the JSON name of the field of struct t whose
// protobuf field number is num (the API types tag both).
func jsonNameOfField(t reflect.Type, num protowire.Number) string {
	for i := range t.NumField() {
		f := t.Field(i)
		_, rest, _ := strings.Cut(f.Tag.Get("protobuf"), ",")
		n, _, _ := strings.Cut(rest, ",")
		if n == strconv.Itoa(int(num)) {
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			return name
		}
	}
	panic(fmt.Sprintf("%v has no field numbered %d", t, num))
}

// jsonParts are the parts of one kind of object (pods or nodes) as met in
// its JSON.
type jsonParts struct {
	// at is the index of each part (in podParts or nodeParts) by its
	// pointer and type.
	at map[jsonPartKey]uint8
	// hooks make JSON v2 call record for the parts' types, one each.
	hooks []func(record func(*jsontext.Decoder, reflect.Type) error) *jsonv2.Unmarshalers
	// decoders are jsonPartDecoders of these parts, for the goroutines
	// that decode.
	decoders sync.Pool
}

type jsonPartKey struct {
	pointer jsontext.Pointer
	typ     reflect.Type
}

func newJSONParts[Obj any](parts []partJSON[Obj]) *jsonParts {
	jp := &jsonParts{at: map[jsonPartKey]uint8{}}
	types := map[reflect.Type]bool{}
	for i, p := range parts {
		jp.at[jsonPartKey{p.pointer, p.typ}] = uint8(i)
		if !types[p.typ] {
			types[p.typ] = true
			jp.hooks = append(jp.hooks, p.hook)
		}
	}
	jp.decoders.New = func() any { return newJSONPartDecoder(jp) }
	return jp
}

var jsonPodParts, jsonNodeParts *jsonParts

func init() {
	pods := make([]partJSON[v1.Pod], len(podParts))
	for i := range podParts {
		pods[i] = podParts[i].json
	}
	nodes := make([]partJSON[v1.Node], len(nodeParts))
	for i := range nodeParts {
		nodes[i] = nodeParts[i].json
	}
	jsonPodParts, jsonNodeParts = newJSONParts(pods), newJSONParts(nodes)
}

// jsonPartDecoder decodes one object at a time, recording its parts'
// bytes instead of decoding them.
type jsonPartDecoder struct {
	parts *jsonParts
	opts  jsonv2.Options // fastJSONOptions, and the hooks
	met   []metJSONPart
}

// metJSONPart is a part met in an object's JSON: its index in podParts
// or nodeParts, and its bytes (a slice of the object's JSON).
type metJSONPart struct {
	part uint8
	raw  []byte
}

func newJSONPartDecoder(jp *jsonParts) *jsonPartDecoder {
	d := &jsonPartDecoder{parts: jp}
	us := make([]*jsonv2.Unmarshalers, len(jp.hooks))
	for i, hook := range jp.hooks {
		us[i] = hook(d.record)
	}
	d.opts = jsonv2.JoinOptions(fastJSONOptions, jsonv2.WithUnmarshalers(jsonv2.JoinUnmarshalers(us...)))
	return d
}

// record reads the value dec is at, of Go type typ, when it is a part:
// a member of the object's metadata, spec or status at a part's pointer.
// Any other value is left to JSON v2 (errors.ErrUnsupported, nothing
// read).
func (d *jsonPartDecoder) record(dec *jsontext.Decoder, typ reflect.Type) error {
	if dec.StackDepth() != 2 {
		return errors.ErrUnsupported
	}
	part, ok := d.parts.at[jsonPartKey{dec.StackPointer(), typ}]
	if !ok {
		return errors.ErrUnsupported
	}
	raw, err := dec.ReadValue()
	if err != nil {
		return err
	}
	d.met = append(d.met, metJSONPart{part: part, raw: raw})
	return nil
}

// decode decodes data into obj, recording the parts met; ok is false when
// JSON v2 refuses it.
func (d *jsonPartDecoder) decode(data []byte, obj any) (ok bool) {
	d.met = d.met[:0]
	return jsonv2.Unmarshal(data, obj, d.opts) == nil
}

// release gives d back once its parts are looked up.
func (d *jsonPartDecoder) release() {
	clear(d.met) // the parts' bytes are slices of a file
	d.met = d.met[:0]
	d.parts.decoders.Put(d)
}

// decodeJSONPod decodes data, a pod's JSON (decodeFastJSON's), looking
// its parts up in table by their bytes; nil when the fast path refuses
// it (the strict decoder then decodes it in full).
func decodeJSONPod(table *sharedParts, data []byte) (*v1.Pod, *foundParts) {
	d := jsonPodParts.decoders.Get().(*jsonPartDecoder)
	defer d.release()
	pod := &v1.Pod{}
	if !d.decode(data, pod) {
		return nil, nil
	}
	f := foundPartsPool.Get().(*foundParts)
	f.table, f.raw, f.hits, f.node = table, &table.rawJSON, false, nil
	f.parts, f.spans, f.nested, f.lists = slices0(f.parts, len(d.met)), f.spans[:0], f.nested[:0], [len(statusLists)]int32{}
	stored := pod.ResourceVersion != ""
	for _, m := range d.met {
		p := &podParts[m.part]
		if p.storedOnly && !stored {
			if p.json.decode(pod, m.raw) != nil {
				f.release()
				return nil, nil
			}
			continue
		}
		f.parts = append(f.parts, foundPart{part: m.part, kind: podPartKind(p, pod.Spec.HostNetwork), key: m.raw})
	}
	table.mu.Lock()
	f.lookUp()
	table.mu.Unlock()
	for i := range f.parts {
		if fp := &f.parts[i]; !fp.known && podParts[fp.part].json.decode(pod, fp.key) != nil {
			f.release()
			return nil, nil
		}
	}
	return pod, f
}

// slices0 is s emptied, with room for n.
func slices0[E any](s []E, n int) []E {
	if cap(s) < n {
		return make([]E, 0, n)
	}
	return s[:0]
}

// decodeJSONNode is decodeJSONPod for a node.
func decodeJSONNode(table *sharedParts, data []byte) (*v1.Node, *foundParts) {
	d := jsonNodeParts.decoders.Get().(*jsonPartDecoder)
	defer d.release()
	node := &v1.Node{}
	if !d.decode(data, node) {
		return nil, nil
	}
	// An allocatable absent or null is the capacity once defaulted
	// (share_protobuf_nodes.go): the capacity is then decoded.
	allocatable := false
	for _, m := range d.met {
		if isNodeStatusPart(m.part, nodeStatusAllocatable) && !bytes.Equal(m.raw, []byte("null")) {
			allocatable = true
		}
	}
	f := &foundNodeParts{table: table, raw: &table.rawJSON, parts: make([]foundNodePart, 0, len(d.met))}
	for _, m := range d.met {
		if isNodeStatusPart(m.part, nodeStatusCapacity) && !allocatable {
			if nodeParts[m.part].json.decode(node, m.raw) != nil {
				return nil, nil
			}
			continue
		}
		f.parts = append(f.parts, foundNodePart{part: m.part, key: m.raw})
	}
	f.lookUp()
	for i := range f.parts {
		if fp := &f.parts[i]; !fp.known && nodeParts[fp.part].json.decode(node, fp.key) != nil {
			return nil, nil
		}
	}
	return node, f.asFound()
}

// isNodeStatusPart reports whether nodeParts[part] is the node status's
// field.
func isNodeStatusPart(part uint8, field protowire.Number) bool {
	return nodeParts[part].outer == nodeStatus && nodeParts[part].field == field
}
