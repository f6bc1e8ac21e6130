package runtime

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	v1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/runtime"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/schedtui/schedtui/scheduler/features"
	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/plugins/names"
)

// Registry maps plugin names to their factories.
type Registry map[string]framework.PluginFactory

// Nominator answers which pods are nominated to a node.
type Nominator interface {
	NominatedPodsForNode(nodeName string) []*framework.PodInfo
}

// Options wire a Framework to the engine's state.
type Options struct {
	// Snapshot returns the current cycle's snapshot.
	Snapshot func() *framework.Snapshot
	Objects  framework.ObjectLister
	// Nominator may be nil (no nominated pods).
	Nominator Nominator
	Rand      *rand.Rand
	Clock     func() time.Time
	// Features are the gate values the plugins are built with.
	Features features.Features
	// Extenders are the configuration's extenders (shared by every profile).
	Extenders []framework.Extender
	// PodGroupStates reads the cache's state of a pod group's pods; nil
	// knows no pod of any group.
	PodGroupStates func(namespace, name string) *framework.PodGroupState
	// RecomputeVerdicts turns the verdict memo off (verdicts.go): every
	// node is evaluated by every plugin in every cycle, as upstream does.
	// The memo is checked against it.
	RecomputeVerdicts bool
}

// Framework is one profile: its plugins at each extension point, their
// weights, and the Handle the plugins were built with.
type Framework struct {
	profileName              string
	percentageOfNodesToScore *int32
	opts                     Options

	pluginsMap        map[string]framework.Plugin
	preEnqueuePlugins []framework.PreEnqueuePlugin
	queueSortPlugins  []framework.QueueSortPlugin
	preFilterPlugins  []framework.PreFilterPlugin
	filterPlugins     []framework.FilterPlugin
	postFilterPlugins []framework.PostFilterPlugin
	preScorePlugins   []framework.PreScorePlugin
	scorePlugins      []framework.ScorePlugin
	reservePlugins    []framework.ReservePlugin
	permitPlugins     []framework.PermitPlugin
	preBindPlugins    []framework.PreBindPlugin
	bindPlugins       []framework.BindPlugin
	postBindPlugins   []framework.PostBindPlugin
	// podGroupPostFilterPlugins run when a pod-group cycle fails;
	// placementFeasiblePlugins is GangScheduling alone, with GenericWorkload
	// on, as upstream wires it.
	podGroupPostFilterPlugins []framework.PodGroupPostFilterPlugin
	placementFeasiblePlugins  []framework.PlacementFeasiblePlugin
	// placementGeneratePlugins and placementScorePlugins (with their
	// weights) run with TopologyAwareWorkloadScheduling.
	placementGeneratePlugins []framework.PlacementGeneratePlugin
	placementScorePlugins    []framework.PlacementScorePlugin
	placementScoreWeight     map[string]int
	scorePluginWeight        map[string]int
	enqueueExtensions        []framework.EnqueueExtensions
	// scoreBuffers hold RunScorePlugins' results until its next call: a
	// framework runs one cycle at a time.
	scoreBuffers scoreBuffers
	// verdicts is the node-local plugins' verdict memo (verdicts.go).
	verdicts verdictMemo
}

var _ framework.Handle = &Framework{}

// NewFramework builds a profile. Its Plugins must already be merged with
// the defaults (MergePlugins), as the config loader's defaulting does.
func NewFramework(r Registry, profile *configv1.KubeSchedulerProfile, opts Options) (*Framework, error) {
	if err := RefuseUnimplementedGates(opts.Features); err != nil {
		return nil, err
	}
	f := &Framework{opts: opts, pluginsMap: map[string]framework.Plugin{}}
	if len(opts.Extenders) > 0 {
		// Extenders register no events of their own: a pod they rejected
		// is requeued by any cluster event, as upstream registers the
		// Extender pseudo-plugin.
		f.enqueueExtensions = append(f.enqueueExtensions, allEventsExtension{name: framework.ExtenderName, podGroups: opts.Features.EnableGenericWorkload})
	}
	if profile.SchedulerName != nil {
		f.profileName = *profile.SchedulerName
	}
	f.percentageOfNodesToScore = profile.PercentageOfNodesToScore
	plugins := profile.Plugins
	if plugins == nil {
		plugins = &configv1.Plugins{}
	}

	args := map[string]runtime.Object{}
	for _, pc := range profile.PluginConfig {
		if _, dup := args[pc.Name]; dup {
			return nil, fmt.Errorf("repeated config for plugin %s", pc.Name)
		}
		args[pc.Name] = pc.Args.Object
	}
	needed := newOrderedSet()
	for _, set := range pluginSets(plugins) {
		for _, p := range set.Enabled {
			needed.insert(p.Name)
		}
	}
	for _, name := range needed.list {
		factory, ok := r[name]
		if !ok {
			return nil, fmt.Errorf("plugin %q does not exist", name)
		}
		p, err := factory(args[name], f)
		if err != nil {
			return nil, fmt.Errorf("initializing plugin %q: %w", name, err)
		}
		f.pluginsMap[name] = p
		f.fillEnqueueExtensions(p)
	}

	multi := plugins.MultiPoint.Enabled
	var err error
	expand := func(point string, set configv1.PluginSet, is func(framework.Plugin) bool) []framework.Plugin {
		if err != nil {
			return nil
		}
		var names []string
		names, err = expandPoint(point, set, multi, func(name string) (bool, error) {
			p, ok := f.pluginsMap[name]
			if !ok {
				return false, fmt.Errorf("%s plugin %q does not exist", point, name)
			}
			return is(p), nil
		})
		out := make([]framework.Plugin, len(names))
		for i, n := range names {
			out[i] = f.pluginsMap[n]
		}
		return out
	}
	f.preEnqueuePlugins = castAll[framework.PreEnqueuePlugin](expand("PreEnqueuePlugin", plugins.PreEnqueue, is[framework.PreEnqueuePlugin]))
	f.queueSortPlugins = castAll[framework.QueueSortPlugin](expand("QueueSortPlugin", plugins.QueueSort, is[framework.QueueSortPlugin]))
	f.preFilterPlugins = castAll[framework.PreFilterPlugin](expand("PreFilterPlugin", plugins.PreFilter, is[framework.PreFilterPlugin]))
	f.filterPlugins = castAll[framework.FilterPlugin](expand("FilterPlugin", plugins.Filter, is[framework.FilterPlugin]))
	f.postFilterPlugins = castAll[framework.PostFilterPlugin](expand("PostFilterPlugin", plugins.PostFilter, is[framework.PostFilterPlugin]))
	f.preScorePlugins = castAll[framework.PreScorePlugin](expand("PreScorePlugin", plugins.PreScore, is[framework.PreScorePlugin]))
	f.scorePlugins = castAll[framework.ScorePlugin](expand("ScorePlugin", plugins.Score, is[framework.ScorePlugin]))
	f.reservePlugins = castAll[framework.ReservePlugin](expand("ReservePlugin", plugins.Reserve, is[framework.ReservePlugin]))
	f.permitPlugins = castAll[framework.PermitPlugin](expand("PermitPlugin", plugins.Permit, is[framework.PermitPlugin]))
	f.preBindPlugins = castAll[framework.PreBindPlugin](expand("PreBindPlugin", plugins.PreBind, is[framework.PreBindPlugin]))
	f.bindPlugins = castAll[framework.BindPlugin](expand("BindPlugin", plugins.Bind, is[framework.BindPlugin]))
	f.postBindPlugins = castAll[framework.PostBindPlugin](expand("PostBindPlugin", plugins.PostBind, is[framework.PostBindPlugin]))
	f.podGroupPostFilterPlugins = castAll[framework.PodGroupPostFilterPlugin](expand("PodGroupPostFilterPlugin", plugins.PodGroupPostFilter, is[framework.PodGroupPostFilterPlugin]))
	f.placementGeneratePlugins = castAll[framework.PlacementGeneratePlugin](expand("PlacementGeneratePlugin", plugins.PlacementGenerate, is[framework.PlacementGeneratePlugin]))
	f.placementScorePlugins = castAll[framework.PlacementScorePlugin](expand("PlacementScorePlugin", plugins.PlacementScore, is[framework.PlacementScorePlugin]))
	if err != nil {
		return nil, err
	}
	if opts.Features.EnableGenericWorkload {
		if gs, ok := f.pluginsMap[names.GangScheduling]; ok {
			p, ok := gs.(framework.PlacementFeasiblePlugin)
			if !ok {
				return nil, fmt.Errorf("GenericWorkload is enabled, but GangScheduling plugin does not fulfill PlacementFeasiblePlugin interface")
			}
			f.placementFeasiblePlugins = append(f.placementFeasiblePlugins, p)
		}
	}
	if len(f.queueSortPlugins) != 1 {
		return nil, fmt.Errorf("only one queue sort plugin required for profile with scheduler name %q, but got %d", f.profileName, len(f.queueSortPlugins))
	}
	if len(f.bindPlugins) == 0 {
		return nil, fmt.Errorf("at least one bind plugin is needed for profile with scheduler name %q", f.profileName)
	}
	if f.scorePluginWeight, err = scoreWeights(f.pluginsMap, append(append([]configv1.Plugin(nil), plugins.Score.Enabled...), multi...)); err != nil {
		return nil, fmt.Errorf("score plugins: %w", err)
	}
	if f.placementScoreWeight, err = f.placementWeights(append(append([]configv1.Plugin(nil), plugins.PlacementScore.Enabled...), multi...)); err != nil {
		return nil, err
	}
	if err := f.refuseOpportunisticBatching(); err != nil {
		return nil, err
	}
	f.verdicts = newVerdictMemo(f, opts.RecomputeVerdicts)
	return f, nil
}

func is[T any](p framework.Plugin) bool { _, ok := p.(T); return ok }

// placementWeights takes each PlacementScore plugin's first configured
// weight; upstream refuses one without.
func (f *Framework) placementWeights(enabled []configv1.Plugin) (map[string]int, error) {
	weights := map[string]int{}
	for _, e := range enabled {
		if _, seen := weights[e.Name]; seen {
			continue
		}
		if _, ok := f.pluginsMap[e.Name].(framework.PlacementScorePlugin); !ok {
			continue
		}
		if e.Weight != nil {
			weights[e.Name] = int(*e.Weight)
		}
	}
	for _, pl := range f.placementScorePlugins {
		if weights[pl.Name()] == 0 {
			return nil, fmt.Errorf("placement score plugin %q is not configured with weight", pl.Name())
		}
	}
	return weights, nil
}

func castAll[T any](ps []framework.Plugin) []T {
	out := make([]T, 0, len(ps))
	for _, p := range ps {
		out = append(out, p.(T))
	}
	return out
}

// scoreWeights takes each Score plugin's first configured weight; 0 means 1.
func scoreWeights(pluginsMap map[string]framework.Plugin, enabled []configv1.Plugin) (map[string]int, error) {
	weights := map[string]int{}
	var total int64
	for _, e := range enabled {
		if _, ok := pluginsMap[e.Name].(framework.ScorePlugin); !ok {
			continue
		}
		if _, seen := weights[e.Name]; seen {
			continue
		}
		w := 0
		if e.Weight != nil {
			w = int(*e.Weight)
		}
		if w == 0 {
			w = 1
		}
		weights[e.Name] = w
		if int64(w)*framework.MaxNodeScore > framework.MaxTotalScore-total {
			return nil, fmt.Errorf("total score of Score plugins could overflow")
		}
		total += int64(w) * framework.MaxNodeScore
	}
	return weights, nil
}

// fillEnqueueExtensions registers the plugin's events; a plugin that can
// reject pods but registers none is interested in every event.
func (f *Framework) fillEnqueueExtensions(p framework.Plugin) {
	switch p.(type) {
	case framework.PreEnqueuePlugin, framework.PreFilterPlugin, framework.FilterPlugin, framework.ReservePlugin, framework.PermitPlugin:
	default:
		return
	}
	if ext, ok := p.(framework.EnqueueExtensions); ok {
		f.enqueueExtensions = append(f.enqueueExtensions, ext)
		return
	}
	f.enqueueExtensions = append(f.enqueueExtensions, allEventsExtension{name: p.Name(), podGroups: f.opts.Features.EnableGenericWorkload})
}

// allEventsExtension registers what upstream's UnrollWildCardResource
// does: every resource but VolumeAttachment and ResourceSlice, and
// PodGroup with GenericWorkload.
type allEventsExtension struct {
	name      string
	podGroups bool
}

func (a allEventsExtension) Name() string { return a.name }
func (a allEventsExtension) EventsToRegister(context.Context) ([]framework.ClusterEventWithHint, error) {
	var out []framework.ClusterEventWithHint
	for _, r := range []framework.EventResource{framework.AssignedPod, framework.UnscheduledPod, framework.TargetPod,
		framework.Node, framework.PersistentVolume, framework.PersistentVolumeClaim, framework.CSINode,
		framework.CSIDriver, framework.CSIStorageCapacity, framework.StorageClass,
		framework.ResourceClaim, framework.DeviceClass} {
		out = append(out, framework.ClusterEventWithHint{Event: framework.ClusterEvent{Resource: r, ActionType: framework.All}})
	}
	if a.podGroups {
		out = append(out, framework.ClusterEventWithHint{Event: framework.ClusterEvent{Resource: framework.PodGroup, ActionType: framework.All}})
	}
	return out, nil
}

// ProfileName is the profile's schedulerName.
func (f *Framework) ProfileName() string { return f.profileName }

// PercentageOfNodesToScore is the profile's setting (nil: use the global one).
func (f *Framework) PercentageOfNodesToScore() *int32 { return f.percentageOfNodesToScore }

// Plugin returns a plugin by name.
func (f *Framework) Plugin(name string) framework.Plugin { return f.pluginsMap[name] }

// VolumeWrites collects, in PreBind order, the writes the profile's
// VolumeWriterPlugins decided for the pod's volumes in this cycle.
func (f *Framework) VolumeWrites(state *framework.CycleState) framework.VolumeWrites {
	var w framework.VolumeWrites
	for _, pl := range f.preBindPlugins {
		if vw, ok := pl.(framework.VolumeWriterPlugin); ok {
			pw := vw.VolumeWrites(state)
			w.PersistentVolumes = append(w.PersistentVolumes, pw.PersistentVolumes...)
			w.Claims = append(w.Claims, pw.Claims...)
		}
	}
	return w
}

// TakeClaimWrites collects the claims the profile's ClaimWriterPlugins
// wrote in this cycle since the last call (PostFilter's plugins first, then
// PreBind's, each plugin once).
func (f *Framework) TakeClaimWrites(state *framework.CycleState) []*resourcev1.ResourceClaim {
	var out []*resourcev1.ResourceClaim
	seen := map[string]bool{}
	take := func(pl framework.Plugin) {
		if cw, ok := pl.(framework.ClaimWriterPlugin); ok && !seen[pl.Name()] {
			seen[pl.Name()] = true
			out = append(out, cw.TakeClaimWrites(state)...)
		}
	}
	for _, pl := range f.postFilterPlugins {
		take(pl)
	}
	for _, pl := range f.preBindPlugins {
		take(pl)
	}
	return out
}

// EnqueueExtensions lists the plugins' registered events.
func (f *Framework) EnqueueExtensions() []framework.EnqueueExtensions { return f.enqueueExtensions }

// PreEnqueuePlugins lists the PreEnqueue plugins.
func (f *Framework) PreEnqueuePlugins() []framework.PreEnqueuePlugin { return f.preEnqueuePlugins }

// QueueSortLess orders activeQ.
func (f *Framework) QueueSortLess(a, b framework.QueuedEntity) bool {
	return f.queueSortPlugins[0].Less(a, b)
}

// HasFilterPlugins, HasScorePlugins, HasPostFilterPlugins describe the profile.
func (f *Framework) HasFilterPlugins() bool     { return len(f.filterPlugins) > 0 }
func (f *Framework) HasScorePlugins() bool      { return len(f.scorePlugins) > 0 }
func (f *Framework) HasPostFilterPlugins() bool { return len(f.postFilterPlugins) > 0 }

// FilterPluginNames lists the Filter plugins in order.
func (f *Framework) FilterPluginNames() []string {
	out := make([]string, len(f.filterPlugins))
	for i, p := range f.filterPlugins {
		out[i] = p.Name()
	}
	return out
}

// ScorePluginNames lists the Score plugins in order.
func (f *Framework) ScorePluginNames() []string {
	out := make([]string, len(f.scorePlugins))
	for i, p := range f.scorePlugins {
		out[i] = p.Name()
	}
	return out
}

// ScoreWeight is a Score plugin's weight.
func (f *Framework) ScoreWeight(name string) int { return f.scorePluginWeight[name] }

// Handle.

func (f *Framework) Snapshot() *framework.Snapshot   { return f.opts.Snapshot() }
func (f *Framework) Objects() framework.ObjectLister { return f.opts.Objects }
func (f *Framework) Rand() *rand.Rand                { return f.opts.Rand }
func (f *Framework) Now() time.Time                  { return f.opts.Clock() }
func (f *Framework) Features() features.Features     { return f.opts.Features }

// PodGroupState is the cache's state of a pod group's pods.
func (f *Framework) PodGroupState(namespace, name string) *framework.PodGroupState {
	if f.opts.PodGroupStates == nil {
		return &framework.PodGroupState{}
	}
	return f.opts.PodGroupStates(namespace, name)
}
func (f *Framework) Extenders() []framework.Extender { return f.opts.Extenders }

func (f *Framework) NominatedPodsForNode(node string) []*framework.PodInfo {
	if f.opts.Nominator == nil {
		return nil
	}
	return f.opts.Nominator.NominatedPodsForNode(node)
}

// podPriority is the pod's priority, 0 when unset.
func podPriority(p *v1.Pod) int32 { return corev1helpers.PodPriority(p) }
