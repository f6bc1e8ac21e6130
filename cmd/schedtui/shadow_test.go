package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/schedtui/schedtui/scheduler"
	"github.com/schedtui/schedtui/scheduler/plugins"
	"github.com/schedtui/schedtui/snapshot"
)

// shadowRecordingYAML: two nodes of unequal size and pods that
// LeastAllocated spreads over them.
const shadowRecordingYAML = `apiVersion: v1
kind: List
items:
` + shadowNode + shadowNodeSmall + `
- {apiVersion: v1, kind: Pod, metadata: {name: a, namespace: default, uid: ua, creationTimestamp: "2026-03-02T08:00:00Z"}, spec: {containers: [{name: c, image: x, resources: {requests: {cpu: "3"}}}]}}
- {apiVersion: v1, kind: Pod, metadata: {name: b, namespace: default, uid: ub, creationTimestamp: "2026-03-02T08:00:01Z"}, spec: {containers: [{name: c, image: x, resources: {requests: {cpu: "3"}}}]}}
- {apiVersion: v1, kind: Pod, metadata: {name: c, namespace: default, uid: uc, creationTimestamp: "2026-03-02T08:00:02Z"}, spec: {containers: [{name: c, image: x, resources: {requests: {cpu: "3"}}}]}}
- {apiVersion: v1, kind: Pod, metadata: {name: d, namespace: default, uid: ud, creationTimestamp: "2026-03-02T08:00:03Z"}, spec: {containers: [{name: c, image: x, resources: {requests: {cpu: "2"}}}]}}
- {apiVersion: v1, kind: Pod, metadata: {name: e, namespace: default, uid: ue, creationTimestamp: "2026-03-02T08:00:04Z"}, spec: {containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]}}
- {apiVersion: v1, kind: Pod, metadata: {name: huge, namespace: default, uid: uh, creationTimestamp: "2026-03-02T08:00:05Z"}, spec: {containers: [{name: c, image: x, resources: {requests: {cpu: "16"}}}]}}
`

const shadowNode = `- {apiVersion: v1, kind: Node, metadata: {name: big, labels: {kubernetes.io/hostname: big}}, status: {allocatable: {cpu: "8", memory: 8Gi, pods: "110"}, capacity: {cpu: "8", memory: 8Gi, pods: "110"}}}
`

const shadowNodeSmall = `- {apiVersion: v1, kind: Node, metadata: {name: small, labels: {kubernetes.io/hostname: small}}, status: {allocatable: {cpu: "6", memory: 8Gi, pods: "110"}, capacity: {cpu: "6", memory: 8Gi, pods: "110"}}}
`

// writeShadowRecording records what a real kube-scheduler does with those
// pods, as the API shows it: a in PreBind (nominatedNodeName only) while b
// and c bind; e's binding arriving before d's although d was attempted
// first; huge reported unschedulable with upstream's message.
func writeShadowRecording(t *testing.T) string {
	t.Helper()
	c, _, err := snapshot.Load("shadow.yaml", []byte(shadowRecordingYAML))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	var buf bytes.Buffer
	rw, err := snapshot.NewRecordingWriter(&buf, c, snapshot.Header{RecordingStarted: start}, snapshot.OutputFormat{})
	if err != nil {
		t.Fatal(err)
	}
	pods := map[string]*v1.Pod{}
	for _, p := range c.Pods {
		pods[p.Name] = p
	}
	change := func(d time.Duration, name string, f func(p *v1.Pod)) {
		p := pods[name].DeepCopy()
		f(p)
		pods[name] = p
		if err := rw.Add(start.Add(d), watch.Modified, p); err != nil {
			t.Fatal(err)
		}
	}
	bind := func(node string) func(*v1.Pod) { return func(p *v1.Pod) { p.Spec.NodeName = node } }
	change(time.Second, "a", func(p *v1.Pod) { p.Status.NominatedNodeName = "big" })
	change(time.Second+200*time.Millisecond, "b", bind("small"))
	change(time.Second+300*time.Millisecond, "c", bind("big"))
	change(time.Second+900*time.Millisecond, "a", bind("big"))
	change(5*time.Second, "e", bind("big"))
	change(5*time.Second+100*time.Millisecond, "d", bind("small"))
	// Upstream's message for huge, as schedtui's scheduler (held to
	// upstream by the conformance suite) writes it.
	s, err := scheduler.New(c.Nodes, c.Pods, c.SchedulerObjects(), scheduler.Options{Registry: plugins.NewInTreeRegistry()})
	if err != nil {
		t.Fatal(err)
	}
	msg := s.Evaluate(pods["huge"], scheduler.Judgement).Message
	if !strings.Contains(msg, "Insufficient cpu") {
		t.Fatalf("huge: %q", msg)
	}
	change(6*time.Second, "huge", func(p *v1.Pod) {
		p.Status.Conditions = []v1.PodCondition{{Type: v1.PodScheduled, Status: v1.ConditionFalse, Reason: v1.PodReasonUnschedulable, Message: msg}}
	})
	if err := rw.Close(start.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "shadow.json")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestShadowRecording: every decision of the recording is judged, none
// disagrees; the out-of-order pair is flagged uncertain, the pod in
// PreBind counted on its node. With --simulate schedtui schedules every
// pod itself from the recording's first state.
func TestShadowRecording(t *testing.T) {
	rec := writeShadowRecording(t)
	out, errOut, err := runCmd(t, newRunCommand, "--snapshot", rec, "-o", "json")
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	verdicts := map[string]map[string]any{}
	attempts := 0
	var attemptLines []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatal(err)
		}
		switch m["kind"] {
		case "observed":
			verdicts[m["pod"].(string)] = m
		case "attempt":
			attempts++
			attemptLines = append(attemptLines, m)
		case "preemption", "eviction":
			t.Errorf("shadow mode preempts: %s", l)
		}
	}
	if len(verdicts) != 6 || attempts < 6 {
		t.Fatalf("%d observations, %d attempts:\n%s", len(verdicts), attempts, out)
	}
	for pod, m := range verdicts {
		if m["verdict"] != "agree" {
			t.Errorf("%s: %v", pod, m)
		}
	}
	// Each observation names the attempt line that made its verdict: e's,
	// judged again once d's binding arrived, a line after it.
	for pod, m := range verdicts {
		n, _ := m["attempt"].(float64)
		if n < 1 || int(n) > len(attemptLines) {
			t.Errorf("%s: attempt %v of %d", pod, m["attempt"], len(attemptLines))
			continue
		}
		if a := attemptLines[int(n)-1]; a["pod"] != pod || a["node"] != m["predicted"] {
			t.Errorf("%s (predicted %v) names attempt line %d: %v", pod, m["predicted"], int(n), a)
		}
	}
	if m := verdicts["default/b"]; m["judgedOn"].(map[string]any)["inFlight"].([]any)[0] != "default/a→big" {
		t.Errorf("b judged on %v", m["judgedOn"])
	}
	if m := verdicts["default/e"]; !strings.Contains(m["uncertain"].(string), "default/d") {
		t.Errorf("e: %v", m)
	}
	if _, ok := verdicts["default/huge"]["uncertain"]; ok {
		t.Errorf("huge: %v", verdicts["default/huge"])
	}

	// --simulate: schedtui's own run, from the first state.
	out, errOut, err = runCmd(t, newRunCommand, "--snapshot", rec, "--simulate")
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	if !strings.Contains(errOut, simulateLine) || !strings.Contains(out, "+0s      default/a                                Scheduled     big") ||
		!strings.Contains(out, "+0s      default/huge                             Unschedulable") {
		t.Errorf("--simulate:\n%s\n%s", out, errOut)
	}
}
