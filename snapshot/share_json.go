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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
// (jsonv2.WithUnmarshalers); when the value is where a part is (a member
// of the object's metadata, spec or status: spec's containers), its
// bytes are read whole (ReadValue: a slice of the object's JSON, which
// JSON v2 decodes in place; TestJSONPartBytesAreTheObjects) and the field
// is left as it is, zero.
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
	outer protowire.Number // the object's metadata, spec or status
	name  string           // the part's member in it
	typ   reflect.Type     // the field's Go type
	// hook is the function JSON v2 calls for each value of typ (record
	// decides whether it is the part).
	hook func(record func(*jsontext.Decoder, reflect.Type) error) *jsonv2.Unmarshalers
	// decode decodes the part's bytes into its field of obj, zero.
	decode func(obj *Obj, raw []byte) error
}

// newPartJSON is the partJSON of the part at (field of O) of the object's
// field outer, of.
func newPartJSON[Obj, O any, PO interface {
	*O
	Size() int
}, T any](outer, field protowire.Number, of func(*Obj) PO, at func(PO) *T) partJSON[Obj] {
	typ := reflect.TypeFor[T]()
	return partJSON[Obj]{
		outer: outer,
		name:  jsonNameOfField(reflect.TypeFor[O](), field),
		typ:   typ,
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
	// at are the parts (their index in podParts or nodeParts, and Go
	// type) by the object's field that holds them (metadata, spec,
	// status) and their member's name.
	at [podStatus + 1]map[string]jsonPartAt
	// hooks make JSON v2 call record for the parts' types, one each,
	// and outer for the object's metadata, spec and status.
	hooks []func(d *jsonPartDecoder) *jsonv2.Unmarshalers
	// decoders are jsonPartDecoders of these parts, for the goroutines
	// that decode.
	decoders sync.Pool
}

type jsonPartAt struct {
	part uint8
	kind partKind
	typ  reflect.Type
}

// newJSONParts are parts, of an object whose metadata, spec and status
// are of types Meta, Spec and Status.
func newJSONParts[Obj, Meta, Spec, Status any](parts []partJSON[Obj], kind func(int) partKind) *jsonParts {
	jp := &jsonParts{}
	types := map[reflect.Type]bool{}
	for i, p := range parts {
		if jp.at[p.outer] == nil {
			jp.at[p.outer] = map[string]jsonPartAt{}
		}
		jp.at[p.outer][p.name] = jsonPartAt{part: uint8(i), kind: kind(i), typ: p.typ}
		if !types[p.typ] {
			types[p.typ] = true
			hook := p.hook
			jp.hooks = append(jp.hooks, func(d *jsonPartDecoder) *jsonv2.Unmarshalers { return hook(d.record) })
		}
	}
	jp.hooks = append(jp.hooks, outerHook[Meta](podMetadata), outerHook[Spec](podSpec), outerHook[Status](podStatus))
	jp.decoders.New = func() any { return newJSONPartDecoder(jp) }
	return jp
}

// outerHook makes JSON v2 tell the decoder which of the object's fields
// (metadata, spec, status: the only members of a pod or a node that hold
// members) it decodes, as it starts, and then decode it as always.
func outerHook[O any](outer protowire.Number) func(d *jsonPartDecoder) *jsonv2.Unmarshalers {
	return func(d *jsonPartDecoder) *jsonv2.Unmarshalers {
		return jsonv2.UnmarshalFromFunc(func(dec *jsontext.Decoder, _ *O) error {
			d.outer = 0
			if dec.StackDepth() == 1 {
				d.outer = outer
			}
			return errors.ErrUnsupported
		})
	}
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
	jsonPodParts = newJSONParts[v1.Pod, metav1.ObjectMeta, v1.PodSpec, v1.PodStatus](pods, func(i int) partKind { return podParts[i].kind })
	jsonNodeParts = newJSONParts[v1.Node, metav1.ObjectMeta, v1.NodeSpec, v1.NodeStatus](nodes, func(i int) partKind { return nodeParts[i].kind })
}

// jsonPartDecoder decodes one object at a time, recording its parts'
// bytes instead of decoding them.
type jsonPartDecoder struct {
	parts *jsonParts
	opts  jsonv2.Options // fastJSONOptions, with the hooks
	// data is the object's JSON, and outer the field of it decoded
	// (0: none).
	data  []byte
	outer protowire.Number
	// unmet are the kinds of part not looked up (a node's
	// nodeKindsUnmet): decoded as any other value.
	unmet partSet
	met   []metJSONPart
	time  lastTime
}

// metJSONPart is a part met in an object's JSON: its index in podParts
// or nodeParts, and its bytes (a slice of the object's JSON).
type metJSONPart struct {
	part uint8
	raw  []byte
}

func newJSONPartDecoder(jp *jsonParts) *jsonPartDecoder {
	d := &jsonPartDecoder{parts: jp}
	us := make([]*jsonv2.Unmarshalers, 0, len(jp.hooks)+1)
	for _, hook := range jp.hooks {
		us = append(us, hook(d))
	}
	// The last WithUnmarshalers given replaces fastJSONOptions' own
	// (fastJSONUnmarshalers): the decoder's remembers its last time.
	us = append(us, jsonv2.UnmarshalFromFunc(func(dec *jsontext.Decoder, t *metav1.Time) error { return d.time.decode(dec, t) }))
	d.opts = jsonv2.JoinOptions(fastJSONOptions, jsonv2.WithUnmarshalers(jsonv2.JoinUnmarshalers(us...)))
	return d
}

// record reads the value dec is at, of Go type typ, when it is a part:
// a member of the object's metadata, spec or status named as a part of
// that type. Any other value is left to JSON v2 (errors.ErrUnsupported,
// nothing read).
func (d *jsonPartDecoder) record(dec *jsontext.Decoder, typ reflect.Type) error {
	if d.outer == 0 || dec.StackDepth() != 2 {
		return errors.ErrUnsupported
	}
	name, ok := memberName(d.data[:dec.InputOffset()])
	if !ok {
		return errors.ErrUnsupported
	}
	at, ok := d.parts.at[d.outer][string(name)]
	if !ok || at.typ != typ || d.unmet.has(at.kind) {
		return errors.ErrUnsupported
	}
	raw, err := dec.ReadValue()
	if err != nil {
		return err
	}
	d.met = append(d.met, metJSONPart{part: at.part, raw: raw})
	return nil
}

// memberName is the name of the member whose value starts after b, as
// written: the JSON string at b's end, before the colon (JSON v2 has
// checked the syntax). A name written with an escape is not read (ok
// false): its value is then decoded as any other.
func memberName(b []byte) (name []byte, ok bool) {
	b = bytes.TrimRight(b, " \t\r\n")
	b = bytes.TrimSuffix(b, []byte(":"))
	b = bytes.TrimRight(b, " \t\r\n")
	if len(b) < 2 || b[len(b)-1] != '"' {
		return nil, false
	}
	b = b[:len(b)-1]
	open := bytes.LastIndexByte(b, '"')
	// Before a name's opening quote is a brace, a comma or a space,
	// never a backslash; one inside it may be an escape.
	if open < 1 || b[open-1] == '\\' || bytes.IndexByte(b[open+1:], '\\') >= 0 {
		return nil, false
	}
	return b[open+1:], true
}

// decode decodes data into obj, recording the parts met; ok is false when
// JSON v2 refuses it.
func (d *jsonPartDecoder) decode(data []byte, obj any, unmet partSet) (ok bool) {
	d.data, d.outer, d.unmet, d.met = data, 0, unmet, d.met[:0]
	return jsonv2.Unmarshal(data, obj, d.opts) == nil
}

// release gives d back once its parts are looked up.
func (d *jsonPartDecoder) release() {
	clear(d.met) // the parts' bytes are slices of a file
	d.data, d.met = nil, d.met[:0]
	d.parts.decoders.Put(d)
}

// decodeJSONPod decodes data, a pod's JSON (decodeFastJSON's), looking
// its parts up in table by their bytes; nil when the fast path refuses
// it (the strict decoder then decodes it in full).
func decodeJSONPod(table *sharedParts, data []byte) (*v1.Pod, *foundParts) {
	d := jsonPodParts.decoders.Get().(*jsonPartDecoder)
	defer d.release()
	pod := &v1.Pod{}
	if !d.decode(data, pod, 0) {
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
	unmet := partSet(table.nodeKindsUnmet.Load())
	if !d.decode(data, node, unmet) {
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
	f := &foundNodeParts{table: table, raw: &table.rawJSON, parts: make([]foundNodePart, 0, len(d.met)), unmet: unmet}
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
