package engine

import (
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/schedtui/schedtui/scheduler/change"
	"github.com/schedtui/schedtui/scheduler/history"
)

// bindTo is the cluster's update of a pod its scheduler bound.
func bindTo(e *Engine, pod, node string) *v1.Pod {
	p := e.Pod(pod).DeepCopy()
	p.Spec.NodeName = node
	p.ResourceVersion += "1"
	return p
}

// unschedulableUpdate is the cluster scheduler's status update of a pod it
// could not place.
func unschedulableUpdate(e *Engine, pod, msg string) *v1.Pod {
	p := e.Pod(pod).DeepCopy()
	p.Spec.NodeName = ""
	p.Status.Conditions = []v1.PodCondition{{Type: v1.PodScheduled, Status: v1.ConditionFalse, Reason: v1.PodReasonUnschedulable, Message: msg}}
	p.ResourceVersion += "2"
	return p
}

func lastObservation(t *testing.T, e *Engine) history.Event {
	t.Helper()
	obs := e.Observations()
	if len(obs) == 0 {
		t.Fatal("no observation")
	}
	return obs[len(obs)-1]
}

func TestObservations(t *testing.T) {
	// big has twice small's room: LeastAllocated prefers it.
	yaml := listHeader + nodeYAML("big", "8", "") + nodeYAML("small", "4", "") + nodeYAML("tainted", "8", "taints: [{key: k, effect: NoSchedule}]") +
		podYAML("early", "1", 0, "") + podYAML("agree", "1", 0, "") + podYAML("moved", "1", 0, "") + podYAML("stuck", "1", 0, "")

	t.Run("bound by the cluster before schedtui tried", func(t *testing.T) {
		e := load(t, yaml, Options{})
		if err := e.Apply(change.Change{Kind: change.PodUpdate, Pod: bindTo(e, "default/early", "small")}); err != nil {
			t.Fatal(err)
		}
		o := lastObservation(t, e)
		if o.Reason != string(Disagree) || o.Predicted != "big" || o.Node != "small" || o.Attempt != -1 ||
			!strings.Contains(o.Message, "small scores") {
			t.Errorf("observation %+v", o)
		}
		if p := e.Pod("default/early"); p.Spec.NodeName != "small" {
			t.Errorf("pod on %q, the cluster bound it to small", p.Spec.NodeName)
		}
		// Binding onto a node schedtui's filters reject.
		if err := e.Apply(change.Change{Kind: change.PodUpdate, Pod: bindTo(e, "default/agree", "tainted")}); err != nil {
			t.Fatal(err)
		}
		if o := lastObservation(t, e); o.Reason != string(Disagree) || !strings.Contains(o.Message, "TaintToleration rejects tainted") {
			t.Errorf("observation %+v", o)
		}
	})

	t.Run("schedtui bound first", func(t *testing.T) {
		e := load(t, yaml, Options{})
		var placed = map[string]string{}
		for i := 0; i < 4; i++ {
			a, ok := e.Step()
			if !ok {
				t.Fatal("quiescent early")
			}
			placed[a.Pod] = a.Node
		}
		// The cluster's scheduler has not decided yet: the pending
		// update leaves schedtui's binding in place.
		pending := e.Pod("default/agree").DeepCopy()
		pending.Spec.NodeName = ""
		pending.ResourceVersion += "p"
		if err := e.Apply(change.Change{Kind: change.PodUpdate, Pod: pending}); err != nil {
			t.Fatal(err)
		}
		if p := e.Pod("default/agree"); p.Spec.NodeName != placed["default/agree"] {
			t.Fatalf("schedtui's binding dropped by a pending update: %q", p.Spec.NodeName)
		}
		if len(e.Observations()) != 0 {
			t.Fatalf("observations before any decision: %+v", e.Observations())
		}
		if err := e.Apply(change.Change{Kind: change.PodUpdate, Pod: bindTo(e, "default/agree", placed["default/agree"])}); err != nil {
			t.Fatal(err)
		}
		if o := lastObservation(t, e); o.Reason != string(Agree) || o.Attempt < 0 {
			t.Errorf("observation %+v", o)
		}
		// A later update of the bound pod is no new observation.
		again := bindTo(e, "default/agree", placed["default/agree"])
		again.Labels = map[string]string{"x": "y"}
		if err := e.Apply(change.Change{Kind: change.PodUpdate, Pod: again}); err != nil {
			t.Fatal(err)
		}
		if n := len(e.Observations()); n != 1 {
			t.Errorf("%d observations after a plain update", n)
		}

		// The cluster puts "moved" elsewhere: the state follows the cluster.
		other := "small"
		if placed["default/moved"] == "small" {
			other = "big"
		}
		if err := e.Apply(change.Change{Kind: change.PodUpdate, Pod: bindTo(e, "default/moved", other)}); err != nil {
			t.Fatal(err)
		}
		if o := lastObservation(t, e); o.Reason == string(Agree) || o.Node != other || o.Predicted != placed["default/moved"] {
			t.Errorf("observation %+v", o)
		}
		for _, ni := range e.Scheduler().Snapshot().List() {
			for _, pi := range ni.Pods {
				if pi.Pod.Name == "moved" && ni.Name() != other {
					t.Errorf("moved is still counted on %s", ni.Name())
				}
			}
		}

		// The cluster's scheduler finds no room where schedtui did.
		if err := e.Apply(change.Change{Kind: change.PodUpdate, Pod: unschedulableUpdate(e, "default/stuck", "0/3 nodes are available: 3 Insufficient cpu.")}); err != nil {
			t.Fatal(err)
		}
		o := lastObservation(t, e)
		if o.Reason != string(Disagree) || o.Node != "" || !strings.Contains(o.Message, "3 Insufficient cpu") {
			t.Errorf("observation %+v", o)
		}
		if p := e.Pod("default/stuck"); p.Spec.NodeName == "" {
			t.Error("schedtui's binding of stuck dropped")
		}
	})

	t.Run("JSON", func(t *testing.T) {
		e := load(t, yaml, Options{})
		if err := e.Apply(change.Change{Kind: change.PodUpdate, Pod: bindTo(e, "default/early", "big")}); err != nil {
			t.Fatal(err)
		}
		j, ok := EventJSON(lastObservation(t, e))
		if o, isObs := j.(ObservationJSON); !ok || !isObs || o.Verdict != "agree" || o.Node != "big" || o.Predicted != "big" {
			t.Errorf("JSON %+v", j)
		}
	})
}

// TestLastAttemptAfterRewind: the per-pod attempt index follows a rewind
// that replaced attempts with others of the same count.
func TestLastAttemptAfterRewind(t *testing.T) {
	e := demo(t, Options{Seed: 1})
	a0, _ := e.Step()
	a1, _ := e.Step()
	if i, a := e.lastAttemptOf(types.UID(a1.PodUID)); i != 1 || a != a1 {
		t.Fatalf("lastAttemptOf(%s) = %d", a1.Pod, i)
	}
	if err := e.Rewind(1); err != nil {
		t.Fatal(err)
	}
	// A cluster change first, so that the next attempt is another pod's.
	p := e.Pod(a1.Pod).DeepCopy()
	if err := e.Apply(change.Change{Kind: change.PodDelete, Pod: p}); err != nil {
		t.Fatal(err)
	}
	b1, ok := e.Step()
	if !ok || b1.PodUID == a1.PodUID {
		t.Fatalf("after the rewind: %v %+v", ok, b1)
	}
	if i, _ := e.lastAttemptOf(types.UID(a1.PodUID)); i != -1 {
		t.Errorf("the rewound attempt of %s is still indexed at %d", a1.Pod, i)
	}
	if i, a := e.lastAttemptOf(types.UID(b1.PodUID)); i != 1 || a != b1 {
		t.Errorf("lastAttemptOf(%s) = %d", b1.Pod, i)
	}
	// The rewind replayed attempt 0: the same attempt, a new record.
	if i, a := e.lastAttemptOf(types.UID(a0.PodUID)); a0.PodUID != b1.PodUID && (i != 0 || a.Pod != a0.Pod) {
		t.Errorf("lastAttemptOf(%s) = %d", a0.Pod, i)
	}
}

// TestUnschedulableSeenAgainAfterRewind: the cluster's unschedulable
// message is observed once per pod and message; a rewind to before it came
// forgets that it was seen, so the same message arriving again is observed
// again, as it was the first time.
func TestUnschedulableSeenAgainAfterRewind(t *testing.T) {
	yaml := listHeader + nodeYAML("small", "1", "") + podYAML("big", "4", 0, "")
	e := load(t, yaml, Options{})
	const msg = "0/1 nodes are available: 1 Insufficient cpu."
	attemptAndMessage := func() int {
		t.Helper()
		if a, ok := e.Step(); !ok || a.Node != "" {
			t.Fatalf("the attempt: %v %+v", ok, a)
		}
		if err := e.Apply(change.Change{Kind: change.PodUpdate, Pod: unschedulableUpdate(e, "default/big", msg)}); err != nil {
			t.Fatal(err)
		}
		return len(e.Observations())
	}
	if n := attemptAndMessage(); n != 1 {
		t.Fatalf("%d observations after the cluster's message, want 1", n)
	}
	if err := e.Rewind(1); err != nil {
		t.Fatal(err)
	}
	if n := len(e.Observations()); n != 0 {
		t.Fatalf("%d observations after rewinding past the message, want 0", n)
	}
	if n := attemptAndMessage(); n != 1 {
		t.Fatalf("%d observations after the same message came again, want 1", n)
	}
	if o := lastObservation(t, e); o.ClusterMessage != msg || o.Reason != string(Agree) {
		t.Errorf("observation %+v", o)
	}
}
