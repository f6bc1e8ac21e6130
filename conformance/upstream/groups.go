package upstream

// Workload-aware scheduling (GenericWorkload): the queue decides what is
// attempted, a pod or a pod group, so RunQueue lets upstream's own
// ScheduleOne pop and schedule, one entity at a time, and records what
// each cycle decided from outside: the failure handler's statuses, the
// bindings, the victims deleted, the PodGroups' conditions.

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/dynamic-resource-allocation/resourceclaim"
	"k8s.io/klog/v2"
	configv1 "k8s.io/kube-scheduler/config/v1"
	fwk "k8s.io/kube-scheduler/framework"
	kubefeatures "k8s.io/kubernetes/pkg/features"
	internalqueue "k8s.io/kubernetes/pkg/scheduler/backend/queue"
	"k8s.io/kubernetes/pkg/scheduler/framework"

	"github.com/schedtui/schedtui/scheduler/record"
	"github.com/schedtui/schedtui/snapshot"
)

// MaxQueueCycles bounds the cycles RunQueue makes, on both sides of the
// comparison: a scenario whose queue keeps an entity poppable at one
// instant (requeued by its own cycle's events, over and over) stops there.
const MaxQueueCycles = 200

// QueueHorizon is how long, in the scheduler's virtual time, RunQueue lets
// the queue run: failed groups come back from the backoff queue (1s, then
// 2s, 4s, ... later), so a queue never runs dry for good.
const QueueHorizon = 10 * time.Second

// QueueRun is what the scheduler did with a cluster, cycle by cycle, and
// the state it left.
type QueueRun struct {
	Cycles []Cycle `json:"cycles"`
	// Writes are the scheduler's changes of a PodGroup's
	// PodGroupInitiallyScheduled condition, in order, each
	// "namespace/name: Status Reason: Message".
	Writes []string `json:"writes"`
	// Pods is every pod's state at the end, by namespace/name: terminal
	// and deleted pods are absent.
	Pods map[string]PodState `json:"pods"`
	// PodGroups is every PodGroup's conditions at the end, by
	// namespace/name.
	PodGroups map[string][]Condition `json:"podGroups"`
	// GroupClaims is, by namespace/name, each claim a PodGroup's
	// spec.resourceClaims names (DRAWorkloadResourceClaims) at the end
	// (GroupClaimStateOf); none when no PodGroup owns claims.
	GroupClaims map[string]string `json:"groupClaims,omitempty"`
}

// GroupClaimStateOf is a group's claim at the end of a run, as the
// comparison needs it: "deleted" (c nil), else its devices (or
// "unallocated") and its consumers, "reserved for podgroups/train,
// pods/w-0".
func GroupClaimStateOf(c *resourcev1.ResourceClaim) string {
	if c == nil {
		return "deleted"
	}
	s := "unallocated"
	if a := c.Status.Allocation; a != nil {
		var devs []string
		for _, r := range a.Devices.Results {
			devs = append(devs, r.Pool+"/"+r.Device)
		}
		sort.Strings(devs)
		s = "allocated " + strings.Join(devs, ",")
	}
	var refs []string
	for _, r := range c.Status.ReservedFor {
		refs = append(refs, r.Resource+"/"+r.Name)
	}
	sort.Strings(refs)
	if len(refs) > 0 {
		s += ", reserved for " + strings.Join(refs, ", ")
	}
	return s
}

// GroupClaimNames are the claims pg's spec.resourceClaims names, resolved
// through its status as the resourceclaim controller recorded them.
func GroupClaimNames(pg *schedulingv1beta1.PodGroup) []string {
	var out []string
	for i := range pg.Spec.ResourceClaims {
		if name, _, err := resourceclaim.NameFromPodGroup(pg, &pg.Spec.ResourceClaims[i]); err == nil && name != nil {
			out = append(out, *name)
		}
	}
	return out
}

// Cycle is one entity the queue popped and what its cycle decided.
type Cycle struct {
	// At is when the cycle ran: whole seconds of virtual time since the
	// start.
	At int `json:"at"`
	// Group is the PodGroup's namespace/name for a pod-group cycle, ""
	// for a pod's own cycle.
	Group string `json:"group,omitempty"`
	// Members are the pods the cycle tried, sorted by namespace/name.
	Members []Member `json:"members"`
	// Victims are the pods preemption deleted during the cycle, sorted.
	Victims []string `json:"victims"`
}

// Member is one pod's outcome in a cycle.
type Member struct {
	Pod string `json:"pod"`
	// Outcome is record.OutcomeScheduled, OutcomeUnschedulable or
	// OutcomeError (the reason of the PodScheduled condition written).
	Outcome string `json:"outcome"`
	Node    string `json:"node,omitempty"`
	// NominatedNode is the pod's nomination after a failure: the one the
	// failure handler set, or the one the pod had when it was kept.
	NominatedNode string `json:"nominatedNode,omitempty"`
	// Message is the PodScheduled condition's message ("" when bound).
	Message string `json:"message,omitempty"`
	// Filter is, for a member that failed with its own FitError (no node
	// passed its Filter), each node's verdict, rendered as
	// record.AttemptJSON's; empty otherwise (bound, or rejected with its
	// group).
	Filter map[string]record.FilterJSON `json:"filter,omitempty"`
}

// PodState is a pod at the end of a run.
type PodState struct {
	Node          string `json:"node,omitempty"`
	NominatedNode string `json:"nominatedNode,omitempty"`
	// Scheduled is the PodScheduled condition ("" when there is none).
	Scheduled Condition `json:"scheduled"`
}

// Condition is a pod's or a PodGroup's condition, as the comparison needs
// it (no times, no generation).
type Condition struct {
	Type    string `json:"type"`
	Status  string `json:"status"`
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
}

// RunQueue builds a real kube-scheduler v1.37.1 over the cluster c, as Run
// does, on a virtual clock starting at t0, and lets its queue decide.
// While Pop would return at once (the active queue holds something, or the
// backoff queue does and upstream pops from it when the active queue is
// empty), ScheduleOne pops an entity and schedules it, and RunQueue waits
// for its effects (bindings, preemption's deletions, status writes) to
// reach the scheduler before the next. Then the objects of late
// (PodGroups, CompositePodGroups) are
// created, each followed by the same, and the clock moves on a second at
// a time until QueueHorizon, the backoff queue flushed at each second as
// upstream's goroutine does it, the queue drained again after each.
// Victims are deleted at once (the fake API server has no grace period).
// Pods the queue holds back (gated, waiting for their PodGroup or for
// minCount pods, unschedulable with no event to move them) are never
// attempted. The process-wide feature gates (GenericWorkload among them)
// are the caller's to set.
func RunQueue(ctx context.Context, c *snapshot.Cluster, cfg *configv1.KubeSchedulerConfiguration, late []runtime.Object, t0 time.Time) (run QueueRun, err error) {
	return RunQueueFor(ctx, c, cfg, late, t0, QueueHorizon)
}

// RunQueueFor is RunQueue with the clock run to horizon instead of
// QueueHorizon: long enough, a failed group's backoff reaches its cap.
func RunQueueFor(ctx context.Context, c *snapshot.Cluster, cfg *configv1.KubeSchedulerConfiguration, late []runtime.Object, t0 time.Time, horizon time.Duration) (run QueueRun, err error) {
	if c == nil {
		return run, errors.New("upstream: nil cluster")
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("upstream: panic while running the upstream scheduler: %v\n%s", r, debug.Stack())
		}
	}()
	clk := newQueueClock(t0)
	h, err := start(ctx, c, cfg, nil, startOptions{ordered: true, parallelism: 1, claimController: true, clock: clk})
	if err != nil {
		return run, err
	}
	defer h.stop()
	h.keepBarriers = true
	q, ok := h.sched.SchedulingQueue.(*internalqueue.PriorityQueue)
	if !ok {
		return run, fmt.Errorf("upstream: the scheduling queue is a %T, not the PriorityQueue", h.sched.SchedulingQueue)
	}
	cr := h.hookCycles()
	h.api.client.PrependReactor("patch", "podgroups", func(action clienttesting.Action) (bool, runtime.Object, error) {
		if action.GetSubresource() != "status" {
			return false, nil, nil
		}
		ns, name := action.GetNamespace(), action.(clienttesting.PatchAction).GetName()
		before, _ := h.api.tracker.Get(podGroupsGVR, ns, name)
		handled, obj, err := clienttesting.ObjectReaction(h.api.tracker)(action)
		if err == nil {
			was, now := initiallyScheduled(before), initiallyScheduled(obj)
			if now != "" && now != was {
				run.Writes = append(run.Writes, ns+"/"+name+": "+now)
			}
		}
		return handled, obj, err
	})

	drain := func() error {
		for poppable(q) {
			if len(run.Cycles) == MaxQueueCycles {
				return nil
			}
			cycle, err := h.cycle(cr)
			if err != nil {
				return fmt.Errorf("upstream: cycle %d: %w", len(run.Cycles), err)
			}
			cycle.At = int(clk.Now().Sub(t0) / time.Second)
			run.Cycles = append(run.Cycles, cycle)
		}
		return nil
	}
	if err := drain(); err != nil {
		return run, err
	}
	for _, obj := range late {
		if err := h.createLate(obj); err != nil {
			return run, err
		}
		if err := drain(); err != nil {
			return run, err
		}
	}
	for clk.FakeClock.Now().Sub(t0) < horizon {
		clk.Step(time.Second)
		flushBackoffQCompleted(q, h.logger)
		if err := drain(); err != nil {
			return run, err
		}
	}
	return run, h.finalState(&run)
}

// cycleRecord is what the hooks saw of the cycle in progress.
type cycleRecord struct {
	mu       sync.Mutex
	popped   framework.QueuedEntityInfo
	failures map[string]failure
}

type failure struct {
	outcome, message, nominated string
	filter                      map[string]record.FilterJSON
}

// hookCycles wraps the scheduler's NextEntity and FailureHandler so that
// each cycle's entity and failures are kept.
func (h *harness) hookCycles() *cycleRecord {
	cr := &cycleRecord{}
	next := h.sched.NextEntity
	h.sched.NextEntity = func(logger klog.Logger) (framework.QueuedEntityInfo, error) {
		e, err := next(logger)
		cr.mu.Lock()
		cr.popped = e
		cr.mu.Unlock()
		return e, err
	}
	handle := h.sched.FailureHandler
	h.sched.FailureHandler = func(ctx context.Context, f framework.Framework, pi *framework.QueuedPodInfo, st *fwk.Status, ni *fwk.NominatingInfo, start time.Time) {
		fl := failure{outcome: record.OutcomeError, message: st.Message()}
		if st.IsRejected() {
			fl.outcome = record.OutcomeUnschedulable
		}
		fl.nominated = pi.Pod.Status.NominatedNodeName
		if ni.Mode() == fwk.ModeOverride {
			fl.nominated = ni.NominatedNodeName
		}
		var fitErr *framework.FitError
		if errors.As(st.AsError(), &fitErr) {
			a := newAttempt("")
			h.renderFilter(&a, sets.New[string](), fitErr.Diagnosis.NodeToStatus, "")
			fl.filter = a.Filter
		}
		cr.mu.Lock()
		cr.failures[pi.Pod.Namespace+"/"+pi.Pod.Name] = fl
		cr.mu.Unlock()
		handle(ctx, f, pi, st, ni, start)
	}
	return cr
}

// cycle pops one entity through ScheduleOne and waits for what it set in
// motion: preemption's deletions, the binding of every member not failed,
// the status writes reaching the informers.
func (h *harness) cycle(cr *cycleRecord) (Cycle, error) {
	cr.mu.Lock()
	cr.popped, cr.failures = nil, map[string]failure{}
	cr.mu.Unlock()
	h.api.resetDeleted()

	h.sched.ScheduleOne(h.ctx)

	cr.mu.Lock()
	popped := cr.popped
	cr.mu.Unlock()
	if popped == nil {
		return Cycle{}, errors.New("the queue popped nothing")
	}
	var c Cycle
	var pods []*v1.Pod
	popped.ForEachPodInfo(func(pi *framework.QueuedPodInfo) bool {
		pods = append(pods, pi.Pod)
		return true
	})
	var preemptors []types.UID
	// leaves are the popped hierarchy's PodGroups (the group itself for
	// a PodGroup): each gets its condition written.
	var leaves []*schedulingv1beta1.PodGroup
	if pg, ok := popped.(*framework.QueuedPodGroupInfo); ok {
		c.Group = pg.Namespace + "/" + pg.Name
		if pg.PodGroup != nil {
			preemptors = append(preemptors, pg.PodGroup.UID)
		}
		if pg.CompositePodGroup != nil {
			preemptors = append(preemptors, pg.CompositePodGroup.UID)
		}
		var walk func(n *framework.PodGroupInfo)
		walk = func(n *framework.PodGroupInfo) {
			if n.GetType() == fwk.PodGroupKeyType {
				// The object may be gone from the entity (a failed
				// reconciliation): the name is enough.
				leaves = append(leaves, &schedulingv1beta1.PodGroup{ObjectMeta: metav1.ObjectMeta{Namespace: n.Namespace, Name: n.Name}})
			}
			for _, ch := range n.Children {
				walk(ch)
			}
		}
		walk(pg.PodGroupInfo)
	}
	for _, p := range pods {
		preemptors = append(preemptors, p.UID)
	}
	if err := h.waitPreemption(preemptors); err != nil {
		return c, err
	}

	for _, p := range pods {
		key := p.Namespace + "/" + p.Name
		var m Member
		if err := h.poll("pod "+key+" to be bound or to fail", func() bool {
			cr.mu.Lock()
			fl, failed := cr.failures[key]
			cr.mu.Unlock()
			if failed {
				m = Member{Pod: key, Outcome: fl.outcome, NominatedNode: fl.nominated, Message: fl.message, Filter: fl.filter}
				return true
			}
			got, err := h.podLister.Pods(p.Namespace).Get(p.Name)
			if err != nil || got.UID != p.UID || got.Spec.NodeName == "" {
				return false
			}
			assumed, err := h.sched.Cache.IsAssumedPod(got)
			if err != nil || assumed {
				return false
			}
			m = Member{Pod: key, Outcome: record.OutcomeScheduled, Node: got.Spec.NodeName}
			return true
		}); err != nil {
			return c, err
		}
		if m.Outcome != record.OutcomeScheduled {
			if err := h.waitPodStatus(p, m); err != nil {
				return c, err
			}
		}
		c.Members = append(c.Members, m)
	}
	sort.Slice(c.Members, func(i, j int) bool { return c.Members[i].Pod < c.Members[j].Pod })
	c.Victims = append([]string{}, h.api.deletedPods()...)
	sort.Strings(c.Victims)

	for _, leaf := range leaves {
		pg, err := h.api.client.SchedulingV1beta1().PodGroups(leaf.Namespace).Get(h.ctx, leaf.Name, metav1.GetOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			return c, err
		}
		if err == nil {
			if err := h.waitPodGroupInformer(pg); err != nil {
				return c, err
			}
		}
	}
	return c, h.barrier()
}

// waitPreemption waits for the asynchronous preemption started by any of
// the preemptors (a pod group or its pods) to finish, and for its victims
// to be gone from the scheduler's view, their claims released.
func (h *harness) waitPreemption(preemptors []types.UID) error {
	for _, hooks := range h.preemption {
		if err := h.poll("preemption to finish", func() bool {
			for _, uid := range preemptors {
				if hooks.executor.IsPodRunningPreemption(uid) {
					return false
				}
			}
			return true
		}); err != nil {
			return err
		}
	}
	return h.waitVictims()
}

// waitPodStatus waits for the failure handler's status write (the
// PodScheduled condition with the message, the nomination) to reach the
// API server: the pod informer then delivers it before the next barrier.
func (h *harness) waitPodStatus(p *v1.Pod, m Member) error {
	return h.poll("the status of pod "+m.Pod+" to be written", func() bool {
		got, err := h.api.client.CoreV1().Pods(p.Namespace).Get(h.ctx, p.Name, metav1.GetOptions{})
		if err != nil {
			return apierrors.IsNotFound(err)
		}
		if m.NominatedNode != "" && got.Status.NominatedNodeName != m.NominatedNode {
			return false
		}
		for _, c := range got.Status.Conditions {
			if c.Type == v1.PodScheduled {
				return c.Status == v1.ConditionFalse && c.Message == m.Message
			}
		}
		return false
	})
}

// waitPodGroupInformer waits for the scheduler's PodGroup informer to have
// the version pg of the API server, and its handlers to have taken it in
// (with GenericWorkload on: otherwise the scheduler has no such informer).
func (h *harness) waitPodGroupInformer(pg *schedulingv1beta1.PodGroup) error {
	if !utilfeature.DefaultFeatureGate.Enabled(kubefeatures.GenericWorkload) {
		// The scheduler does not watch PodGroups.
		return nil
	}
	lister := h.factory.Scheduling().V1beta1().PodGroups().Lister()
	if err := h.poll("PodGroup "+pg.Namespace+"/"+pg.Name+" to reach the informer", func() bool {
		got, err := lister.PodGroups(pg.Namespace).Get(pg.Name)
		return err == nil && got.ResourceVersion == pg.ResourceVersion
	}); err != nil {
		return err
	}
	return h.podGroupBarrier()
}

// podGroupBarrier returns once the scheduler's PodGroup event handler has
// processed every PodGroup event so far: a throw-away PodGroup round-trips
// through the API server and the scheduler cache, which its handler
// updates first, as barrier does for pods.
func (h *harness) podGroupBarrier() error {
	h.barrierSeq++
	name := fmt.Sprintf("barrier-%d", h.barrierSeq)
	pg := &schedulingv1beta1.PodGroup{ObjectMeta: metav1.ObjectMeta{Namespace: barrierNamespace, Name: name, UID: types.UID(barrierNamespace + "-pg-" + name)}}
	pg.Spec.SchedulingPolicy.Basic = &schedulingv1beta1.BasicSchedulingPolicy{}
	groups := h.api.client.SchedulingV1beta1().PodGroups(barrierNamespace)
	return h.roundTrip("PodGroup", func() error {
		_, err := groups.Create(h.ctx, pg, metav1.CreateOptions{})
		return err
	}, func() error { return groups.Delete(h.ctx, name, metav1.DeleteOptions{}) }, func() bool {
		_, err := h.sched.Cache.PodGroups().Get(barrierNamespace, name)
		return err == nil
	})
}

// roundTrip creates a throw-away object of kind, waits for the
// scheduler's cache to have it (cached), deletes it and waits for the
// cache to drop it: every event of the kind before it is processed.
func (h *harness) roundTrip(kind string, create, del func() error, cached func() bool) error {
	if err := create(); err != nil {
		return fmt.Errorf("creating barrier %s: %w", kind, err)
	}
	if err := h.poll("the scheduler to process "+kind+" events (barrier add)", cached); err != nil {
		return err
	}
	if err := del(); err != nil {
		return fmt.Errorf("deleting barrier %s: %w", kind, err)
	}
	return h.poll("the scheduler to process "+kind+" events (barrier delete)", func() bool { return !cached() })
}

// createLate creates a PodGroup or a CompositePodGroup the API server
// gets after the pods, and waits for the scheduler to have taken it in.
func (h *harness) createLate(obj runtime.Object) error {
	switch o := obj.(type) {
	case *schedulingv1beta1.PodGroup:
		return h.createPodGroup(o)
	case *schedulingv1alpha3.CompositePodGroup:
		return h.createCompositePodGroup(o)
	}
	return fmt.Errorf("upstream: cannot create a late %T", obj)
}

// createCompositePodGroup creates a CompositePodGroup, and waits for the
// scheduler's handler to have taken it in: a throw-away one behind it
// reaches the cache only after it (one handler, in order).
func (h *harness) createCompositePodGroup(cpg *schedulingv1alpha3.CompositePodGroup) error {
	cpg = cpg.DeepCopy()
	cpg.ResourceVersion = ""
	if _, err := h.api.client.SchedulingV1alpha3().CompositePodGroups(cpg.Namespace).Create(h.ctx, cpg, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("upstream: creating CompositePodGroup %s/%s: %w", cpg.Namespace, cpg.Name, err)
	}
	h.barrierSeq++
	name := fmt.Sprintf("barrier-%d", h.barrierSeq)
	b := &schedulingv1alpha3.CompositePodGroup{ObjectMeta: metav1.ObjectMeta{Namespace: barrierNamespace, Name: name, UID: types.UID(barrierNamespace + "-cpg-" + name)}}
	b.Spec.SchedulingPolicy.Basic = &schedulingv1alpha3.CompositeBasicSchedulingPolicy{}
	groups := h.api.client.SchedulingV1alpha3().CompositePodGroups(barrierNamespace)
	if err := h.roundTrip("CompositePodGroup", func() error {
		_, err := groups.Create(h.ctx, b, metav1.CreateOptions{})
		return err
	}, func() error { return groups.Delete(h.ctx, name, metav1.DeleteOptions{}) }, func() bool {
		_, err := h.sched.Cache.CompositePodGroups().Get(barrierNamespace, name)
		return err == nil
	}); err != nil {
		return err
	}
	return h.barrier()
}

// createPodGroup creates a PodGroup the API server gets after the pods,
// and waits for the scheduler to have taken it in.
func (h *harness) createPodGroup(pg *schedulingv1beta1.PodGroup) error {
	pg = pg.DeepCopy()
	pg.ResourceVersion = ""
	created, err := h.api.client.SchedulingV1beta1().PodGroups(pg.Namespace).Create(h.ctx, pg, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("upstream: creating PodGroup %s/%s: %w", pg.Namespace, pg.Name, err)
	}
	if err := h.waitPodGroupInformer(created); err != nil {
		return err
	}
	return h.barrier()
}

// finalState reads every pod and PodGroup from the API server.
func (h *harness) finalState(run *QueueRun) error {
	run.Pods, run.PodGroups = map[string]PodState{}, map[string][]Condition{}
	pods, err := h.api.client.CoreV1().Pods(metav1.NamespaceAll).List(h.ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	for _, p := range pods.Items {
		if p.Namespace == barrierNamespace || p.Status.Phase == v1.PodSucceeded || p.Status.Phase == v1.PodFailed {
			continue
		}
		s := PodState{Node: p.Spec.NodeName, NominatedNode: p.Status.NominatedNodeName}
		for _, c := range p.Status.Conditions {
			if c.Type == v1.PodScheduled {
				s.Scheduled = Condition{Type: string(c.Type), Status: string(c.Status), Reason: c.Reason, Message: c.Message}
			}
		}
		run.Pods[p.Namespace+"/"+p.Name] = s
	}
	groups, err := h.api.client.SchedulingV1beta1().PodGroups(metav1.NamespaceAll).List(h.ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	for _, pg := range groups.Items {
		if pg.Namespace != barrierNamespace {
			run.PodGroups[pg.Namespace+"/"+pg.Name] = conditions(pg.Status.Conditions)
		}
		for _, name := range GroupClaimNames(&pg) {
			c, err := h.api.client.ResourceV1().ResourceClaims(pg.Namespace).Get(h.ctx, name, metav1.GetOptions{})
			switch {
			case apierrors.IsNotFound(err):
				c = nil
			case err != nil:
				return err
			}
			if run.GroupClaims == nil {
				run.GroupClaims = map[string]string{}
			}
			run.GroupClaims[pg.Namespace+"/"+name] = GroupClaimStateOf(c)
		}
	}
	return nil
}

var podGroupsGVR = schedulingv1beta1.SchemeGroupVersion.WithResource("podgroups")

// initiallyScheduled is a PodGroup's PodGroupInitiallyScheduled condition
// as "Status Reason: Message", "" when it has none.
func initiallyScheduled(obj runtime.Object) string {
	pg, ok := obj.(*schedulingv1beta1.PodGroup)
	if !ok {
		return ""
	}
	c := apimeta.FindStatusCondition(pg.Status.Conditions, "PodGroupInitiallyScheduled")
	if c == nil {
		return ""
	}
	return string(c.Status) + " " + c.Reason + ": " + c.Message
}

func conditions(cs []metav1.Condition) []Condition {
	out := []Condition{}
	for _, c := range cs {
		out = append(out, Condition{Type: c.Type, Status: string(c.Status), Reason: c.Reason, Message: c.Message})
	}
	return out
}
