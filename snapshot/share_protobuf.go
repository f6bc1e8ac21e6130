package snapshot

import (
	"errors"
	"math"
	"reflect"
	"slices"
	"sync"

	"google.golang.org/protobuf/encoding/protowire"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Sharing a protobuf pod's parts by their bytes, before decoding them.
// Most of a pod's bytes are parts another pod of its template has too
// (containers, tolerations, conditions, managed fields): decoding them
// (9.3 KB allocated a SchedulingBasic pod, 24 KB a production-like one:
// BenchmarkLoadProtobufPods, docs/performance.md) and then encoding them again
// to find the equal part met before (share.go) was most of a protobuf
// load. Here a pod's encoding is walked first (its metadata, spec and
// status, one level down, and each container status): each part's bytes
// are looked up, a part met
// before is cut out of what is decoded, and the part remembered is set in
// its place once the pod is defaulted.
//
// The generated Unmarshal is a function of the bytes: equal bytes decode
// to equal values, nil and empty told apart as they are in the bytes (a
// field absent is nil; a repeated field or map present is not empty; a
// bytes field present but empty is an empty slice, absent nil), and a
// quantity is parsed from the string it was written with (which encoding
// it again does not give back: "1e-1" is written "100m"). So equal bytes need no
// confirmation (share.go's keys, a decoded part encoded again, lose those
// distinctions and are confirmed with reflect.DeepEqual).
//
// A part is remembered as the API server's defaulting leaves it, keyed on
// its bytes as read; that holds because the defaulting of each part below
// is a function of the part alone (k8s.io/kubernetes v1.37.1
// pkg/apis/core/v1 defaults.go and zz_generated.defaults.go, and
// apiserver.Default which follows them): a container's pull policy,
// termination message, port protocols, requests from limits and rounded
// quantities; a volume without a source an emptyDir; the pod's absent
// security context an empty one; the status's and the container statuses'
// resources rounded. The one exception is SetDefaults_Pod's host ports
// (defaultHostNetworkPorts), which reads spec.hostNetwork: a host-network
// pod's containers are a part of their own (partHostNetworkContainers).
// Metadata, tolerations, affinity, spread constraints, conditions and
// host IPs have no defaults. The create-time mutations
// (apiserver.PrepareForCreate, a pod without a resourceVersion) do read
// the pod's other fields: they append a condition (to a shared list
// without spare capacity, which makes a new one) and merge labels into
// the affinity and the spread constraints and container requests into
// the pod's resources, in place: those three are shared by their bytes
// only in a stored pod, and otherwise after validation as share.go does.

// podPart is a part of a pod shared by its bytes: a field of the pod's
// metadata, spec or status.
type podPart struct {
	kind  partKind
	outer protowire.Number // the Pod's field: metadata, spec or status
	field protowire.Number
	// absent: the part is shared when the pod lacks it too (defaulting
	// makes it).
	absent bool
	// storedOnly: the create-time mutations change it in place (above).
	storedOnly bool
	// get and set read and write the part in a pod; get gives it
	// without spare capacity.
	get func(*v1.Pod) any
	set func(*v1.Pod, any)
	// size is its bytes in the pod's encoding as decoded.
	size func(*v1.Pod) int
	// json is where the part is in a pod's JSON (share_json.go).
	json partJSON[v1.Pod]
}

// Field numbers of a Pod and its parts (k8s.io/api core/v1
// generated.proto, apimachinery meta/v1 generated.proto).
const (
	podMetadata          = 1
	podSpec              = 2
	podStatus            = 3
	metaResourceVersion  = 6
	specHostNetwork      = 11
	specContainers       = 2
	specInitContainers   = 20
	partHostNetworkShift = partHostNetworkContainers - partContainers
)

// podParts are the parts shared by their bytes, by the field that holds
// them; partContainers and partInitContainers become
// partHostNetworkContainers and partHostNetworkInitContainers in a
// host-network pod.
var podParts = [...]podPart{
	metaPart(partLabels, 11, func(m *metav1.ObjectMeta) *map[string]string { return &m.Labels }),
	metaPart(partAnnotations, 12, func(m *metav1.ObjectMeta) *map[string]string { return &m.Annotations }),
	metaPart(partOwnerReferences, 13, func(m *metav1.ObjectMeta) *[]metav1.OwnerReference { return &m.OwnerReferences }),
	metaPart(partManagedFields, 17, func(m *metav1.ObjectMeta) *[]metav1.ManagedFieldsEntry { return &m.ManagedFields }),
	specPart(partVolumes, 1, func(s *v1.PodSpec) *[]v1.Volume { return &s.Volumes }),
	specPart(partContainers, specContainers, func(s *v1.PodSpec) *[]v1.Container { return &s.Containers }),
	specPart(partInitContainers, specInitContainers, func(s *v1.PodSpec) *[]v1.Container { return &s.InitContainers }),
	specPart(partTolerations, 22, func(s *v1.PodSpec) *[]v1.Toleration { return &s.Tolerations }),
	withAbsent(specPart(partPodSecurityContext, 14, func(s *v1.PodSpec) **v1.PodSecurityContext { return &s.SecurityContext })),
	storedOnly(specPart(partAffinity, 18, func(s *v1.PodSpec) **v1.Affinity { return &s.Affinity })),
	storedOnly(specPart(partSpreadConstraints, 33, func(s *v1.PodSpec) *[]v1.TopologySpreadConstraint { return &s.TopologySpreadConstraints })),
	storedOnly(specPart(partResources, 40, func(s *v1.PodSpec) **v1.ResourceRequirements { return &s.Resources })),
	statusPart(partConditions, 2, func(s *v1.PodStatus) *[]v1.PodCondition { return &s.Conditions }),
	statusPart(partContainerStatuses, 8, func(s *v1.PodStatus) *[]v1.ContainerStatus { return &s.ContainerStatuses }),
	statusPart(partInitContainerStatuses, 10, func(s *v1.PodStatus) *[]v1.ContainerStatus { return &s.InitContainerStatuses }),
	statusPart(partHostIPs, 16, func(s *v1.PodStatus) *[]v1.HostIP { return &s.HostIPs }),
	statusPart(partStatusAllocated, 19, func(s *v1.PodStatus) *v1.ResourceList { return &s.AllocatedResources }),
	statusPart(partStatusResources, 20, func(s *v1.PodStatus) **v1.ResourceRequirements { return &s.Resources }),
}

// podPartIndex is, by the Pod's field (metadata, spec, status) and the
// field in it, 1 + the index in podParts of the part there (0: none).
var podPartIndex [podStatus + 1][64]uint8

func init() {
	for i, p := range podParts {
		podPartIndex[p.outer][p.field] = uint8(i + 1)
	}
}

// podPartAt is the index in podParts of the part in field of the Pod's
// field outer, or -1.
func podPartAt(outer, field protowire.Number) int {
	if field >= protowire.Number(len(podPartIndex[outer])) {
		return -1
	}
	return int(podPartIndex[outer][field]) - 1
}

func withAbsent(p podPart) podPart { p.absent = true; return p }
func storedOnly(p podPart) podPart { p.storedOnly = true; return p }

// clipped is v without spare capacity when it is a slice.
func clipped(v any) any {
	if r := reflect.ValueOf(v); r.Kind() == reflect.Slice {
		return r.Slice3(0, r.Len(), r.Len()).Interface()
	}
	return v
}

func metaPart[T any](kind partKind, field protowire.Number, at func(*metav1.ObjectMeta) *T) podPart {
	return newPodPart(kind, podMetadata, field, func(p *v1.Pod) *metav1.ObjectMeta { return &p.ObjectMeta }, at)
}

func specPart[T any](kind partKind, field protowire.Number, at func(*v1.PodSpec) *T) podPart {
	return newPodPart(kind, podSpec, field, func(p *v1.Pod) *v1.PodSpec { return &p.Spec }, at)
}

func statusPart[T any](kind partKind, field protowire.Number, at func(*v1.PodStatus) *T) podPart {
	return newPodPart(kind, podStatus, field, func(p *v1.Pod) *v1.PodStatus { return &p.Status }, at)
}

// newPodPart is the part at (a field of O) of the Pod's field outer, of.
func newPodPart[O any, PO interface {
	*O
	Size() int
}, T any](kind partKind, outer, field protowire.Number, of func(*v1.Pod) PO, at func(PO) *T) podPart {
	get, set, size := partAccess(of, at)
	return podPart{kind: kind, outer: outer, field: field, get: get, set: set, size: size,
		json: newPartJSON(outer, field, of, at)}
}

// rawPart is a part remembered by its bytes: its value once defaulted,
// and its size in the encoding of the pod it was decoded from (what the
// pod's Size counts for it, for the warning about bytes not read).
type rawPart struct {
	value any
	size  int
}

// rawTable are the parts of one format remembered by their bytes, by
// kind.
type rawTable [partKinds]map[string]rawPart

// foundPart is a part of one pod looked up by its bytes.
type foundPart struct {
	part  uint8 // in podParts
	kind  partKind
	known bool // met before: value is set in the pod once defaulted
	// learn: met first, while the table has room for its kind: it is
	// remembered once defaulted.
	learn bool
	// size is the part's encoded size as the pod was decoded, known
	// or worked out.
	size int32
	key  []byte // its fields' bytes in the pod's encoding (or a copy)
	// spans are where its fields are in the pod's encoding: f.spans[from:to].
	from, to uint16
	value    any
}

// span is where fields are in an encoding (a pod's is at most 2 GiB: an
// object the API server stores is at most 1.5 MiB).
type span struct{ start, end int32 }

// foundParts are a pod's parts looked up by their bytes (nil: none, the
// pod was decoded in full and is shared as share.go does).
type foundParts struct {
	table *sharedParts
	// raw is the table's parts of the pod's format (sharedParts.raw or
	// rawJSON).
	raw    *rawTable
	parts  []foundPart
	spans  []span
	nested []foundNested
	// hits says whether a part was met before (and cut out of what was
	// decoded).
	hits bool
	// node is a node's parts instead (share_protobuf_nodes.go).
	node *foundNodeParts
	// lists are the lengths of the status's lists (podScan.lists).
	lists [len(statusLists)]int32
}

// foundPartsPool holds the foundParts of pods checked (release): they
// were 0.57 KB of garbage a pod.
var foundPartsPool = sync.Pool{New: func() any { return new(foundParts) }}

// release gives f back for another pod's parts once its pod is defaulted,
// validated and shared (settle and handled are done).
func (f *foundParts) release() {
	if f == nil {
		return
	}
	// What the lists held before is cleared too: the parts' values and
	// keys (slices of the file) are not kept alive by the pool.
	clear(f.parts[:cap(f.parts)])
	clear(f.nested[:cap(f.nested)])
	// A node's foundParts (share_protobuf_nodes.go) comes back here too:
	// its parts must not be taken for the next pod's.
	f.table, f.raw, f.node = nil, nil, nil
	foundPartsPool.Put(f)
}

// handled is the set of kinds shared by their bytes, which sharePod then
// leaves alone.
func (f *foundParts) handled() partSet {
	var set partSet
	if f != nil {
		for i := range f.parts {
			set |= 1 << podParts[f.parts[i].part].kind
		}
		for i := range f.nested {
			set |= 1 << f.nested[i].kind
		}
		set |= f.node.handled()
	}
	return set
}

// partSet is a set of part kinds.
type partSet uint64

// Every kind fits in a partSet (this fails to compile otherwise).
var _ = [1]struct{}{}[partKinds/64]

func (s partSet) has(k partKind) bool { return s&(1<<k) != 0 }

// podScan is a pod's encoding walked to its parts: where each part's
// fields are, and the two fields that decide what may be shared.
type podScan struct {
	// spans are by podParts index; fields that follow one another are
	// one span, so there is mostly one, in one.
	spans       [len(podParts)][]span
	one         [len(podParts)][1]span
	hostNetwork bool
	stored      bool
	// nested are the parts inside the container statuses; elems counts
	// the statuses of each list met so far.
	nested []nestedSpan
	elems  [2]int32
	// lists counts the elements of the status's lists (statusLists).
	lists [len(statusLists)]int32
}

// statusLists are the lists of a pod's status the generated Unmarshal
// grows one element at a time, by doubling (a running scalegen pod's
// five conditions took 1.8 KB for the 0.6 kept): a pod is decoded into
// lists of the length its encoding gives (listsSized).
var statusLists = [...]protowire.Number{2, statusContainerStatuses, statusInitContainerStatuses, 12, 16}

// statusListIndex is the index in statusLists of the status's field num,
// or -1.
func statusListIndex(num protowire.Number) int {
	for i, n := range statusLists {
		if n == num {
			return i
		}
	}
	return -1
}

// Inside a container status (ContainerStatus's fields), the parts a
// running pod's statuses share with its template's, shared by their
// bytes when the statuses as a whole are not.
const (
	statusContainerStatuses     = 8
	statusInitContainerStatuses = 10
	containerAllocated          = 10
	containerResources          = 11
	containerVolumeMounts       = 12
)

// nestedKinds are the kinds of the parts inside a container status, by
// field - containerAllocated.
var nestedKinds = [...]partKind{partContainerAllocated, partContainerResources, partVolumeMountStatuses}

// nestedSpan is where a part inside a container status is: the list
// (0: containerStatuses, 1: initContainerStatuses), the status's index in
// it, the field.
type nestedSpan struct {
	list  uint8
	field uint8
	elem  int32
	span
}

// scanPod walks a Pod's encoding down to its metadata's, spec's and
// status's fields. ok is false when the bytes are not what the generated
// Unmarshal reads without an error (a wrong wire type, a length past the
// end): such a pod is decoded in full, which reports the error.
func scanPod(raw []byte, sc *podScan) (ok bool) {
	for i := range sc.spans {
		sc.spans[i] = sc.one[i][:0]
	}
	sc.nested, sc.elems, sc.lists = sc.nested[:0], [2]int32{}, [len(statusLists)]int32{}
	for at := 0; at < len(raw); {
		num, typ, n := protowire.ConsumeTag(raw[at:])
		if n < 0 {
			return false
		}
		if num < podMetadata || num > podStatus {
			m := protowire.ConsumeFieldValue(num, typ, raw[at+n:])
			if m < 0 {
				return false
			}
			at += n + m
			continue
		}
		if typ != protowire.BytesType {
			return false
		}
		v, m := protowire.ConsumeBytes(raw[at+n:])
		if m < 0 {
			return false
		}
		valueStart := at + n + m - len(v)
		if !sc.scanOuter(num, raw, valueStart, valueStart+len(v)) {
			return false
		}
		at += n + m
	}
	return true
}

// consumeField reads the field at the start of b: its number and type,
// its tag's length n and its value's m (negative: not a field).
func consumeField(b []byte) (num protowire.Number, typ protowire.Type, n, m int) {
	num, typ, n = protowire.ConsumeTag(b)
	if n < 0 {
		return num, typ, n, -1
	}
	return num, typ, n, protowire.ConsumeFieldValue(num, typ, b[n:])
}

// scanOuter walks the fields of the Pod's field outer, in raw[start:end].
func (sc *podScan) scanOuter(outer protowire.Number, raw []byte, start, end int) bool {
	for at := start; at < end; {
		num, typ, n, m := consumeField(raw[at:end])
		if n < 0 || m < 0 {
			return false
		}
		if outer == podStatus {
			if i := statusListIndex(num); i >= 0 {
				sc.lists[i]++
			}
		}
		switch {
		case outer == podMetadata && num == metaResourceVersion:
			if typ != protowire.BytesType {
				return false
			}
			v, _ := protowire.ConsumeBytes(raw[at+n : end])
			sc.stored = len(v) > 0
		case outer == podSpec && num == specHostNetwork:
			if typ != protowire.VarintType {
				return false
			}
			v, _ := protowire.ConsumeVarint(raw[at+n : end])
			sc.hostNetwork = v != 0
		default:
			if i := podPartAt(outer, num); i >= 0 {
				if typ != protowire.BytesType {
					return false
				}
				if outer == podStatus && (num == statusContainerStatuses || num == statusInitContainerStatuses) &&
					!sc.scanStatus(num, raw, at+n+m-len(protowireValue(raw[at+n:at+n+m])), at+n+m) {
					return false
				}
				if last := len(sc.spans[i]) - 1; last >= 0 && int(sc.spans[i][last].end) == at {
					sc.spans[i][last].end = int32(at + n + m)
				} else {
					sc.spans[i] = append(sc.spans[i], span{int32(at), int32(at + n + m)})
				}
			}
		}
		at += n + m
	}
	return true
}

// protowireValue is the value of a length-delimited field's bytes
// (after its tag), which scanOuter has checked.
func protowireValue(b []byte) []byte {
	v, _ := protowire.ConsumeBytes(b)
	return v
}

// scanStatus walks one container status (the list's next), in
// raw[start:end], to the parts inside it.
func (sc *podScan) scanStatus(list protowire.Number, raw []byte, start, end int) bool {
	l := uint8(0)
	if list == statusInitContainerStatuses {
		l = 1
	}
	elem := sc.elems[l]
	sc.elems[l]++
	for at := start; at < end; {
		num, typ, n, m := consumeField(raw[at:end])
		if n < 0 || m < 0 {
			return false
		}
		if num >= containerAllocated && num <= containerVolumeMounts {
			if typ != protowire.BytesType {
				return false
			}
			if last := len(sc.nested) - 1; last >= 0 && sc.nested[last].list == l && sc.nested[last].elem == elem &&
				sc.nested[last].field == uint8(num) && int(sc.nested[last].end) == at {
				sc.nested[last].end = int32(at + n + m)
			} else {
				sc.nested = append(sc.nested, nestedSpan{list: l, field: uint8(num), elem: elem, span: span{int32(at), int32(at + n + m)}})
			}
		}
		at += n + m
	}
	return true
}

// podPartKind is the kind part p is remembered under in a pod, a
// host-network one or not.
func podPartKind(p *podPart, hostNetwork bool) partKind {
	if hostNetwork && (p.kind == partContainers || p.kind == partInitContainers) {
		return p.kind + partHostNetworkShift
	}
	return p.kind
}

// findPodParts looks a pod's parts up by their bytes in raw, the Pod's
// encoding; nil when raw cannot be walked.
func findPodParts(table *sharedParts, raw []byte) *foundParts {
	if len(raw) > math.MaxInt32 {
		return nil
	}
	sc := podScans.Get().(*podScan)
	defer podScans.Put(sc)
	if !scanPod(raw, sc) {
		return nil
	}
	shared := func(i int) bool {
		p := &podParts[i]
		return (len(sc.spans[i]) > 0 || p.absent) && (!p.storedOnly || sc.stored)
	}
	n, nspans := 0, 0
	for i := range podParts {
		if shared(i) {
			n++
			nspans += len(sc.spans[i])
		}
	}
	if nspans > math.MaxUint16 {
		return nil
	}
	f := foundPartsPool.Get().(*foundParts)
	f.table, f.raw, f.hits, f.lists, f.node = table, &table.raw, false, sc.lists, nil
	f.parts, f.spans, f.nested = slices.Grow(f.parts[:0], n), slices.Grow(f.spans[:0], nspans), f.nested[:0]
	for i := range podParts {
		if shared(i) {
			from := len(f.spans)
			f.spans = append(f.spans, sc.spans[i]...)
			f.parts = append(f.parts, foundPart{part: uint8(i), kind: podPartKind(&podParts[i], sc.hostNetwork),
				key: keyOf(raw, f.spans[from:]), from: uint16(from), to: uint16(len(f.spans))})
		}
	}
	table.mu.Lock()
	f.lookUp()
	f.findNested(raw, sc.nested)
	table.mu.Unlock()
	return f
}

// lookUp looks f's parts up in the table (locked): those met before are
// known, the others learnt while there is room.
func (f *foundParts) lookUp() {
	for i := range f.parts {
		fp := &f.parts[i]
		if known, ok := f.raw[fp.kind][string(fp.key)]; ok {
			fp.known, fp.value, fp.size = true, known.value, int32(known.size)
			f.hits = true
			f.table.hits[fp.kind]++
		} else {
			fp.learn = f.table.roomFor(fp.kind)
		}
	}
}

// foundNested is a part inside a container status looked up by its bytes
// (as foundPart).
type foundNested struct {
	list, field  uint8
	kind         partKind
	known, learn bool
	elem         int32
	size         int32
	span
	key   []byte
	value any
}

// findNested looks up the parts inside the container statuses of the
// lists not met before as a whole (f.table locked). A part given in more
// than one field of its status, apart, is decoded as it is.
func (f *foundParts) findNested(raw []byte, nested []nestedSpan) {
	for i, ns := range nested {
		whole := f.part(statusListPart(ns.list))
		if whole == nil || whole.known || splitNested(nested, i) {
			continue
		}
		fn := foundNested{list: ns.list, field: ns.field, elem: ns.elem, kind: nestedKinds[ns.field-containerAllocated],
			span: ns.span, key: raw[ns.start:ns.end]}
		if known, ok := f.raw[fn.kind][string(fn.key)]; ok {
			fn.known, fn.value, fn.size = true, known.value, int32(known.size)
			f.hits = true
			f.table.hits[fn.kind]++
		} else {
			fn.learn = f.table.roomFor(fn.kind)
		}
		f.nested = append(f.nested, fn)
	}
}

// splitNested reports whether the part of nested[i] is in other fields
// of its status too.
func splitNested(nested []nestedSpan, i int) bool {
	for j, o := range nested {
		if j != i && o.list == nested[i].list && o.elem == nested[i].elem && o.field == nested[i].field {
			return true
		}
	}
	return false
}

// statusListPart is the index in podParts of container statuses list l.
func statusListPart(l uint8) int {
	if l == 1 {
		return podPartAt(podStatus, statusInitContainerStatuses)
	}
	return podPartAt(podStatus, statusContainerStatuses)
}

// part is the found part at podParts[i], or nil.
func (f *foundParts) part(i int) *foundPart {
	for j := range f.parts {
		if int(f.parts[j].part) == i {
			return &f.parts[j]
		}
	}
	return nil
}

// statusesOf is a pod's container statuses list l.
func statusesOf(pod *v1.Pod, l uint8) []v1.ContainerStatus {
	if l == 1 {
		return pod.Status.InitContainerStatuses
	}
	return pod.Status.ContainerStatuses
}

// nestedField reads or writes (v not nil) the part field of a container
// status; get gives a list without spare capacity.
func nestedField(cs *v1.ContainerStatus, field uint8, v any) any {
	switch field {
	case containerAllocated:
		if v != nil {
			cs.AllocatedResources = v.(v1.ResourceList)
		}
		return cs.AllocatedResources
	case containerResources:
		if v != nil {
			cs.Resources = v.(*v1.ResourceRequirements)
		}
		return cs.Resources
	default:
		if v != nil {
			cs.VolumeMounts = v.([]v1.VolumeMountStatus)
		}
		cs.VolumeMounts = slices.Clip(cs.VolumeMounts)
		return cs.VolumeMounts
	}
}

// nestedSize is the size of a part inside a container status, as decoded.
func nestedSize(cs *v1.ContainerStatus, field uint8) int {
	var only v1.ContainerStatus
	switch field {
	case containerAllocated:
		only.AllocatedResources = cs.AllocatedResources
	case containerResources:
		only.Resources = cs.Resources
	default:
		only.VolumeMounts = cs.VolumeMounts
	}
	return only.Size() - emptyContainerStatusSize
}

var emptyContainerStatusSize = (&v1.ContainerStatus{}).Size()

// podScans are the scans of the goroutines that decode.
var podScans = sync.Pool{New: func() any { return new(podScan) }}

// keyOf is the bytes of a part's fields: a slice of raw when they follow
// one another (as an encoder writes them), else a copy.
func keyOf(raw []byte, spans []span) []byte {
	if len(spans) == 0 {
		return nil
	}
	contiguous := true
	for i := 1; i < len(spans); i++ {
		contiguous = contiguous && spans[i].start == spans[i-1].end
	}
	if contiguous {
		return raw[spans[0].start:spans[len(spans)-1].end]
	}
	var key []byte
	for _, s := range spans {
		key = append(key, raw[s.start:s.end]...)
	}
	return key
}

// knownSpans are where the parts met before are in the pod's encoding,
// sorted, in room.
func (f *foundParts) knownSpans(room []span) []span {
	cut := room[:0]
	for i := range f.parts {
		if fp := &f.parts[i]; fp.known {
			cut = append(cut, f.spans[fp.from:fp.to]...)
		}
	}
	for i := range f.nested {
		if fn := &f.nested[i]; fn.known {
			cut = append(cut, fn.span)
		}
	}
	slices.SortFunc(cut, func(a, b span) int { return int(a.start - b.start) })
	return cut
}

// unmarshalWithout decodes raw, a Pod's encoding walked by scanPod, into
// pod but for the fields cut (whole fields, sorted): the runs of fields
// between them are given to the generated Unmarshal of the message that
// holds them (the Pod, its metadata, spec or status, a container status)
// one after the other. The generated Unmarshal does not reset what it
// decodes into and reads a message field by field, each field applied in
// turn (a repeated one appended, a map's entry added, a message merged),
// so that decoding the runs in order is decoding them as one; it is done
// in place, where a copy of the bytes without the cuts, each message
// around them encoded again, took a tenth of decoding the pods.
func unmarshalWithout(pod *v1.Pod, raw []byte, cut []span) error {
	return unmarshalRuns(raw, 0, len(raw), cut, pod.Unmarshal, func(num protowire.Number, start, end int, cut []span) error {
		switch num {
		case podMetadata:
			return unmarshalRuns(raw, start, end, cut, pod.ObjectMeta.Unmarshal, nil)
		case podSpec:
			return unmarshalRuns(raw, start, end, cut, pod.Spec.Unmarshal, nil)
		case podStatus:
			st := &pod.Status
			return unmarshalRuns(raw, start, end, cut, st.Unmarshal, func(num protowire.Number, start, end int, cut []span) error {
				// A container status holding parts met before: a new
				// element, as the generated Unmarshal appends one.
				var list *[]v1.ContainerStatus
				switch num {
				case statusContainerStatuses:
					list = &st.ContainerStatuses
				case statusInitContainerStatuses:
					list = &st.InitContainerStatuses
				default:
					return errCutElsewhere
				}
				*list = append(*list, v1.ContainerStatus{})
				return unmarshalRuns(raw, start, end, cut, (*list)[len(*list)-1].Unmarshal, nil)
			})
		}
		return errCutElsewhere
	})
}

// errCutElsewhere is a cut inside a field scanPod does not cut in (not
// met: the pod is then decoded in full).
var errCutElsewhere = errors.New("a part cut out of a field that holds none")

// unmarshalRuns gives the runs of fields in raw[start:end] between the
// cuts (whole fields, sorted) to unmarshal, and a field that holds cuts
// (its value's bounds, and those cuts) to inside.
func unmarshalRuns(raw []byte, start, end int, cut []span, unmarshal func([]byte) error,
	inside func(num protowire.Number, start, end int, cut []span) error) error {
	run := start
	flush := func(to int) error {
		if to > run {
			return unmarshal(raw[run:to])
		}
		return nil
	}
	for at := start; at < end && len(cut) > 0; {
		if int(cut[0].start) == at {
			if err := flush(at); err != nil {
				return err
			}
			at, run, cut = int(cut[0].end), int(cut[0].end), cut[1:]
			continue
		}
		fieldEnd, valueStart, holds := fieldAround(raw, at, end, cut)
		if holds > 0 {
			if inside == nil {
				return errCutElsewhere
			}
			if err := flush(at); err != nil {
				return err
			}
			num, _, _ := protowire.ConsumeTag(raw[at:end])
			if err := inside(num, valueStart, fieldEnd, cut[:holds]); err != nil {
				return err
			}
			run, cut = fieldEnd, cut[holds:]
		}
		at = fieldEnd
	}
	return flush(end)
}

// fieldAround is the field at raw[at:]: where it ends, where its value
// starts (a length-delimited one's), and how many of the cuts are inside it.
func fieldAround(raw []byte, at, end int, cut []span) (fieldEnd, valueStart, inside int) {
	num, typ, n := protowire.ConsumeTag(raw[at:end])
	m := protowire.ConsumeFieldValue(num, typ, raw[at+n:end])
	fieldEnd = at + n + m
	for inside < len(cut) && int(cut[inside].start) < fieldEnd {
		inside++
	}
	if inside > 0 {
		valueStart = fieldEnd - len(protowireValue(raw[at+n:fieldEnd]))
	}
	return fieldEnd, valueStart, inside
}

// decodePod decodes raw, a Pod's encoding, into pod, cutting out the parts
// met before; size is what the generated Size gives for the pod as read
// (with those parts). found is nil when raw is decoded in full because it
// could not be walked, or did not decode without the parts met before (it
// is then decoded in full again, into a new pod, which reports the
// error).
func decodePod(table *sharedParts, raw []byte) (pod *v1.Pod, found *foundParts, size int, err error) {
	found = findPodParts(table, raw)
	pod = &v1.Pod{}
	found.listsSized(pod)
	if found == nil || !found.hits {
		if err = pod.Unmarshal(raw); err != nil {
			return pod, nil, 0, err
		}
		found.sizeNew(pod)
		return pod, found, pod.Size(), nil
	}
	var room [len(podParts) + 8]span
	if err = unmarshalWithout(pod, raw, found.knownSpans(room[:0])); err != nil {
		pod = &v1.Pod{}
		if err = pod.Unmarshal(raw); err != nil {
			return pod, nil, 0, err
		}
		return pod, nil, pod.Size(), nil
	}
	found.sizeNew(pod)
	// The Pod's Size, with the known parts' sizes added to the fields
	// that held them.
	outer := [3]int{pod.ObjectMeta.Size(), pod.Spec.Size(), pod.Status.Size()}
	for i := range found.parts {
		if fp := &found.parts[i]; fp.known {
			outer[podParts[fp.part].outer-podMetadata] += int(fp.size)
		}
	}
	// A container status that held known parts is longer by them, and
	// its length's varint may be too.
	for i := 0; i < len(found.nested); {
		l, elem, known := found.nested[i].list, found.nested[i].elem, 0
		for ; i < len(found.nested) && found.nested[i].list == l && found.nested[i].elem == elem; i++ {
			if found.nested[i].known {
				known += int(found.nested[i].size)
			}
		}
		if known > 0 {
			e := statusesOf(pod, l)[elem].Size()
			outer[podStatus-podMetadata] += protowire.SizeVarint(uint64(e+known)) + known - protowire.SizeVarint(uint64(e))
		}
	}
	for _, l := range outer {
		size += 1 + protowire.SizeVarint(uint64(l)) + l
	}
	return pod, found, size, nil
}

// listsSized gives pod, about to be decoded, its status's lists with
// room for the elements its encoding holds (the generated Unmarshal
// appends to them), but those of parts met before, which are not
// decoded (and set, nil or not, by settle). A list the encoding lacks
// stays nil.
func (f *foundParts) listsSized(pod *v1.Pod) {
	if f == nil {
		return
	}
	decoded := func(i int) bool {
		if p := podPartAt(podStatus, statusLists[i]); p >= 0 {
			fp := f.part(p)
			return fp == nil || !fp.known
		}
		return true
	}
	st := &pod.Status
	for i, n := range f.lists {
		if n == 0 || !decoded(i) {
			continue
		}
		switch statusLists[i] {
		case 2:
			st.Conditions = make([]v1.PodCondition, 0, n)
		case statusContainerStatuses:
			st.ContainerStatuses = make([]v1.ContainerStatus, 0, n)
		case statusInitContainerStatuses:
			st.InitContainerStatuses = make([]v1.ContainerStatus, 0, n)
		case 12:
			st.PodIPs = make([]v1.PodIP, 0, n)
		case 16:
			st.HostIPs = make([]v1.HostIP, 0, n)
		}
	}
}

// sizeNew works out the sizes of the parts to remember, as decoded.
func (f *foundParts) sizeNew(pod *v1.Pod) {
	if f == nil {
		return
	}
	for i := range f.parts {
		fp := &f.parts[i]
		if fp.learn && started(pod, podParts[fp.part].kind) {
			// Not remembered (settle).
			fp.learn = false
		}
		if fp.learn {
			fp.size = int32(podParts[fp.part].size(pod))
		}
	}
	for i := range f.nested {
		if fn := &f.nested[i]; fn.learn {
			fn.size = int32(nestedSize(&statusesOf(pod, fn.list)[fn.elem], fn.field))
		}
	}
}

// settle sets the parts met before in a defaulted pod, and remembers the
// parts met first as defaulting left them. A running pod's container
// statuses are its own (their container IDs): they are not remembered
// (the parts inside them are, findNested), and sharePod interns their
// names and images.
func (f *foundParts) settle(pod *v1.Pod) {
	if f == nil {
		return
	}
	learned := false
	// The parts inside the container statuses first: the statuses as a
	// whole may be remembered with them.
	for i := range f.nested {
		fn := &f.nested[i]
		cs := &statusesOf(pod, fn.list)[fn.elem]
		if fn.known {
			nestedField(cs, fn.field, fn.value)
		} else if fn.learn {
			fn.value = nestedField(cs, fn.field, nil)
			learned = true
		}
	}
	kept := f.parts[:0]
	for _, fp := range f.parts {
		p := &podParts[fp.part]
		switch {
		case fp.known:
			p.set(pod, fp.value)
		case started(pod, p.kind):
			// Left to sharePod (the parts inside them are in
			// f.nested).
			continue
		case fp.learn:
			fp.value = p.get(pod)
			learned = true
		}
		kept = append(kept, fp)
	}
	f.parts = kept
	if !learned {
		return
	}
	t := f.table
	t.mu.Lock()
	defer t.mu.Unlock()
	for i := range f.nested {
		if fn := &f.nested[i]; fn.learn {
			if known, met := t.remember(f.raw, fn.kind, fn.key, fn.value, fn.size); met {
				nestedField(&statusesOf(pod, fn.list)[fn.elem], fn.field, known)
			}
		}
	}
	for _, fp := range f.parts {
		if fp.learn {
			if known, met := t.remember(f.raw, fp.kind, fp.key, fp.value, fp.size); met {
				podParts[fp.part].set(pod, known)
			}
		}
	}
}

// remember keeps value, of kind, under key in raw (t.raw or t.rawJSON)
// while there is room (t locked), unless a pod decoded at the same time
// on another goroutine has remembered the part since: equal bytes, an
// equal part, which met gives to share.
func (t *sharedParts) remember(raw *rawTable, kind partKind, key []byte, value any, size int32) (known any, met bool) {
	if k, ok := raw[kind][string(key)]; ok {
		return k.value, true
	}
	if !t.roomFor(kind) {
		return nil, false
	}
	if raw[kind] == nil {
		raw[kind] = map[string]rawPart{}
	}
	raw[kind][string(key)] = rawPart{value: value, size: int(size)}
	t.kept[kind]++
	return nil, false
}

// roomFor reports whether the table remembers one more part of kind met
// by its bytes (t locked): while it holds fewer than maxSharedParts of
// them, or fewer than the pods' parts of that kind it has given so far.
// Each of those spared decoding a part and keeping a copy of it, so the
// table's keys cost no more than the sharing saves; a fixed bound stopped
// at 16,384 of scalegen's 300,000 pods' 72,000 container lists (an image
// per pod of two dozen, in each of its apps), after which 173,000 of the
// pods decoded and kept their own (none now).
func (t *sharedParts) roomFor(kind partKind) bool {
	return t.kept[kind] < max(maxSharedParts, t.hits[kind])
}

// started reports whether the container statuses that are the part kind
// of pod (if they are) have one that started (it has a container ID).
func started(pod *v1.Pod, kind partKind) bool {
	var statuses []v1.ContainerStatus
	switch kind {
	case partContainerStatuses:
		statuses = pod.Status.ContainerStatuses
	case partInitContainerStatuses:
		statuses = pod.Status.InitContainerStatuses
	}
	for i := range statuses {
		if statuses[i].ContainerID != "" {
			return true
		}
	}
	return false
}
