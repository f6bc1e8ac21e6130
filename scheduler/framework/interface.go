package framework

import (
	"context"
	"math/rand/v2"
	"time"

	v1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/schedtui/schedtui/scheduler/features"
)

// Plugin is anything registered in a profile.
type Plugin interface {
	Name() string
}

// PreEnqueuePlugin gates a pod before it enters activeQ.
type PreEnqueuePlugin interface {
	Plugin
	PreEnqueue(ctx context.Context, pod *v1.Pod) *Status
}

// QueueSortPlugin orders activeQ.
type QueueSortPlugin interface {
	Plugin
	Less(a, b QueuedEntity) bool
}

// PreFilterExtensions keep a PreFilter's state consistent when the cycle
// adds or removes pods hypothetically (nominated pods, preemption).
type PreFilterExtensions interface {
	AddPod(ctx context.Context, state *CycleState, podToSchedule *v1.Pod, podInfoToAdd *PodInfo, nodeInfo *NodeInfo) *Status
	RemovePod(ctx context.Context, state *CycleState, podToSchedule *v1.Pod, podInfoToRemove *PodInfo, nodeInfo *NodeInfo) *Status
}

// PreFilterPlugin runs once per cycle before Filter.
type PreFilterPlugin interface {
	Plugin
	PreFilter(ctx context.Context, state *CycleState, pod *v1.Pod, nodes []*NodeInfo) (*PreFilterResult, *Status)
	// PreFilterExtensions may return nil.
	PreFilterExtensions() PreFilterExtensions
}

// FilterPlugin decides whether the pod can run on a node.
type FilterPlugin interface {
	Plugin
	Filter(ctx context.Context, state *CycleState, pod *v1.Pod, nodeInfo *NodeInfo) *Status
}

// PostFilterPlugin runs when no node fits (preemption).
type PostFilterPlugin interface {
	Plugin
	PostFilter(ctx context.Context, state *CycleState, pod *v1.Pod, statuses *NodeToStatus) (*PostFilterResult, *Status)
}

// PreScorePlugin runs once before Score over the feasible nodes.
type PreScorePlugin interface {
	Plugin
	PreScore(ctx context.Context, state *CycleState, pod *v1.Pod, nodes []*NodeInfo) *Status
}

// ScoreExtensions normalizes a plugin's scores into [0, 100].
type ScoreExtensions interface {
	NormalizeScore(ctx context.Context, state *CycleState, pod *v1.Pod, scores NodeScoreList) *Status
}

// ScorePlugin ranks feasible nodes.
type ScorePlugin interface {
	Plugin
	Score(ctx context.Context, state *CycleState, pod *v1.Pod, nodeInfo *NodeInfo) (int64, *Status)
	// ScoreExtensions may return nil.
	ScoreExtensions() ScoreExtensions
}

// NodeLocalPlugin is a Filter or Score plugin whose Filter status and raw
// Score for a node depend on nothing but the pod's scheduling shape and
// that node's NodeInfo (as of its Generation) and, for scores, the number
// of nodes: not on other nodes, other objects, or anything PreFilter or
// PreScore gathered beyond the pod itself. The framework runtime then
// reuses a verdict it gave on a node for a later pod of the same shape
// while the node is unchanged (runtime's verdict memo, verdicts.go, which
// defines the shape: the pod fields such a plugin may read).
type NodeLocalPlugin interface {
	Plugin
	// NodeLocal reports whether this instance, with its arguments and
	// gates, is node-local.
	NodeLocal() bool
}

// CycleNodeLocalScorer is a Score plugin whose raw scores are node-local,
// as a NodeLocalPlugin's are, in the cycles its state says: a plugin that
// scores every node alike for some pods (VolumeBinding and
// DynamicResources give a pod without claims 0 on every node).
type CycleNodeLocalScorer interface {
	ScorePlugin
	// NodeLocalScores reports whether, in the cycle of state (after
	// PreScore), the plugin's raw score for a node depends on nothing but
	// the pod's shape and that node.
	NodeLocalScores(state *CycleState) bool
}

// ReservePlugin claims resources on the chosen node.
type ReservePlugin interface {
	Plugin
	Reserve(ctx context.Context, state *CycleState, pod *v1.Pod, nodeName string) *Status
	Unreserve(ctx context.Context, state *CycleState, pod *v1.Pod, nodeName string)
}

// PermitPlugin may delay or reject binding.
type PermitPlugin interface {
	Plugin
	Permit(ctx context.Context, state *CycleState, pod *v1.Pod, nodeName string) (*Status, time.Duration)
}

// PreBindPlugin prepares binding (volume binding).
type PreBindPlugin interface {
	Plugin
	// PreBindPreFlight returns Skip when PreBind has nothing to do.
	PreBindPreFlight(ctx context.Context, state *CycleState, pod *v1.Pod, nodeName string) *Status
	PreBind(ctx context.Context, state *CycleState, pod *v1.Pod, nodeName string) *Status
}

// BindPlugin binds the pod; Skip passes to the next binder.
type BindPlugin interface {
	Plugin
	Bind(ctx context.Context, state *CycleState, pod *v1.Pod, nodeName string) *Status
}

// PostBindPlugin is told of a successful bind.
type PostBindPlugin interface {
	Plugin
	PostBind(ctx context.Context, state *CycleState, pod *v1.Pod, nodeName string)
}

// BindFunc performs a binding in a real cluster; an error fails the Bind
// phase, as an API error does upstream.
type BindFunc func(ctx context.Context, pod *v1.Pod, nodeName string) error

// BindFuncSetter is a BindPlugin whose binding an engine can route to a
// real cluster (DefaultBinder): nil binds in memory only.
type BindFuncSetter interface {
	BindPlugin
	SetBindFunc(f BindFunc)
}

// VolumeWrites are the API writes a PreBind plugin decided for a pod's
// volumes, with the PV controller's part played too: the volumes and
// claims as they look once bound, then the claims to provision annotated
// with the selected node (no provisioner runs in schedtui).
type VolumeWrites struct {
	PersistentVolumes []*v1.PersistentVolume
	Claims            []*v1.PersistentVolumeClaim
}

// Objects lists the writes in the order they are stored: the volumes,
// then the claims.
func (w VolumeWrites) Objects() []any {
	out := make([]any, 0, len(w.PersistentVolumes)+len(w.Claims))
	for _, pv := range w.PersistentVolumes {
		out = append(out, pv)
	}
	for _, pvc := range w.Claims {
		out = append(out, pvc)
	}
	return out
}

// VolumeWriterPlugin is a PreBind plugin that binds the pod's volumes
// (VolumeBinding). Upstream's PreBind sends its writes to the API server;
// here it records them in the cycle state, and the scheduler stores them
// once the pod is bound (Framework.VolumeWrites). New objects replace the
// stored ones: that is what tells the plugin that its assumptions are
// confirmed.
type VolumeWriterPlugin interface {
	PreBindPlugin
	// VolumeWrites returns what this cycle's PreBind decided; empty when
	// it had nothing to do or did not run.
	VolumeWrites(state *CycleState) VolumeWrites
}

// PreBindWaiterPlugin is a PreBind plugin whose PreBind may wait
// (DynamicResources: a device's binding conditions). Upstream's PreBind
// blocks its binding goroutine, polling; here PreBind returns Wait instead
// and the scheduler parks the binding cycle, the pod assumed, until a poll
// settles it (scheduler/schedule_one.go: PollBinding).
type PreBindWaiterPlugin interface {
	PreBindPlugin
	// BindingWait is how the wait goes: a poll every interval from
	// PreBind on, for timeout at most.
	BindingWait() (interval, timeout time.Duration)
	// PollBindingWait is one poll of the wait PreBind started: done with
	// a nil status when the binding may go on, done with an error status
	// when it fails; not done while it still waits. expired says the wait's
	// timeout has passed.
	PollBindingWait(ctx context.Context, state *CycleState, pod *v1.Pod, expired bool) (done bool, status *Status)
}

// ClaimWriterPlugin is a plugin that writes ResourceClaims
// (DynamicResources: PostFilter's deallocation, PreBind's allocation and
// reservation). Upstream sends these writes to the API server at once;
// here the plugin records them in the cycle state and the scheduler stores
// each right after the extension point that made it
// (Framework.TakeClaimWrites), as a claim update the queue hears of.
//
// A written claim with a deletionTimestamp and no finalizers is a delete
// (ClaimDeleted), as the API server removes such an object at once.
type ClaimWriterPlugin interface {
	Plugin
	// TakeClaimWrites returns the claims as written since the last call,
	// in write order, and forgets them.
	TakeClaimWrites(state *CycleState) []*resourcev1.ResourceClaim
}

// ClaimDeleted reports a claim write that deletes the claim.
func ClaimDeleted(c *resourcev1.ResourceClaim) bool {
	return c.DeletionTimestamp != nil && len(c.Finalizers) == 0
}

// Handle is what plugins get from the framework that runs them.
type Handle interface {
	// Snapshot is the current cycle's snapshot.
	Snapshot() *Snapshot
	// Objects gives read access to the cluster's other objects.
	Objects() ObjectLister
	// NominatedPodsForNode returns the pods nominated to run on a node.
	NominatedPodsForNode(nodeName string) []*PodInfo
	// RunFilterPluginsWithNominatedPods runs the profile's Filter plugins
	// with the two-pass check for nominated pods (for preemption).
	RunFilterPluginsWithNominatedPods(ctx context.Context, state *CycleState, pod *v1.Pod, nodeInfo *NodeInfo) *Status
	RunPreFilterExtensionAddPod(ctx context.Context, state *CycleState, podToSchedule *v1.Pod, podInfoToAdd *PodInfo, nodeInfo *NodeInfo) *Status
	RunPreFilterExtensionRemovePod(ctx context.Context, state *CycleState, podToSchedule *v1.Pod, podInfoToRemove *PodInfo, nodeInfo *NodeInfo) *Status
	// RunReservePluginsReserve and RunReservePluginsUnreserve run the
	// profile's Reserve plugins (workload-aware preemption reserves a
	// member in its place while it reprieves victims, then unreserves it).
	RunReservePluginsReserve(ctx context.Context, state *CycleState, pod *v1.Pod, nodeName string) *Status
	RunReservePluginsUnreserve(ctx context.Context, state *CycleState, pod *v1.Pod, nodeName string)
	// Rand is the engine's seeded random source; runs are reproducible.
	Rand() *rand.Rand
	// Now is the engine's (virtual) clock.
	Now() time.Time
	// Features are the gate values the profile was built with.
	Features() features.Features
	// Extenders are the configuration's extenders, in upstream's order
	// (ignorable ones last).
	Extenders() []Extender
	// PodGroupState is the cache's state of a pod group's pods
	// (GenericWorkload), empty for a group it knows no pod of.
	PodGroupState(namespace, name string) *PodGroupState
}

// PluginFactory builds a plugin from its args (nil means the defaults).
type PluginFactory func(args runtime.Object, h Handle) (Plugin, error)
