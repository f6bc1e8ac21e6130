package runtime

import (
	"slices"
	"sync/atomic"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/schedtui/schedtui/scheduler/framework"
)

// The verdict memo: a profile's node-local plugins (framework.NodeLocalPlugin)
// give the same Filter status and the same raw score for a node to every
// pod of one shape until the node changes, so the scheduler's walk over
// the nodes takes them from the node's NodeVerdicts instead of asking the
// plugins again. Scheduling a workload of one template, each cycle looks at
// a few hundred nodes of thousands (percentageOfNodesToScore) from where
// the last cycle stopped, and only the node the last pod went to changed.
//
// Why a kept verdict is the verdict the plugin would give:
//   - a NodeInfo's Generation changes with every change to it (its node
//     object, its pods, their requests and ports, its image states) and is
//     never given twice in the process, so an equal Generation is an equal
//     NodeInfo, whichever copy holds it;
//   - a node-local plugin reads nothing but that NodeInfo, its own
//     arguments and gates (fixed for a Framework), the pod's shape
//     (samePodShape compares every pod field such a plugin reads; a pod
//     whose status carries resources, or that requests anything beyond
//     cpu, memory and ephemeral storage, is never taken: those reach the
//     pod's allocated resources and DRA's DeviceClasses) and, for
//     ImageLocality, the number of nodes; a Score plugin that is
//     node-local in some cycles only (framework.CycleNodeLocalScorer) has
//     its kept scores read and written in those cycles alone;
//   - a verdict is taken only under its key: the Framework that gave it,
//     the pod's shape and the number of nodes. Keys are never given twice,
//     and a new snapshot (the node set changed, a rewind, a restored
//     checkpoint) gets new keys, so nothing made on another cluster state
//     survives it;
//   - only the scheduler's own walk over its snapshot's nodes (Filter and
//     Score in schedulePod) uses the memo: never preemption's copies, the
//     pass with nominated pods added, the diagnosis views, nor a profile
//     with extenders (which may answer differently from one call to the
//     next). Errors are never kept, and a kept status is handed out as a
//     copy.
//
// Everything else runs as without it: PreFilter, PreScore, every plugin
// that is not node-local, normalization, the node order, where the walk
// starts and how many feasible nodes it looks for, and so every recorded
// status and score (TestVerdictMemoAgrees compares them with the memo off).
type verdictMemo struct {
	// off: Options.RecomputeVerdicts, an extender, or no node-local plugin.
	off bool
	// filterOrd and scoreOrd are, by place in the profile's Filter and
	// Score plugins, each node-local plugin's ordinal among them (the
	// NodeVerdicts bit it keeps its verdict under), else -1; a Score
	// plugin that is node-local in some cycles only
	// (framework.CycleNodeLocalScorer) has one too.
	filterOrd, scoreOrd []int
	// snapshot is the snapshot shapes' keys were given on.
	snapshot *framework.Snapshot
	// shapes are the pod shapes seen last, the latest first.
	shapes []memoShape
}

// maxMemoShapes is how many pod shapes a profile keeps keys for: pods of a
// few templates interleave in the queue.
const maxMemoShapes = 8

// memoShape is a pod shape's key: spec is the first pod of the shape's
// (a shallow copy, so that a later write to that pod's fields is not
// taken for the shape), numNodes the snapshot's size then.
type memoShape struct {
	spec     v1.PodSpec
	numNodes int
	key      uint64
}

// memoKeys hands out verdict keys, unique in the process as generations
// are.
var memoKeys atomic.Uint64

// newVerdictMemo numbers the node-local plugins of f; off turns the memo
// off.
func newVerdictMemo(f *Framework, off bool) verdictMemo {
	m := verdictMemo{off: off || len(f.opts.Extenders) > 0}
	m.filterOrd = ordinals(f.filterPlugins, framework.MaxNodeLocalFilters, nodeLocal)
	m.scoreOrd = ordinals(f.scorePlugins, framework.MaxNodeLocalScores, func(p framework.ScorePlugin) bool {
		_, inSomeCycles := p.(framework.CycleNodeLocalScorer)
		return inSomeCycles || nodeLocal(p)
	})
	local := func(ord int) bool { return ord >= 0 }
	m.off = m.off || !(slices.ContainsFunc(m.filterOrd, local) || slices.ContainsFunc(m.scoreOrd, local))
	return m
}

// nodeLocal reports whether p is a NodeLocalPlugin that says it is.
func nodeLocal[P framework.Plugin](p P) bool {
	nl, ok := any(p).(framework.NodeLocalPlugin)
	return ok && nl.NodeLocal()
}

// ordinals numbers the plugins local says are, up to limit of them; -1
// for the others.
func ordinals[P framework.Plugin](plugins []P, limit int, local func(P) bool) []int {
	ord := make([]int, len(plugins))
	n := 0
	for i, p := range plugins {
		ord[i] = -1
		if local(p) && n < limit {
			ord[i] = n
			n++
		}
	}
	return ord
}

// VerdictCycle is one scheduling cycle's use of the verdict memo
// (Framework.VerdictsFor); nil uses none.
type VerdictCycle struct {
	f   *Framework
	key uint64
	// filterPlugins is the cycle's Filter plugins (after PreFilter's
	// skips) and filterOrds their ordinals (filterOrdsFor).
	filterPlugins []framework.FilterPlugin
	filterOrds    []int
}

// Key is the verdict memo's key for the cycle's pod (0 for nil), for
// CycleState.SetPodShape.
func (c *VerdictCycle) Key() uint64 {
	if c == nil {
		return 0
	}
	return c.key
}

// VerdictsFor starts a cycle's use of the verdict memo for pod; nil when
// the memo is off or pod is not of a shape it takes.
func (f *Framework) VerdictsFor(pod *v1.Pod) *VerdictCycle {
	m := &f.verdicts
	if m.off || !memoizablePod(pod) {
		return nil
	}
	snap := f.Snapshot()
	if snap != m.snapshot {
		m.snapshot, m.shapes = snap, m.shapes[:0]
	}
	n := snap.NumNodes()
	for i, s := range m.shapes {
		if s.numNodes == n && samePodShape(&s.spec, &pod.Spec) {
			copy(m.shapes[1:i+1], m.shapes[:i])
			m.shapes[0] = s
			return &VerdictCycle{f: f, key: s.key}
		}
	}
	s := memoShape{spec: pod.Spec, numNodes: n, key: memoKeys.Add(1)}
	if len(m.shapes) < maxMemoShapes {
		m.shapes = append(m.shapes, memoShape{})
	}
	copy(m.shapes[1:], m.shapes)
	m.shapes[0] = s
	return &VerdictCycle{f: f, key: s.key}
}

// verdicts is ni's NodeVerdicts under the cycle's key, emptied when they
// were given on another generation of the node or under another key.
func (c *VerdictCycle) verdicts(ni *framework.NodeInfo) *framework.NodeVerdicts {
	v := ni.Verdicts
	if v != nil && v.Generation == ni.Generation && v.Key == c.key {
		return v
	}
	if v == nil {
		v = &framework.NodeVerdicts{}
		ni.Verdicts = v
	}
	v.Generation, v.Key = ni.Generation, c.key
	v.FilterKnown, v.FilterFailed, v.ScoreKnown = 0, 0, 0
	return v
}

// keepFilter keeps Filter plugin ord's status s (nil: success) in v.
func keepFilter(v *framework.NodeVerdicts, ord int, s *framework.Status) {
	v.FilterKnown |= 1 << ord
	if s.IsSuccess() {
		return
	}
	if ord >= len(v.Failures) {
		v.Failures = append(v.Failures, make([]*framework.Status, ord+1-len(v.Failures))...)
	}
	v.Failures[ord] = s.Clone()
	v.FilterFailed |= 1 << ord
}

// filterOrdsFor is each of plugins' ordinal among the profile's
// node-local Filter plugins, -1 for the others; plugins keep the
// profile's order (PreFilter only drops some).
func (c *VerdictCycle) filterOrdsFor(plugins []framework.FilterPlugin) []int {
	if len(plugins) == len(c.filterPlugins) && (len(plugins) == 0 || &plugins[0] == &c.filterPlugins[0]) {
		return c.filterOrds
	}
	c.filterPlugins = plugins
	c.filterOrds = ordinalsIn(plugins, c.f.filterPlugins, c.f.verdicts.filterOrd)
	return c.filterOrds
}

// ordinalsIn is, for each of plugins (a subsequence of all), the ordinal
// ords gives its place in all.
func ordinalsIn[P comparable](plugins, all []P, ords []int) []int {
	out := make([]int, len(plugins))
	j := 0
	for i, p := range plugins {
		for j < len(all) && all[j] != p {
			j++
		}
		out[i] = -1
		if j < len(all) {
			out[i] = ords[j]
		}
	}
	return out
}

// memoizablePod reports whether pod's node-local verdicts depend on its
// spec alone: no status resources (an in-place resize's allocated or
// actuated resources, a resize condition, node-allocatable claims), and
// no request beyond cpu, memory and ephemeral storage (an extended
// resource may be DRA's, which reads the cluster's DeviceClasses).
func memoizablePod(pod *v1.Pod) bool {
	st := &pod.Status
	if len(st.ContainerStatuses) != 0 || len(st.InitContainerStatuses) != 0 || st.Resources != nil ||
		len(st.AllocatedResources) != 0 || len(st.NodeAllocatableResourceClaimStatuses) != 0 {
		return false
	}
	for i := range st.Conditions {
		if st.Conditions[i].Type == v1.PodResizePending || st.Conditions[i].Type == v1.PodResizeInProgress {
			return false
		}
	}
	return !framework.RequestsBeyondBasics(pod)
}

// samePodShape reports whether the node-local plugins see pods of specs
// sa and sb alike (memoizablePod took both):
// every pod field they read is equal (quantities compared by value).
// NodeResourcesFit and BalancedAllocation read the containers' and init
// containers' resources and restart policies, the overhead and the
// pod-level resources; NodePorts the containers' ports; ImageLocality
// their images and the image volumes; NodeAffinity the node selector and
// node affinity; TaintToleration and NodeUnschedulable the tolerations;
// NodeName spec.nodeName.
func samePodShape(sa, sb *v1.PodSpec) bool {
	eq := equality.Semantic.DeepEqual
	if sa.NodeName != sb.NodeName || !sameContainers(sa.Containers, sb.Containers) ||
		!sameContainers(sa.InitContainers, sb.InitContainers) || !sameImageVolumes(sa.Volumes, sb.Volumes) {
		return false
	}
	var affA, affB *v1.NodeAffinity
	if sa.Affinity != nil {
		affA = sa.Affinity.NodeAffinity
	}
	if sb.Affinity != nil {
		affB = sb.Affinity.NodeAffinity
	}
	return eq(sa.NodeSelector, sb.NodeSelector) && eq(affA, affB) && eq(sa.Tolerations, sb.Tolerations) &&
		eq(sa.Overhead, sb.Overhead) && eq(sa.Resources, sb.Resources)
}

func sameContainers(a, b []v1.Container) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		ca, cb := &a[i], &b[i]
		if ca.Image != cb.Image || !equality.Semantic.DeepEqual(ca.RestartPolicy, cb.RestartPolicy) ||
			!equality.Semantic.DeepEqual(ca.Ports, cb.Ports) || !equality.Semantic.DeepEqual(ca.Resources, cb.Resources) {
			return false
		}
	}
	return true
}

// sameImageVolumes compares the image volumes' references, in order (the
// other volumes' names are the pod's own, kube-api-access-… among them).
func sameImageVolumes(a, b []v1.Volume) bool {
	i, j := 0, 0
	for {
		for i < len(a) && a[i].Image == nil {
			i++
		}
		for j < len(b) && b[j].Image == nil {
			j++
		}
		if i == len(a) || j == len(b) {
			return i == len(a) && j == len(b)
		}
		if a[i].Image.Reference != b[j].Image.Reference {
			return false
		}
		i, j = i+1, j+1
	}
}
