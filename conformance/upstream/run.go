package upstream

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sort"
	"sync"
	"time"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/informers"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	configv1 "k8s.io/kube-scheduler/config/v1"
	fwk "k8s.io/kube-scheduler/framework"
	podutil "k8s.io/kubernetes/pkg/api/v1/pod"
	"k8s.io/kubernetes/pkg/scheduler"
	schedulerapi "k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/scheme"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/validation"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/defaultpreemption"
	"k8s.io/kubernetes/pkg/scheduler/framework/preemption"
	"k8s.io/kubernetes/pkg/scheduler/profile"
	schedutil "k8s.io/kubernetes/pkg/scheduler/util"
	"k8s.io/utils/clock"

	"github.com/schedtui/schedtui/scheduler/record"
	"github.com/schedtui/schedtui/snapshot"
)

// Run builds a real kube-scheduler v1.37.1 over the cluster c and makes one
// scheduling attempt for each pod of pending, in the given order, returning
// one AttemptJSON per attempt. A nil cfg means upstream's default
// configuration. The package documentation describes how each field is
// obtained and how the cluster state evolves between attempts.
func Run(ctx context.Context, c *snapshot.Cluster, cfg *configv1.KubeSchedulerConfiguration, pending []*v1.Pod) (attempts []record.AttemptJSON, err error) {
	if c == nil {
		return nil, errors.New("upstream: nil cluster")
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("upstream: panic while running the upstream scheduler: %v\n%s", r, debug.Stack())
		}
	}()

	h, err := start(ctx, c, cfg, pending, startOptions{ordered: true, parallelism: 1, claimController: true})
	if err != nil {
		return nil, err
	}
	defer h.stop()

	attempts = make([]record.AttemptJSON, 0, len(pending))
	for i, p := range pending {
		if p == nil {
			return attempts, fmt.Errorf("upstream: pending[%d] is nil", i)
		}
		ns, name := podKey(p)
		a, err := h.attempt(ns, name)
		if err != nil {
			return attempts, fmt.Errorf("upstream: attempt %d for pod %s/%s: %w", i, ns, name, err)
		}
		attempts = append(attempts, a)
	}
	return attempts, nil
}

const (
	// waitTimeout bounds every wait for the scheduler's informers and event
	// handlers to catch up with a write; they normally take microseconds.
	waitTimeout = 60 * time.Second

	barrierNamespace = "schedtui-conformance"
	barrierNode      = "schedtui-conformance-barrier-node"
	barrierScheduler = "schedtui-conformance-barrier"
)

// outcomeSkipped is schedtui's outcome for a pod the scheduler pops but
// does not schedule (being deleted, or no profile for it).
const outcomeSkipped = "Skipped"

// clearNominatedNode is what schedule_one.go passes to the failure handler
// when a cycle fails for any reason other than a FitError with PostFilter.
var clearNominatedNode = &fwk.NominatingInfo{NominatingMode: fwk.ModeOverride, NominatedNodeName: ""}

type harness struct {
	ctx    context.Context
	cancel context.CancelFunc
	logger klog.Logger

	api     *fakeAPI
	factory informers.SharedInformerFactory
	// claimFactory holds the resourceclaim controller's own informers,
	// when it has them (startClaimController).
	claimFactory informers.SharedInformerFactory
	sched        *scheduler.Scheduler
	snap         *internalcache.Snapshot
	podLister    corelisters.PodLister

	// Per profile (schedulerName).
	weights    map[string]map[string]int64
	preemption map[string]*preemptionHooks
	// extenders wrap the scheduler's extenders (extenders.go).
	extenders []*extenderRecorder

	// victimsInFlight counts the victims the preemption goroutine is
	// deleting, their claims not yet released; releaseErr is the first
	// failure to release them (claims.go).
	releaseMu       sync.Mutex
	victimsInFlight int
	releaseErr      error

	barrierSeq int
	// keepBarriers leaves the barrier pods in place: where the queue
	// decides what is attempted (RunQueue), their deletion, an assigned
	// pod's, would move unschedulable pods to the backoff queue, which
	// their addition does not.
	keepBarriers bool
	// wait bounds each wait (startOptions.wait).
	wait time.Duration
}

type preemptionHooks struct {
	executor *preemption.Executor
	victims  *victimRecorder
}

// startOptions say how start builds the scheduler.
type startOptions struct {
	// ordered creates nodes and pods one by one after the informers watch
	// (see start); otherwise the informers list them at once, in no
	// particular order, which is enough where order does not matter
	// (Feasible, Throughput) and much faster.
	ordered bool
	// parallelism overrides the configuration's (1 makes every attempt
	// reproducible, see the package documentation); 0 keeps it.
	parallelism int32
	// wait bounds each wait of the harness (0: waitTimeout); listing a
	// cluster of hundreds of thousands of pods takes longer.
	wait time.Duration
	// claimController runs upstream's resourceclaim controller, so that
	// preemption victims release their claims (claims.go).
	claimController bool
	// clock, when set, is the scheduler's clock (RunQueue's virtual time).
	clock clock.WithTicker
}

// start builds the scheduler over the cluster.
func start(parent context.Context, c *snapshot.Cluster, cfg *configv1.KubeSchedulerConfiguration, pending []*v1.Pod, so startOptions) (_ *harness, err error) {
	if _, lerr := logr.FromContext(parent); lerr != nil {
		// Upstream logs through the context's logger; stay quiet unless the
		// caller asked for logs.
		parent = klog.NewContext(parent, logr.Discard())
	}
	ctx, cancel := context.WithCancel(parent)
	h := &harness{ctx: ctx, cancel: cancel, logger: klog.FromContext(ctx), wait: so.wait}
	if h.wait == 0 {
		h.wait = waitTimeout
	}
	defer func() {
		if err != nil {
			h.stop()
		}
	}()

	nodes, pods, others, err := clusterObjects(c, pending)
	if err != nil {
		return nil, err
	}
	if !so.ordered {
		for _, n := range nodes {
			others = append(others, n)
		}
		for _, p := range pods {
			others = append(others, p)
		}
		nodes, pods = nil, nil
	}
	if h.api, err = newFakeAPI(others); err != nil {
		return nil, err
	}

	h.snap = internalcache.NewEmptySnapshot()
	opts, err := schedulerOptions(cfg, h.snap, so.parallelism)
	if err != nil {
		return nil, err
	}
	if so.clock != nil {
		opts = append(opts, scheduler.WithClock(so.clock))
	}
	h.factory = scheduler.NewInformerFactory(h.api.client, 0, nil)
	recorders := profile.RecorderFactory(func(string) events.EventRecorderLogger { return &events.FakeRecorder{} })
	h.sched, err = scheduler.New(ctx, h.api.client, h.factory, nil, recorders, opts...)
	if err != nil {
		return nil, fmt.Errorf("upstream: creating the scheduler: %w", err)
	}
	h.podLister = h.factory.Core().V1().Pods().Lister()
	nodeLister := h.factory.Core().V1().Nodes().Lister()
	h.hookProfiles()
	h.hookExtenders()

	h.factory.Start(ctx.Done())
	if err := h.fastSync(); err != nil {
		return nil, err
	}
	for typ, ok := range h.factory.WaitForCacheSync(ctx.Done()) {
		if !ok {
			return nil, fmt.Errorf("upstream: informer for %v did not sync", typ)
		}
	}
	if err := h.sched.WaitForHandlersSync(ctx); err != nil {
		return nil, fmt.Errorf("upstream: waiting for the scheduler's event handlers to sync: %w", err)
	}
	for _, gvr := range []schema.GroupVersionResource{nodesGVR, podsGVR} {
		select {
		case <-h.api.watchEstablished(gvr):
		case <-time.After(h.wait):
			return nil, fmt.Errorf("upstream: informer never started watching %v", gvr)
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}

	// Nodes and pods are created one at a time, each after the previous one
	// reached the informer, so the scheduler's node tree and each NodeInfo's
	// pod list are built in snapshot order (the tracker's List is unordered),
	// and the fake watch channel (100 events, panics when full) never fills.
	for _, n := range nodes {
		created, err := h.api.client.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{})
		if err != nil {
			return nil, fmt.Errorf("upstream: creating node %s: %w", n.Name, err)
		}
		if err := h.poll("node "+n.Name+" to reach the informer", func() bool {
			got, err := nodeLister.Get(n.Name)
			return err == nil && got.ResourceVersion == created.ResourceVersion
		}); err != nil {
			return nil, err
		}
	}
	for _, p := range pods {
		created, err := h.api.client.CoreV1().Pods(p.Namespace).Create(ctx, p, metav1.CreateOptions{})
		if err != nil {
			return nil, fmt.Errorf("upstream: creating pod %s/%s: %w", p.Namespace, p.Name, err)
		}
		if err := h.poll("pod "+p.Namespace+"/"+p.Name+" to reach the informer", func() bool {
			got, err := h.podLister.Pods(p.Namespace).Get(p.Name)
			return err == nil && got.ResourceVersion == created.ResourceVersion
		}); err != nil {
			return nil, err
		}
	}
	for _, n := range nodes {
		if err := h.poll("node "+n.Name+" to reach the scheduler cache", func() bool {
			ni, err := h.sched.Cache.GetNode(n.Name)
			return err == nil && ni.Node() != nil
		}); err != nil {
			return nil, err
		}
	}
	if so.claimController {
		// Only now that every pod exists: at its start the controller
		// drops the reservations of pods it cannot find.
		if err := h.startClaimController(); err != nil {
			return nil, err
		}
	}
	if err := h.barrier(); err != nil {
		return nil, err
	}
	if len(c.ResourceClaims) > 0 || len(c.ResourceSlices) > 0 {
		// Slices and claims are listed, not created in order: the
		// handlers of their informers (the slice tracker, the
		// allocated-device tracker) may still be taking them in.
		if err := h.claimsSynced(); err != nil {
			return nil, err
		}
	}
	return h, nil
}

// fastSync waits for the informers and the scheduler's handlers to sync
// with poll's short sleeps: upstream's own waits check every 100 ms,
// which would dominate a harness that is started for one question. Each
// check is one immediate condition call of those waits, made with a
// cancelled context so that they never sleep.
func (h *harness) fastSync() error {
	done, cancel := context.WithCancel(h.ctx)
	cancel()
	return h.poll("the informers and event handlers to sync", func() bool {
		for _, ok := range h.factory.WaitForCacheSync(done.Done()) {
			if !ok {
				return false
			}
		}
		return h.sched.WaitForHandlersSync(done) == nil
	})
}

func (h *harness) stop() {
	if h.cancel != nil {
		h.cancel()
	}
	if h.factory != nil {
		h.factory.Shutdown()
	}
	if h.claimFactory != nil {
		h.claimFactory.Shutdown()
	}
	if h.sched != nil {
		h.sched.SchedulingQueue.Close()
		_ = h.sched.Profiles.Close()
	}
}

// schedulerOptions turns the versioned configuration into scheduler.New
// options the way cmd/kube-scheduler does, except that Parallelism is forced
// to 1 (see the package documentation).
func schedulerOptions(cfg *configv1.KubeSchedulerConfiguration, snap *internalcache.Snapshot, parallelism int32) ([]scheduler.Option, error) {
	versioned := &configv1.KubeSchedulerConfiguration{}
	if cfg != nil {
		versioned = cfg.DeepCopy()
	}
	scheme.Scheme.Default(versioned)
	internal := &schedulerapi.KubeSchedulerConfiguration{}
	if err := scheme.Scheme.Convert(versioned, internal, nil); err != nil {
		return nil, fmt.Errorf("upstream: converting the KubeSchedulerConfiguration: %w", err)
	}
	internal.TypeMeta.APIVersion = configv1.SchemeGroupVersion.String()
	if err := validation.ValidateKubeSchedulerConfiguration(internal); err != nil {
		return nil, fmt.Errorf("upstream: invalid KubeSchedulerConfiguration: %w", err)
	}
	if parallelism == 0 {
		parallelism = internal.Parallelism
	}
	return []scheduler.Option{
		scheduler.WithExtenders(internal.Extenders...),
		scheduler.WithComponentConfigVersion(internal.TypeMeta.APIVersion),
		scheduler.WithProfiles(internal.Profiles...),
		scheduler.WithPercentageOfNodesToScore(internal.PercentageOfNodesToScore),
		scheduler.WithPodInitialBackoffSeconds(internal.PodInitialBackoffSeconds),
		scheduler.WithPodMaxBackoffSeconds(internal.PodMaxBackoffSeconds),
		scheduler.WithParallelism(parallelism),
		scheduler.WithNodeInfoSnapshot(snap),
	}, nil
}

// hookProfiles records each profile's Score weights and attaches the
// victim recorder to its DefaultPreemption plugin.
func (h *harness) hookProfiles() {
	h.weights = map[string]map[string]int64{}
	h.preemption = map[string]*preemptionHooks{}
	for name, f := range h.sched.Profiles {
		w := map[string]int64{}
		if pl := f.ListPlugins(); pl != nil {
			for _, p := range pl.Score.Enabled {
				w[p.Name] = int64(p.Weight)
			}
		}
		h.weights[name] = w

		// The framework instantiates each plugin once, so the instance
		// registered at PreEnqueue is the PostFilter one as well.
		for _, pl := range f.PreEnqueuePlugins() {
			dp, ok := pl.(*defaultpreemption.DefaultPreemption)
			if !ok || dp.Evaluator == nil || dp.Executor == nil {
				continue
			}
			vr := &victimRecorder{Interface: dp.Evaluator.Interface, victims: map[string][]*v1.Pod{}}
			dp.Evaluator.Interface = vr
			preemptPod := dp.Executor.PreemptPod
			dp.Executor.PreemptPod = func(ctx context.Context, c preemption.Candidate, p preemption.ExecutorPreemptor, victim *v1.Pod, plugin string) (bool, error) {
				h.victimStarted()
				reserved, rerr := h.claimsReservedFor(victim)
				inMemory, err := preemptPod(ctx, c, p, victim, plugin)
				if err == nil && !inMemory {
					// Let the informer take each deletion before the next
					// one: the fake watch channel panics when full.
					_ = h.poll("victim "+victim.Namespace+"/"+victim.Name+" to leave the informer", func() bool {
						got, err := h.podLister.Pods(victim.Namespace).Get(victim.Name)
						return apierrors.IsNotFound(err) || (err == nil && got.UID != victim.UID)
					})
					if rerr == nil {
						rerr = h.releaseClaims(victim, reserved)
					}
				}
				h.victimDone(rerr)
				return inMemory, err
			}
			h.preemption[name] = &preemptionHooks{executor: dp.Executor, victims: vr}
		}
	}
}

// attempt makes one scheduling attempt for the pod namespace/name as
// scheduleOnePod would, and renders it.
func (h *harness) attempt(namespace, name string) (record.AttemptJSON, error) {
	ctx, logger := h.ctx, h.logger
	a := newAttempt(namespace + "/" + name)

	cached, err := h.podLister.Pods(namespace).Get(name)
	if err != nil {
		return a, fmt.Errorf("pod not found in the cluster state: %w", err)
	}
	if cached.Spec.NodeName != "" {
		return a, fmt.Errorf("pod is already bound to node %q", cached.Spec.NodeName)
	}
	pod := cached.DeepCopy()

	fw, ok := h.sched.Profiles[pod.Spec.SchedulerName]
	if !ok {
		// scheduleOnePod drops such a pod; the informer never queues it.
		a.Outcome = outcomeSkipped
		a.Message = fmt.Sprintf("profile not found for scheduler name %q", pod.Spec.SchedulerName)
		return a, nil
	}
	if pod.DeletionTimestamp != nil {
		a.Outcome = outcomeSkipped
		a.Message = fmt.Sprintf("skip schedule deleting pod: %v/%v", pod.Namespace, pod.Name)
		return a, nil
	}
	// A pod a PreEnqueue plugin rejects never leaves the queue; report the
	// gate instead of scheduling it.
	for _, pl := range fw.PreEnqueuePlugins() {
		if st := pl.PreEnqueue(ctx, pod); !st.IsSuccess() {
			a.Outcome = record.OutcomeUnschedulable
			a.Message = st.Message()
			return a, nil
		}
	}

	hooks := h.preemption[pod.Spec.SchedulerName]
	if hooks != nil {
		hooks.victims.reset()
	}
	h.api.resetDeleted()
	for _, r := range h.extenders {
		r.reset()
	}

	// scheduleOnePod
	state := framework.NewCycleState()
	state.SetRecordPluginMetrics(false)
	podsToActivate := framework.NewPodsToActivate()
	state.Write(framework.PodsToActivateKey, podsToActivate)

	// schedulingCycle
	if err := h.sched.Cache.UpdateSnapshot(logger, h.snap); err != nil {
		return h.fail(a, pod, fwk.AsStatus(err), clearNominatedNode)
	}
	podInfo, _ := framework.NewPodInfo(pod) // upstream ignores this error too (affinity terms)
	rec := newCycleRecorder(fw)
	result, err := h.sched.SchedulePod(ctx, rec, state, &framework.QueuedPodInfo{PodInfo: podInfo})
	if err != nil {
		var fitErr *framework.FitError
		if !errors.As(err, &fitErr) {
			// ErrNoNodesAvailable (U&U) and internal errors: no PostFilter.
			st := fwk.AsStatus(err)
			if errors.Is(err, scheduler.ErrNoNodesAvailable) {
				st = fwk.NewStatus(fwk.UnschedulableAndUnresolvable).WithError(err)
			}
			return h.fail(a, pod, st, clearNominatedNode)
		}
		return h.unschedulable(a, fw, state, pod, fitErr, rec, hooks)
	}

	host := result.SuggestedHost
	a.Node = host
	h.renderFeasible(&a, pod, rec, host)

	// assumeAndReserve
	assumed := pod.DeepCopy()
	assumed.Spec.NodeName = host
	if err := h.sched.Cache.AssumePod(logger, assumed); err != nil {
		a.Node = ""
		return h.fail(a, pod, fwk.AsStatus(err), clearNominatedNode)
	}
	h.sched.SchedulingQueue.DeleteNominatedPodIfExists(assumed)
	if st := fw.RunReservePluginsReserve(ctx, state, assumed, host); !st.IsSuccess() {
		fw.RunReservePluginsUnreserve(ctx, state, assumed, host)
		if err := h.sched.Cache.ForgetPod(logger, assumed); err != nil {
			return a, fmt.Errorf("forgetting assumed pod after Reserve failed: %w", err)
		}
		a.Node = ""
		return h.fail(a, pod, rejectionOnNode(pod, host, st), clearNominatedNode)
	}
	// Permit
	if _, st := fw.RunPermitPlugins(ctx, state, assumed, host); !st.IsSuccess() {
		fw.RunReservePluginsUnreserve(ctx, state, assumed, host)
		if err := h.sched.Cache.ForgetPod(logger, assumed); err != nil {
			return a, fmt.Errorf("forgetting assumed pod after Permit failed: %w", err)
		}
		if st.IsWait() {
			return a, errors.New("a Permit plugin asked the pod to wait; waiting pods are not supported by the conformance harness")
		}
		a.Node = ""
		return h.fail(a, pod, rejectionOnNode(pod, host, st), clearNominatedNode)
	}
	if len(podsToActivate.Map) != 0 {
		h.sched.SchedulingQueue.Activate(logger, podsToActivate.Map)
		podsToActivate.Map = make(map[string]*v1.Pod)
	}

	// Binding cycle, reduced to Bind: VolumeBinding's PreBind would wait
	// for controllers the fake API server does not run. DynamicResources'
	// PreBind needs none (no generated scenario has binding conditions):
	// it writes the claims' allocation and reservation, which the next
	// attempts must see, so it runs for pods with claims and no volumes.
	if len(assumed.Spec.ResourceClaims) > 0 && !hasClaimVolumes(assumed) {
		if st := fw.RunPreBindPlugins(ctx, state, assumed, host); !st.IsSuccess() {
			return a, fmt.Errorf("PreBind on node %s: %w", host, st.AsError())
		}
	}
	if st := fw.RunBindPlugins(ctx, state, assumed, host); !st.IsSuccess() {
		return a, fmt.Errorf("binding to node %s: %w", host, st.AsError())
	}
	fw.RunPostBindPlugins(ctx, state, assumed, host)
	if len(podsToActivate.Map) != 0 {
		h.sched.SchedulingQueue.Activate(logger, podsToActivate.Map)
	}
	// The binding reaches the scheduler as a pod update: the cache confirms
	// the assumed pod and the queue drops it.
	if err := h.poll("pod "+namespace+"/"+name+" to be confirmed on node "+host, func() bool {
		assumedNow, err := h.sched.Cache.IsAssumedPod(assumed)
		return err == nil && !assumedNow
	}); err != nil {
		return a, err
	}
	if err := h.barrier(); err != nil {
		return a, err
	}
	a.Outcome = record.OutcomeScheduled
	return a, nil
}

// rejectionOnNode mirrors how schedule_one.go reports a Reserve or Permit
// failure: a rejection becomes a FitError over the one chosen node.
func rejectionOnNode(pod *v1.Pod, host string, st *fwk.Status) *fwk.Status {
	if !st.IsRejected() {
		return st
	}
	fitErr := &framework.FitError{
		NumAllNodes: 1,
		Pod:         pod,
		Diagnosis:   framework.Diagnosis{NodeToStatus: framework.NewDefaultNodeToStatus()},
	}
	fitErr.Diagnosis.NodeToStatus.Set(host, st)
	fitErr.Diagnosis.AddPluginStatus(st)
	return fwk.NewStatus(st.Code()).WithError(fitErr)
}

// unschedulable handles a FitError as upstream's schedulingCycle does: run the
// PostFilter plugins, then the failure handler.
func (h *harness) unschedulable(a record.AttemptJSON, fw framework.Framework, state fwk.CycleState, pod *v1.Pod, fitErr *framework.FitError, rec *cycleRecorder, hooks *preemptionHooks) (record.AttemptJSON, error) {
	ctx := h.ctx
	var nominatingInfo *fwk.NominatingInfo
	if !fw.HasPostFilterPlugins() {
		nominatingInfo = clearNominatedNode
	} else {
		result, st := fw.RunPostFilterPlugins(ctx, state, pod, fitErr.Diagnosis.NodeToStatus)
		fitErr.Diagnosis.PostFilterMsg = st.Message()
		if result != nil {
			nominatingInfo = result.NominatingInfo
		}
	}

	rec.mu.Lock()
	narrowedBy := joinSorted(rec.preFilterPlugins)
	rec.mu.Unlock()
	h.renderFilter(&a, sets.New[string](), fitErr.Diagnosis.NodeToStatus, narrowedBy)
	// nominatedNode is the pod's nomination after the attempt: PostFilter's
	// when it overrides, else the one the pod already had.
	a.NominatedNode = pod.Status.NominatedNodeName
	if nominatingInfo.Mode() == fwk.ModeOverride {
		a.NominatedNode = nominatingInfo.NominatedNodeName
	}

	// Preemption runs its API calls asynchronously; wait for them.
	if hooks != nil {
		if err := h.poll("preemption by "+pod.Namespace+"/"+pod.Name+" to finish", func() bool {
			return !hooks.executor.IsPodRunningPreemption(pod.UID)
		}); err != nil {
			return a, err
		}
		if err := h.waitVictims(); err != nil {
			return a, err
		}
	}
	var victims []string
	if a.NominatedNode != "" {
		if hooks != nil {
			for _, v := range hooks.victims.on(a.NominatedNode) {
				victims = append(victims, v.Namespace+"/"+v.Name)
			}
		} else {
			// No handle on the preemption plugin: fall back to the pods it
			// deleted through the API.
			if err := h.barrier(); err != nil {
				return a, err
			}
			victims = h.api.deletedPods()
		}
	}
	sort.Strings(victims)
	a.Victims = append([]string{}, victims...)

	return h.fail(a, pod, fwk.NewStatus(fwk.Unschedulable).WithError(fitErr), nominatingInfo)
}

// fail renders a failed attempt and applies handleSchedulingFailure's effects
// on the cluster state: the nominator learns the (possibly cleared)
// nomination and the pod's status gets the PodScheduled condition and
// nominatedNodeName.
func (h *harness) fail(a record.AttemptJSON, pod *v1.Pod, st *fwk.Status, nominatingInfo *fwk.NominatingInfo) (record.AttemptJSON, error) {
	ctx, logger := h.ctx, h.logger
	// The outcome follows the PodScheduled condition's reason:
	// Unschedulable for any rejection (a FitError, or no nodes at all),
	// SchedulerError otherwise.
	a.Outcome = record.OutcomeError
	if st.IsRejected() {
		a.Outcome = record.OutcomeUnschedulable
	}
	a.Message = st.Message()

	reason := v1.PodReasonSchedulerError
	if st.IsRejected() {
		reason = v1.PodReasonUnschedulable
	}
	cached, err := h.podLister.Pods(pod.Namespace).Get(pod.Name)
	switch {
	case err != nil, cached.Spec.NodeName != "":
		// Gone or bound meanwhile: upstream neither requeues nor patches
		// a nomination that the nominator would refuse anyway.
	case cached.UID != pod.UID:
		return a, h.barrier()
	default:
		cachedInfo, _ := framework.NewPodInfo(cached.DeepCopy())
		h.sched.SchedulingQueue.AddNominatedPod(logger, cachedInfo, nominatingInfo)
		if err := patchSchedulingStatus(ctx, h, cached, reason, st.Message(), nominatingInfo); err != nil {
			return a, fmt.Errorf("updating the pod status after the failed attempt: %w", err)
		}
	}
	return a, h.barrier()
}

// patchSchedulingStatus is schedule_one.go's updatePod: PodScheduled=False
// with the failure message, and nominatedNodeName when the nomination is
// overridden.
func patchSchedulingStatus(ctx context.Context, h *harness, pod *v1.Pod, reason, msg string, nominatingInfo *fwk.NominatingInfo) error {
	newStatus := pod.Status.DeepCopy()
	nnnNeedsUpdate := nominatingInfo.Mode() == fwk.ModeOverride && pod.Status.NominatedNodeName != nominatingInfo.NominatedNodeName
	condNeedsUpdate := podutil.UpdatePodCondition(newStatus, &v1.PodCondition{
		Type:               v1.PodScheduled,
		ObservedGeneration: podutil.CalculatePodConditionObservedGeneration(&pod.Status, pod.Generation, v1.PodScheduled),
		Status:             v1.ConditionFalse,
		Reason:             reason,
		Message:            msg,
	})
	if !condNeedsUpdate && !nnnNeedsUpdate {
		return nil
	}
	if nnnNeedsUpdate {
		newStatus.NominatedNodeName = nominatingInfo.NominatedNodeName
	}
	return schedutil.PatchPodStatus(ctx, h.api.client, pod.Name, pod.Namespace, &pod.Status, newStatus)
}

// barrier returns once the scheduler's pod event handler has processed every
// pod event emitted so far: it round-trips a throw-away pod bound to a node
// that does not exist through the API server and the scheduler cache. Pod
// events reach that handler in order, so when the throw-away pod shows up in
// (and then leaves) the cache, every earlier binding, deletion and status
// update has been applied to the cache, the queue and the nominator.
func (h *harness) barrier() error {
	h.barrierSeq++
	name := fmt.Sprintf("barrier-%d", h.barrierSeq)
	p := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: barrierNamespace, Name: name, UID: types.UID(barrierNamespace + "-" + name)},
		Spec:       v1.PodSpec{NodeName: barrierNode, SchedulerName: barrierScheduler},
	}
	pods := h.api.client.CoreV1().Pods(barrierNamespace)
	if _, err := pods.Create(h.ctx, p, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating barrier pod: %w", err)
	}
	if err := h.poll("the scheduler to process pod events (barrier add)", func() bool {
		_, err := h.sched.Cache.GetPod(p)
		return err == nil
	}); err != nil || h.keepBarriers {
		return err
	}
	if err := pods.Delete(h.ctx, name, metav1.DeleteOptions{}); err != nil {
		return fmt.Errorf("deleting barrier pod: %w", err)
	}
	return h.poll("the scheduler to process pod events (barrier delete)", func() bool {
		_, err := h.sched.Cache.GetPod(p)
		return err != nil
	})
}

// poll waits until cond holds, backing off from microseconds to milliseconds.
func (h *harness) poll(what string, cond func() bool) error {
	deadline := time.Now().Add(h.wait)
	sleep := 20 * time.Microsecond
	for !cond() {
		if err := h.ctx.Err(); err != nil {
			return fmt.Errorf("waiting for %s: %w", what, err)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("timed out after %v waiting for %s", h.wait, what)
		}
		time.Sleep(sleep)
		if sleep < 5*time.Millisecond {
			sleep *= 2
		}
	}
	return nil
}

func newAttempt(pod string) record.AttemptJSON {
	return record.AttemptJSON{
		Kind:     "attempt",
		Pod:      pod,
		Feasible: []string{},
		Filter:   map[string]record.FilterJSON{},
		Scores:   map[string]map[string]record.ScoreJSON{},
		Total:    map[string]int64{},
		Top:      []string{},
		Victims:  []string{},
	}
}

func podKey(p *v1.Pod) (string, string) {
	ns := p.Namespace
	if ns == "" {
		ns = metav1.NamespaceDefault
	}
	return ns, p.Name
}

// clusterObjects splits the snapshot into the nodes and pods that are created
// in order once the informers watch, and every other object, which is listed.
// Pods get the defaults the API server would have set (namespace, UID);
// terminal pods are dropped, as the scheduler's pod informer filters them out
// with a field selector the fake API server does not implement. A pending pod
// replaces the snapshot pod of the same namespace/name, and pending pods
// missing from the snapshot are added after the snapshot's pods.
func clusterObjects(c *snapshot.Cluster, pending []*v1.Pod) (nodes []*v1.Node, pods []*v1.Pod, others []runtime.Object, err error) {
	seenNodes := map[string]bool{}
	for i, n := range c.Nodes {
		if n == nil || n.Name == "" {
			return nil, nil, nil, fmt.Errorf("upstream: node %d has no name", i)
		}
		if seenNodes[n.Name] {
			return nil, nil, nil, fmt.Errorf("upstream: duplicate node %s", n.Name)
		}
		seenNodes[n.Name] = true
		nodes = append(nodes, n.DeepCopy())
	}

	override := map[string]*v1.Pod{}
	var extra []string
	for i, p := range pending {
		if p == nil || p.Name == "" {
			return nil, nil, nil, fmt.Errorf("upstream: pending pod %d has no name", i)
		}
		ns, name := podKey(p)
		k := ns + "/" + name
		if _, dup := override[k]; !dup {
			extra = append(extra, k)
		}
		override[k] = p
	}
	seenPods := map[string]bool{}
	uids := map[types.UID]string{}
	add := func(p *v1.Pod) error {
		p = p.DeepCopy()
		p.Namespace, _ = podKey(p)
		k := p.Namespace + "/" + p.Name
		if seenPods[k] {
			return fmt.Errorf("upstream: duplicate pod %s", k)
		}
		seenPods[k] = true
		if p.Status.Phase == v1.PodSucceeded || p.Status.Phase == v1.PodFailed {
			return nil
		}
		if p.UID == "" {
			p.UID = types.UID("schedtui-" + p.Namespace + "-" + p.Name)
		}
		if other, dup := uids[p.UID]; dup {
			return fmt.Errorf("upstream: pods %s and %s share UID %s", other, k, p.UID)
		}
		uids[p.UID] = k
		p.ResourceVersion = ""
		pods = append(pods, p)
		return nil
	}
	for i, p := range c.Pods {
		if p == nil || p.Name == "" {
			return nil, nil, nil, fmt.Errorf("upstream: pod %d has no name", i)
		}
		ns, name := podKey(p)
		if o, ok := override[ns+"/"+name]; ok {
			p = o
		}
		if err := add(p); err != nil {
			return nil, nil, nil, err
		}
	}
	for _, k := range extra {
		if seenPods[k] {
			continue
		}
		if err := add(override[k]); err != nil {
			return nil, nil, nil, err
		}
	}
	for _, p := range pending {
		ns, name := podKey(p)
		if p.Status.Phase == v1.PodSucceeded || p.Status.Phase == v1.PodFailed {
			return nil, nil, nil, fmt.Errorf("upstream: pending pod %s/%s is in terminal phase %s", ns, name, p.Status.Phase)
		}
	}

	others = appendObjects(others, c.PriorityClasses)
	others = appendObjects(others, c.PodDisruptionBudgets)
	others = appendObjects(others, c.Namespaces)
	others = appendObjects(others, c.PersistentVolumes)
	others = appendObjects(others, c.PersistentVolumeClaims)
	others = appendObjects(others, c.StorageClasses)
	others = appendObjects(others, c.CSINodes)
	others = appendObjects(others, c.CSIDrivers)
	others = appendObjects(others, c.CSIStorageCapacities)
	others = appendObjects(others, c.VolumeAttachments)
	others = appendObjects(others, c.Services)
	others = appendObjects(others, c.ReplicaSets)
	others = appendObjects(others, c.StatefulSets)
	others = appendObjects(others, c.ReplicationControllers)
	others = appendObjects(others, c.DaemonSets)
	others = appendObjects(others, c.RuntimeClasses)
	others = appendObjects(others, c.DeviceClasses)
	others = appendObjects(others, c.ResourceSlices)
	others = appendObjects(others, c.DeviceTaintRules)
	others = appendObjects(others, c.ResourceClaimTemplates)
	others = appendObjects(others, c.ResourceClaims)
	others = appendObjects(others, c.Workloads)
	others = appendObjects(others, c.CompositePodGroups)
	others = appendObjects(others, c.PodGroups)
	return nodes, pods, others, nil
}

// appendObjects appends deep copies of the non-nil objects of objs.
func appendObjects[T any, PT interface {
	*T
	runtime.Object
}](dst []runtime.Object, objs []PT) []runtime.Object {
	for _, o := range objs {
		if o != nil {
			dst = append(dst, o.DeepCopyObject())
		}
	}
	return dst
}

// hasClaimVolumes reports whether the pod has PersistentVolumeClaim or
// ephemeral volumes, which VolumeBinding's PreBind would bind.
func hasClaimVolumes(pod *v1.Pod) bool {
	for _, v := range pod.Spec.Volumes {
		if v.PersistentVolumeClaim != nil || v.Ephemeral != nil {
			return true
		}
	}
	return false
}
