package snapshot

import (
	"math"
	"slices"
	"sync"

	"google.golang.org/protobuf/encoding/protowire"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Sharing a protobuf node's parts by their bytes, before decoding them,
// as share_protobuf.go does for pods. A cluster's nodes come from a few
// machine types: their capacity, allocatable resources, annotations,
// taints and images are alike, and decoding each node's copy and then
// encoding it again to find the one met before (share.go) was two thirds
// of a 5000-node protobuf load's CPU (docs/performance.md, End to end).
// The parts unique to a node (its labels with its hostname, its
// conditions with their heartbeat times) are decoded as before, and not
// encoded again; past the first unsharedNodeParts they are no longer
// remembered.
//
// Equal bytes decode to equal values (share_protobuf.go), and the
// defaulting of each part below is a function of the part alone
// (apiserver.Default: a node's capacity and allocatable quantities
// rounded), with one exception: an absent allocatable is the capacity
// (SetDefaults_NodeStatus), so the capacity is shared by its bytes only
// when the node's allocatable is there (a map in protobuf is absent or
// not empty). Nothing else of an API server's create or validation
// changes a node's parts.

// unsharedNodeParts is how many parts of a kind nodes may have, all
// different, before the parts of that kind met after them are no longer
// remembered: a node's labels name its hostname, its conditions their
// heartbeat times, so that on most clusters no two nodes share them, and
// remembering each node's (a copy of its bytes, under the table's lock)
// was 3% of a 5000-node run's CPU. They are still looked up.
const unsharedNodeParts = 256

// nodePart is a part of a node shared by its bytes: a field of the
// node's metadata, spec or status.
type nodePart struct {
	kind  partKind
	outer protowire.Number // the Node's field: metadata, spec or status
	field protowire.Number
	// get and set read and write the part in a node; get gives it
	// without spare capacity.
	get func(*v1.Node) any
	set func(*v1.Node, any)
	// size is its bytes in the node's encoding as decoded.
	size func(*v1.Node) int
	// json is where the part is in a node's JSON (share_json.go).
	json partJSON[v1.Node]
}

// Field numbers of a Node and its parts (k8s.io/api core/v1
// generated.proto, apimachinery meta/v1 generated.proto).
const (
	nodeMetadata          = 1
	nodeSpec              = 2
	nodeStatus            = 3
	nodeStatusCapacity    = 1
	nodeStatusAllocatable = 2
)

// nodeParts are the parts of a node shared by their bytes.
var nodeParts = [...]nodePart{
	nodeMetaPart(partNodeLabels, 11, func(m *metav1.ObjectMeta) *map[string]string { return &m.Labels }),
	nodeMetaPart(partNodeAnnotations, 12, func(m *metav1.ObjectMeta) *map[string]string { return &m.Annotations }),
	nodeMetaPart(partOwnerReferences, 13, func(m *metav1.ObjectMeta) *[]metav1.OwnerReference { return &m.OwnerReferences }),
	nodeMetaPart(partManagedFields, 17, func(m *metav1.ObjectMeta) *[]metav1.ManagedFieldsEntry { return &m.ManagedFields }),
	nodeSpecPart(partTaints, 5, func(s *v1.NodeSpec) *[]v1.Taint { return &s.Taints }),
	nodeStatusPart(partCapacity, nodeStatusCapacity, func(s *v1.NodeStatus) *v1.ResourceList { return &s.Capacity }),
	nodeStatusPart(partAllocatable, nodeStatusAllocatable, func(s *v1.NodeStatus) *v1.ResourceList { return &s.Allocatable }),
	nodeStatusPart(partNodeConditions, 4, func(s *v1.NodeStatus) *[]v1.NodeCondition { return &s.Conditions }),
	nodeStatusPart(partImages, 8, func(s *v1.NodeStatus) *[]v1.ContainerImage { return &s.Images }),
}

// nodePartIndex is, by the Node's field (metadata, spec, status) and the
// field in it, 1 + the index in nodeParts of the part there (0: none).
var nodePartIndex [nodeStatus + 1][32]uint8

func init() {
	for i, p := range nodeParts {
		nodePartIndex[p.outer][p.field] = uint8(i + 1)
	}
}

// nodePartAt is the index in nodeParts of the part in field of the
// Node's field outer, or -1.
func nodePartAt(outer, field protowire.Number) int {
	if field >= protowire.Number(len(nodePartIndex[outer])) {
		return -1
	}
	return int(nodePartIndex[outer][field]) - 1
}

func nodeMetaPart[T any](kind partKind, field protowire.Number, at func(*metav1.ObjectMeta) *T) nodePart {
	return newNodePart(kind, nodeMetadata, field, func(n *v1.Node) *metav1.ObjectMeta { return &n.ObjectMeta }, at)
}

func nodeSpecPart[T any](kind partKind, field protowire.Number, at func(*v1.NodeSpec) *T) nodePart {
	return newNodePart(kind, nodeSpec, field, func(n *v1.Node) *v1.NodeSpec { return &n.Spec }, at)
}

func nodeStatusPart[T any](kind partKind, field protowire.Number, at func(*v1.NodeStatus) *T) nodePart {
	return newNodePart(kind, nodeStatus, field, func(n *v1.Node) *v1.NodeStatus { return &n.Status }, at)
}

// newNodePart is the part at (a field of O) of the Node's field outer, of.
func newNodePart[O any, PO interface {
	*O
	Size() int
}, T any](kind partKind, outer, field protowire.Number, of func(*v1.Node) PO, at func(PO) *T) nodePart {
	get, set, size := partAccess(of, at)
	return nodePart{kind: kind, outer: outer, field: field, get: get, set: set, size: size,
		json: newPartJSON(outer, field, of, at)}
}

// partAccess reads (without spare capacity), writes and measures the part
// at (a field of O) of an object, of. Its size is that of an O holding
// only it, less that of the empty O (the generated Size sums the
// fields').
func partAccess[Obj, O any, PO interface {
	*O
	Size() int
}, T any](of func(*Obj) PO, at func(PO) *T) (get func(*Obj) any, set func(*Obj, any), size func(*Obj) int) {
	empty := PO(new(O)).Size()
	// The messages sizes are worked out in, empty but for the part
	// while it is measured.
	var sizers sync.Pool
	sizers.New = func() any { return PO(new(O)) }
	get = func(obj *Obj) any {
		f := at(of(obj))
		v := clipped(*f)
		*f = v.(T)
		return v
	}
	set = func(obj *Obj, v any) { *at(of(obj)) = v.(T) }
	size = func(obj *Obj) int {
		only := sizers.Get().(PO)
		*at(only) = *at(of(obj))
		n := only.Size() - empty
		var zero T
		*at(only) = zero
		sizers.Put(only)
		return n
	}
	return get, set, size
}

// nodeScan is a node's encoding walked to its parts: where each part's
// fields are (fields that follow one another are one span).
type nodeScan struct {
	spans [len(nodeParts)][]span
	one   [len(nodeParts)][1]span
}

var nodeScans = sync.Pool{New: func() any { return new(nodeScan) }}

// scan walks a Node's encoding down to its metadata's, spec's and
// status's fields. ok is false when the bytes are not what the generated
// Unmarshal reads without an error: such a node is decoded in full, which
// reports the error.
func (sc *nodeScan) scan(raw []byte) (ok bool) {
	for i := range sc.spans {
		sc.spans[i] = sc.one[i][:0]
	}
	for at := 0; at < len(raw); {
		num, typ, n, m := consumeField(raw[at:])
		if n < 0 || m < 0 {
			return false
		}
		if num >= nodeMetadata && num <= nodeStatus {
			if typ != protowire.BytesType {
				return false
			}
			end := at + n + m
			if !sc.scanOuter(num, raw, end-len(protowireValue(raw[at+n:end])), end) {
				return false
			}
		}
		at += n + m
	}
	return true
}

// scanOuter walks the fields of the Node's field outer, in raw[start:end].
func (sc *nodeScan) scanOuter(outer protowire.Number, raw []byte, start, end int) bool {
	for at := start; at < end; {
		num, typ, n, m := consumeField(raw[at:end])
		if n < 0 || m < 0 {
			return false
		}
		if i := nodePartAt(outer, num); i >= 0 {
			if typ != protowire.BytesType {
				return false
			}
			if last := len(sc.spans[i]) - 1; last >= 0 && int(sc.spans[i][last].end) == at {
				sc.spans[i][last].end = int32(at + n + m)
			} else {
				sc.spans[i] = append(sc.spans[i], span{int32(at), int32(at + n + m)})
			}
		}
		at += n + m
	}
	return true
}

// foundNodePart is a part of one node looked up by its bytes (as
// foundPart).
type foundNodePart struct {
	part  uint8 // in nodeParts
	known bool  // met before: value is set in the node once defaulted
	learn bool  // met first, while there is room: remembered once defaulted
	size  int32
	key   []byte
	spans []span
	value any
}

// foundNodeParts are a node's parts looked up by their bytes.
type foundNodeParts struct {
	table *sharedParts
	raw   *rawTable // the table's parts of the node's format
	parts []foundNodePart
	hits  bool
	// unmet are kinds not looked up (nodeKindsUnmet): not shared.
	unmet partSet
}

// handled is the set of kinds shared by their bytes, which shareNode
// then leaves alone.
func (f *foundNodeParts) handled() partSet {
	var set partSet
	if f != nil {
		for i := range f.parts {
			set |= 1 << nodeParts[f.parts[i].part].kind
		}
		set |= f.unmet
	}
	return set
}

// findNodeParts looks a node's parts up by their bytes in raw, the Node's
// encoding; nil when raw cannot be walked.
func findNodeParts(table *sharedParts, raw []byte) *foundNodeParts {
	if len(raw) > math.MaxInt32 {
		return nil
	}
	sc := nodeScans.Get().(*nodeScan)
	defer nodeScans.Put(sc)
	if !sc.scan(raw) {
		return nil
	}
	allocatable := len(sc.spans[nodePartAt(nodeStatus, nodeStatusAllocatable)]) > 0
	n, nspans := 0, 0
	for i := range nodeParts {
		if len(sc.spans[i]) > 0 {
			n++
			nspans += len(sc.spans[i])
		}
	}
	// One allocation for the parts, one for their spans.
	f := &foundNodeParts{table: table, raw: &table.raw, parts: make([]foundNodePart, 0, n)}
	spans := make([]span, 0, nspans)
	for i := range nodeParts {
		if len(sc.spans[i]) == 0 || nodeParts[i].field == nodeStatusCapacity && nodeParts[i].outer == nodeStatus && !allocatable {
			continue
		}
		from := len(spans)
		spans = append(spans, sc.spans[i]...)
		f.parts = append(f.parts, foundNodePart{part: uint8(i), key: keyOf(raw, spans[from:]), spans: spans[from:len(spans):len(spans)]})
	}
	f.lookUp()
	return f
}

// lookUp looks f's parts up in the table: those met before are known,
// the others learnt while remembersNodePart.
func (f *foundNodeParts) lookUp() {
	t := f.table
	t.mu.Lock()
	defer t.mu.Unlock()
	for i := range f.parts {
		fp := &f.parts[i]
		kind := nodeParts[fp.part].kind
		if known, ok := f.raw[kind][string(fp.key)]; ok {
			fp.known, fp.value, fp.size = true, known.value, int32(known.size)
			f.hits = true
			t.nodeFound[kind]++
		} else {
			fp.learn = t.remembersNodePart(kind)
			if !fp.learn && t.nodeFound[kind] == 0 {
				t.nodeKindsUnmet.Or(1 << kind)
			}
		}
	}
}

// knownSpans are the fields of the parts met before, sorted.
func (f *foundNodeParts) knownSpans(room []span) []span {
	cut := room[:0]
	for i := range f.parts {
		if fp := &f.parts[i]; fp.known {
			cut = append(cut, fp.spans...)
		}
	}
	slices.SortFunc(cut, func(a, b span) int { return int(a.start - b.start) })
	return cut
}

// unmarshalNodeWithout decodes raw, a Node's encoding walked by
// findNodeParts, into node but for the fields cut, in place, as
// unmarshalWithout does a pod's: the parts are fields of the Node's
// metadata, spec or status.
func unmarshalNodeWithout(node *v1.Node, raw []byte, cut []span) error {
	return unmarshalRuns(raw, 0, len(raw), cut, node.Unmarshal, func(num protowire.Number, start, end int, cut []span) error {
		switch num {
		case nodeMetadata:
			return unmarshalRuns(raw, start, end, cut, node.ObjectMeta.Unmarshal, nil)
		case nodeSpec:
			return unmarshalRuns(raw, start, end, cut, node.Spec.Unmarshal, nil)
		case nodeStatus:
			return unmarshalRuns(raw, start, end, cut, node.Status.Unmarshal, nil)
		}
		return errCutElsewhere
	})
}

// decodeNode decodes raw, a Node's encoding, into node, cutting out the
// parts met before, as decodePod does; found is nil when raw could not
// be walked (or decoded without those parts) and is decoded in full.
func decodeNode(table *sharedParts, raw []byte) (node *v1.Node, found *foundParts, size int, err error) {
	f := findNodeParts(table, raw)
	node = &v1.Node{}
	if f == nil || !f.hits {
		if err = node.Unmarshal(raw); err != nil {
			return node, nil, 0, err
		}
		f.sizeNew(node)
		return node, f.asFound(), node.Size(), nil
	}
	var room [len(nodeParts) + 4]span
	if err = unmarshalNodeWithout(node, raw, f.knownSpans(room[:0])); err != nil {
		node = &v1.Node{}
		return node, nil, 0, node.Unmarshal(raw)
	}
	f.sizeNew(node)
	// The Node's Size, with the known parts' sizes added to the fields
	// that held them.
	outer := [3]int{node.ObjectMeta.Size(), node.Spec.Size(), node.Status.Size()}
	for i := range f.parts {
		if fp := &f.parts[i]; fp.known {
			outer[nodeParts[fp.part].outer-nodeMetadata] += int(fp.size)
		}
	}
	for _, l := range outer {
		size += 1 + protowire.SizeVarint(uint64(l)) + l
	}
	return node, f.asFound(), size, nil
}

// asFound carries a node's parts where the loader carries a pod's.
func (f *foundNodeParts) asFound() *foundParts {
	if f == nil {
		return nil
	}
	return &foundParts{table: f.table, raw: f.raw, node: f}
}

// sizeNew works out the sizes of the parts to remember, as decoded.
func (f *foundNodeParts) sizeNew(node *v1.Node) {
	if f == nil {
		return
	}
	for i := range f.parts {
		if fp := &f.parts[i]; fp.learn {
			fp.size = int32(nodeParts[fp.part].size(node))
		}
	}
}

// settleNode sets the parts of a defaulted node met before, and
// remembers those met first as defaulting left them.
func (f *foundParts) settleNode(node *v1.Node) {
	if f == nil || f.node == nil {
		return
	}
	learned := false
	for i := range f.node.parts {
		fp := &f.node.parts[i]
		switch {
		case fp.known:
			nodeParts[fp.part].set(node, fp.value)
		case fp.learn:
			fp.value = nodeParts[fp.part].get(node)
			learned = true
		}
	}
	if !learned {
		return
	}
	t := f.table
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, fp := range f.node.parts {
		kind := nodeParts[fp.part].kind
		if !fp.learn || !t.remembersNodePart(kind) {
			continue
		}
		if known, met := t.remember(f.node.raw, kind, fp.key, fp.value, fp.size); met {
			nodeParts[fp.part].set(node, known)
			t.nodeFound[kind]++
		} else {
			t.nodeKept[kind]++
		}
	}
}

// remembersNodePart reports whether a node's part of kind met for the first
// time is remembered (t locked): while there is room, and past
// unsharedNodeParts nodes' parts of its kind only when one was met twice
// (the owner references and managed fields are pods' kinds too: pods'
// are not counted).
func (t *sharedParts) remembersNodePart(kind partKind) bool {
	return t.kept[kind] < maxSharedParts && (t.nodeFound[kind] > 0 || t.nodeKept[kind] < unsharedNodeParts)
}
