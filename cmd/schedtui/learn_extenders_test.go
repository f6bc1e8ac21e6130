package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"regexp"
	"testing"
	"time"

	"github.com/schedtui/schedtui/internal/extendertest"
	"github.com/schedtui/schedtui/scheduler"
	"github.com/schedtui/schedtui/scheduler/apis/config"
	"github.com/schedtui/schedtui/scheduler/engine"
	"github.com/schedtui/schedtui/scheduler/features"
	"github.com/schedtui/schedtui/scheduler/plugins"
	"github.com/schedtui/schedtui/snapshot"
	"github.com/schedtui/schedtui/testdata"
)

// updateLearn rewrites the lessons' generated recordings.
var updateLearn = flag.Bool("update-learn", false, "rewrite testdata/learn's recordings made with a real extender")

// learnExtenderFile is the extenders lesson's recording.
const learnExtenderFile = "../../testdata/learn/14-extenders.yaml"

// learnExtenderURL is the name the lesson's extender goes by in the
// recording: the recording's answers are keyed by it, and a replay never
// calls it (".invalid" never resolves either).
const learnExtenderURL = "http://labels.extender.invalid"

// learnExtenderStart is when the lesson's recording starts.
var learnExtenderStart = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// learnExtenderCluster is the lesson's cluster. The test extender's rules
// are its nodes' labels: it rejects node-2 (extender.test/filter=fail)
// and rates node-1 2 and node-3 8 (extender.test/score).
const learnExtenderCluster = `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: node-1, labels: {kubernetes.io/hostname: node-1, extender.test/score: "2"}}
  status:
    allocatable: {cpu: "4", memory: 8Gi, pods: "110"}
- apiVersion: v1
  kind: Node
  metadata: {name: node-2, labels: {kubernetes.io/hostname: node-2, extender.test/filter: fail}}
  status:
    allocatable: {cpu: "4", memory: 8Gi, pods: "110"}
- apiVersion: v1
  kind: Node
  metadata: {name: node-3, labels: {kubernetes.io/hostname: node-3, extender.test/score: "8"}}
  status:
    allocatable: {cpu: "4", memory: 8Gi, pods: "110"}
- apiVersion: v1
  kind: Pod
  metadata: {name: web, namespace: default, creationTimestamp: "2026-01-01T00:00:00Z"}
  spec:
    containers:
    - {name: main, image: web, resources: {requests: {cpu: 500m, memory: 1Gi}}}
  status: {phase: Pending}
`

// learnExtenderConfig is the lesson's scheduler configuration: the labels
// extender at url filters and prioritizes (weight 2); a second one, at an
// address where nothing listens, is ignorable.
func learnExtenderConfig(url string) string {
	return fmt.Sprintf(`apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
extenders:
- urlPrefix: %s
  filterVerb: filter
  prioritizeVerb: prioritize
  preemptVerb: preempt
  weight: 2
- urlPrefix: http://127.0.0.1:1
  filterVerb: filter
  ignorable: true
`, url)
}

// learnExtenderRecording records the lesson's cluster scheduled with the
// real test extender (internal/extendertest, over HTTP) and the
// unreachable one: every answer they gave, as schedtui record keeps them,
// the labels extender named learnExtenderURL.
func learnExtenderRecording(t *testing.T) []byte {
	t.Helper()
	srv := extendertest.Start(nil)
	defer srv.Close()
	c, r, err := snapshot.Load("learn/14-extenders.yaml", []byte(learnExtenderCluster))
	if err != nil || len(r.Problems) > 0 {
		t.Fatalf("%v %v", err, r)
	}
	cfg, _, err := config.LoadData("config", []byte(learnExtenderConfig(srv.URL())), features.Default())
	if err != nil {
		t.Fatal(err)
	}
	answers := scheduler.NewExtenderAnswers()
	var xs []scheduler.ExtenderExchange
	answers.OnExchange(func(x scheduler.ExtenderExchange) {
		if x.Extender == srv.URL() {
			x.Extender = learnExtenderURL
		}
		xs = append(xs, x)
	})
	e, err := engine.New(c.Nodes, c.Pods, c.SchedulerObjects(), engine.Options{Config: cfg, Registry: plugins.NewInTreeRegistry(), Seed: 1,
		Start: learnExtenderStart, ExtenderAnswers: answers})
	if err != nil {
		t.Fatal(err)
	}
	e.RunToQuiescence()
	if len(srv.Calls()) == 0 || len(xs) <= len(srv.Calls()) {
		t.Fatalf("%d calls to the extender, %d exchanges", len(srv.Calls()), len(xs))
	}
	var b bytes.Buffer
	b.WriteString(`# schedtui learn, lesson 14: extenders. A recording made with a real
# scheduler extender (internal/extendertest, over HTTP), which rejects and
# rates nodes by their labels: it keeps its answers, so the lesson replays
# them and calls nothing. Written by
#   go test ./cmd/schedtui -run TestLearnExtenderRecording -update-learn
#
`)
	h := snapshot.Header{CapturedAt: learnExtenderStart, RecordingStarted: learnExtenderStart,
		SchedulerConfig: learnExtenderConfig(learnExtenderURL), ExtenderAnswers: snapshot.ExtenderAnswersRecorded}
	rw, err := snapshot.NewRecordingWriter(&b, c, h, snapshot.OutputFormat{YAML: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range xs {
		if err := rw.AddExtenderAnswer(learnExtenderStart, x); err != nil {
			t.Fatal(err)
		}
	}
	if err := rw.Close(learnExtenderStart.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// latencyLine is an answer's latency, which differs from one recording to
// the next.
var latencyLine = regexp.MustCompile(`(?m)^latency: .*$`)

// TestLearnExtenderRecording: the extenders lesson's recording holds what
// the real test extender answers (latencies aside): remade now, it is the
// same file (-update-learn rewrites it); and its replay answers every call
// from it, as schedtui learn does.
func TestLearnExtenderRecording(t *testing.T) {
	got := learnExtenderRecording(t)
	if *updateLearn {
		if err := os.WriteFile(learnExtenderFile, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	embedded, err := testdata.Learn.ReadFile("learn/14-extenders.yaml")
	if err != nil {
		t.Fatal(err)
	}
	onDisk, err := os.ReadFile(learnExtenderFile)
	if err != nil {
		t.Fatal(err)
	}
	norm := func(b []byte) string { return latencyLine.ReplaceAllString(string(b), "latency: -") }
	if !*updateLearn && (norm(onDisk) != norm(got) || norm(embedded) != norm(got)) {
		t.Fatalf("%s is not what the extender answers now (go test ./cmd/schedtui -run TestLearnExtenderRecording -update-learn):\n%s", learnExtenderFile, got)
	}
	out, stderr, err := runCmd(t, newRunCommand, "--snapshot", learnExtenderFile, "--simulate", "-o", "json")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	a := attemptLine(t, out, "default/web")
	for _, w := range []string{`"node":"node-3"`, `"plugin":"` + learnExtenderURL + `"`, "rejected by the test extender", `"` + learnExtenderURL + `":{"raw":8,"normalized":8,"final":160}`} {
		if !regexp.MustCompile(regexp.QuoteMeta(w)).MatchString(a) {
			t.Errorf("the replayed attempt lacks %s:\n%s\n%s", w, a, stderr)
		}
	}
}
