package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/schedtui/schedtui/scheduler"
	"github.com/schedtui/schedtui/scheduler/change"
	"github.com/schedtui/schedtui/scheduler/history"
)

// at is a change of the cluster arriving d after the engine's start.
func at(e *Engine, d time.Duration, kind change.Kind, p *v1.Pod) change.Change {
	return change.Change{Kind: kind, Pod: p, At: e.Start().Add(d)}
}

func nominate(e *Engine, pod, node string) *v1.Pod {
	p := e.Pod(pod).DeepCopy()
	p.Status.NominatedNodeName = node
	p.ResourceVersion += "n"
	return p
}

func applyAll(t *testing.T, e *Engine, cs ...change.Change) {
	t.Helper()
	for _, c := range cs {
		if err := e.Apply(c); err != nil {
			t.Fatal(err)
		}
	}
}

func observationLines(t *testing.T, e *Engine) []string {
	t.Helper()
	var out []string
	for _, o := range e.Observations() {
		j, _ := EventJSON(o)
		b, err := json.Marshal(j)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	}
	return out
}

func verdicts(e *Engine) map[string]history.Event {
	out := map[string]history.Event{}
	for _, o := range e.Observations() {
		out[o.Pod] = o
	}
	return out
}

// Two nodes of unequal size: LeastAllocated puts the first 3-cpu pod on
// big, the second on small.
var shadowCluster = listHeader + nodeYAML("big", "8", "") + nodeYAML("small", "6", "") +
	podYAML("a", "3", 0, "") + podYAML("b", "3", 0, "")

func TestShadowNeverSchedules(t *testing.T) {
	e := load(t, shadowCluster, Options{Shadow: true})
	if n := e.RunToQuiescence(); n != 0 {
		t.Fatalf("shadow mode made %d attempts of its own", n)
	}
	if len(e.Queue().ActiveQ) != 2 {
		t.Errorf("the pending pods are not listed: %+v", e.Queue())
	}
	if _, err := New(nil, nil, nil, Options{Shadow: true, Bind: func(context.Context, *v1.Pod, string) error { return nil }}); err == nil {
		t.Error("shadow mode with --bind accepted")
	}
}

// TestShadowOutOfOrderBindings: the cluster's scheduler attempted a then
// b, but b's binding arrived first. b is judged without a (a disagreement
// at first), a without b; when a's binding arrives, b is judged again with
// a counted, and agrees, flagged uncertain.
func TestShadowOutOfOrderBindings(t *testing.T) {
	e := load(t, shadowCluster, Options{Shadow: true})
	applyAll(t, e,
		at(e, 10*time.Second, change.PodUpdate, bindTo(e, "default/b", "small")),
		at(e, 10*time.Second+300*time.Millisecond, change.PodUpdate, bindTo(e, "default/a", "big")))
	if n := e.RunToQuiescence(); n != 2 {
		t.Fatalf("%d attempts, want one per decision (2)", n)
	}
	v := verdicts(e)
	if o := v["default/a"]; o.Reason != string(Agree) || o.Node != "big" || o.Uncertain != "" || o.Judged == nil || o.Judged.Bound != 1 {
		t.Errorf("a: %+v", o)
	}
	o := v["default/b"]
	if o.Reason != string(Agree) || o.Predicted != "small" || !strings.Contains(o.Uncertain, "default/a") {
		t.Errorf("b: %+v", o)
	}
	if o.Judged == nil || len(o.Judged.InFlight) != 1 || o.Judged.InFlight[0] != "default/a→big" {
		t.Errorf("b judged on %+v", o.Judged)
	}
	if a := e.Attempts().At(o.Attempt); a.Pod != "default/b" || a.Node != "small" {
		t.Errorf("b's observation names attempt %+v", a)
	}
	// More than ShadowWindow apart, the order is not doubted.
	e = load(t, shadowCluster, Options{Shadow: true})
	applyAll(t, e,
		at(e, 10*time.Second, change.PodUpdate, bindTo(e, "default/b", "small")),
		at(e, 20*time.Second, change.PodUpdate, bindTo(e, "default/a", "big")))
	e.RunToQuiescence()
	o = verdicts(e)["default/b"]
	if o.Reason != string(Disagree) || o.Uncertain != "" {
		t.Errorf("b, bound 10s apart: %+v", o)
	}
	// The two sides: small passes Filter, and scores below big.
	rows := VerdictRows(o, e.Attempts().At(o.Attempt))
	var text []string
	for _, r := range rows {
		text = append(text, fmt.Sprintf("%s|%s|%s|%v", r.What, r.Cluster, r.Schedtui, r.Differs))
	}
	got := strings.Join(text, "\n")
	for _, want := range []string{"node|small|big|true", "Filter on small|passes (the cluster bound it there)|passes|false", "score|small|big|false",
		"  NodeResourcesFit (×1)|", "  total|"} {
		if !strings.Contains(got, want) {
			t.Errorf("comparison lacks %q:\n%s", want, got)
		}
	}
}

// TestShadowPreBindNomination: a pod the cluster's scheduler assumed shows
// only as nominatedNodeName while it is in PreBind; it counts on its node
// (Score too), where an ordinary nomination would count in Filter only.
func TestShadowPreBindNomination(t *testing.T) {
	e := load(t, shadowCluster, Options{Shadow: true})
	applyAll(t, e,
		at(e, 10*time.Second, change.PodUpdate, nominate(e, "default/a", "big")),
		at(e, 15*time.Second, change.PodUpdate, bindTo(e, "default/b", "small")))
	e.RunToQuiescence()
	o := verdicts(e)["default/b"]
	if o.Reason != string(Agree) || o.Uncertain != "" || o.Judged == nil || strings.Join(o.Judged.InFlight, ",") != "default/a→big" {
		t.Errorf("b: %+v %+v", o, o.Judged)
	}
	// a's nomination came with its Unschedulable condition: a preemptor's,
	// an ordinary nomination.
	e = load(t, shadowCluster, Options{Shadow: true})
	pre := nominate(e, "default/a", "big")
	pre.Status.Conditions = []v1.PodCondition{{Type: v1.PodScheduled, Status: v1.ConditionFalse, Reason: v1.PodReasonUnschedulable, Message: "m"}}
	applyAll(t, e, at(e, 10*time.Second, change.PodUpdate, pre), at(e, 15*time.Second, change.PodUpdate, bindTo(e, "default/b", "small")))
	e.RunToQuiescence()
	if o := verdicts(e)["default/b"]; o.Judged == nil || len(o.Judged.InFlight) != 0 {
		t.Errorf("a preemptor's nomination counted as in flight: %+v", o.Judged)
	}
}

// preemptionShadow: a low-priority pod fills the only node; a
// high-priority one can only preempt it.
var preemptionShadow = listHeader + nodeYAML("n1", "4", "") +
	podYAML("low", "4", 0, "    nodeName: n1\n") + podYAML("high", "4", 100, "")

func TestShadowPreemptionNotCarriedOut(t *testing.T) {
	// What schedtui's scheduler says about high, scheduling itself.
	sim := load(t, preemptionShadow, Options{})
	a, ok := sim.Step()
	if !ok || len(a.Victims) != 1 {
		t.Fatalf("the simulation does not preempt: %+v", a)
	}
	msg := a.Message

	e := load(t, preemptionShadow, Options{Shadow: true})
	applyAll(t, e, at(e, time.Second, change.PodUpdate, unschedulableUpdate(e, "default/high", msg)))
	e.RunToQuiescence()
	o := verdicts(e)["default/high"]
	if o.Reason != string(Agree) || o.Node != "" {
		t.Errorf("high: %+v", o)
	}
	att := e.Attempts().At(o.Attempt)
	if att.Message != msg || len(att.Victims) != 1 {
		t.Errorf("the shadow attempt: %q victims %v", att.Message, att.Victims)
	}
	if p := e.Pod("default/low"); p == nil || p.DeletionTimestamp != nil || p.Spec.NodeName != "n1" {
		t.Errorf("schedtui's preemption was carried out: %+v", p)
	}
	for _, ev := range e.Timeline().All() {
		if ev.Kind == history.EventPreemption || ev.Kind == history.EventEviction || ev.Reason == "Preempted" {
			t.Errorf("shadow mode preempted: %+v", ev)
		}
	}

	// Another message is a disagreement showing both.
	e = load(t, preemptionShadow, Options{Shadow: true})
	applyAll(t, e, at(e, time.Second, change.PodUpdate, unschedulableUpdate(e, "default/high", "0/1 nodes are available: 1 Insufficient cpu.")))
	e.RunToQuiescence()
	o = verdicts(e)["default/high"]
	if o.Reason != string(Disagree) || !strings.Contains(o.Message, "0/1 nodes are available: 1 Insufficient cpu.") || !strings.Contains(o.Message, msg) {
		t.Errorf("a different message: %+v", o)
	}
}

// TestShadowLiveEqualsReplay: the same changes, applied as they arrive
// (live) or scheduled at their recorded times (a recording), give the
// same observations.
func TestShadowLiveEqualsReplay(t *testing.T) {
	changes := func(e *Engine) []change.Change {
		return []change.Change{
			at(e, 5*time.Second, change.PodUpdate, nominate(e, "default/a", "big")),
			at(e, 5*time.Second+200*time.Millisecond, change.PodUpdate, bindTo(e, "default/b", "small")),
			at(e, 5*time.Second+400*time.Millisecond, change.PodUpdate, bindTo(e, "default/a", "big")),
		}
	}
	rec := load(t, shadowCluster, Options{Shadow: true})
	applyAll(t, rec, changes(rec)...)
	rec.RunToQuiescence()

	live := load(t, shadowCluster, Options{Shadow: true})
	for _, c := range changes(live) {
		live.RunUntil(c.At.Sub(live.Start()))
		c.At = time.Time{}
		applyAll(t, live, c)
	}
	got, want := observationLines(t, live), observationLines(t, rec)
	if len(want) != 2 || strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("live:\n%s\nreplay:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestShadowLateApplication: live, the engine's clock (moved by the
// session's ticks) may be past a change's arrival when the change is
// applied; the windows are measured in arrival time, so the verdicts are
// the replay's. low's deletion arrives 400ms before high's decision,
// which is applied 1.5s late.
func TestShadowLateApplication(t *testing.T) {
	changes := func(e *Engine) []change.Change {
		probe := load(t, terminatingShadow, Options{Shadow: true})
		applyAll(t, probe, append(terminatingSetUp(probe), at(probe, 3*time.Second, change.PodUpdate, terminatingRetry(probe, "?")))...)
		probe.RunToQuiescence()
		msg := probe.Attempts().At(lastObservation(t, probe).Attempt).Message
		return append(terminatingSetUp(e), at(e, 2600*time.Millisecond, change.PodDelete, e.Pod("default/low")),
			at(e, 3*time.Second, change.PodUpdate, terminatingRetry(e, msg)))
	}
	rec := load(t, terminatingShadow, Options{Shadow: true})
	applyAll(t, rec, changes(rec)...)
	rec.RunToQuiescence()

	live := load(t, terminatingShadow, Options{Shadow: true})
	for _, c := range changes(live) {
		if c.Kind == change.PodUpdate && c.Pod.ResourceVersion == "r" {
			live.RunUntil(c.At.Sub(live.Start()) + 1500*time.Millisecond)
		} else {
			live.RunUntil(c.At.Sub(live.Start()))
		}
		applyAll(t, live, c)
	}
	// The observations' times are when they were made: the replay's at
	// arrival, the live ones when applied.
	untimed := func(lines []string) []string {
		for i, l := range lines {
			lines[i] = regexp.MustCompile(`"time":"[^"]*",`).ReplaceAllString(l, "")
		}
		return lines
	}
	got, want := untimed(observationLines(t, live)), untimed(observationLines(t, rec))
	if len(want) != 2 || !strings.Contains(want[1], `"verdict":"agree"`) || strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("live:\n%s\nreplay:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestShadowForkAndRewind: a shadow attempt forks to the state it was
// judged on, and a rewind replays the same verdicts.
func TestShadowForkAndRewind(t *testing.T) {
	e := load(t, shadowCluster, Options{Shadow: true, CheckpointInterval: 1})
	applyAll(t, e,
		at(e, 10*time.Second, change.PodUpdate, bindTo(e, "default/b", "small")),
		at(e, 10*time.Second+300*time.Millisecond, change.PodUpdate, bindTo(e, "default/a", "big")))
	e.RunToQuiescence()
	before := timelineJSON(t, e)
	o := verdicts(e)["default/b"]
	s, pod, err := e.Fork(o.Attempt)
	if err != nil {
		t.Fatal(err)
	}
	if pod.Name != "b" || pod.Spec.NodeName != "" {
		t.Fatalf("fork pod %+v", pod)
	}
	if a := s.Evaluate(pod, scheduler.Judgement); a.Node != "small" {
		t.Errorf("on the fork b goes to %q", a.Node)
	}
	if err := e.Rewind(1); err != nil {
		t.Fatal(err)
	}
	e.RunToQuiescence()
	if after := timelineJSON(t, e); after != before {
		t.Errorf("rewind and replay differ:\n%s\n---\n%s", before, after)
	}
}

// terminatingShadow: high (nominated to n1 by an earlier preemption) waits
// for low, its victim, to terminate; n2 is too small.
var terminatingShadow = listHeader + nodeYAML("n1", "4", "") + nodeYAML("n2", "2", "") +
	podYAML("low", "4", 0, "    nodeName: n1\n") + podYAML("high", "4", 100, "")

// terminatingSetUp: at 1s the cluster's scheduler preempts low for high
// (low terminating, high nominated to n1).
func terminatingSetUp(e *Engine) []change.Change {
	low := e.Pod("default/low").DeepCopy()
	now := metav1.NewTime(e.Start())
	low.DeletionTimestamp, low.ResourceVersion = &now, "d"
	low.Status.Conditions = append(low.Status.Conditions, v1.PodCondition{Type: v1.DisruptionTarget, Status: v1.ConditionTrue, Reason: v1.PodReasonPreemptionByScheduler})
	high := unschedulableUpdate(e, "default/high", "0/2 nodes are available: 2 Insufficient cpu. preemption: found a potential placement for pod on node n1, preempting 1 victims")
	high.Status.NominatedNodeName = "n1"
	return []change.Change{at(e, time.Second, change.PodUpdate, low), at(e, time.Second, change.PodUpdate, high)}
}

// terminatingRetry is high's next decision, unschedulable with msg.
func terminatingRetry(e *Engine, msg string) *v1.Pod {
	p := unschedulableUpdate(e, "default/high", msg)
	p.Status.NominatedNodeName = "n1"
	p.ResourceVersion = "r"
	return p
}

// TestShadowDeletionBeforeDecision: the cluster's scheduler attempted high
// while low was still terminating on its nominated node ("not eligible due
// to a terminating pod on the nominated node"), but the kubelet's deletion
// of low arrived before the Unschedulable condition (written after the
// attempt). Judged without the deletion it agrees, flagged uncertain; a
// deletion more than ShadowWindow before is not doubted.
func TestShadowDeletionBeforeDecision(t *testing.T) {
	setUp, retry := terminatingSetUp, terminatingRetry
	// schedtui's own message with low still terminating.
	e := load(t, terminatingShadow, Options{Shadow: true})
	applyAll(t, e, append(setUp(e), at(e, 3*time.Second, change.PodUpdate, retry(e, "?")))...)
	e.RunToQuiescence()
	msg := e.Attempts().At(lastObservation(t, e).Attempt).Message
	if !strings.Contains(msg, "not eligible due to a terminating pod on the nominated node") {
		t.Fatalf("schedtui's message with the victim terminating: %q", msg)
	}

	for _, c := range []struct {
		before time.Duration
		want   Verdict
	}{{100 * time.Millisecond, Agree}, {1500 * time.Millisecond, Disagree}} {
		e := load(t, terminatingShadow, Options{Shadow: true})
		low := e.Pod("default/low")
		applyAll(t, e, append(setUp(e), at(e, 3*time.Second-c.before, change.PodDelete, low), at(e, 3*time.Second, change.PodUpdate, retry(e, msg)))...)
		e.RunToQuiescence()
		o := lastObservation(t, e)
		if o.Reason != string(c.want) {
			t.Errorf("deleted %s before: %s, want %s: %+v", c.before, o.Reason, c.want, o)
		}
		doubted := strings.Contains(o.Uncertain, "the deletion of default/low")
		if doubted != (c.before < ShadowWindow) {
			t.Errorf("deleted %s before: uncertain %q", c.before, o.Uncertain)
		}
		if a := e.Attempts().At(o.Attempt); c.want == Agree && a.Message != msg {
			t.Errorf("the attempt judged: %q", a.Message)
		}
	}
}

// TestShadowPreBindNominationAfterDecision: the cluster's scheduler
// assumed a on big, then attempted b (small); b's binding arrived before
// a's PreBind nomination, a's binding more than ShadowWindow later. The
// nomination, within ShadowWindow, makes schedtui judge b again with a in
// flight.
func TestShadowPreBindNominationAfterDecision(t *testing.T) {
	e := load(t, shadowCluster, Options{Shadow: true})
	applyAll(t, e,
		at(e, 10*time.Second, change.PodUpdate, bindTo(e, "default/b", "small")),
		at(e, 10*time.Second+300*time.Millisecond, change.PodUpdate, nominate(e, "default/a", "big")),
		at(e, 13*time.Second, change.PodUpdate, bindTo(e, "default/a", "big")))
	e.RunToQuiescence()
	o := verdicts(e)["default/b"]
	if o.Reason != string(Agree) || !strings.Contains(o.Uncertain, "default/a (nominated to big for PreBind") {
		t.Errorf("b: %+v", o)
	}
	if o.Judged == nil || strings.Join(o.Judged.InFlight, ",") != "default/a→big" || o.Judged.Bound != 0 {
		t.Errorf("b judged on %+v", o.Judged)
	}
	if a := e.Attempts().At(o.Attempt); a.Pod != "default/b" || a.Node != "small" {
		t.Errorf("b's observation names attempt %+v", a)
	}
}

// claimCluster: a (3 cpu, priority 0) uses claim data, to provision on
// first use; c (7 cpu, priority 100, never preempts) fits only on big,
// and only while a is not on it. a's nomination, lower than c's priority,
// does not count for c.
var claimCluster = listHeader + nodeYAML("big", "8", "") + nodeYAML("small", "6", "") +
	podYAML("a", "3", 0, "    volumes: [{name: d, persistentVolumeClaim: {claimName: data}}]\n") + neverPreemptingC + claimToProvision

// claimToProvision is claim data, to provision on first use.
const claimToProvision = `- apiVersion: storage.k8s.io/v1
  kind: StorageClass
  metadata: {name: late}
  provisioner: example.com/late
  volumeBindingMode: WaitForFirstConsumer
- apiVersion: v1
  kind: PersistentVolumeClaim
  metadata: {name: data, namespace: default, uid: uid-pvc-data, resourceVersion: '1'}
  spec:
    storageClassName: late
    accessModes: [ReadWriteOnce]
    resources: {requests: {storage: 1Gi}}
  status: {phase: Pending}
`

// neverPreemptingC is c (7 cpu, priority 100, never preempts).
var neverPreemptingC = neverPreempting("c", "resources: {requests: {cpu: '7'}}")

// neverPreempting is the priority class never (100, never preempts) and
// pod name in it, with one container of the fields given.
func neverPreempting(name, container string) string {
	return fmt.Sprintf(`- apiVersion: scheduling.k8s.io/v1
  kind: PriorityClass
  metadata: {name: never}
  value: 100
  preemptionPolicy: Never
- apiVersion: v1
  kind: Pod
  metadata: {name: %s, namespace: default, uid: uid-%s, creationTimestamp: '2025-12-31T00:00:00Z'}
  spec:
    priorityClassName: never
    containers: [{name: c, image: x, %s}]
`, name, name, container)
}

const claimClusterMessage = "0/2 nodes are available: 2 Insufficient cpu. preemption: not eligible due to preemptionPolicy=Never."

// selectNode is VolumeBinding PreBind's update of a claim to provision.
func selectNode(e *Engine, d time.Duration, claim, node string) change.Change {
	c, err := e.Scheduler().Objects().PersistentVolumeClaim("default", claim)
	if err != nil {
		panic(err)
	}
	c = c.DeepCopy()
	metav1.SetMetaDataAnnotation(&c.ObjectMeta, "volume.kubernetes.io/selected-node", node)
	c.ResourceVersion += "s"
	return change.Change{Kind: change.ObjectUpdate, Object: c, At: e.Start().Add(d)}
}

// preemptorNomination is a preemptor's status update: nominated, with its
// Unschedulable condition.
func preemptorNomination(e *Engine, pod, node string) *v1.Pod {
	p := nominate(e, pod, node)
	p.Status.Conditions = []v1.PodCondition{{Type: v1.PodScheduled, Status: v1.ConditionFalse, Reason: v1.PodReasonUnschedulable, Message: "m"}}
	return p
}

// TestShadowClaimSelectedNode is seed 25's pending-011 in the real
// scheduler's test: a was nominated to big (a preemptor's nomination),
// then the cluster's scheduler assumed it there; its PreBind wrote no
// nomination (a had it already), only VolumeBinding's selected-node on
// a's claim. c, attempted after, found big full.
func TestShadowClaimSelectedNode(t *testing.T) {
	e := load(t, claimCluster, Options{Shadow: true})
	applyAll(t, e,
		at(e, 10*time.Second, change.PodUpdate, preemptorNomination(e, "default/a", "big")),
		selectNode(e, 11*time.Second, "data", "big"),
		at(e, 11*time.Second+50*time.Millisecond, change.PodUpdate, unschedulableUpdate(e, "default/c", claimClusterMessage)))
	e.RunToQuiescence()
	o := verdicts(e)["default/c"]
	if o.Reason != string(Agree) || o.Uncertain != "" {
		t.Errorf("c: %+v", o)
	}
	if o.Judged == nil || strings.Join(o.Judged.InFlight, ",") != "default/a→big" {
		t.Errorf("c judged on %+v", o.Judged)
	}

	// The claim's update arrives just after c's decision: c is judged
	// again with a in flight.
	e = load(t, claimCluster, Options{Shadow: true})
	applyAll(t, e,
		at(e, 10*time.Second, change.PodUpdate, preemptorNomination(e, "default/a", "big")),
		at(e, 11*time.Second, change.PodUpdate, unschedulableUpdate(e, "default/c", claimClusterMessage)),
		selectNode(e, 11*time.Second+300*time.Millisecond, "data", "big"))
	e.RunToQuiescence()
	o = verdicts(e)["default/c"]
	if o.Reason != string(Agree) || !strings.Contains(o.Uncertain, "default/a (claim default/data annotated with selected node big 300ms later)") {
		t.Errorf("c, the claim after: %+v", o)
	}
	if o.Judged == nil || strings.Join(o.Judged.InFlight, ",") != "default/a→big" {
		t.Errorf("c, the claim after, judged on %+v", o.Judged)
	}

	// a's binding cycle failed (PodScheduled=False again): no longer in
	// flight.
	e = load(t, claimCluster, Options{Shadow: true})
	nominated := preemptorNomination(e, "default/a", "big")
	failedA := nominated.DeepCopy()
	failedA.Status.Conditions[0].Message = "running PreBind plugin \"VolumeBinding\": failed"
	failedA.ResourceVersion += "f"
	applyAll(t, e,
		at(e, 10*time.Second, change.PodUpdate, nominated),
		selectNode(e, 11*time.Second, "data", "big"),
		at(e, 12*time.Second, change.PodUpdate, failedA),
		at(e, 15*time.Second, change.PodUpdate, bindTo(e, "default/c", "big")))
	e.RunToQuiescence()
	if o := verdicts(e)["default/c"]; o.Reason != string(Agree) || o.Judged == nil || len(o.Judged.InFlight) != 0 {
		t.Errorf("c after a's failure: %+v %+v", o, o.Judged)
	}
}

// TestShadowClearedNominationBeforeDecision is seed 18's pending-010 in
// the real scheduler's test: x (priority 100, as c's) was nominated to
// big; a preemption cleared that nomination through the API (x's update
// changes nothing else), and c's decision arrived 150ms later, made by a
// cluster scheduler that still counted x on big (its informer had not
// delivered the clearing yet). Judged with the clearing undone, it agrees,
// uncertain; 1.5s later the clearing is not doubted.
func TestShadowClearedNominationBeforeDecision(t *testing.T) {
	cluster := listHeader + nodeYAML("big", "8", "") + nodeYAML("small", "6", "") + podYAML("x", "3", 100, "") + neverPreemptingC
	for _, after := range []time.Duration{150 * time.Millisecond, 1500 * time.Millisecond} {
		e := load(t, cluster, Options{Shadow: true})
		nominated := preemptorNomination(e, "default/x", "big")
		cleared := nominated.DeepCopy()
		cleared.Status.NominatedNodeName = ""
		cleared.ResourceVersion += "c"
		applyAll(t, e,
			at(e, 10*time.Second, change.PodUpdate, nominated),
			at(e, 11*time.Second, change.PodUpdate, cleared),
			at(e, 11*time.Second+after, change.PodUpdate, unschedulableUpdate(e, "default/c", claimClusterMessage)))
		e.RunToQuiescence()
		o := verdicts(e)["default/c"]
		doubted := strings.Contains(o.Uncertain, "the clearing of default/x's nomination to big")
		if want := after < ShadowWindow; (o.Reason == string(Agree)) != want || doubted != want {
			t.Errorf("cleared %s before: %s, uncertain %q", after, o.Reason, o.Uncertain)
		}
		if e.Scheduler().Nominator().NominatedNode("uid-x") != "" {
			t.Errorf("cleared %s before: the alternative left x nominated", after)
		}
	}
}

// TestShadowJudgedWhenInFlight is seed 8's pending-001 in the real
// scheduler's test: the cluster's scheduler assumed a on n1 (its PreBind
// nomination arrives), then placed b on n1 too, counting a there; a's
// binding arrives 2s later. a's attempt saw neither b bound nor b at all:
// it is judged on the state when its nomination arrived. On the state at
// its binding (b on n1, a taken off) n1 scores below n2: without the
// nomination the same bindings disagree.
func TestShadowJudgedWhenInFlight(t *testing.T) {
	cluster := listHeader + nodeYAML("n1", "16", "") + nodeYAML("n2", "8", "") + podYAML("a", "2", 0, "") + podYAML("b", "4", 0, "")
	for _, traced := range []bool{true, false} {
		// A checkpoint after b's attempt, between a's nomination and its
		// binding: the fork replays from before the nomination.
		e := load(t, cluster, Options{Shadow: true, CheckpointInterval: 1})
		var cs []change.Change
		if traced {
			cs = append(cs, at(e, 10*time.Second, change.PodUpdate, nominate(e, "default/a", "n1")))
		}
		cs = append(cs, at(e, 10*time.Second+200*time.Millisecond, change.PodUpdate, bindTo(e, "default/b", "n1")),
			at(e, 12*time.Second, change.PodUpdate, bindTo(e, "default/a", "n1")))
		applyAll(t, e, cs...)
		e.RunToQuiescence()
		v := verdicts(e)
		a := v["default/a"]
		if !traced {
			if a.Reason != string(Disagree) || a.Judged == nil || a.Judged.AsOf != "" {
				t.Errorf("a bound without a nomination first: %+v %+v", a, a.Judged)
			}
			continue
		}
		if b := v["default/b"]; b.Reason != string(Agree) || b.Judged == nil || strings.Join(b.Judged.InFlight, ",") != "default/a→n1" {
			t.Errorf("b: %+v %+v", b, b.Judged)
		}
		if a.Reason != string(Agree) || a.Uncertain != "" || a.Judged == nil || a.Judged.Bound != 0 ||
			!strings.Contains(a.Judged.AsOf, "its PreBind nomination to n1, 2s before the binding") {
			t.Errorf("a: %+v %+v", a, a.Judged)
		}
		if att := e.Attempts().At(a.Attempt); att.Pod != "default/a" || att.Node != "n1" {
			t.Errorf("a's observation names attempt %+v", att)
		}
		// The fork of a's attempt holds the state it was judged on.
		s, pod, err := e.Fork(a.Attempt)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.Evaluate(pod, scheduler.Judgement); got.Node != "n1" || s.Snapshot().List()[0].Requested.MilliCPU != 0 {
			t.Errorf("on the fork a goes to %q, n1 requests %dm", got.Node, s.Snapshot().List()[0].Requested.MilliCPU)
		}
	}
}

// TestShadowLagWindow is seed 3's pending-012 in the real scheduler's
// test on a loaded machine: high's retry was decided by a cluster
// scheduler that still saw low terminating on its nominated node, but
// low's deletion had arrived 1.5s before the decision, beyond
// ShadowWindow. Once the run has seen the cluster's scheduler take 2s to
// decide about a new pod (probe), deletions within 2s before a decision
// are doubted: high agrees, uncertain; a deletion 2.5s before is not
// doubted. A message no plausible state gives, or a binding to n2, too
// small for high, stays a disagreement.
func TestShadowLagWindow(t *testing.T) {
	probe := load(t, terminatingShadow, Options{Shadow: true})
	applyAll(t, probe, append(terminatingSetUp(probe), at(probe, 6*time.Second, change.PodUpdate, terminatingRetry(probe, "?")))...)
	probe.RunToQuiescence()
	msg := probe.Attempts().At(lastObservation(t, probe).Attempt).Message

	for _, c := range []struct {
		before    time.Duration
		msg, node string
		want      Verdict
	}{{1500 * time.Millisecond, msg, "", Agree}, {2500 * time.Millisecond, msg, "", Disagree},
		{1500 * time.Millisecond, "0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector.", "", Disagree},
		{1500 * time.Millisecond, "", "n2", Disagree}} {
		e := load(t, terminatingShadow, Options{Shadow: true})
		// A new pod the cluster's scheduler decides about 2s after it
		// arrived.
		created := e.Pod("default/high").DeepCopy()
		created.Name, created.UID, created.Status = "new", "uid-new", v1.PodStatus{}
		decided := created.DeepCopy()
		decided.Status.Conditions = []v1.PodCondition{{Type: v1.PodScheduled, Status: v1.ConditionFalse, Reason: v1.PodReasonUnschedulable, Message: "any"}}
		decided.ResourceVersion = "2"
		final := terminatingRetry(e, c.msg)
		if c.node != "" {
			final.Spec.NodeName = c.node
		}
		cs := append(terminatingSetUp(e), at(e, 2*time.Second, change.PodAdd, created), at(e, 4*time.Second, change.PodUpdate, decided),
			at(e, 6*time.Second-c.before, change.PodDelete, e.Pod("default/low")), at(e, 6*time.Second, change.PodUpdate, final))
		applyAll(t, e, cs...)
		e.RunToQuiescence()
		o := verdicts(e)["default/high"]
		if o.Reason != string(c.want) {
			t.Errorf("deleted %s before, %q: %s, want %s: %+v", c.before, c.msg, o.Reason, c.want, o)
		}
		if c.want == Agree && (!strings.Contains(o.Uncertain, "the deletion of default/low") || !strings.Contains(o.Uncertain, "within 2s (the median")) {
			t.Errorf("deleted %s before: uncertain %q", c.before, o.Uncertain)
		}
	}
}

// TestShadowOwnBindingsKept is seed 18's team-a/pending-010 in the real
// scheduler's test under load: a victim's deletion and then a binding of
// the cluster's scheduler arrived shortly before a decision made without
// the deletion but with the binding (the scheduler assumed the pod it
// bound before the binding arrived; the kubelet's deletion it had not seen
// yet). Undoing the most recent changes undoes the binding too; the
// deletions alone, with the bindings kept, explain the message.
func TestShadowOwnBindingsKept(t *testing.T) {
	cluster := listHeader + nodeYAML("n1", "4", "") + nodeYAML("n2", "4", "") +
		podYAML("low", "4", 0, "    nodeName: n1\n") + podYAML("high", "4", 0, "") + podYAML("other", "1", 0, "")
	probe := load(t, cluster, Options{Shadow: true})
	applyAll(t, probe, at(probe, 2*time.Second, change.PodUpdate, bindTo(probe, "default/other", "n2")),
		at(probe, 3*time.Second, change.PodUpdate, unschedulableUpdate(probe, "default/high", "?")))
	probe.RunToQuiescence()
	msg := probe.Attempts().At(lastObservation(t, probe).Attempt).Message
	if !strings.HasPrefix(msg, "0/2 nodes are available: 2 Insufficient cpu.") {
		t.Fatalf("schedtui's message with low on n1 and other on n2: %q", msg)
	}

	e := load(t, cluster, Options{Shadow: true})
	applyAll(t, e, at(e, 2600*time.Millisecond, change.PodDelete, e.Pod("default/low")),
		at(e, 2900*time.Millisecond, change.PodUpdate, bindTo(e, "default/other", "n2")),
		at(e, 3*time.Second, change.PodUpdate, unschedulableUpdate(e, "default/high", msg)))
	e.RunToQuiescence()
	o := verdicts(e)["default/high"]
	if o.Reason != string(Agree) || !strings.Contains(o.Uncertain, "saw the deletion of default/low (") {
		t.Errorf("high: %+v", o)
	}
}

// TestShadowClaimAnnotationEitherOrder is seed 25's default/pending-001
// in the real scheduler's test, judged a disagreement live and agreeing
// in the replay of the same run's recording: the cluster's scheduler
// wrote c's Unschedulable condition, then a's claim's selected node (a
// assumed on big after c's attempt); the recorder's watches delivered
// them in that order, the live session's claim watch delivered the
// claim first. a and c want host port 80, so a in flight on big changes
// c's message. Both orders must give the same verdict; a claim annotated
// long before the decision stays a disagreement.
func TestShadowClaimAnnotationEitherOrder(t *testing.T) {
	cluster := listHeader + nodeYAML("big", "8", "") + nodeYAML("small", "6", "") + `- apiVersion: v1
  kind: Pod
  metadata: {name: a, namespace: default, uid: uid-a, creationTimestamp: '2025-12-31T00:00:00Z'}
  spec:
    priorityClassName: p0
    containers: [{name: c, image: x, ports: [{containerPort: 80, hostPort: 80}], resources: {requests: {cpu: '3'}}}]
    volumes: [{name: d, persistentVolumeClaim: {claimName: data}}]
` + neverPreempting("c", "ports: [{containerPort: 80, hostPort: 80}], resources: {requests: {cpu: '9'}}") + claimToProvision
	// The cluster's message: a not on big.
	msg := "0/2 nodes are available: 2 Insufficient cpu. preemption: not eligible due to preemptionPolicy=Never."
	judge := func(claimAt, decisionAt time.Duration) history.Event {
		t.Helper()
		e := load(t, cluster, Options{Shadow: true})
		claim := selectNode(e, claimAt, "data", "big")
		decided := at(e, decisionAt, change.PodUpdate, unschedulableUpdate(e, "default/c", msg))
		applyAll(t, e, at(e, 5*time.Second, change.PodUpdate, preemptorNomination(e, "default/a", "big")))
		if claimAt < decisionAt {
			applyAll(t, e, claim, decided)
		} else {
			applyAll(t, e, decided, claim)
		}
		e.RunToQuiescence()
		return verdicts(e)["default/c"]
	}
	recorded := judge(11*time.Second+50*time.Millisecond, 11*time.Second)
	if recorded.Reason != string(Agree) || recorded.Uncertain != "" || len(recorded.Judged.InFlight) != 0 {
		t.Errorf("c, its decision before the claim (the recording): %+v %+v", recorded, recorded.Judged)
	}
	live := judge(11*time.Second, 11*time.Second+50*time.Millisecond)
	if live.Reason != recorded.Reason {
		t.Errorf("c, the claim before its decision (live): %s, the other order %s: %+v", live.Reason, recorded.Reason, live)
	}
	if !strings.Contains(live.Uncertain, "the annotation of claim default/data with selected node big (default/a in flight there)") ||
		len(live.Judged.InFlight) != 0 {
		t.Errorf("c, the claim before its decision (live): %+v %+v", live, live.Judged)
	}
	long := judge(9*time.Second, 11*time.Second+50*time.Millisecond)
	if long.Reason != string(Disagree) || strings.Join(long.Judged.InFlight, ",") != "default/a→big" {
		t.Errorf("c, the claim 2s before its decision: %+v %+v", long, long.Judged)
	}
}
