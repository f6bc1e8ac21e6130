package runtime

import (
	"context"
	"fmt"
	goruntime "runtime"
	"sync/atomic"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/schedtui/schedtui/scheduler/framework"
)

// maxPermitTimeout caps a Permit plugin's wait, as upstream's maxTimeout.
const maxPermitTimeout = 15 * time.Minute

// RunPreEnqueuePlugins runs PreEnqueue plugins, gatingFirst first when set
// (upstream runs the plugin that last gated the pod first), and stops at
// the first non-success, which it returns with the plugin's name.
func (f *Framework) RunPreEnqueuePlugins(ctx context.Context, pod *v1.Pod, gatingFirst string) *framework.Status {
	order := f.preEnqueuePlugins
	if gatingFirst != "" {
		order = make([]framework.PreEnqueuePlugin, 0, len(f.preEnqueuePlugins))
		for _, p := range f.preEnqueuePlugins {
			if p.Name() == gatingFirst {
				order = append(order, p)
			}
		}
		for _, p := range f.preEnqueuePlugins {
			if p.Name() != gatingFirst {
				order = append(order, p)
			}
		}
	}
	for _, p := range order {
		if s := p.PreEnqueue(ctx, pod); !s.IsSuccess() {
			return s.WithPlugin(p.Name())
		}
	}
	return nil
}

// RunPreFilterPlugins runs PreFilter plugins: Skip marks the plugin's
// Filter as skipped; UnschedulableAndUnresolvable returns at once;
// Unschedulable is remembered (the last wins) and the rest still run; node
// sets are intersected, and an empty intersection is a rejection. It
// returns the merged result, the status, and the plugins that narrowed
// the node set.
func (f *Framework) RunPreFilterPlugins(ctx context.Context, state *framework.CycleState, pod *v1.Pod) (*framework.PreFilterResult, *framework.Status, sets.Set[string]) {
	skip := sets.New[string]()
	defer func() { state.SetSkipFilterPlugins(skip, pluginsNotIn(f.filterPlugins, skip)) }()
	nodes := f.Snapshot().List()
	var result *framework.PreFilterResult
	withNodes := sets.New[string]()
	var returnStatus *framework.Status
	for _, pl := range f.preFilterPlugins {
		r, s := pl.PreFilter(ctx, state, pod, nodes)
		if s.IsSkip() {
			skip.Insert(pl.Name())
			continue
		}
		if !s.IsSuccess() {
			s.SetPlugin(pl.Name())
			switch s.Code() {
			case framework.UnschedulableAndUnresolvable:
				return nil, s, nil
			case framework.Unschedulable:
				returnStatus = s
				continue
			}
			return nil, framework.AsStatus(fmt.Errorf("running PreFilter plugin %q: %w", pl.Name(), s.AsError())).WithPlugin(pl.Name()), nil
		}
		if !r.AllNodes() {
			withNodes.Insert(pl.Name())
		}
		result = result.Merge(r)
		if !result.AllNodes() && len(result.NodeNames) == 0 {
			msg := fmt.Sprintf("node(s) didn't satisfy plugin(s) %v simultaneously", sets.List(withNodes))
			if len(withNodes) == 1 {
				msg = fmt.Sprintf("node(s) didn't satisfy plugin %v", sets.List(withNodes)[0])
			}
			return result, framework.NewStatus(framework.UnschedulableAndUnresolvable, msg), withNodes
		}
	}
	return result, returnStatus, withNodes
}

// RunPreFilterExtensionAddPod tells the PreFilter plugins (not skipped)
// that podInfoToAdd is hypothetically on nodeInfo.
func (f *Framework) RunPreFilterExtensionAddPod(ctx context.Context, state *framework.CycleState, pod *v1.Pod, add *framework.PodInfo, ni *framework.NodeInfo) *framework.Status {
	for _, pl := range f.preFilterPlugins {
		ext := pl.PreFilterExtensions()
		if ext == nil || state.SkipFilterPlugins.Has(pl.Name()) {
			continue
		}
		if s := ext.AddPod(ctx, state, pod, add, ni); !s.IsSuccess() {
			return framework.AsStatus(fmt.Errorf("running AddPod on PreFilter plugin %q: %w", pl.Name(), s.AsError()))
		}
	}
	return nil
}

// RunPreFilterExtensionRemovePod tells the PreFilter plugins (not skipped)
// that podInfoToRemove is hypothetically gone from nodeInfo.
func (f *Framework) RunPreFilterExtensionRemovePod(ctx context.Context, state *framework.CycleState, pod *v1.Pod, rm *framework.PodInfo, ni *framework.NodeInfo) *framework.Status {
	for _, pl := range f.preFilterPlugins {
		ext := pl.PreFilterExtensions()
		if ext == nil || state.SkipFilterPlugins.Has(pl.Name()) {
			continue
		}
		if s := ext.RemovePod(ctx, state, pod, rm, ni); !s.IsSuccess() {
			return framework.AsStatus(fmt.Errorf("running RemovePod on PreFilter plugin %q: %w", pl.Name(), s.AsError()))
		}
	}
	return nil
}

// pluginsNotIn is plugins, in order, less those named in skip. The result
// is never nil, so that CycleState tells it from "not computed".
func pluginsNotIn[P framework.Plugin](plugins []P, skip sets.Set[string]) []P {
	out := make([]P, 0, len(plugins))
	for _, pl := range plugins {
		if !skip.Has(pl.Name()) {
			out = append(out, pl)
		}
	}
	return out
}

// RunFilterPlugins runs Filter plugins in order, skipping those PreFilter
// skipped, and returns the first failure with its plugin's name.
func (f *Framework) RunFilterPlugins(ctx context.Context, state *framework.CycleState, pod *v1.Pod, ni *framework.NodeInfo) *framework.Status {
	return f.runFilterPlugins(ctx, state, pod, ni, nil)
}

// runFilterPlugins is RunFilterPlugins taking the node-local plugins'
// verdicts from the memo under vc, and keeping those it asks for, when vc
// is not nil.
func (f *Framework) runFilterPlugins(ctx context.Context, state *framework.CycleState, pod *v1.Pod, ni *framework.NodeInfo, vc *VerdictCycle) *framework.Status {
	plugins, ok := state.FilterPluginsToRun()
	if !ok {
		plugins = pluginsNotIn(f.filterPlugins, state.SkipFilterPlugins)
	}
	var ords []int
	var kept *framework.NodeVerdicts
	if vc != nil {
		ords, kept = vc.filterOrdsFor(plugins), vc.verdicts(ni)
	}
	for i, pl := range plugins {
		ord := -1
		if kept != nil {
			ord = ords[i]
		}
		if ord >= 0 && kept.FilterKnown&(1<<ord) != 0 {
			if kept.FilterFailed&(1<<ord) != 0 {
				return kept.Failures[ord].Clone()
			}
			continue
		}
		s := pl.Filter(ctx, state, pod, ni)
		if !s.IsSuccess() {
			if !s.IsRejected() {
				s = framework.AsStatus(fmt.Errorf("running %q filter plugin: %w", pl.Name(), s.AsError()))
			}
			s.SetPlugin(pl.Name())
		}
		if ord >= 0 && (s.IsSuccess() || s.IsRejected()) {
			keepFilter(kept, ord, s)
		}
		if !s.IsSuccess() {
			return s
		}
	}
	return nil
}

// RunFilterPluginsEach runs every Filter plugin on the node, without
// stopping at the first failure, for the full diagnosis view. Skipped
// plugins get a Skip status.
func (f *Framework) RunFilterPluginsEach(ctx context.Context, state *framework.CycleState, pod *v1.Pod, ni *framework.NodeInfo) []*framework.Status {
	out := make([]*framework.Status, len(f.filterPlugins))
	for i, pl := range f.filterPlugins {
		if state.SkipFilterPlugins.Has(pl.Name()) {
			out[i] = framework.NewStatus(framework.Skip).WithPlugin(pl.Name())
			continue
		}
		s := pl.Filter(ctx, state, pod, ni)
		if !s.IsSuccess() {
			if !s.IsRejected() {
				s = framework.AsStatus(fmt.Errorf("running %q filter plugin: %w", pl.Name(), s.AsError()))
			}
			s.SetPlugin(pl.Name())
		}
		out[i] = s
	}
	return out
}

// RunFilterPluginsWithNominatedPods runs Filter twice when pods of equal
// or higher priority are nominated to the node: first as if they ran there,
// then (only if that passed) without them. Both must pass.
func (f *Framework) RunFilterPluginsWithNominatedPods(ctx context.Context, state *framework.CycleState, pod *v1.Pod, ni *framework.NodeInfo) *framework.Status {
	return f.FilterNode(ctx, state, pod, ni, nil)
}

// FilterNode is RunFilterPluginsWithNominatedPods for the scheduler's walk
// over its snapshot's nodes: with vc (VerdictsFor) the node-local plugins'
// verdicts come from the verdict memo, except in the pass with nominated
// pods added, which runs on copies.
func (f *Framework) FilterNode(ctx context.Context, state *framework.CycleState, pod *v1.Pod, ni *framework.NodeInfo, vc *VerdictCycle) *framework.Status {
	added, stateWith, niWith, err := f.addGENominatedPods(ctx, pod, state, ni)
	if err != nil {
		return framework.AsStatus(err)
	}
	if !added {
		return f.runFilterPlugins(ctx, state, pod, ni, vc)
	}
	status := f.RunFilterPlugins(ctx, stateWith, pod, niWith)
	if !status.IsSuccess() {
		return status
	}
	return f.runFilterPlugins(ctx, state, pod, ni, vc)
}

// AddNominatedPods returns state and node info with the nominated pods of
// equal or higher priority added (the first pass of the nominated-pod
// check); added is false when there were none and the inputs are returned.
func (f *Framework) AddNominatedPods(ctx context.Context, pod *v1.Pod, state *framework.CycleState, ni *framework.NodeInfo) (bool, *framework.CycleState, *framework.NodeInfo, error) {
	return f.addGENominatedPods(ctx, pod, state, ni)
}

func (f *Framework) addGENominatedPods(ctx context.Context, pod *v1.Pod, state *framework.CycleState, ni *framework.NodeInfo) (bool, *framework.CycleState, *framework.NodeInfo, error) {
	nominated := f.NominatedPodsForNode(ni.Name())
	if len(nominated) == 0 {
		return false, state, ni, nil
	}
	niOut := ni.Clone()
	stateOut := state.Clone()
	added := false
	for _, pi := range nominated {
		if podPriority(pi.Pod) >= podPriority(pod) && pi.Pod.UID != pod.UID {
			niOut.AddPodInfo(pi)
			if s := f.RunPreFilterExtensionAddPod(ctx, stateOut, pod, pi, niOut); !s.IsSuccess() {
				return false, state, ni, s.AsError()
			}
			added = true
		}
	}
	return added, stateOut, niOut, nil
}

// RunPostFilterPlugins runs PostFilter plugins until one succeeds or
// returns UnschedulableAndUnresolvable or an error; otherwise it joins the
// Unschedulable reasons and keeps the last nominating result.
func (f *Framework) RunPostFilterPlugins(ctx context.Context, state *framework.CycleState, pod *v1.Pod, statuses *framework.NodeToStatus) (*framework.PostFilterResult, *framework.Status) {
	var result *framework.PostFilterResult
	var reasons []string
	rejector := ""
	for _, pl := range f.postFilterPlugins {
		r, s := pl.PostFilter(ctx, state, pod, statuses)
		switch {
		case s.IsSuccess():
			return r, s
		case s.Code() == framework.UnschedulableAndUnresolvable:
			return r, s.WithPlugin(pl.Name())
		case !s.IsRejected():
			return nil, framework.AsStatus(s.AsError()).WithPlugin(pl.Name())
		case r != nil && r.Mode() != framework.ModeNoop:
			result = r
		}
		reasons = append(reasons, s.Reasons()...)
		if rejector == "" {
			rejector = pl.Name()
		}
	}
	return result, framework.NewStatus(framework.Unschedulable, reasons...).WithPlugin(rejector)
}

// RunPlacementFeasiblePlugins runs the PlacementFeasible plugins: the
// first Unschedulable or error ends it; a Wait is kept unless a later
// plugin rejects.
func (f *Framework) RunPlacementFeasiblePlugins(ctx context.Context, state *framework.CycleState, group *framework.PodGroupInfo, progress framework.PlacementProgress) *framework.Status {
	var status *framework.Status
	for _, pl := range f.placementFeasiblePlugins {
		s := pl.PlacementFeasible(ctx, state, group, progress)
		switch {
		case s.IsSuccess():
		case s.IsWait():
			status = s.WithPlugin(pl.Name())
		case s.Code() == framework.Unschedulable:
			return s.WithPlugin(pl.Name())
		case s.IsError():
			return framework.AsStatus(fmt.Errorf("running PlacementFeasible plugin: %w", s.AsError())).WithPlugin(pl.Name())
		default:
			return framework.AsStatus(fmt.Errorf("unexpected status from PlacementFeasible plugin: %v", s.Code())).WithPlugin(pl.Name())
		}
	}
	return status
}

// RunPlacementGeneratePlugins is the placements a pod-group cycle tries:
// the first PlacementGenerate plugin's split of all nodes, or all nodes as
// one placement without such a plugin.
func (f *Framework) RunPlacementGeneratePlugins(ctx context.Context, state *framework.CycleState, group *framework.PodGroupInfo, nodes []*framework.NodeInfo) ([]*framework.Placement, *framework.Status) {
	parent := &framework.Placement{Nodes: nodes}
	if len(f.placementGeneratePlugins) == 0 {
		return []*framework.Placement{parent}, nil
	}
	pl := f.placementGeneratePlugins[0]
	placements, st := pl.GeneratePlacements(ctx, state, group, parent)
	if !st.IsSuccess() {
		return nil, st.WithPlugin(pl.Name())
	}
	if len(placements) == 0 {
		return nil, framework.NewStatus(framework.Unschedulable, "no feasible placements found").WithPlugin(pl.Name())
	}
	return placements, nil
}

// RunPlacementScorePlugins scores each placement's assignments: every
// PlacementScore plugin, normalized, weighted, summed.
func (f *Framework) RunPlacementScorePlugins(ctx context.Context, state *framework.CycleState, group *framework.PodGroupInfo, assignments []*framework.PodGroupAssignments) ([]int64, *framework.Status) {
	totals := make([]int64, len(assignments))
	for _, pl := range f.placementScorePlugins {
		scores := make([]int64, len(assignments))
		for i, a := range assignments {
			s, st := pl.ScorePlacement(ctx, state, group, a)
			if !st.IsSuccess() {
				return nil, framework.AsStatus(fmt.Errorf("running PlacementScore plugins: plugin %q failed with: %w", pl.Name(), st.AsError()))
			}
			scores[i] = s
		}
		if n, ok := pl.(framework.PlacementScoreNormalizer); ok {
			if st := n.NormalizePlacementScores(ctx, group, scores); !st.IsSuccess() {
				return nil, framework.AsStatus(fmt.Errorf("running NormalizePlacementScore on PlacementScore plugins: plugin %q failed with: %w", pl.Name(), st.AsError()))
			}
		}
		for i, s := range scores {
			if s > framework.MaxNodeScore || s < framework.MinNodeScore {
				return nil, framework.AsStatus(fmt.Errorf("applying score defaultWeights on PlacementScore plugins: plugin %q returns an invalid score %v, it should in the range of [%v, %v] after normalizing",
					pl.Name(), s, framework.MinNodeScore, framework.MaxNodeScore))
			}
			totals[i] += s * int64(f.placementScoreWeight[pl.Name()])
		}
	}
	return totals, nil
}

// RunPodGroupPostFilterPlugins runs the PodGroupPostFilter plugins after a
// pod-group cycle failed: the first success or UnschedulableAndUnresolvable
// ends it; Unschedulable reasons accumulate.
func (f *Framework) RunPodGroupPostFilterPlugins(ctx context.Context, state *framework.CycleState, group *framework.PodGroupInfo, schedule framework.PodGroupSchedulingFunc) (*framework.PodGroupPostFilterResult, *framework.Status) {
	if !f.opts.Features.EnableGenericWorkload {
		return nil, framework.NewStatus(framework.Unschedulable, "generic workload feature is disabled, cannot perform PodGroupPostFilter")
	}
	var reasons []string
	rejector := ""
	for _, pl := range f.podGroupPostFilterPlugins {
		r, s := pl.PodGroupPostFilter(ctx, state, group, schedule)
		switch {
		case s.IsSuccess():
			return r, s
		case s.Code() == framework.UnschedulableAndUnresolvable:
			return r, s.WithPlugin(pl.Name())
		case s.Code() == framework.Unschedulable:
			reasons = append(reasons, s.Reasons()...)
			if rejector == "" {
				rejector = pl.Name()
			}
		default:
			return nil, framework.AsStatus(fmt.Errorf("error in %q PodGroupPostFilter plugins: %s", pl.Name(), s.Message())).WithPlugin(pl.Name())
		}
	}
	return nil, framework.NewStatus(framework.Unschedulable, reasons...).WithPlugin(rejector)
}

// RunPreScorePlugins runs PreScore plugins; Skip marks the plugin's Score
// as skipped for the cycle.
func (f *Framework) RunPreScorePlugins(ctx context.Context, state *framework.CycleState, pod *v1.Pod, nodes []*framework.NodeInfo) *framework.Status {
	skip := sets.New[string]()
	defer func() { state.SetSkipScorePlugins(skip, pluginsNotIn(f.scorePlugins, skip)) }()
	for _, pl := range f.preScorePlugins {
		s := pl.PreScore(ctx, state, pod, nodes)
		if s.IsSkip() {
			skip.Insert(pl.Name())
			continue
		}
		if !s.IsSuccess() {
			return framework.AsStatus(fmt.Errorf("running PreScore plugin %q: %w", pl.Name(), s.AsError()))
		}
	}
	return nil
}

// RunScorePlugins scores every node with each non-skipped Score plugin,
// normalizes per plugin, checks the [0,100] range and applies weights. It
// returns each node's total and each plugin's scores, in buffers the
// framework reuses: they hold until the next call (the scheduler reads
// them within the cycle and the attempt record copies what it keeps).
// Hundreds of nodes times the plugins, every cycle: allocating them each
// time was most of what a SchedulingBasic cycle allocated.
//
// With vc (VerdictsFor, nil for none) the node-local plugins' raw scores
// come from the verdict memo where it holds them.
func (f *Framework) RunScorePlugins(ctx context.Context, state *framework.CycleState, pod *v1.Pod, nodes []*framework.NodeInfo, vc *VerdictCycle) ([]framework.NodePluginScores, []framework.PluginScores, *framework.Status) {
	plugins, ok := state.ScorePluginsToRun()
	if !ok {
		plugins = pluginsNotIn(f.scorePlugins, state.SkipScorePlugins)
	}
	n := len(nodes)
	buf := &f.scoreBuffers
	out := resized(&buf.totals, n)
	for i, ni := range nodes {
		out[i] = framework.NodePluginScores{Name: ni.Name()}
	}
	kept, ords, toScore := f.keptScores(vc, state, plugins, nodes)
	// One block of raw scores for every plugin, one of normalized scores
	// for the plugins that normalize: the matrix is plugins × feasible
	// nodes, hundreds of nodes per cycle.
	normalizing := 0
	for _, pl := range plugins {
		if pl.ScoreExtensions() != nil {
			normalizing++
		}
	}
	raw := resized(&buf.raw, len(plugins)*n)
	normalized := resized(&buf.normalized, normalizing*n)
	cols := resized(&buf.columns, len(plugins))
	for p, pl := range plugins {
		cols[p] = framework.PluginScores{Name: pl.Name(), Weight: int64(f.scorePluginWeight[pl.Name()]), Raw: raw[p*n : (p+1)*n : (p+1)*n]}
	}
	// Each plugin scores every node on one goroutine, the plugins spread
	// over the CPUs (upstream spreads the nodes; the scores are the same).
	// A plugin stops at its first failing node; the failure reported is
	// the one a node-by-node walk meets first.
	// A node-local plugin's kept scores are copied, the rest asked for
	// and kept; each plugin writes its own score of a node's verdicts,
	// and the scores are marked kept once every plugin is done.
	failed := resized(&buf.failed, len(plugins))
	eachInParallel(len(plugins), spreadScoring(toScore), func(p int) {
		pl, raw, ord := plugins[p], cols[p].Raw, ords[p]
		failed[p] = scoreFailure{node: -1}
		for i, ni := range nodes {
			if ord >= 0 && kept[i].ScoreKnown&(1<<ord) != 0 {
				raw[i] = kept[i].Scores[ord]
				continue
			}
			s, st := pl.Score(ctx, state, pod, ni)
			if !st.IsSuccess() {
				failed[p] = scoreFailure{node: i, status: st}
				return
			}
			raw[i] = s
			if ord >= 0 {
				kept[i].Scores[ord] = s
			}
		}
	})
	first := scoreFailure{node: -1}
	for _, fl := range failed {
		if fl.node >= 0 && (first.node < 0 || fl.node < first.node) {
			first = fl
		}
	}
	if first.node >= 0 {
		return nil, nil, framework.AsStatus(fmt.Errorf("running Score plugins: %w", first.status.AsError()))
	}
	markScoresKept(kept, ords, toScore)
	var list framework.NodeScoreList
	for p, pl := range plugins {
		ext := pl.ScoreExtensions()
		if ext == nil {
			continue
		}
		if list == nil {
			list = resized(&buf.list, n)
		}
		for i := range list {
			list[i] = framework.NodeScore{Name: out[i].Name, Score: cols[p].Raw[i]}
		}
		if st := ext.NormalizeScore(ctx, state, pod, list); !st.IsSuccess() {
			err := fmt.Errorf("plugin %q failed with: %w", pl.Name(), st.AsError())
			return nil, nil, framework.AsStatus(fmt.Errorf("running Normalize on Score plugins: %w", err))
		}
		cols[p].Normalized, normalized = normalized[:n:n], normalized[n:]
		for i := range list {
			cols[p].Normalized[i] = list[i].Score
		}
	}
	for i := range out {
		var total int64
		for p := range cols {
			s := cols[p].Final(i)
			if s > framework.MaxNodeScore || s < framework.MinNodeScore {
				err := fmt.Errorf("plugin %q returns an invalid score %v, it should in the range of [%v, %v] after normalizing",
					cols[p].Name, s, framework.MinNodeScore, framework.MaxNodeScore)
				return nil, nil, framework.AsStatus(fmt.Errorf("applying score defaultWeights on Score plugins: %w", err))
			}
			total += s * cols[p].Weight
		}
		out[i].TotalScore = total
	}
	return out, cols, nil
}

// keptScores is, for RunScorePlugins, each node's verdicts under vc (nil
// without vc), each plugin's ordinal among the profile's node-local Score
// plugins (-1 for the others, for a framework.CycleNodeLocalScorer whose
// state says it is not node-local this cycle, and for all without vc),
// and how many nodes each plugin has to score.
func (f *Framework) keptScores(vc *VerdictCycle, state *framework.CycleState, plugins []framework.ScorePlugin, nodes []*framework.NodeInfo) ([]*framework.NodeVerdicts, []int, []int) {
	buf := &f.scoreBuffers
	ords := resized(&buf.ords, len(plugins))
	toScore := resized(&buf.toScore, len(plugins))
	for p := range plugins {
		ords[p], toScore[p] = -1, len(nodes)
	}
	if vc == nil {
		return nil, ords, toScore
	}
	copy(ords, ordinalsIn(plugins, f.scorePlugins, f.verdicts.scoreOrd))
	for p, pl := range plugins {
		if cl, ok := pl.(framework.CycleNodeLocalScorer); ok && ords[p] >= 0 && !nodeLocal(pl) && !cl.NodeLocalScores(state) {
			ords[p] = -1
		}
	}
	kept := resized(&buf.kept, len(nodes))
	for i, ni := range nodes {
		kept[i] = vc.verdicts(ni)
		for p, ord := range ords {
			if ord >= 0 && kept[i].ScoreKnown&(1<<ord) != 0 {
				toScore[p]--
			}
		}
	}
	return kept, ords, toScore
}

// markScoresKept marks the scores the node-local plugins gave in this
// call (every node's, as none failed) kept.
func markScoresKept(kept []*framework.NodeVerdicts, ords, toScore []int) {
	var scored uint64
	for p, ord := range ords {
		if ord >= 0 && toScore[p] > 0 {
			scored |= 1 << ord
		}
	}
	if scored == 0 {
		return
	}
	for _, v := range kept {
		v.ScoreKnown |= scored
	}
}

// spreadScoring reports whether the Score plugins are worth spreading
// over the CPUs: when at least two have minParallelScoreNodes nodes or
// more to score (each plugin runs on one goroutine).
func spreadScoring(toScore []int) bool {
	busy := 0
	for _, n := range toScore {
		if n >= minParallelScoreNodes {
			busy++
		}
	}
	return busy >= 2
}

// scoreBuffers are RunScorePlugins' results and working space, reused
// from call to call.
type scoreBuffers struct {
	totals          []framework.NodePluginScores
	raw, normalized []int64
	columns         []framework.PluginScores
	list            []framework.NodeScore
	failed          []scoreFailure
	ords, toScore   []int
	kept            []*framework.NodeVerdicts
}

// scoreFailure is a Score plugin's first failure: the node's index (-1
// for none) and the status.
type scoreFailure struct {
	node   int
	status *framework.Status
}

// minParallelScoreNodes is the fewest nodes scored with the plugins spread
// over the CPUs: below it a plugin's walk costs less than handing it to
// another goroutine.
const minParallelScoreNodes = 64

// eachInParallel calls do(0) … do(n-1), spread over the CPUs when
// parallel: every goroutine takes the next index not taken until none is
// left, this one included, so a helper goroutine the machine does not get
// around to running leaves its share to this one instead of holding the
// cycle up. do must only write what belongs to its index.
func eachInParallel(n int, parallel bool, do func(int)) {
	workers := min(goruntime.GOMAXPROCS(0), n)
	if !parallel || workers < 2 {
		for i := range n {
			do(i)
		}
		return
	}
	var next, left atomic.Int32
	left.Store(int32(n))
	done := make(chan struct{})
	work := func() {
		for {
			i := int(next.Add(1)) - 1
			if i >= n {
				return
			}
			do(i)
			if left.Add(-1) == 0 {
				close(done)
			}
		}
	}
	for range workers - 1 {
		go work()
	}
	work()
	<-done
}

// resized makes *buf n long, reusing its array when it is large enough;
// the caller sets every element.
func resized[T any](buf *[]T, n int) []T {
	if cap(*buf) < n {
		*buf = make([]T, n)
	}
	*buf = (*buf)[:n]
	return *buf
}

// RunReservePluginsReserve runs Reserve plugins; the first failure stops.
func (f *Framework) RunReservePluginsReserve(ctx context.Context, state *framework.CycleState, pod *v1.Pod, node string) *framework.Status {
	for _, pl := range f.reservePlugins {
		if s := pl.Reserve(ctx, state, pod, node); !s.IsSuccess() {
			if s.IsRejected() {
				return s.WithPlugin(pl.Name())
			}
			return framework.AsStatus(fmt.Errorf("running Reserve plugin %q: %w", pl.Name(), s.AsError()))
		}
	}
	return nil
}

// RunReservePluginsUnreserve runs Unreserve in reverse order.
func (f *Framework) RunReservePluginsUnreserve(ctx context.Context, state *framework.CycleState, pod *v1.Pod, node string) {
	for i := len(f.reservePlugins) - 1; i >= 0; i-- {
		f.reservePlugins[i].Unreserve(ctx, state, pod, node)
	}
}

// RunPermitPlugins runs Permit plugins. A rejection returns at once; Wait
// statuses are collected with their (capped) timeouts.
func (f *Framework) RunPermitPlugins(ctx context.Context, state *framework.CycleState, pod *v1.Pod, node string) (map[string]time.Duration, *framework.Status) {
	var wait *framework.Status
	waits := map[string]time.Duration{}
	for _, pl := range f.permitPlugins {
		s, timeout := pl.Permit(ctx, state, pod, node)
		if s.IsSuccess() {
			continue
		}
		if s.IsRejected() {
			return nil, s.WithPlugin(pl.Name())
		}
		if s.IsWait() {
			waits[pl.Name()] = min(timeout, maxPermitTimeout)
			wait = s
			continue
		}
		return nil, framework.AsStatus(fmt.Errorf("running Permit plugin %q: %w", pl.Name(), s.AsError())).WithPlugin(pl.Name())
	}
	if wait.IsWait() {
		wait.AppendReason("one or more plugins asked to wait and no plugin rejected pod")
		return waits, wait
	}
	return nil, nil
}

// RunPreBindPreFlights asks each PreBind plugin whether it has work;
// it returns Skip when none has, and the set of plugins to skip.
func (f *Framework) RunPreBindPreFlights(ctx context.Context, state *framework.CycleState, pod *v1.Pod, node string) (*framework.Status, sets.Set[string]) {
	skip := sets.New[string]()
	result := framework.NewStatus(framework.Skip)
	for _, pl := range f.preBindPlugins {
		s := pl.PreBindPreFlight(ctx, state, pod, node)
		switch {
		case s.Code() == framework.Error:
			return framework.AsStatus(fmt.Errorf("running PreBindPreFlight %q: %w", pl.Name(), s.AsError())), skip
		case s.IsSuccess():
			result = nil
		case s.IsSkip():
			skip.Insert(pl.Name())
		default:
			return framework.AsStatus(fmt.Errorf("PreBindPreFlight %s returned %q, which is unsupported. It is supposed to return Success, Skip, or Error status", pl.Name(), s.Code())), skip
		}
	}
	return result, skip
}

// RunPreBindPlugins runs PreBind plugins not skipped by their preflight.
//
// A Wait (framework.PreBindWaiterPlugin) stops the run and is returned
// with the plugin's name: RunPreBindPluginsAfter goes on once the wait is
// over.
func (f *Framework) RunPreBindPlugins(ctx context.Context, state *framework.CycleState, pod *v1.Pod, node string, skip sets.Set[string]) *framework.Status {
	return f.runPreBindPlugins(ctx, state, pod, node, skip, 0)
}

// RunPreBindPluginsAfter ends the wait of the PreBind plugin waited
// (RunPreBindPlugins returned its Wait): its outcome st fails the run as
// its PreBind's status would have, else the plugins after it run.
func (f *Framework) RunPreBindPluginsAfter(ctx context.Context, state *framework.CycleState, pod *v1.Pod, node string, skip sets.Set[string], waited string, st *framework.Status) *framework.Status {
	if !st.IsSuccess() {
		return preBindFailure(waited, st)
	}
	for i, pl := range f.preBindPlugins {
		if pl.Name() == waited {
			return f.runPreBindPlugins(ctx, state, pod, node, skip, i+1)
		}
	}
	return framework.AsStatus(fmt.Errorf("PreBind plugin %q waited but is not in the profile", waited))
}

func (f *Framework) runPreBindPlugins(ctx context.Context, state *framework.CycleState, pod *v1.Pod, node string, skip sets.Set[string], from int) *framework.Status {
	for _, pl := range f.preBindPlugins[from:] {
		if skip.Has(pl.Name()) {
			continue
		}
		s := pl.PreBind(ctx, state, pod, node)
		if s.IsWait() {
			if _, ok := pl.(framework.PreBindWaiterPlugin); ok {
				return s.WithPlugin(pl.Name())
			}
		}
		if !s.IsSuccess() {
			return preBindFailure(pl.Name(), s)
		}
	}
	return nil
}

// preBindFailure is the status of a run that plugin's PreBind failed, as
// upstream's RunPreBindPlugins wraps it.
func preBindFailure(plugin string, s *framework.Status) *framework.Status {
	if s.IsRejected() {
		return s.WithPlugin(plugin)
	}
	return framework.AsStatus(fmt.Errorf("running PreBind plugin %q: %w", plugin, s.AsError()))
}

// RunBindPlugins runs binders until one does not Skip.
func (f *Framework) RunBindPlugins(ctx context.Context, state *framework.CycleState, pod *v1.Pod, node string) *framework.Status {
	var status *framework.Status
	for _, pl := range f.bindPlugins {
		status = pl.Bind(ctx, state, pod, node)
		if status.IsSkip() {
			continue
		}
		if !status.IsSuccess() {
			if status.IsRejected() {
				return status.WithPlugin(pl.Name())
			}
			return framework.AsStatus(fmt.Errorf("running Bind plugin %q: %w", pl.Name(), status.AsError()))
		}
		return status
	}
	return status
}

// RunPostBindPlugins tells PostBind plugins of a bind.
func (f *Framework) RunPostBindPlugins(ctx context.Context, state *framework.CycleState, pod *v1.Pod, node string) {
	for _, pl := range f.postBindPlugins {
		pl.PostBind(ctx, state, pod, node)
	}
}
