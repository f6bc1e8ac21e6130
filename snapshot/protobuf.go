package snapshot

// Snapshots in the API server's protobuf encoding (Content-Type
// application/vnd.kubernetes.protobuf): the file is what the API server's
// protobuf serializer writes for a v1 List (the magic "k8s\x00", then a
// runtime.Unknown holding the List), each item itself such an envelope
// holding one object. The first item is the capture header, a
// runtime.Unknown of kind SnapshotHeader whose raw bytes are the Header as
// JSON. Decoding the generated protobuf code is several times faster than
// decoding JSON, which is what a snapshot of hundreds of thousands of pods
// needs to open in seconds (see docs/performance.md).

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"google.golang.org/protobuf/encoding/protowire"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/schedtui/schedtui/internal/docread"
	"github.com/schedtui/schedtui/snapshot/apiserver"
)

// The header item of a protobuf snapshot.
const (
	protobufHeaderAPIVersion = "schedtui.dev/v1"
	protobufHeaderKind       = "SnapshotHeader"
)

var protobufSerializer = protobuf.NewSerializer(scheme.Scheme, scheme.Scheme)

// protoObject is what the generated protobuf code gives every API type.
type protoObject interface {
	Unmarshal([]byte) error
	Size() int
}

// ProtobufWriter writes a protobuf snapshot of objects generated one at a
// time (each is encoded as it is added, so that the objects need not all
// exist at once; their encodings are kept until WriteList writes the
// List). Write writes a Cluster without keeping them.
type ProtobufWriter struct {
	items   [][]byte // the header's envelope, then the objects'
	enc     protobufObjectEncoder
	dropEnv bool // see EnvValuesDropped
}

// NewProtobufWriter starts a protobuf snapshot with header h (without its
// secrets, see redactHeader).
func NewProtobufWriter(h Header) (*ProtobufWriter, error) {
	h = redactHeader(h)
	head, err := protobufHeaderItem(h)
	if err != nil {
		return nil, err
	}
	return &ProtobufWriter{items: [][]byte{head}, dropEnv: h.EnvValues == EnvValuesDropped}, nil
}

// protobufHeaderItem is the envelope of the header item, h as JSON.
func protobufHeaderItem(h Header) ([]byte, error) {
	hj, err := json.Marshal(h)
	if err != nil {
		return nil, fmt.Errorf("encoding the header: %w", err)
	}
	head := runtime.Unknown{TypeMeta: runtime.TypeMeta{APIVersion: protobufHeaderAPIVersion, Kind: protobufHeaderKind},
		Raw: hj, ContentType: runtime.ContentTypeJSON}
	hb, err := head.Marshal()
	if err != nil {
		return nil, fmt.Errorf("encoding the header: %w", err)
	}
	return append(bytes.Clone(protobufMagic), hb...), nil
}

// Add encodes one object as a snapshot holds it (see writable): o is
// not modified.
func (p *ProtobufWriter) Add(o runtime.Object) error {
	b, err := p.enc.encode(o, p.dropEnv)
	if err != nil {
		return err
	}
	p.items = append(p.items, bytes.Clone(b))
	return nil
}

// Len is the number of objects added.
func (p *ProtobufWriter) Len() int { return len(p.items) - 1 }

// WriteList writes the List: the header, then the objects in the order
// they were added.
func (p *ProtobufWriter) WriteList(w io.Writer) error {
	lw := protobufListWriter{w: w}
	for _, it := range p.items {
		lw.size += protobufListItemSize(len(it))
	}
	if err := lw.start(); err != nil {
		return err
	}
	for _, it := range p.items {
		if err := lw.item(it); err != nil {
			return err
		}
	}
	return lw.end()
}

// protobufObjectEncoder encodes objects as the API server's protobuf
// serializer does, each in the same buffer.
type protobufObjectEncoder struct{ buf bytes.Buffer }

// encode is o's envelope as a snapshot holds it (see writable), valid
// until the next call; o is not modified.
func (e *protobufObjectEncoder) encode(o runtime.Object, dropEnv bool) ([]byte, error) {
	o, err := writable(o, dropEnv)
	if err != nil {
		return nil, err
	}
	e.buf.Reset()
	if err := protobufSerializer.Encode(o, &e.buf); err != nil {
		return nil, fmt.Errorf("encoding %s: %w", describeObject(o), err)
	}
	return e.buf.Bytes(), nil
}

// writeProtobufList writes the List of the header and objs, byte for
// byte as the API server's protobuf serializer encodes a v1.List of their
// envelopes, one object at a time. The List's envelope gives its size
// before the items: a first pass encodes every object for its size
// alone, and the second writes them.
func writeProtobufList(w io.Writer, objs []runtime.Object, h Header) error {
	h = redactHeader(h)
	head, err := protobufHeaderItem(h)
	if err != nil {
		return err
	}
	dropEnv := h.EnvValues == EnvValuesDropped
	var enc protobufObjectEncoder
	lw := protobufListWriter{w: w, size: protobufListItemSize(len(head))}
	for _, o := range objs {
		b, err := enc.encode(o, dropEnv)
		if err != nil {
			return err
		}
		lw.size += protobufListItemSize(len(b))
	}
	if err := lw.start(); err != nil {
		return err
	}
	if err := lw.item(head); err != nil {
		return err
	}
	for _, o := range objs {
		b, err := enc.encode(o, dropEnv)
		if err != nil {
			return err
		}
		if err := lw.item(b); err != nil {
			return err
		}
	}
	return lw.end()
}

// protobufListWriter writes a v1.List in its protobuf envelope (magic,
// runtime.Unknown) as the API server's serializer does, the items given
// one by one: size is the sum of protobufListItemSize over the items,
// which the envelope and the List give ahead of them.
type protobufListWriter struct {
	w       io.Writer
	size    int // the List's items' fields
	written int
	scratch []byte
}

// Field numbers of the List's envelope besides those read (see
// unknownTypeMeta) and of the List's metadata.
const listMetadata = 1

// protobufListItemSize is what one item of n bytes takes in the List: the
// List's items field holding a RawExtension whose raw field holds it.
func protobufListItemSize(n int) int {
	ext := protowire.SizeTag(rawExtensionRaw) + protowire.SizeBytes(n)
	return protowire.SizeTag(listItems) + protowire.SizeBytes(ext)
}

// emptyListMeta is the List's metadata field: an empty ListMeta, which
// the generated code writes all the same (its empty strings too).
var emptyListMeta = func() []byte {
	var meta metav1.ListMeta
	b, err := meta.Marshal()
	if err != nil {
		panic(err) // an empty message
	}
	return protowire.AppendBytes(protowire.AppendTag(nil, listMetadata, protowire.BytesType), b)
}()

// start writes the magic, the envelope up to the List's bytes and the
// List's metadata.
func (lw *protobufListWriter) start() error {
	var typeMeta []byte
	typeMeta = protowire.AppendTag(typeMeta, typeMetaAPIVersion, protowire.BytesType)
	typeMeta = protowire.AppendString(typeMeta, "v1")
	typeMeta = protowire.AppendTag(typeMeta, typeMetaKind, protowire.BytesType)
	typeMeta = protowire.AppendString(typeMeta, "List")
	b := bytes.Clone(protobufMagic)
	b = protowire.AppendTag(b, unknownTypeMeta, protowire.BytesType)
	b = protowire.AppendBytes(b, typeMeta)
	b = protowire.AppendTag(b, unknownRaw, protowire.BytesType)
	b = protowire.AppendVarint(b, uint64(len(emptyListMeta)+lw.size))
	b = append(b, emptyListMeta...)
	_, err := lw.w.Write(b)
	return err
}

// item writes one item of the List.
func (lw *protobufListWriter) item(raw []byte) error {
	b := lw.scratch[:0]
	b = protowire.AppendTag(b, listItems, protowire.BytesType)
	b = protowire.AppendVarint(b, uint64(protowire.SizeTag(rawExtensionRaw)+protowire.SizeBytes(len(raw))))
	b = protowire.AppendTag(b, rawExtensionRaw, protowire.BytesType)
	b = protowire.AppendVarint(b, uint64(len(raw)))
	lw.scratch = b
	lw.written += protobufListItemSize(len(raw))
	if lw.written > lw.size {
		return errors.New("encoding the List: an object's encoding grew between the two passes")
	}
	if _, err := lw.w.Write(b); err != nil {
		return err
	}
	_, err := lw.w.Write(raw)
	return err
}

// end writes the envelope's last fields, its content encoding and type
// (both empty, written all the same), once every item is written.
func (lw *protobufListWriter) end() error {
	if lw.written != lw.size {
		return fmt.Errorf("encoding the List: the items took %d bytes, %d were counted", lw.written, lw.size)
	}
	var b []byte
	b = protowire.AppendTag(b, unknownContentEncoding, protowire.BytesType)
	b = protowire.AppendString(b, "")
	b = protowire.AppendTag(b, unknownContentType, protowire.BytesType)
	b = protowire.AppendString(b, "")
	_, err := lw.w.Write(b)
	return err
}

// protobufItem is a List item of a protobuf snapshot decoded ahead of
// adding it.
type protobufItem struct {
	apiVersion, kind string
	err              error   // not an envelope
	header           *Header // the capture header item
	h                docread.ObjectHeader
	dec              *decoded // nil for a kind schedtui does not read
}

// loadProtobuf adds the objects of a protobuf snapshot (data starts with
// protobufMagic). The error means data is not a protobuf List or object at
// all; problems with single items are reported and the items skipped.
func (l *Loader) loadProtobuf(name string, data []byte) error {
	// A file cut short is read up to the cut: its List's raw bytes and
	// then its items end early.
	typeMeta, raw, cut, _, err := protobufFieldsCut(data[len(protobufMagic):], unknownTypeMeta, unknownRaw, true)
	var apiVersion, kind [][]byte
	if err == nil && len(typeMeta) > 0 {
		apiVersion, kind, err = protobufFields(typeMeta[len(typeMeta)-1], typeMetaAPIVersion, typeMetaKind)
	}
	if err == nil && last(kind) == "" {
		err = fmt.Errorf("the envelope names no kind (%d bytes after the magic)", len(data)-len(protobufMagic))
	}
	if err != nil {
		return &docread.ParseError{File: name, Msg: "not a Kubernetes protobuf object (it starts with the protobuf envelope's magic \"k8s\\x00\"): " + err.Error(), Err: err}
	}
	l.documents++
	if last(apiVersion) != "v1" || last(kind) != "List" {
		// One object.
		l.addProtobufItem(name, "", decodeProtobufItem(data, l.validation, l.share))
		return nil
	}
	var items [][]byte
	if len(raw) > 0 {
		var itemsCut, itemCutInTwo bool
		_, items, itemsCut, itemCutInTwo, err = protobufFieldsCut(raw[len(raw)-1], 0, listItems, cut)
		if itemCutInTwo {
			items = items[:len(items)-1]
		}
		cut = cut || itemsCut
	}
	if cut && err == nil {
		l.report.Errorf(name, 0, "", "", "the file is cut short (truncated?): the %d objects before the cut are read, the rest is missing", len(items))
	}
	for i := 0; err == nil && i < len(items); i++ {
		var itemRaw [][]byte
		if itemRaw, _, err = protobufFields(items[i], rawExtensionRaw, 0); err == nil {
			items[i] = nil
			if len(itemRaw) > 0 {
				items[i] = itemRaw[len(itemRaw)-1]
			}
		}
	}
	if err != nil {
		return &docread.ParseError{File: name, Msg: "cannot decode the protobuf List: " + err.Error(), Err: err}
	}
	if len(items) == 0 {
		l.report.Warnf(name, 0, "", "", "no objects found")
	}
	l.expect(len(items))
	// Only the items decoded and not yet added are held (see addItems).
	work := make([]*protobufItem, len(items))
	// The List is the file's one document.
	l.meter.wholeDocument(len(data))
	inOrder(len(items), func(i int) {
		it := decodeProtobufItem(items[i], l.validation, l.share)
		work[i] = &it
	}, func(i int) {
		l.addProtobufItem(name, fmt.Sprintf("items[%d]", i), *work[i])
		work[i] = nil
		l.file.releaseThrough(items[i])
	}, func(done int) { l.meter.within(done, len(items)) })
	return nil
}

// Field numbers of the messages around a protobuf List's items
// (k8s.io/apimachinery's runtime/generated.proto, k8s.io/api's
// core/v1/generated.proto).
const (
	unknownTypeMeta    = 1 // runtime.Unknown: TypeMeta
	unknownRaw         = 2 // runtime.Unknown: the object's bytes
	typeMetaAPIVersion = 1
	typeMetaKind       = 2
	listItems          = 2 // v1.List: repeated RawExtension
	rawExtensionRaw    = 1
)

// protobufFields returns the values of two length-delimited fields of a
// protobuf message, a and b (0 for none), every occurrence in order, as
// slices of msg: a List's items are not copied (the generated Unmarshal
// copies the List's bytes out of the envelope, then every item out of the
// List: 1.3 GB at 300,000 pods, on one goroutine before any item can be
// decoded). Other fields are skipped.
func protobufFields(msg []byte, a, b protowire.Number) (as, bs [][]byte, err error) {
	as, bs, _, _, err = protobufFieldsCut(msg, a, b, false)
	return as, bs, err
}

// protobufFieldsCut is protobufFields of a message that may be cut short
// (a file cut in the middle), when lenient: cut says it is, and partial
// that the cut is in the last value of a or b, which is given as far as
// it goes.
func protobufFieldsCut(msg []byte, a, b protowire.Number, lenient bool) (as, bs [][]byte, cut, partial bool, err error) {
	for len(msg) > 0 {
		num, typ, n := protowire.ConsumeTag(msg)
		if n < 0 {
			if lenient && errors.Is(protowire.ParseError(n), io.ErrUnexpectedEOF) {
				return as, bs, true, false, nil
			}
			return nil, nil, false, false, protowire.ParseError(n)
		}
		msg = msg[n:]
		if typ == protowire.BytesType && (num == a || num == b) {
			v, n := protowire.ConsumeBytes(msg)
			if n < 0 && lenient && errors.Is(protowire.ParseError(n), io.ErrUnexpectedEOF) {
				// The field's bytes run past the end: keep what is there.
				if _, ln := protowire.ConsumeVarint(msg); ln > 0 {
					v, n = msg[ln:], len(msg)
					cut, partial = true, true
				}
			}
			if n < 0 {
				return nil, nil, false, false, protowire.ParseError(n)
			}
			if num == a {
				as = append(as, v)
			} else {
				bs = append(bs, v)
			}
			msg = msg[n:]
			continue
		}
		if n = protowire.ConsumeFieldValue(num, typ, msg); n < 0 {
			if lenient && errors.Is(protowire.ParseError(n), io.ErrUnexpectedEOF) {
				return as, bs, true, false, nil
			}
			return nil, nil, false, false, protowire.ParseError(n)
		}
		msg = msg[n:]
	}
	return as, bs, cut, partial, nil
}

// protobufEnvelope is a runtime.Unknown read in place: Raw is a slice of the
// message, not a copy (the generated Unmarshal copies every object's bytes
// once more: 0.7 GB at 300,000 pods, all of it garbage at once).
type protobufEnvelope struct {
	APIVersion, Kind, ContentType string
	Raw                           []byte
}

// Field numbers of runtime.Unknown's content encoding and type.
const (
	unknownContentEncoding = 3
	unknownContentType     = 4
)

// readProtobufEnvelope reads a runtime.Unknown as its generated Unmarshal
// does: a TypeMeta given more than once is merged field by field, the last
// value of any other field wins, a known field of the wrong wire type is
// an error, and fields it does not know are skipped.
func readProtobufEnvelope(msg []byte) (protobufEnvelope, error) {
	var e protobufEnvelope
	for len(msg) > 0 {
		num, typ, n := protowire.ConsumeTag(msg)
		if n < 0 {
			return e, protowire.ParseError(n)
		}
		msg = msg[n:]
		known := num >= unknownTypeMeta && num <= unknownContentType
		if known && typ != protowire.BytesType {
			return e, fmt.Errorf("proto: wrong wireType = %d for field %d", typ, num)
		}
		if !known || num == unknownContentEncoding {
			if n = protowire.ConsumeFieldValue(num, typ, msg); n < 0 {
				return e, protowire.ParseError(n)
			}
			msg = msg[n:]
			continue
		}
		v, n := protowire.ConsumeBytes(msg)
		if n < 0 {
			return e, protowire.ParseError(n)
		}
		msg = msg[n:]
		switch num {
		case unknownTypeMeta:
			apiVersion, kind, err := protobufFields(v, typeMetaAPIVersion, typeMetaKind)
			if err != nil {
				return e, err
			}
			if len(apiVersion) > 0 {
				e.APIVersion = last(apiVersion)
			}
			if len(kind) > 0 {
				e.Kind = last(kind)
			}
		case unknownRaw:
			e.Raw = v
		case unknownContentType:
			e.ContentType = string(v)
		}
	}
	return e, nil
}

// last is the last of a field's values as a string: what the generated
// Unmarshal keeps of a field given more than once.
func last(values [][]byte) string {
	if len(values) == 0 {
		return ""
	}
	return string(values[len(values)-1])
}

// decodeProtobufItem decodes one envelope: the header item, or an object
// of a kind schedtui reads (the generated code's Unmarshal, as the API
// server's protobuf serializer does it).
func decodeProtobufItem(raw []byte, opts apiserver.ValidationOptions, share *sharedParts) protobufItem {
	if !IsProtobuf(raw) {
		return protobufItem{err: fmt.Errorf("not a protobuf envelope (no \"k8s\\x00\" magic)")}
	}
	u, err := readProtobufEnvelope(raw[len(protobufMagic):])
	if err != nil {
		return protobufItem{err: fmt.Errorf("cannot decode the protobuf envelope: %w", err)}
	}
	it := protobufItem{apiVersion: u.APIVersion, kind: u.Kind}
	if u.APIVersion == protobufHeaderAPIVersion && u.Kind == protobufHeaderKind {
		it.header, it.err = protobufHeader(u.Raw)
		return it
	}
	ki := supportedKinds[u.Kind]
	if ki == nil || u.APIVersion != ki.gv.String() {
		return it
	}
	if u.ContentType != "" && u.ContentType != runtime.ContentTypeProtobuf {
		it.err = fmt.Errorf("content type %q: a protobuf snapshot's objects must be %s", u.ContentType, runtime.ContentTypeProtobuf)
		return it
	}
	obj, found, size, err := decodeProtobufObject(ki, u.Raw, share)
	if acc, merr := meta.Accessor(obj); merr == nil {
		it.h = docread.ObjectHeader{APIVersion: u.APIVersion, Kind: u.Kind, Namespace: acc.GetNamespace(), Name: acc.GetName(), GenerateName: acc.GetGenerateName()}
	}
	if err != nil {
		// The metadata comes first: the object is named if it was read.
		it.dec = &decoded{errs: []docread.FieldIssue{{Message: "cannot decode protobuf: " + err.Error()}}}
		return it
	}
	obj.GetObjectKind().SetGroupVersionKind(ki.gv.WithKind(ki.kind))
	it.dec = &decoded{obj: obj, found: found}
	if n := size; n != len(u.Raw) {
		// Re-encoding what was read takes other bytes: fields of another
		// API version, or fields written more than once (the last value
		// is used).
		it.dec.warnings = []docread.FieldIssue{{Message: fmt.Sprintf("%d of its %d protobuf bytes are fields this schedtui does not read, or fields repeated (ignored; the last value is used)",
			max(len(u.Raw)-n, n-len(u.Raw)), len(u.Raw))}}
	}
	// After the size: defaulting adds fields.
	it.dec.checked = checkAhead(ki, obj, opts, share, found)
	if it.dec.checked != nil {
		// Checked: the parts found are set in the pod and shared.
		found.release()
		it.dec.found = nil
	}
	return it
}

// decodeProtobufObject decodes raw, an object's encoding, with the
// generated Unmarshal; size is what its Size gives once decoded, before
// defaulting. A pod's or a node's parts met before are not decoded again
// (found, see share_protobuf.go and share_protobuf_nodes.go) when share is
// not nil.
func decodeProtobufObject(ki *kindInfo, raw []byte, share *sharedParts) (obj runtime.Object, found *foundParts, size int, err error) {
	if ki.kind == "Pod" && share != nil {
		pod, found, size, err := decodePod(share, raw)
		return pod, found, size, err
	}
	if ki.kind == "Node" && share != nil {
		node, found, size, err := decodeNode(share, raw)
		return node, found, size, err
	}
	obj = ki.newObj()
	po := obj.(protoObject)
	if err = po.Unmarshal(raw); err != nil {
		return obj, nil, 0, err
	}
	return obj, nil, po.Size(), nil
}

// addProtobufItem adds a decoded item; field names it in problems ("" for
// a file of one object).
func (l *Loader) addProtobufItem(file, field string, it protobufItem) {
	switch {
	case it.err != nil:
		l.report.Errorf(file, 0, describeItem(it), field, "%v", it.err)
	case it.header != nil:
		l.addHeader(file, 0, it.header)
	case it.dec == nil:
		l.noteUnknownKind(it.kind, it.apiVersion, l.at(file, 0))
	default:
		for i := range it.dec.errs {
			if it.dec.errs[i].Field == "" {
				it.dec.errs[i].Field = field
			}
		}
		l.addDecoded(file, 0, nil, it.h, it.dec)
	}
}

// describeItem names an item that could not be read, as far as it was.
func describeItem(it protobufItem) string {
	if it.kind == "" {
		return ""
	}
	return describe(it.kind, it.h.Namespace, it.h.Name)
}
