package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/schedtui/schedtui/internal/extendertest"
	"github.com/schedtui/schedtui/scheduler"
	"github.com/schedtui/schedtui/scheduler/plugins"
	"github.com/schedtui/schedtui/scheduler/record"
	"github.com/schedtui/schedtui/snapshot"
	"github.com/schedtui/schedtui/tui"
)

// TestRecordExtenderAnswers records a fake cluster with a configuration
// whose extender is the real test extender: the recorder's scheduler asks
// it as the cluster's decisions come, and the recording keeps the
// answers. The replay (run, shadow and --simulate) answers from them:
// the same verdicts with the server running and stopped, and not one
// call to it. A request the recording has no answer for is an unreachable
// extender's error naming it; --skip-extenders replays nothing.
func TestRecordExtenderAnswers(t *testing.T) {
	client := fakeCluster(t)
	existingKubeconfig(t)
	srv := extendertest.Start(nil)
	defer srv.Close()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(cfg, []byte("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nextenders:\n"+
		"- urlPrefix: "+srv.URL()+"\n  filterVerb: filter\n  prioritizeVerb: prioritize\n  weight: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rec := filepath.Join(dir, "rec.json")
	stderr, stop := startRecording(t, "-o", rec, "--config", cfg)

	// The extender rejects "rejected", which the resources would allow,
	// and scores "second" 9; the cluster binds the pod to second, where
	// schedtui puts it too.
	bg := context.Background()
	rl := v1.ResourceList{v1.ResourceCPU: resource.MustParse("8"), v1.ResourceMemory: resource.MustParse("16Gi"), v1.ResourcePods: resource.MustParse("110")}
	rejected := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "rejected", UID: "u-rejected", ResourceVersion: "5",
		Labels: map[string]string{"extender.test/filter": "fail"}}, Status: v1.NodeStatus{Capacity: rl, Allocatable: rl}}
	if _, err := client.CoreV1().Nodes().Create(bg, rejected, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	stderr.waitFor(t, "NodeAdd Node rejected (1 changes recorded)")
	second := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "second", UID: "u-second", ResourceVersion: "6",
		Labels: map[string]string{"extender.test/score": "9"}}, Status: v1.NodeStatus{Capacity: rl, Allocatable: rl}}
	if _, err := client.CoreV1().Nodes().Create(bg, second, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	stderr.waitFor(t, "NodeAdd Node second (2 changes recorded)")
	pod, err := client.CoreV1().Pods("default").Get(bg, "live-pod", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pod.Spec.NodeName, pod.ResourceVersion = "second", "7"
	if _, err := client.CoreV1().Pods("default").Update(bg, pod, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	stderr.waitFor(t, "PodUpdate Pod default/live-pod (3 changes recorded)")
	stop()
	// Read-only: the only writes the cluster saw are the test's own.
	var writes []string
	for _, a := range client.Actions() {
		switch a.GetVerb() {
		case "get", "list", "watch":
		default:
			writes = append(writes, a.GetVerb()+" "+a.GetResource().Resource)
		}
	}
	if strings.Join(writes, ", ") != "create nodes, create nodes, update pods" {
		t.Errorf("writes to the cluster: %v", writes)
	}
	if !strings.Contains(stderr.String(), "the recording keeps every answer the extenders give it") {
		t.Errorf("stderr:\n%s", stderr.String())
	}
	recorded := len(srv.Calls())
	if recorded == 0 {
		t.Fatalf("the recorder asked the extender nothing:\n%s", stderr.String())
	}
	o, err := snapshot.Open(rec)
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Report.Problems) > 0 || o.Header.ExtenderAnswers != snapshot.ExtenderAnswersRecorded || len(o.ExtenderAnswers) != recorded {
		t.Fatalf("problems %s, header %+v, %d answers for %d calls", o.Report, o.Header, len(o.ExtenderAnswers), recorded)
	}
	a := o.ExtenderAnswers[0]
	if a.Extender != srv.URL() || a.Verb != "filter" || a.Pod != "default/live-pod" || a.PodUID != "u-pod" || a.Status != 200 ||
		!strings.Contains(string(a.Body), "rejected by the test extender") || strings.Join(sorted(a.Nodes), ",") != "live-node,rejected,second" {
		t.Errorf("first answer %+v", a)
	}

	// The replay, with the server up: no call reaches it.
	shadow, errOut, err := runCmd(t, newRunCommand, "--snapshot", rec, "-o", "json")
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	if !strings.Contains(errOut, "the recording holds 2 extender answers") {
		t.Errorf("stderr:\n%s", errOut)
	}
	attempt := attemptLine(t, shadow, "default/live-pod")
	for _, w := range []string{`"outcome":"Scheduled"`, `"node":"second"`, "rejected by the test extender"} {
		if !strings.Contains(attempt, w) {
			t.Errorf("attempt lacks %s:\n%s", w, attempt)
		}
	}
	if !strings.Contains(shadow, `"verdict":"agree"`) {
		t.Errorf("no agreement:\n%s", shadow)
	}
	simulated, errOut, err := runCmd(t, newRunCommand, "--snapshot", rec, "-o", "json", "--simulate")
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	// The debugger's engine: its attempt's call is marked replayed.
	var errBuf bytes.Buffer
	r := replayOf(o, &errBuf, false)
	r.useExtenderAnswers(o, false, &errBuf)
	shadowReplay := append(r.forTUI(&errBuf), tui.Replay{Shadow: true})
	b, err := tui.NewBackend("rec", o.Cluster, scheduler.Options{Config: o.Config, Registry: plugins.NewInTreeRegistry(), Seed: 1}, shadowReplay...)
	if err != nil {
		t.Fatal(err)
	}
	var calls []record.ExtenderCall
	for {
		a, ok := b.Step()
		if !ok {
			break
		}
		calls = append(calls, a.ExtenderCalls...)
	}
	if len(calls) != 2 || !calls[0].Replayed || !calls[1].Replayed || calls[0].Error != "" || calls[1].Error != "" ||
		calls[0].Failed["rejected"] != "rejected by the test extender" || calls[1].Scores["second"] != 9 {
		t.Errorf("the debugger's extender calls: %+v\n%s", calls, errBuf.String())
	}
	if got := len(srv.Calls()); got != recorded {
		t.Fatalf("the replays called the extender %d times", got-recorded)
	}

	// The server stopped: the same runs.
	srv.Close()
	for _, tc := range []struct{ before, simulate string }{{shadow, ""}, {simulated, "--simulate"}} {
		args := []string{"--snapshot", rec, "-o", "json"}
		if tc.simulate != "" {
			args = append(args, tc.simulate)
		}
		out, errOut, err := runCmd(t, newRunCommand, args...)
		if err != nil {
			t.Fatalf("%v\n%s", err, errOut)
		}
		if out != tc.before {
			t.Errorf("replay %s with the extender stopped:\n%s\nwith it running:\n%s", tc.simulate, out, tc.before)
		}
	}

	// --skip-extenders: no extender, nothing replayed.
	checkCmd(t, newRunCommand, []string{"--snapshot", rec, "-o", "json", "--skip-extenders"}, cmdWant{
		stdout:    []string{`"pod":"default/live-pod","outcome":"Scheduled"`},
		notStderr: []string{"extender answers"},
	})

	// A recording without the answer to the filter call: the attempt
	// fails as with an unreachable extender, naming the request.
	data, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, l := range strings.SplitAfter(string(data), "\n") {
		if !strings.Contains(l, `"kind":"ExtenderAnswer"`) || !strings.Contains(l, `"verb":"filter"`) {
			kept = append(kept, l)
		}
	}
	missing := filepath.Join(dir, "missing.json")
	if err := os.WriteFile(missing, []byte(strings.Join(kept, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, err := runCmd(t, newRunCommand, "--snapshot", missing, "-o", "json")
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	if a := attemptLine(t, out, "default/live-pod"); !strings.Contains(a, `"outcome":"Error"`) ||
		!strings.Contains(a, "no recorded answer for filter of pod default/live-pod by extender "+srv.URL()) {
		t.Errorf("attempt without a recorded answer:\n%s", a)
	}

	// An ignorable extender without its answer is skipped, as upstream
	// skips an ignorable extender it cannot reach.
	ignorable := filepath.Join(dir, "ignorable.yaml")
	if err := os.WriteFile(ignorable, []byte("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nextenders:\n"+
		"- urlPrefix: "+srv.URL()+"\n  filterVerb: filter\n  prioritizeVerb: prioritize\n  weight: 1\n  ignorable: true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, err = runCmd(t, newRunCommand, "--snapshot", missing, "--config", ignorable, "-o", "json")
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	if a := attemptLine(t, out, "default/live-pod"); !strings.Contains(a, `"outcome":"Scheduled"`) || strings.Contains(a, "rejected by the test extender") {
		t.Errorf("attempt with an ignorable extender without a recorded answer:\n%s", a)
	}

	// record --skip-extenders asks nothing and keeps no answers.
	before := len(srv.Calls())
	skipped := filepath.Join(dir, "skipped.json")
	checkCmd(t, newRecordCommand, []string{"-o", skipped, "--config", cfg, "--skip-extenders", "--for", "50ms"}, cmdWant{
		stderr: []string{"--skip-extenders: the extenders are not asked while recording"}})
	if o, err := snapshot.Open(skipped); err != nil || o.Header.ExtenderAnswers != "" || len(o.ExtenderAnswers) != 0 || len(srv.Calls()) != before {
		t.Errorf("recorded with --skip-extenders: %v, %+v", err, o.Header)
	}

	// A recording made before extender answers existed still loads, and
	// its replay calls the extenders as before.
	old, err := snapshot.Open(stuckPodRecording)
	if err != nil || len(old.ExtenderAnswers) != 0 || old.Header.ExtenderAnswers != "" {
		t.Fatalf("old recording: %v, %d answers", err, len(old.ExtenderAnswers))
	}
}

func sorted(ss []string) []string {
	out := append([]string(nil), ss...)
	sort.Strings(out)
	return out
}

// attemptLine is the first attempt line of pod in run's JSON output.
func attemptLine(t *testing.T, out, pod string) string {
	t.Helper()
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		if m["kind"] == "attempt" && m["pod"] == pod {
			return sc.Text()
		}
	}
	t.Fatalf("no attempt of %s:\n%s", pod, out)
	return ""
}
