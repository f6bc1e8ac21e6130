package snapshot

import (
	"encoding/binary"
	"reflect"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"unique"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Sharing what pods (and nodes) have in common. A cluster's pods come from a
// few templates: the pods of one Deployment or DaemonSet have the same
// containers, tolerations, conditions, owner references and labels, and
// decoding gives each its own copy (about 5 KB of a SchedulingBasic-shaped
// pod's 5.3). Once an object is defaulted and validated, the loader
// replaces each such part by the first equal one it met, and the strings
// most pods repeat (namespace, node name, policies) by one copy; the
// duplicates become garbage right away. Nothing changes in what is read:
// the shared parts are equal (reflect.DeepEqual, nil and empty told apart)
// to what they replace.
//
// Loaded objects are never changed in place (the engine, the what-ifs and
// the writers change deep copies), so sharing is safe; the shared slices
// have no spare capacity, so that an append (admission's default
// tolerations) makes a new one rather than writing into another pod's.

// maxSharedParts bounds the parts of one kind a load remembers: past it a
// part of that kind is shared only with one already remembered, so that a
// cluster whose pods differ in a part (a volume mount named after the pod)
// costs a bounded table, not a key per pod, and one kind's differences
// (the nodes' labels, each with its hostname) take no room from another's.
// Parts met by their bytes may pass it (sharedParts.roomFor).
const maxSharedParts = 1 << 14

// sharedParts is a load's table of parts met so far, keyed by their kind and
// protobuf encoding; safe for the goroutines that decode.
type sharedParts struct {
	mu    sync.Mutex
	parts map[string]any
	// raw are the parts of protobuf pods and nodes, of each kind, by
	// their bytes (share_protobuf.go); rawJSON those of JSON ones
	// (share_json.go): equal bytes of the two formats are not the same
	// part.
	raw, rawJSON rawTable
	// kept counts the parts remembered of each kind; hits the pods'
	// parts found in raw (roomFor).
	kept, hits [partKinds]int
	// nodeKept and nodeFound count the nodes' parts of each kind
	// remembered, and found remembered (share_protobuf_nodes.go).
	nodeKept, nodeFound [partKinds]int
	// nodeKindsUnmet are the kinds of node part whose first
	// unsharedNodeParts were all different: a JSON node's are no longer
	// looked up (share_json.go). Read without the lock.
	nodeKindsUnmet atomic.Uint64
}

func newSharedParts() *sharedParts {
	return &sharedParts{parts: map[string]any{}}
}

// partKind tags a key with the part it encodes: equal encodings of two
// kinds of part are not the same part.
type partKind byte

const (
	partContainers partKind = iota + 1
	partInitContainers
	// A host-network pod's containers, whose defaulting differs
	// (share_protobuf.go).
	partHostNetworkContainers
	partHostNetworkInitContainers
	partVolumes
	partTolerations
	partAffinity
	partPodSecurityContext
	partSpreadConstraints
	partConditions
	partContainerStatuses
	partInitContainerStatuses
	partHostIPs
	partOwnerReferences
	partManagedFields
	partLabels
	partAnnotations
	partCapacity
	partAllocatable
	partNodeConditions
	partImages
	partTaints
	partResources
	partNodeLabels
	partNodeAnnotations
	partStatusAllocated
	partStatusResources
	partContainerAllocated
	partContainerResources
	partVolumeMountStatuses
	partKinds
)

// share returns the remembered part equal to v under key, else remembers v
// (while there is room) and returns it.
func share[T any](s *sharedParts, key []byte, v T) T {
	kind := key[0]
	s.mu.Lock()
	known, ok := s.parts[string(key)]
	if !ok && s.kept[kind] < maxSharedParts {
		s.parts[string(key)] = v
		s.kept[kind]++
	}
	s.mu.Unlock()
	if ok {
		if k, same := known.(T); same && reflect.DeepEqual(k, v) {
			return k
		}
	}
	return v
}

// protoMessage is an API type's generated protobuf encoding.
type protoMessage[E any] interface {
	*E
	Size() int
	MarshalToSizedBuffer([]byte) (int, error)
}

// appendProto appends m's encoding, length first, to key.
func appendProto[E any, P protoMessage[E]](key []byte, m P) ([]byte, bool) {
	n := m.Size()
	key = binary.AppendUvarint(key, uint64(n))
	start := len(key)
	key = slices.Grow(key, n)[:start+n]
	if _, err := m.MarshalToSizedBuffer(key[start:]); err != nil {
		return nil, false
	}
	return key, true
}

// keyBuffers are the buffers keys are encoded in (and a protobuf pod's
// bytes without its shared parts, share_protobuf.go): the table copies a key
// it keeps, so one buffer serves every part of a goroutine (a key a part
// was 0.85 GB of garbage at a million pods).
var keyBuffers = sync.Pool{New: func() any { return new([]byte) }}

// newKey starts a key of kind in a buffer of keyBuffers; done gives the
// buffer back once the key is used.
func newKey(kind partKind) (key []byte, done func([]byte)) {
	buf := keyBuffers.Get().(*[]byte)
	return append((*buf)[:0], byte(kind)), func(key []byte) {
		*buf = key
		keyBuffers.Put(buf)
	}
}

// sharing is the table an object's parts are shared in, and the kinds of
// part already shared (by their bytes, share_protobuf.go), left alone.
type sharing struct {
	*sharedParts
	done partSet
	// strings is the calling goroutine's interned strings (nil: none,
	// intern asks unique.Make).
	strings internedStrings
}

// shareSlice shares a non-empty slice of API objects, without spare capacity.
func shareSlice[E any, P protoMessage[E]](s sharing, kind partKind, v []E) []E {
	if len(v) == 0 || s.done.has(kind) {
		return v
	}
	key, done := newKey(kind)
	for i := range v {
		next, ok := appendProto[E, P](key, &v[i])
		if !ok {
			done(key)
			return v
		}
		key = next
	}
	defer done(key)
	return share(s.sharedParts, key, slices.Clip(v))
}

// sharePointer shares a set pointer to an API object.
func sharePointer[E any, P protoMessage[E]](s sharing, kind partKind, v P) P {
	if v == nil || s.done.has(kind) {
		return v
	}
	start, done := newKey(kind)
	key, ok := appendProto[E, P](start, v)
	if !ok {
		done(start)
		return v
	}
	defer done(key)
	return share(s.sharedParts, key, v)
}

// shareStrings shares a non-empty map of strings (labels, annotations).
func shareStrings(s sharing, kind partKind, m map[string]string) map[string]string {
	if len(m) == 0 || s.done.has(kind) {
		return m
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	key, done := newKey(kind)
	for _, k := range keys {
		key = binary.AppendUvarint(key, uint64(len(k)))
		key = append(key, k...)
		key = binary.AppendUvarint(key, uint64(len(m[k])))
		key = append(key, m[k]...)
	}
	defer done(key)
	return share(s.sharedParts, key, m)
}

// shareResourceList shares a non-empty resource list (a node's capacity, or
// its allocatable: never one map for both, as an API server's are two).
func shareResourceList(s sharing, kind partKind, l v1.ResourceList) v1.ResourceList {
	if len(l) == 0 || s.done.has(kind) {
		return l
	}
	names := make([]string, 0, len(l))
	for n := range l {
		names = append(names, string(n))
	}
	sort.Strings(names)
	key, done := newKey(kind)
	for _, n := range names {
		q := l[v1.ResourceName(n)]
		key = binary.AppendUvarint(key, uint64(len(n)))
		key = append(key, n...)
		next, ok := appendProto(key, &q)
		if !ok {
			done(key)
			return l
		}
		key = next
	}
	defer done(key)
	return share(s.sharedParts, key, l)
}

// intern returns the one copy of str the process keeps (unique.Make
// forgets it once nothing holds it), found first among those s's
// goroutine interned before.
func intern[S ~string](s sharing, str S) S {
	if str == "" {
		return str
	}
	if s.strings != nil {
		if h, ok := s.strings[string(str)]; ok {
			return S(h.Value())
		}
	}
	h := unique.Make(string(str))
	if s.strings != nil && len(s.strings) < maxInternedStrings {
		s.strings[h.Value()] = h
	}
	return S(h.Value())
}

// internedStrings are the handles unique.Make gave, by their value: at
// 300,000 scalegen pods unique.Make took 0.85 s of CPU for the strings
// pods repeat (their node's name and IP most), a map of those met before
// on the goroutine (internedStringsPool: about one a processor, each a
// few MB) and unique.Make for the rest 0.54 s. The map holds handles, not
// their strings: a string alone does not keep unique.Make's entry, which a
// collection may then drop, and a goroutine whose map still had the old
// copy would hand pods a different one than unique.Make gives the others.
type internedStrings map[string]unique.Handle[string]

// maxInternedStrings bounds each internedStrings (its strings are
// unique.Make's copies, kept as long as the map is): room for the names
// and IPs of 50,000 nodes and more (scalegen's 300,000 pods have 65,536
// host IPs and 15,000 node names), about 10 MB a map when full.
const maxInternedStrings = 1 << 18

var internedStringsPool = sync.Pool{New: func() any { return internedStrings{} }}

// shareMeta shares the parts of an object's metadata; labels and
// annotations are parts of the kinds given.
func shareMeta(s sharing, m *metav1.ObjectMeta, labels, annotations partKind) {
	m.Namespace = intern(s, m.Namespace)
	m.GenerateName = intern(s, m.GenerateName)
	m.Labels = shareStrings(s, labels, m.Labels)
	m.Annotations = shareStrings(s, annotations, m.Annotations)
	m.OwnerReferences = shareSlice(s, partOwnerReferences, m.OwnerReferences)
	m.ManagedFields = shareSlice(s, partManagedFields, m.ManagedFields)
}

// sharePod shares a defaulted and validated pod's parts with the pods
// loaded before it (but those s.done).
func sharePod(s sharing, pod *v1.Pod) {
	shareMeta(s, &pod.ObjectMeta, partLabels, partAnnotations)
	spec := &pod.Spec
	spec.Containers = shareSlice(s, partContainers, spec.Containers)
	spec.InitContainers = shareSlice(s, partInitContainers, spec.InitContainers)
	spec.Volumes = shareSlice(s, partVolumes, spec.Volumes)
	spec.Tolerations = shareSlice(s, partTolerations, spec.Tolerations)
	spec.TopologySpreadConstraints = shareSlice(s, partSpreadConstraints, spec.TopologySpreadConstraints)
	spec.Affinity = sharePointer(s, partAffinity, spec.Affinity)
	spec.SecurityContext = sharePointer(s, partPodSecurityContext, spec.SecurityContext)
	spec.Resources = sharePointer(s, partResources, spec.Resources)
	spec.NodeName = intern(s, spec.NodeName)
	spec.ServiceAccountName = intern(s, spec.ServiceAccountName)
	spec.DeprecatedServiceAccount = intern(s, spec.DeprecatedServiceAccount)
	spec.SchedulerName = intern(s, spec.SchedulerName)
	spec.DNSPolicy = intern(s, spec.DNSPolicy)
	spec.RestartPolicy = intern(s, spec.RestartPolicy)
	spec.PriorityClassName = intern(s, spec.PriorityClassName)
	status := &pod.Status
	status.Conditions = shareSlice(s, partConditions, status.Conditions)
	// A running pod's container statuses are its own (container IDs,
	// start times), but the resources the kubelet writes in them and in
	// the pod's status are its template's: shared first, in the pod's own
	// statuses (not in statuses shared already: others read them).
	status.AllocatedResources = shareResourceList(s, partStatusAllocated, status.AllocatedResources)
	status.Resources = sharePointer(s, partStatusResources, status.Resources)
	if !s.done.has(partContainerStatuses) && shareContainerStatuses(s, status.ContainerStatuses) {
		status.ContainerStatuses = shareSlice(s, partContainerStatuses, status.ContainerStatuses)
	}
	if !s.done.has(partInitContainerStatuses) && shareContainerStatuses(s, status.InitContainerStatuses) {
		status.InitContainerStatuses = shareSlice(s, partInitContainerStatuses, status.InitContainerStatuses)
	}
	status.HostIPs = shareSlice(s, partHostIPs, status.HostIPs)
	status.HostIP = intern(s, status.HostIP)
	status.Phase = intern(s, status.Phase)
	status.QOSClass = intern(s, status.QOSClass)
}

// shareContainerStatuses shares the parts of a pod's own container
// statuses (not yet shared: their slice may be after), and reports whether
// the slice may be shared whole: not when a container has started (its
// ID is the container's own, so no other pod's statuses are equal, and
// their key, all of them encoded, was a tenth of the sharing's time).
func shareContainerStatuses(s sharing, statuses []v1.ContainerStatus) (whole bool) {
	whole = true
	for i := range statuses {
		cs := &statuses[i]
		cs.Name, cs.Image = intern(s, cs.Name), intern(s, cs.Image)
		cs.AllocatedResources = shareResourceList(s, partContainerAllocated, cs.AllocatedResources)
		cs.Resources = sharePointer(s, partContainerResources, cs.Resources)
		cs.VolumeMounts = shareSlice(s, partVolumeMountStatuses, cs.VolumeMounts)
		whole = whole && cs.ContainerID == ""
	}
	return whole
}

// shareNode shares a defaulted and validated node's parts with the nodes
// loaded before it.
func shareNode(s sharing, node *v1.Node) {
	shareMeta(s, &node.ObjectMeta, partNodeLabels, partNodeAnnotations)
	node.Spec.Taints = shareSlice(s, partTaints, node.Spec.Taints)
	st := &node.Status
	st.Capacity = shareResourceList(s, partCapacity, st.Capacity)
	st.Allocatable = shareResourceList(s, partAllocatable, st.Allocatable)
	st.Conditions = shareSlice(s, partNodeConditions, st.Conditions)
	st.Images = shareSlice(s, partImages, st.Images)
	st.NodeInfo.KernelVersion = intern(s, st.NodeInfo.KernelVersion)
	st.NodeInfo.OSImage = intern(s, st.NodeInfo.OSImage)
	st.NodeInfo.ContainerRuntimeVersion = intern(s, st.NodeInfo.ContainerRuntimeVersion)
	st.NodeInfo.KubeletVersion = intern(s, st.NodeInfo.KubeletVersion)
	st.NodeInfo.KubeProxyVersion = intern(s, st.NodeInfo.KubeProxyVersion)
	st.NodeInfo.OperatingSystem = intern(s, st.NodeInfo.OperatingSystem)
	st.NodeInfo.Architecture = intern(s, st.NodeInfo.Architecture)
}

// shareObject shares the parts of a pod or a node but those in done;
// other kinds are few.
func shareObject(table *sharedParts, obj any, done partSet) {
	strs := internedStringsPool.Get().(internedStrings)
	defer internedStringsPool.Put(strs)
	s := sharing{table, done, strs}
	switch o := obj.(type) {
	case *v1.Pod:
		sharePod(s, o)
	case *v1.Node:
		shareNode(s, o)
	}
}
