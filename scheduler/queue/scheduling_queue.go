// Package queue is kube-scheduler v1.37's scheduling queue for plain pods
// (upstream's pkg/scheduler/backend/queue), in the same parts: activeQ
// ordered by the profile's QueueSort and the pods in flight
// (active_queue.go), the two backoff heaps with 1-second ordering windows
// (backoff_queue.go), the unschedulable pool with its 5-minute leftover
// flush (unschedulable_pods.go), the nominator (nominator.go), and the
// PriorityQueue tying them together with PreEnqueue gating, queueing hints
// and the in-flight event replay (scheduling_queue.go).
//
// The queue never reads a wall clock, starts no goroutine and never
// sleeps: time comes from Options.Clock, and upstream's two flush loops are
// exposed as FlushBackoffQCompleted / FlushUnschedulablePodsLeftover plus
// the due-time queries NextBackoffRelease / NextUnschedulableTimeout, which
// the engine uses to jump virtual time.
//
// Where upstream depends on Go map order or on timestamps never colliding,
// the queue is deterministic instead: see entry.seq and the unschedulable
// pool's insertion order.
package queue

import (
	"container/list"
	"context"
	"fmt"
	"slices"
	"sort"
	"time"

	v1 "k8s.io/api/core/v1"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/schedtui/schedtui/scheduler/features"
	"github.com/schedtui/schedtui/scheduler/framework"
)

// Constants of scheduling_queue.go and backoff_queue.go.
const (
	DefaultPodInitialBackoffDuration         = 1 * time.Second
	DefaultPodMaxBackoffDuration             = 10 * time.Second
	DefaultPodMaxInUnschedulablePodsDuration = 5 * time.Minute
	// BackoffOrderingWindow is the width of a backoffQ ordering window and
	// the period of the backoffQ flush.
	BackoffOrderingWindow = time.Second
	// UnschedulableFlushPeriod is the period of the leftover flush
	// (wait.Until in PriorityQueue.Run).
	UnschedulableFlushPeriod = 30 * time.Second
)

// Location says where a pod is. Gated pods live in the unschedulable pool
// upstream; Location tells them apart because users ask about them apart.
type Location string

const (
	NotQueued     Location = ""
	Active        Location = "Active"
	Backoff       Location = "Backoff"
	Unschedulable Location = "Unschedulable"
	Gated         Location = "Gated"
	InFlight      Location = "InFlight"
)

// PopLabel marks a plain pop from activeQ in Move.Event. Upstream has no
// label for it (only PopFromBackoffQ); the timeline still wants the move.
const PopLabel = "Pop"

// Move is a pod changing place, with the label of the event that moved it
// (ClusterEvent.Label() for cluster events).
type Move struct {
	Time     time.Time
	Pod      *v1.Pod
	From, To Location
	Event    string
	// GatingPlugin and GatingMessage are set when To is Gated.
	GatingPlugin, GatingMessage string
	// Group is the pod group (namespace/name) moving as one entry with its
	// members, one Move per member; empty for a pod on its own.
	Group string
}

// Profile is what the queue needs from a scheduling profile
// (runtime.Framework implements it).
type Profile interface {
	// RunPreEnqueuePlugins runs the PreEnqueue plugins, gatingFirst first,
	// and returns the first non-success with its plugin name.
	RunPreEnqueuePlugins(ctx context.Context, pod *v1.Pod, gatingFirst string) *framework.Status
	EnqueueExtensions() []framework.EnqueueExtensions
}

// Options configure a PriorityQueue.
type Options struct {
	// Clock is the (virtual) clock. Required.
	Clock func() time.Time
	// Backoff bounds (podInitialBackoffSeconds / podMaxBackoffSeconds);
	// zero means upstream's defaults, 1s and 10s.
	PodInitialBackoffDuration time.Duration
	PodMaxBackoffDuration     time.Duration
	// PodMaxInUnschedulablePodsDuration: zero means 5 minutes.
	PodMaxInUnschedulablePodsDuration time.Duration
	// Less is the QueueSort plugin's Less. Upstream takes it from the first
	// profile (all profiles must share one QueueSort plugin). Required.
	Less func(a, b framework.QueuedEntity) bool
	// Profiles by scheduler name, in a fixed order for reproducible hint
	// maps.
	Profiles     map[string]Profile
	ProfileOrder []string
	// Nominator is kept current as pending pods come and go; nil keeps
	// no nominations.
	Nominator *Nominator
	OnMove    func(Move)
	// Features are the feature gates in effect.
	Features features.Features
}

type strategy int

const (
	queueSkip strategy = iota
	queueAfterBackoff
	queueImmediately
)

// where is the structure holding an entry.
type where uint8

const (
	inNone where = iota
	inActive
	inBackoff
	inErrorBackoff
	inUnschedulable
)

// entry is a queued entity: a pod, or a pod group (GenericWorkload) with
// its queued members. QueueingParams is the pod's or the group's.
type entry struct {
	*framework.QueueingParams
	// pi is the pod of a pod entry, nil for a group.
	pi *framework.QueuedPodInfo
	// group is the pod group of a group entry, nil for a pod.
	group *framework.QueuedPodGroupInfo
	// key is namespace/name for a pod, groupKeyPrefix+namespace/name for a
	// group.
	key string
	// seq orders entries whose Timestamps tie. Upstream's timestamps come
	// from a nanosecond clock and never tie in practice, so two pods with
	// equal priority pop in the order their Timestamp was set; the virtual
	// clock stands still during a burst, so seq (assigned with Timestamp)
	// keeps that order instead of leaving it to the heap's layout.
	seq           uint64
	where         where
	heapIndex     int
	elem          *list.Element
	gatingMessage string
}

func (e *entry) location() Location {
	switch e.where {
	case inActive:
		return Active
	case inBackoff, inErrorBackoff:
		return Backoff
	case inUnschedulable:
		if e.Gated() {
			return Gated
		}
		return Unschedulable
	}
	return NotQueued
}

// hintFn is a registered queueing hint with its plugin.
type hintFn struct {
	plugin string
	fn     framework.QueueingHintFn
}

// registration is one registered event and the hints behind it, in
// registration order (upstream uses a map; the outcome does not depend on
// the order, the sequence of hint calls does).
type registration struct {
	event framework.ClusterEvent
	fns   []hintFn
}

// PriorityQueue is the scheduling queue. It is not safe for concurrent use:
// the engine drives it from one goroutine.
type PriorityQueue struct {
	opts Options

	pods              map[string]*entry // queued (not in flight), by namespace/name
	activeQ           *activeQueue
	backoffQ          *backoffQueue
	unschedulablePods *unschedulablePods

	hints          map[string][]registration // by profile
	pluginToEvents map[string][]framework.ClusterEvent
	interest       map[framework.ClusterEvent]map[string]sets.Set[string] // event -> profile -> plugins

	seq uint64

	// Pod groups (pod_groups.go): the observed PodGroups (upstream's
	// workloadForest, workload_forest.go) by key, the CompositePodGroups
	// above them (CompositePodGroup) by key, members waiting for their
	// PodGroup, members waiting for their in-flight group, and the entry
	// popped last (a group's, while its cycle runs).
	podGroups      map[string]*schedulingv1beta1.PodGroup
	composites     map[string]*schedulingv1alpha3.CompositePodGroup
	incomplete     memberPods
	pendingMembers memberPods
	lastPopped     string
	// lastPoppedSeq is the popped entry's seq: a group requeued with its
	// timestamp preserved keeps its place among the entries whose
	// timestamps tie with it (see entry.seq).
	lastPoppedSeq uint64
}

// New builds a queue over the profiles' registered events.
func New(opts Options) (*PriorityQueue, error) {
	if opts.Clock == nil || opts.Less == nil {
		return nil, fmt.Errorf("queue: Clock and Less are required")
	}
	q := &PriorityQueue{
		opts:           opts,
		pods:           map[string]*entry{},
		hints:          map[string][]registration{},
		pluginToEvents: map[string][]framework.ClusterEvent{},
		interest:       map[framework.ClusterEvent]map[string]sets.Set[string]{},
		podGroups:      map[string]*schedulingv1beta1.PodGroup{},
		composites:     map[string]*schedulingv1alpha3.CompositePodGroup{},
		incomplete:     memberPods{},
		pendingMembers: memberPods{},
	}
	initialBO, maxBO, maxUnsched := opts.PodInitialBackoffDuration, opts.PodMaxBackoffDuration, opts.PodMaxInUnschedulablePodsDuration
	if initialBO <= 0 {
		initialBO = DefaultPodInitialBackoffDuration
	}
	if maxBO <= 0 {
		maxBO = DefaultPodMaxBackoffDuration
	}
	if maxUnsched <= 0 {
		maxUnsched = DefaultPodMaxInUnschedulablePodsDuration
	}
	q.activeQ = newActiveQueue(q.activeLess)
	q.backoffQ = newBackoffQueue(opts.Clock, initialBO, maxBO, q.activeLess, opts.Features.EnableSchedulerPopFromBackoffQ)
	q.unschedulablePods = newUnschedulablePods(maxUnsched)
	order := opts.ProfileOrder
	if len(order) == 0 {
		for name := range opts.Profiles {
			order = append(order, name)
		}
		sort.Strings(order)
	}
	for _, name := range order {
		p := opts.Profiles[name]
		if p == nil {
			continue
		}
		regs, err := buildHints(p.EnqueueExtensions())
		if err != nil {
			return nil, fmt.Errorf("profile %q: %w", name, err)
		}
		q.hints[name] = regs
		for _, r := range regs {
			for _, f := range r.fns {
				q.pluginToEvents[f.plugin] = append(q.pluginToEvents[f.plugin], r.event)
			}
		}
	}
	return q, nil
}

// buildHints is buildQueueingHintMap: a nil hint always queues, Pod
// registrations are unrolled into their three flavours, and a plugin that
// registers no event is left out (only a self-update can requeue its pods).
func buildHints(exts []framework.EnqueueExtensions) ([]registration, error) {
	var regs []registration
	index := map[framework.ClusterEvent]int{}
	add := func(ev framework.ClusterEvent, h hintFn) {
		i, ok := index[ev]
		if !ok {
			i = len(regs)
			index[ev] = i
			regs = append(regs, registration{event: ev})
		}
		regs[i].fns = append(regs[i].fns, h)
	}
	for _, e := range exts {
		events, err := e.EventsToRegister(context.Background())
		if err != nil {
			return nil, err
		}
		for _, ev := range events {
			fn := ev.QueueingHintFn
			if fn == nil {
				fn = func(*v1.Pod, any, any) (framework.QueueingHint, error) { return framework.Queue, nil }
			}
			h := hintFn{plugin: e.Name(), fn: fn}
			if ev.Event.Resource == framework.Pod {
				for _, u := range unrollPodEvent(ev.Event) {
					add(u, h)
				}
			} else {
				add(ev.Event, h)
			}
		}
	}
	return regs, nil
}

func (q *PriorityQueue) now() time.Time { return q.opts.Clock() }

func (q *PriorityQueue) emit(e *entry, from, to Location, event string) {
	if q.opts.OnMove == nil || from == to {
		return
	}
	for _, pi := range e.podInfos() {
		m := Move{Time: q.now(), Pod: pi.Pod, From: from, To: to, Event: event}
		if e.group != nil {
			m.Group = e.group.Key()
		}
		if to == Gated {
			m.GatingPlugin, m.GatingMessage = e.GatingPlugin, e.gatingMessage
		}
		q.opts.OnMove(m)
	}
}

// BackoffDuration is calculateBackoffDuration for a pod that failed count
// times: initial backoff doubled per failure after the first, capped at
// the maximum.
func (q *PriorityQueue) BackoffDuration(count int) time.Duration {
	return q.backoffQ.calculateBackoffDuration(count, 1)
}

// BackoffExpiration is when a pod's backoff ends (zero if it never
// failed), as the queue computes it.
func (q *PriorityQueue) BackoffExpiration(pi *framework.QueuedPodInfo) time.Time {
	return q.backoffQ.expiration(pi)
}

// GroupBackoffExpiration is when a group entry's backoff ends (zero if it
// never failed), its members counted as the queue counts them; g is left
// as it is.
func (q *PriorityQueue) GroupBackoffExpiration(g *framework.QueuedPodGroupInfo) time.Time {
	params := g.QueueingParams
	return q.backoffQ.backoffTime(&entry{QueueingParams: &params, group: g})
}

func (q *PriorityQueue) newEntry(pi *framework.QueuedPodInfo) *entry {
	q.seq++
	return &entry{QueueingParams: &pi.QueueingParams, pi: pi, key: podKey(pi.Pod), seq: q.seq, heapIndex: -1}
}

// entity is what QueueSort orders: the pod or the group.
func (e *entry) entity() framework.QueuedEntity {
	if e.group != nil {
		return e.group
	}
	return e.pi
}

// size is upstream's QueuedEntityInfo.Size: 1 for a pod, the queued
// members for a group (it stretches the group's maximum backoff).
func (e *entry) size() int {
	if e.group != nil {
		return e.group.Size()
	}
	return 1
}

// podInfos are the entry's pods: the pod, or the group's queued members.
func (e *entry) podInfos() []*framework.QueuedPodInfo {
	if e.group != nil {
		return e.group.Members
	}
	return []*framework.QueuedPodInfo{e.pi}
}

func podKey(p *v1.Pod) string { return p.Namespace + "/" + p.Name }

// detach takes an entry out of whatever structure holds it.
func (q *PriorityQueue) detach(e *entry) {
	switch e.where {
	case inActive:
		q.activeQ.queue.remove(e)
	case inBackoff, inErrorBackoff:
		q.backoffQ.heapOf(e).remove(e)
	case inUnschedulable:
		q.unschedulablePods.delete(e)
	}
	if e.where != inNone {
		delete(q.pods, e.key)
	}
	e.where = inNone
}

func (q *PriorityQueue) putActive(e *entry) {
	q.detach(e)
	e.where = inActive
	q.pods[e.key] = e
	q.activeQ.queue.add(e)
}

// putBackoff puts the entry in backoffQ: the error heap, never popped
// early, when it failed with an error.
func (q *PriorityQueue) putBackoff(e *entry) {
	q.detach(e)
	q.pods[e.key] = e
	q.backoffQ.add(e)
}

// putUnschedulable adds or keeps the entry in the pool; an entry already
// there keeps its place in the iteration order.
func (q *PriorityQueue) putUnschedulable(e *entry) {
	if e.where == inUnschedulable {
		return
	}
	q.detach(e)
	q.pods[e.key] = e
	q.unschedulablePods.add(e)
}

// runPreEnqueue runs the pod's profile's PreEnqueue plugins, the gating
// plugin first; a rejection gates the pod and joins its rejector plugins.
// A group runs them for every member, as upstream's runPreEnqueuePlugins
// does for an entity: any gated member gates the group, with the last
// gated member's plugin.
func (q *PriorityQueue) runPreEnqueue(e *entry) {
	if e.group == nil {
		e.gatingMessage = q.runPreEnqueueForPod(e.pi)
		return
	}
	plugin, msg := "", ""
	for _, m := range e.group.Members {
		if mm := q.runPreEnqueueForPod(m); m.Gated() {
			plugin, msg = m.GatingPlugin, mm
		}
	}
	e.GatingPlugin, e.gatingMessage = plugin, msg
}

// runPreEnqueueForPod is runPreEnqueuePluginsForPod: it sets or clears the
// pod's gating plugin and returns the gating message.
func (q *PriorityQueue) runPreEnqueueForPod(pi *framework.QueuedPodInfo) string {
	p := q.opts.Profiles[pi.Pod.Spec.SchedulerName]
	if p == nil {
		pi.GatingPlugin = ""
		return ""
	}
	st := p.RunPreEnqueuePlugins(context.Background(), pi.Pod, pi.GatingPlugin)
	if st.IsSuccess() {
		pi.GatingPlugin = ""
		return ""
	}
	if pi.UnschedulablePlugins == nil {
		pi.UnschedulablePlugins = sets.New[string]()
	}
	pi.UnschedulablePlugins.Insert(st.Plugin())
	pi.GatingPlugin = st.Plugin()
	return st.Message()
}

// moveToActiveQ runs PreEnqueue (unless the pod comes straight from
// backoffQ, where with SchedulerPopFromBackoffQ it ran on insertion) and
// puts the pod in activeQ, or in the unschedulable pool when gated. It
// reports whether it reached activeQ.
func (q *PriorityQueue) moveToActiveQ(e *entry, event string, fromBackoff bool, from Location) bool {
	if !fromBackoff || !q.opts.Features.EnableSchedulerPopFromBackoffQ {
		q.runPreEnqueue(e)
	}
	if e.Gated() {
		// A flushed pod that is still gated never gets an attempt that
		// would clear the flag.
		e.WasFlushedFromUnschedulable = false
		q.putUnschedulable(e)
		q.emit(e, from, Gated, event)
		return false
	}
	if e.InitialAttemptTimestamp == nil {
		now := q.now()
		e.InitialAttemptTimestamp = &now
	}
	q.putActive(e)
	q.emit(e, from, Active, event)
	return true
}

// moveToBackoffQ runs PreEnqueue first with SchedulerPopFromBackoffQ
// (which pops without it); without the gate PreEnqueue waits for the move
// to activeQ.
func (q *PriorityQueue) moveToBackoffQ(e *entry, event string, from Location) bool {
	if q.opts.Features.EnableSchedulerPopFromBackoffQ {
		q.runPreEnqueue(e)
	}
	if q.opts.Features.EnableSchedulerPopFromBackoffQ && e.Gated() {
		e.WasFlushedFromUnschedulable = false
		q.putUnschedulable(e)
		q.emit(e, from, Gated, event)
		return false
	}
	q.putBackoff(e)
	q.emit(e, from, Backoff, event)
	return true
}

// requeue is requeueEntityWithQueueingStrategy.
func (q *PriorityQueue) requeue(e *entry, s strategy, event string, from Location) Location {
	if s == queueSkip {
		q.putUnschedulable(e)
		to := e.location()
		q.emit(e, from, to, event)
		return to
	}
	if s == queueAfterBackoff && q.backoffQ.isPodBackingoff(e) {
		if q.moveToBackoffQ(e, event, from) {
			return Backoff
		}
		return Gated
	}
	if q.moveToActiveQ(e, event, false, from) {
		return Active
	}
	return Gated
}

// Add queues a new pending pod (informer add): nominated as its status
// says, then PreEnqueue'd into activeQ or the gated pool.
func (q *PriorityQueue) Add(pod *v1.Pod) {
	if old, ok := q.pods[podKey(pod)]; ok {
		// Upstream assumes a fresh pod; a duplicate replaces the old one.
		q.detach(old)
	}
	pi := &framework.QueuedPodInfo{PodInfo: framework.NewPodInfo(pod), QueueingParams: framework.QueueingParams{Timestamp: q.now(),
		UnschedulablePlugins: sets.New[string](), PendingPlugins: sets.New[string]()}}
	if q.opts.Nominator != nil {
		q.opts.Nominator.AddNominatedPod(pi.PodInfo, nil)
	}
	if q.isPodGroupMember(pod) {
		q.addPodGroupMember(pi, NotQueued)
		return
	}
	e := q.newEntry(pi)
	q.moveToActiveQ(e, EventUnscheduledPodAdd.Label(), false, NotQueued)
}

// Pop removes the head of activeQ or, when activeQ is empty, the head of
// the plugin-rejected backoff heap even if its backoff has not expired
// (SchedulerPopFromBackoffQ); the error heap is never popped early. It
// returns false when nothing is poppable (upstream would block).
//
// The entity popped is a *framework.QueuedPodInfo or, for a pod group
// (GenericWorkload), a *framework.QueuedPodGroupInfo whose members are all
// in flight; the group cycle ends with AddAttemptedPodGroupIfNeeded.
func (q *PriorityQueue) Pop() (framework.QueuedEntity, bool) {
	for {
		e, from, label := q.activeQ.queue.peek(), Active, PopLabel
		if e == nil && q.opts.Features.EnableSchedulerPopFromBackoffQ {
			e, from, label = q.backoffQ.podBackoffQ.peek(), Backoff, PopFromBackoffQ
		}
		if e == nil {
			return nil, false
		}
		// Upstream discards a pod tracked twice and pops the next one.
		if q.take(e, from, label) {
			return e.entity(), true
		}
	}
}

// take moves the entry e, waiting at from, in flight as a pop does:
// every pod of it tracked, its attempts counted, the move told. false:
// nothing of it could be tracked (a pod in flight already), e is gone.
func (q *PriorityQueue) take(e *entry, from Location, label string) bool {
	q.detach(e)
	if e.group != nil {
		if !q.startGroupInFlight(e) {
			return false
		}
	} else if !q.activeQ.startInFlight(e.pi.Pod) {
		return false
	}
	e.Attempts++
	q.lastPopped, q.lastPoppedSeq = e.key, e.seq
	q.emit(e, from, InFlight, label)
	return true
}

// Poppable reports whether Pop would return a pod.
func (q *PriorityQueue) Poppable() bool {
	return q.activeQ.queue.Len() > 0 || (q.opts.Features.EnableSchedulerPopFromBackoffQ && q.backoffQ.podBackoffQ.Len() > 0)
}

// SchedulingCycle counts pops.
func (q *PriorityQueue) SchedulingCycle() int64 { return q.activeQ.schedulingCycle }

// Done ends a pod's in-flight tracking and drops the recorded events no
// remaining in-flight pod needs.
func (q *PriorityQueue) Done(uid types.UID) { q.activeQ.done(uid) }

// InFlightPods lists the pods being scheduled, in pop order.
func (q *PriorityQueue) InFlightPods() []*v1.Pod { return q.activeQ.listInFlightPods() }

// AddUnschedulablePodIfNotPresent requeues a pod after a failed attempt:
// counters, Timestamp refreshed, backoff recomputed, then the events seen
// while it was in flight decide between the unschedulable pool, backoffQ
// and activeQ. Done is called in every case.
func (q *PriorityQueue) AddUnschedulablePodIfNotPresent(pi *framework.QueuedPodInfo) error {
	defer q.Done(pi.Pod.UID)
	if e, ok := q.pods[podKey(pi.Pod)]; ok {
		switch e.where {
		case inUnschedulable:
			return fmt.Errorf("pod %s is already present in unschedulable queue", podKey(pi.Pod))
		case inActive:
			return fmt.Errorf("pod %s is already present in the active queue", podKey(pi.Pod))
		default:
			return fmt.Errorf("pod %s is already present in the backoff queue", podKey(pi.Pod))
		}
	}
	if pi.UnschedulablePlugins == nil {
		pi.UnschedulablePlugins = sets.New[string]()
	}
	if pi.PendingPlugins == nil {
		pi.PendingPlugins = sets.New[string]()
	}
	if pi.UnschedulablePlugins.Len() == 0 && pi.PendingPlugins.Len() == 0 {
		pi.ConsecutiveErrorsCount++
	} else {
		pi.UnschedulableCount++
		pi.ConsecutiveErrorsCount = 0
	}
	pi.Timestamp = q.now()
	pi.BackoffExpiration = time.Time{}
	pi.WasFlushedFromUnschedulable = false
	pi.FlushTimestamp = time.Time{}
	if q.isPodGroupMember(pi.Pod) {
		// Back with its group: pending while the group is in flight, the
		// group cycle's end (AddAttemptedPodGroupIfNeeded) requeues it.
		q.Done(pi.Pod.UID)
		q.addPodGroupMember(pi, InFlight)
		return nil
	}
	q.lastPopped = ""
	e := q.newEntry(pi)
	q.requeue(e, q.hintForInFlightPod(e), ScheduleAttemptFailure, InFlight)
	return nil
}

// hintForInFlightPod is determineSchedulingHintForInFlightPod: a pod that
// failed without rejector plugins (an error) retries after backoff; else
// the events recorded since its pop decide.
func (q *PriorityQueue) hintForInFlightPod(e *entry) strategy {
	if e.UnschedulablePlugins.Len() == 0 && e.PendingPlugins.Len() == 0 {
		return queueAfterBackoff
	}
	f, ok := q.activeQ.inFlightPods[e.pi.Pod.UID]
	if !ok {
		// Upstream logs "in flight entity isn't found" and retries.
		return queueAfterBackoff
	}
	s := queueSkip
	for el := f.elem.Next(); el != nil; el = el.Next() {
		ev, isEvent := el.Value.(*inFlightEvent)
		if !isEvent {
			continue
		}
		switch q.worthRequeuing(e, ev.event, ev.oldObj, ev.newObj) {
		case queueImmediately:
			return queueImmediately
		case queueAfterBackoff:
			s = queueAfterBackoff
			if e.PendingPlugins.Len() == 0 {
				return queueAfterBackoff
			}
		}
	}
	return s
}

// worthRequeuing is isEntityWorthRequeuing: a pod's own hints decide; for
// a group, the best strategy of any member.
func (q *PriorityQueue) worthRequeuing(e *entry, event framework.ClusterEvent, oldObj, newObj any) strategy {
	if e.group == nil {
		return q.podWorthRequeuing(e.pi, event, oldObj, newObj)
	}
	best := queueSkip
	for _, m := range e.group.Members {
		best = max(best, q.podWorthRequeuing(m, event, oldObj, newObj))
		if best == queueImmediately {
			break
		}
	}
	return best
}

// podWorthRequeuing is isPodWorthRequeuing: the hints of the pod's
// rejector plugins registered for a matching event decide; Queue from a
// Pending plugin skips backoff; a hint error counts as Queue.
func (q *PriorityQueue) podWorthRequeuing(e *framework.QueuedPodInfo, event framework.ClusterEvent, oldObj, newObj any) strategy {
	if e.UnschedulablePlugins.Len() == 0 && e.PendingPlugins.Len() == 0 {
		return queueAfterBackoff
	}
	if IsWildCard(event) {
		// A wildcard event with a pod in newObj targets that pod only
		// (ForceActivate).
		if newObj != nil {
			if p, ok := newObj.(*v1.Pod); !ok || p.UID != e.Pod.UID {
				return queueSkip
			}
		}
		return queueAfterBackoff
	}
	profile := e.Pod.Spec.SchedulerName
	regs, ok := q.hints[profile]
	if !ok {
		return queueAfterBackoff
	}
	if !q.anyRejectorInterested(e, event, profile) {
		return queueSkip
	}
	s := queueSkip
	for _, r := range regs {
		if !MatchClusterEvents(r.event, event) {
			continue
		}
		for _, h := range r.fns {
			if !e.UnschedulablePlugins.Has(h.plugin) && !e.PendingPlugins.Has(h.plugin) {
				continue
			}
			hint, err := h.fn(e.Pod, oldObj, newObj)
			if err != nil {
				// An erroring hint must not strand the pod.
				hint = framework.Queue
			}
			if hint == framework.QueueSkip {
				continue
			}
			if e.PendingPlugins.Has(h.plugin) {
				return queueImmediately
			}
			if e.PendingPlugins.Len() == 0 {
				return queueAfterBackoff
			}
			s = queueAfterBackoff
		}
	}
	return s
}

// anyRejectorInterested is a shortcut with the same outcome as the loop
// in worthRequeuing: without a matching registration from one of the
// pod's rejector plugins, every hint is skipped.
func (q *PriorityQueue) anyRejectorInterested(e *framework.QueuedPodInfo, event framework.ClusterEvent, profile string) bool {
	byProfile, ok := q.interest[event]
	if !ok {
		byProfile = map[string]sets.Set[string]{}
		for name, regs := range q.hints {
			s := sets.New[string]()
			for _, r := range regs {
				if MatchClusterEvents(r.event, event) {
					for _, h := range r.fns {
						s.Insert(h.plugin)
					}
				}
			}
			byProfile[name] = s
		}
		q.interest[event] = byProfile
	}
	plugins := byProfile[profile]
	for p := range e.UnschedulablePlugins {
		if plugins.Has(p) {
			return true
		}
	}
	for p := range e.PendingPlugins {
		if plugins.Has(p) {
			return true
		}
	}
	return false
}

// isEventOfInterest: wildcard events always are; others only if some
// profile registered a matching event.
func (q *PriorityQueue) isEventOfInterest(event framework.ClusterEvent) bool {
	if IsWildCard(event) {
		return true
	}
	for _, regs := range q.hints {
		for _, r := range regs {
			if MatchClusterEvents(r.event, event) {
				return true
			}
		}
	}
	return false
}

// Activate moves pods from the unschedulable pool or backoffQ to activeQ
// (ForceActivate); for an in-flight pod it records a targeted wildcard
// event so that its failure handling requeues it.
func (q *PriorityQueue) Activate(pods []*v1.Pod) {
	for _, pod := range pods {
		e, ok := q.lookup(pod)
		switch {
		case ok && e.where == inUnschedulable:
			q.moveToActiveQ(e, ForceActivate, false, e.location())
		case ok && (e.where == inBackoff || e.where == inErrorBackoff):
			q.moveToActiveQ(e, ForceActivate, true, Backoff)
		default:
			q.activeQ.addEventsIfPodInFlight(nil, pod, []framework.ClusterEvent{EventForceActivate})
		}
	}
}

// Update applies an update of a pending pod (informer update): recorded
// for an in-flight pod; in place in activeQ/backoffQ; for a pod in the
// unschedulable pool, its hints may requeue it; otherwise it is added.
// Pass nil oldObj/newObj interfaces, never typed nils, to hint functions:
// Update takes pods, so both are set.
func (q *PriorityQueue) Update(oldPod, newPod *v1.Pod) {
	events := PodSchedulingPropertiesChange(newPod, oldPod, true, q.opts.Features)
	if q.activeQ.addEventsIfPodInFlight(oldPod, newPod, events) {
		return
	}
	e, ok := q.lookup(oldPod)
	if !ok {
		if pi := q.updateWaitingMember(newPod); pi != nil {
			if q.opts.Nominator != nil {
				q.opts.Nominator.UpdateNominatedPod(oldPod, pi.PodInfo)
			}
			return
		}
		q.Add(newPod)
		return
	}
	pi := e.pi
	if e.group != nil {
		if pi = e.group.Member(oldPod.Namespace, oldPod.Name); pi == nil {
			q.Add(newPod)
			return
		}
		e.group.UpdateMember(newPod)
	} else {
		pi.PodInfo = framework.NewPodInfo(newPod)
	}
	if q.opts.Nominator != nil {
		q.opts.Nominator.UpdateNominatedPod(oldPod, pi.PodInfo)
	}
	switch e.where {
	case inActive:
		q.activeQ.queue.fix(e)
		return
	case inBackoff, inErrorBackoff:
		q.backoffQ.heapOf(e).fix(e)
		return
	}
	for _, ev := range events {
		from := e.location()
		to := q.requeue(e, q.worthRequeuing(e, ev, oldPod, newPod), ev.Label(), from)
		if to == Active || to == Backoff {
			break
		}
	}
}

// Delete removes a pending pod (informer delete, or the pod got a node).
func (q *PriorityQueue) Delete(pod *v1.Pod) {
	if q.opts.Nominator != nil {
		q.opts.Nominator.DeleteNominatedPodIfExists(pod)
	}
	if q.isPodGroupMember(pod) {
		q.deletePodGroupMember(pod)
		return
	}
	if e, ok := q.pods[podKey(pod)]; ok {
		from := e.location()
		q.detach(e)
		q.emit(e, from, NotQueued, EventUnscheduledPodDelete.Label())
	}
}

// PreEnqueueCheck filters the pods a MoveAll considers.
type PreEnqueueCheck func(pod *v1.Pod) bool

// MoveAllToActiveOrBackoffQueue offers a cluster event to every pod in the
// unschedulable pool that passes preCheck (in pool order), and records it
// for the pods in flight.
func (q *PriorityQueue) MoveAllToActiveOrBackoffQueue(event framework.ClusterEvent, oldObj, newObj any, preCheck PreEnqueueCheck) {
	if !q.isEventOfInterest(event) {
		return
	}
	var es []*entry
	q.unschedulablePods.each(func(e *entry) {
		if preCheck == nil || slices.ContainsFunc(e.podInfos(), func(pi *framework.QueuedPodInfo) bool { return preCheck(pi.Pod) }) {
			es = append(es, e)
		}
	})
	q.moveEntities(es, event, oldObj, newObj)
}

func (q *PriorityQueue) moveEntities(es []*entry, event framework.ClusterEvent, oldObj, newObj any) {
	if !q.isEventOfInterest(event) {
		return
	}
	wild := IsWildCard(event)
	for _, e := range es {
		// A gated pod only wakes up for its gating plugin's events (or a
		// wildcard: flushes must not leave pods stuck on a wrong hint).
		if e.Gated() && !wild && !matchAny(event, q.pluginToEvents[e.GatingPlugin]) {
			continue
		}
		s := q.worthRequeuing(e, event, oldObj, newObj)
		if s == queueSkip {
			continue
		}
		from := e.location()
		q.detach(e)
		q.requeue(e, s, event.Label(), from)
	}
	q.activeQ.addEventIfAnyInFlight(oldObj, newObj, event)
}

// FlushBackoffQCompleted moves every pod whose backoff has completed from
// both heaps to activeQ (PreEnqueue is re-run only without
// SchedulerPopFromBackoffQ: with it, it ran on insertion).
func (q *PriorityQueue) FlushBackoffQCompleted() {
	for _, e := range q.backoffQ.popEachBackoffCompleted() {
		e.where = inNone
		delete(q.pods, e.key)
		q.moveToActiveQ(e, BackoffComplete, true, Backoff)
	}
}

// FlushUnschedulablePodsLeftover moves the pods that have sat in the
// unschedulable pool (gated ones included) for longer than the maximum
// since their last attempt or flush, with the wildcard UnschedulableTimeout
// event.
func (q *PriorityQueue) FlushUnschedulablePodsLeftover() {
	now := q.now()
	move := q.unschedulablePods.leftover(now)
	for _, e := range move {
		e.WasFlushedFromUnschedulable = true
		e.FlushTimestamp = now
	}
	if len(move) > 0 {
		q.moveEntities(move, EventUnschedulableTimeout, nil, nil)
	}
}

// NextBackoffRelease is the earliest time a backoffQ flush tick releases a
// pod: the window after its expiration. ok is false when backoffQ is
// empty; a zero time means the next tick, whenever it comes.
func (q *PriorityQueue) NextBackoffRelease() (time.Time, bool) { return q.backoffQ.nextRelease() }

// NextUnschedulableTimeout is the earliest instant after which a leftover
// flush moves some pod: a flush at a time strictly later than the returned
// one does. ok is false when the pool is empty.
func (q *PriorityQueue) NextUnschedulableTimeout() (time.Time, bool) {
	return q.unschedulablePods.nextTimeout()
}

// MaxInUnschedulable is the pool's maximum stay.
func (q *PriorityQueue) MaxInUnschedulable() time.Duration {
	return q.unschedulablePods.maxInUnschedulable
}

// PodInfo returns the queue's current PodInfo of a queued pod (activeQ,
// backoffQ or the unschedulable pool, alone or with its group), as the
// nominator resolves its refs.
func (q *PriorityQueue) PodInfo(namespace, name string) (*framework.PodInfo, bool) {
	if pi, _ := q.Get(namespace, name); pi != nil {
		return pi.PodInfo, true
	}
	return nil, false
}

// Get returns a queued pod's bookkeeping and location; a group member's
// location is its group's, and a member waiting for its PodGroup (or for
// its group's cycle to end) is NotQueued with its bookkeeping.
func (q *PriorityQueue) Get(namespace, name string) (*framework.QueuedPodInfo, Location) {
	if e, ok := q.pods[namespace+"/"+name]; ok {
		return e.pi, e.location()
	}
	for _, f := range q.activeQ.inFlightPods {
		if f.pod.Namespace == namespace && f.pod.Name == name {
			return nil, InFlight
		}
	}
	if pi, e := q.findMember(namespace, name); pi != nil {
		if e != nil {
			return pi, e.location()
		}
		return pi, NotQueued
	}
	return nil, NotQueued
}

// Entry is a queued entity as listed by Contents: a pod (Info), or a pod
// group (Group) with its queued members.
type Entry struct {
	Info          *framework.QueuedPodInfo
	Group         *framework.QueuedPodGroupInfo
	Location      Location
	GatingMessage string
}

func (e *entry) listed(loc Location) Entry {
	en := Entry{Info: e.pi, Group: e.group, Location: loc}
	if loc == Gated {
		en.GatingMessage = e.gatingMessage
	}
	return en
}

// Contents lists the queue: activeQ in pop order; backoffQ in release
// order (the plugin heap, then the error heap); the unschedulable pool
// (gated pods included) in pool order.
func (q *PriorityQueue) Contents() (active, backoff, unschedulable []Entry) {
	for _, e := range q.activeQ.queue.sorted() {
		active = append(active, e.listed(Active))
	}
	for _, h := range q.backoffQ.heaps() {
		for _, e := range h.sorted() {
			backoff = append(backoff, e.listed(Backoff))
		}
	}
	q.unschedulablePods.each(func(e *entry) {
		en := e.listed(e.location())
		en.GatingMessage = e.gatingMessage
		unschedulable = append(unschedulable, en)
	})
	return active, backoff, unschedulable
}

// Len counts queued entities (not in flight).
func (q *PriorityQueue) Len() int { return len(q.pods) }

// Counts returns how many entities each structure holds.
func (q *PriorityQueue) Counts() (active, backoff, errorBackoff, unschedulable, inFlight int) {
	return q.activeQ.queue.Len(), q.backoffQ.podBackoffQ.Len(), q.backoffQ.podErrorBackoffQ.Len(), q.unschedulablePods.pods.Len(), len(q.activeQ.inFlightPods)
}

// ForEachUnschedulable visits the pods of the unschedulable pool in
// order, a group's members one by one.
func (q *PriorityQueue) ForEachUnschedulable(fn func(pi *framework.QueuedPodInfo)) {
	q.unschedulablePods.each(func(e *entry) {
		for _, pi := range e.podInfos() {
			fn(pi)
		}
	})
}

// ForEachErrorBackoff visits the pods of the error heap.
func (q *PriorityQueue) ForEachErrorBackoff(fn func(pi *framework.QueuedPodInfo)) {
	for _, e := range q.backoffQ.podErrorBackoffQ.items {
		for _, pi := range e.podInfos() {
			fn(pi)
		}
	}
}

// BackoffHeapLen is the length of the plugin-rejected heap.
func (q *PriorityQueue) BackoffHeapLen() int { return q.backoffQ.podBackoffQ.Len() }
