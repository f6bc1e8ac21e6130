package queue_test

import (
	"fmt"
	"math"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/schedtui/schedtui/scheduler/features"
	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/queue"
)

func workloadEnv(t *testing.T) *env {
	t.Helper()
	f := features.Default()
	f.EnableGenericWorkload = true
	return newEnvWithGates(t, f)
}

func member(name, group string) *v1.Pod {
	return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID("uid-" + name)},
		Spec: v1.PodSpec{SchedulerName: v1.DefaultSchedulerName, SchedulingGroup: &v1.PodSchedulingGroup{PodGroupName: &group}}}
}

func gang(name string, minCount int32) *schedulingv1beta1.PodGroup {
	return &schedulingv1beta1.PodGroup{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: schedulingv1beta1.PodGroupSpec{SchedulingPolicy: schedulingv1beta1.PodGroupSchedulingPolicy{
			Gang: &schedulingv1beta1.GangSchedulingPolicy{MinCount: minCount}}}}
}

// observe is the PodGroup add handler: cache, queue, event.
func (e *env) observe(pg *schedulingv1beta1.PodGroup) {
	e.sched.SetPodGroup(pg)
	e.q.AddPodGroup(pg)
	e.q.MoveAllToActiveOrBackoffQueue(queue.EventPodGroupAdd, nil, pg, nil)
}

// addMember is the pending pod add handler with GenericWorkload: cache,
// queue, then the UnscheduledPodAdd event.
func (e *env) addMember(p *v1.Pod) {
	e.sched.SetPendingPod(p)
	e.q.Add(p)
	e.q.MoveAllToActiveOrBackoffQueue(queue.EventUnscheduledPodAdd, nil, p, nil)
}

func (e *env) popGroup() *framework.QueuedPodGroupInfo {
	e.t.Helper()
	en, ok := e.q.Pop()
	g, isGroup := en.(*framework.QueuedPodGroupInfo)
	if !ok || !isGroup {
		e.t.Fatalf("pop: %T %v, want a group", en, ok)
	}
	return g
}

// rejectGroup ends a popped group's cycle as a rejection: every member
// back as unschedulable, then the group requeued.
func (e *env) rejectGroup(g *framework.QueuedPodGroupInfo) {
	e.t.Helper()
	for _, m := range g.Members {
		c := *m
		if err := e.q.AddUnschedulablePodIfNotPresent(&c); err != nil {
			e.t.Fatal(err)
		}
	}
	if err := e.q.AddAttemptedPodGroupIfNeeded(g, framework.NewStatus(framework.Unschedulable)); err != nil {
		e.t.Fatal(err)
	}
}

// A gang is one queue entry: gated at PreEnqueue below minCount, popped
// whole (all members in flight, one scheduling cycle) once complete.
func TestPodGroupQueuedAsOneEntry(t *testing.T) {
	e := workloadEnv(t)
	e.observe(gang("job", 2))
	w0, w1 := member("w0", "job"), member("w1", "job")
	e.addMember(w0)
	if got := e.where(w0); got != queue.Gated || e.q.Poppable() {
		t.Fatalf("w0 alone: %s, poppable %v", got, e.q.Poppable())
	}
	if m := e.lastMove(w0); m.Group != "default/job" || m.GatingPlugin != "GangScheduling" || m.GatingMessage != "waiting for minCount pods from a gang to appear in scheduling queue" {
		t.Errorf("w0's move: %+v", m)
	}
	e.addMember(w1)
	if e.where(w0) != queue.Active || e.where(w1) != queue.Active {
		t.Fatalf("complete gang: w0 %s, w1 %s", e.where(w0), e.where(w1))
	}
	cycle := e.q.SchedulingCycle()
	g := e.popGroup()
	if len(g.Members) != 2 || g.Members[0].Pod.Name != "w0" || g.Attempts != 1 || g.Members[1].Attempts != 1 {
		t.Errorf("popped group: %d members, attempts %d", len(g.Members), g.Attempts)
	}
	if len(e.q.InFlightPods()) != 2 || e.q.SchedulingCycle() != cycle+1 {
		t.Errorf("in flight %d, cycles %d → %d", len(e.q.InFlightPods()), cycle, e.q.SchedulingCycle())
	}
}

// Members failing in a group cycle wait for the cycle's end, then come
// back as one group: backing off after a rejection, straight to activeQ
// after a success (the timestamp kept when some member failed).
func TestPodGroupRequeuedAfterItsCycle(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status *framework.Status
		want   queue.Location
	}{
		{"rejected", framework.NewStatus(framework.Unschedulable), queue.Backoff},
		{"scheduled", nil, queue.Active},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := workloadEnv(t)
			e.observe(gang("job", 1))
			w0, w1 := member("w0", "job"), member("w1", "job")
			e.addMember(w0)
			e.addMember(w1)
			g := e.popGroup()
			e.at(time.Second)
			for _, m := range g.Members {
				c := *m
				if err := e.q.AddUnschedulablePodIfNotPresent(&c); err != nil {
					t.Fatal(err)
				}
				if got := e.where(m.Pod); got != queue.NotQueued {
					t.Errorf("%s pending: %s", m.Pod.Name, got)
				}
			}
			if err := e.q.AddAttemptedPodGroupIfNeeded(g, tc.status); err != nil {
				t.Fatal(err)
			}
			if e.where(w0) != tc.want || e.where(w1) != tc.want {
				t.Errorf("after the cycle: w0 %s, w1 %s, want %s", e.where(w0), e.where(w1), tc.want)
			}
			_, _, _, unsched, inFlight := e.q.Counts()
			if inFlight != 0 || unsched != 0 {
				t.Errorf("in flight %d, unschedulable %d", inFlight, unsched)
			}
			pi, _ := e.q.Get("default", "w0")
			if pi == nil {
				t.Fatal("w0 not queued")
			}
			if err := e.q.AddAttemptedPodGroupIfNeeded(g, tc.status); err == nil {
				t.Error("second requeue of the group accepted")
			}
		})
	}
}

// Members of a PodGroup not yet observed wait outside the queue; the
// PodGroup's arrival queues them, its deletion sends them back.
func TestPodGroupMissingHoldsMembers(t *testing.T) {
	e := workloadEnv(t)
	w0 := member("w0", "late")
	e.addMember(w0)
	if e.q.Poppable() || len(e.q.WaitingForPodGroup()) != 1 || e.lastMove(w0).To != queue.WaitingForPodGroup {
		t.Fatalf("w0 without its group: poppable %v, waiting %d", e.q.Poppable(), len(e.q.WaitingForPodGroup()))
	}
	pg := gang("late", 1)
	e.observe(pg)
	if e.where(w0) != queue.Active || len(e.q.WaitingForPodGroup()) != 0 {
		t.Fatalf("after the PodGroup: %s", e.where(w0))
	}
	e.sched.DeletePodGroup(pg)
	e.q.DeletePodGroup(pg)
	if e.q.Poppable() || len(e.q.WaitingForPodGroup()) != 1 {
		t.Errorf("after the PodGroup's deletion: poppable %v, waiting %d", e.q.Poppable(), len(e.q.WaitingForPodGroup()))
	}
}

// A checkpoint keeps the groups: entries, observed PodGroups, waiting
// members.
func TestPodGroupExportImport(t *testing.T) {
	e := workloadEnv(t)
	e.observe(gang("job", 1))
	e.addMember(member("w0", "job"))
	e.addMember(member("w1", "job"))
	e.addMember(member("x", "late"))
	st, err := e.q.Export()
	if err != nil {
		t.Fatal(err)
	}
	e2 := workloadEnv(t)
	if err := e2.q.Import(st); err != nil {
		t.Fatal(err)
	}
	if len(e2.q.WaitingForPodGroup()) != 1 || len(e2.q.PodGroups()) != 1 {
		t.Errorf("imported: waiting %d, podgroups %d", len(e2.q.WaitingForPodGroup()), len(e2.q.PodGroups()))
	}
	if g := e2.popGroup(); len(g.Members) != 2 {
		t.Errorf("imported group: %d members", len(g.Members))
	}
}

// A group whose cycle succeeded with a member left over comes back to
// activeQ with its timestamp kept, ahead of a group of equal priority
// queued after it, as upstream's nanosecond timestamps order them: the
// virtual clock stands still, the entry keeps its place among ties.
func TestPodGroupKeepsItsPlaceAfterPartialSuccess(t *testing.T) {
	e := workloadEnv(t)
	e.observe(gang("first", 1))
	e.observe(gang("second", 1))
	f0, f1, s0 := member("f0", "first"), member("f1", "first"), member("s0", "second")
	e.addMember(f0)
	e.addMember(f1)
	e.addMember(s0)
	g := e.popGroup()
	if g.Name != "first" {
		t.Fatalf("popped %s first", g.Name)
	}
	c := *g.Members[1]
	if err := e.q.AddUnschedulablePodIfNotPresent(&c); err != nil {
		t.Fatal(err)
	}
	if err := e.q.AddAttemptedPodGroupIfNeeded(g, nil); err != nil {
		t.Fatal(err)
	}
	if g := e.popGroup(); g.Name != "first" || len(g.Members) != 1 || g.Members[0].Pod.Name != "f1" {
		t.Errorf("popped %s (%d members) after the partial success, want first's f1 again", g.Name, len(g.Members))
	}
}

// A rejected group backs off as upstream's calculateBackoffDuration does
// for an entity of several pods: doubling from the initial backoff, capped
// at the maximum times the square root of the queued members (10s·√8 ≈
// 28.3s for a gang of 8, where a pod is capped at 10s).
func TestPodGroupBackoffCappedBySize(t *testing.T) {
	e := workloadEnv(t)
	e.observe(gang("job", 8))
	var members []*v1.Pod
	for i := range 8 {
		p := member(fmt.Sprintf("w%d", i), "job")
		members = append(members, p)
		e.addMember(p)
	}
	groupMax := time.Duration(float64(10*time.Second) * math.Sqrt(8))
	now := time.Duration(0)
	for failures := 1; failures <= 7; failures++ {
		g := e.popGroup()
		e.rejectGroup(g)
		backoff := min(time.Second<<(failures-1), groupMax)
		// Expirations are truncated to the 1s ordering window; a flush
		// releases the group in the window after.
		release := (now + backoff).Truncate(time.Second) + time.Second
		if got, ok := e.q.NextBackoffRelease(); !ok || !got.Equal(start.Add(release)) {
			t.Fatalf("after %d failures at %v: released at %v, want %v (backoff %v)", failures, now, got.Sub(start), release, backoff)
		}
		e.at(release)
		e.q.FlushBackoffQCompleted()
		if got := e.where(members[0]); got != queue.Active {
			t.Fatalf("after %d failures, flushed at %v: %s, want Active", failures, release, got)
		}
		now = release
	}
}

// PopPod on a member of a group queued as one entry pops the group (the
// member's attempt is made in its group's cycle), ahead of the queue's
// order; a member whose group does not wait in activeQ is not popped.
func TestPopPodPopsTheMembersGroup(t *testing.T) {
	e := workloadEnv(t)
	first := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "first", Namespace: "default", UID: "uid-first"},
		Spec: v1.PodSpec{SchedulerName: v1.DefaultSchedulerName}}
	e.addMember(first)
	e.observe(gang("job", 2))
	w0, w1 := member("w0", "job"), member("w1", "job")
	e.addMember(w0)
	e.addMember(w1)
	en, ok := e.q.PopPod("default", "w1")
	g, isGroup := en.(*framework.QueuedPodGroupInfo)
	if !ok || !isGroup || g.Key() != "default/job" || len(g.Members) != 2 {
		t.Fatalf("PopPod(w1) = %T %v, want the group default/job with its 2 members", en, ok)
	}
	if e.where(w0) != queue.InFlight || e.where(w1) != queue.InFlight || g.Attempts != 1 {
		t.Errorf("after PopPod: w0 %s, w1 %s, attempts %d", e.where(w0), e.where(w1), g.Attempts)
	}
	// The cycle's failures come back as the group: PopPod made it the
	// last popped entity, as Pop does.
	e.rejectGroup(g)
	if got := e.where(w0); got != queue.Backoff {
		t.Errorf("after the cycle: w0 %s, want Backoff with its group", got)
	}
	if _, ok := e.q.PopPod("default", "w0"); ok {
		t.Error("PopPod popped a member whose group backs off")
	}
}
