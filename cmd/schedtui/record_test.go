package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/schedtui/schedtui/scheduler"
	"github.com/schedtui/schedtui/scheduler/change"
	"github.com/schedtui/schedtui/scheduler/plugins"
	"github.com/schedtui/schedtui/scheduler/record"
	"github.com/schedtui/schedtui/snapshot"
	"github.com/schedtui/schedtui/tui"
)

const stuckPodRecording = "../../testdata/recording-stuck-pod.yaml"

// syncBuffer is a bytes.Buffer safe for a command writing while the test
// reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func (s *syncBuffer) waitFor(t *testing.T, part string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if strings.Contains(s.String(), part) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("no %q in:\n%s", part, s.String())
}

// TestRecordRoundTrip records a fake cluster while it changes, then opens
// the recording: the same initial state as a capture, the same changes,
// and a replay that schedules the pod that arrived.
func TestRecordRoundTrip(t *testing.T) {
	for _, name := range []string{"rec.json", "rec.yaml.gz"} {
		t.Run(name, func(t *testing.T) {
			client := fakeCluster(t)
			existingKubeconfig(t)
			dir := t.TempDir()
			snap := filepath.Join(dir, "snap.json")
			if _, errOut, err := runCmd(t, newSnapshotCommand, "-o", snap); err != nil {
				t.Fatalf("%v\n%s", err, errOut)
			}
			rec := filepath.Join(dir, name)
			stderr, stop := startRecording(t, "-o", rec)

			bg := context.Background()
			rl := v1.ResourceList{v1.ResourceCPU: resource.MustParse("4"), v1.ResourceMemory: resource.MustParse("8Gi"), v1.ResourcePods: resource.MustParse("110")}
			big := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "big", UID: "u-big", ResourceVersion: "5"}, Status: v1.NodeStatus{Capacity: rl, Allocatable: rl}}
			if _, err := client.CoreV1().Nodes().Create(bg, big, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			stderr.waitFor(t, "NodeAdd Node big (1 changes recorded)")
			prio := int32(0)
			arrived := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "arrived", UID: "u-arrived", ResourceVersion: "6",
				CreationTimestamp: metav1.Now()},
				Spec: v1.PodSpec{SchedulerName: v1.DefaultSchedulerName, Priority: &prio,
					Containers: []v1.Container{{Name: "c", Image: "x", Resources: v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("3")}}}}},
				Status: v1.PodStatus{Phase: v1.PodPending}}
			if _, err := client.CoreV1().Pods("default").Create(bg, arrived, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			stderr.waitFor(t, "PodAdd Pod default/arrived (2 changes recorded)")
			svc := &v1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web", ResourceVersion: "7"}, Spec: v1.ServiceSpec{Selector: map[string]string{"app": "web"}}}
			if _, err := client.CoreV1().Services("default").Create(bg, svc, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			stderr.waitFor(t, "ObjectAdd Service default/web (3 changes recorded)")
			if err := client.CoreV1().Pods("default").Delete(bg, "live-pod", metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
			stderr.waitFor(t, "PodDelete Pod default/live-pod (4 changes recorded)")
			stop()
			if !strings.Contains(stderr.String(), "recorded 4 changes") {
				t.Errorf("stderr:\n%s", stderr.String())
			}

			o, err := snapshot.Open(rec)
			if err != nil {
				t.Fatal(err)
			}
			if len(o.Report.Problems) > 0 {
				t.Errorf("problems:\n%s", o.Report)
			}
			h := o.Header
			if o.Format != snapshot.FormatRecording || !h.IsRecording() || h.Context != "fake-ctx" || h.Source != "https://fake" || o.RecordedUntil.Before(h.RecordingStarted) {
				t.Fatalf("format %q header %+v until %v", o.Format, h, o.RecordedUntil)
			}
			captured, err := snapshot.Open(snap)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := objectsJSON(t, o.Cluster), objectsJSON(t, captured.Cluster); got != want {
				t.Errorf("initial state differs from the capture:\n%s\nwant\n%s", got, want)
			}
			var got []string
			for i, c := range o.Changes {
				if i > 0 && c.Time.Before(o.Changes[i-1].Time) || c.Time.Before(h.RecordingStarted) {
					t.Errorf("change %d at %v", i, c.Time)
				}
				ch, err := change.For(c.Type, c.Object)
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, ch.String())
			}
			want := []string{"NodeAdd Node big", "PodAdd Pod default/arrived", "ObjectAdd Service default/web", "PodDelete Pod default/live-pod"}
			if strings.Join(got, "; ") != strings.Join(want, "; ") {
				t.Errorf("changes %q, want %q", got, want)
			}
			if n := o.Changes[0].Object.(*v1.Node); !n.Status.Allocatable.Cpu().Equal(resource.MustParse("4")) || n.UID != "u-big" {
				t.Errorf("recorded node %+v", n)
			}

			// The replay: live-pod goes first, arrived to big when it
			// arrives.
			out, errOut, err := runCmd(t, newRunCommand, "--snapshot", rec, "-o", "json", "--simulate")
			if err != nil {
				t.Fatalf("%v\n%s", err, errOut)
			}
			if !strings.Contains(errOut, "a recording: 4 changes from") || !strings.Contains(errOut, simulateLine) {
				t.Errorf("stderr:\n%s", errOut)
			}
			var scheduled []string
			sc := bufio.NewScanner(strings.NewReader(out))
			sc.Buffer(make([]byte, 1<<20), 1<<20)
			for sc.Scan() {
				var m map[string]any
				if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
					t.Fatal(err)
				}
				if m["kind"] == "attempt" && m["outcome"] == "Scheduled" {
					scheduled = append(scheduled, m["pod"].(string)+"@"+m["node"].(string))
				}
			}
			if strings.Join(scheduled, " ") != "default/live-pod@live-node default/arrived@big" {
				t.Errorf("scheduled %v:\n%s", scheduled, out)
			}
		})
	}
}

// startRecording runs schedtui record with args until it watches; stop
// interrupts it and fails the test if it failed.
func startRecording(t *testing.T, args ...string) (stderr *syncBuffer, stop func()) {
	t.Helper()
	cmd := newRecordCommand()
	stderr = &syncBuffer{}
	cmd.SetOut(&bytes.Buffer{})
	cmd.SetErr(stderr)
	cmd.SetArgs(args)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	done := make(chan error, 1)
	go func() { done <- cmd.ExecuteContext(ctx) }()
	stderr.waitFor(t, "now watching until interrupted")
	return stderr, func() {
		t.Helper()
		cancel()
		if err := <-done; err != nil {
			t.Fatalf("record: %v\n%s", err, stderr.String())
		}
	}
}

func objectsJSON(t *testing.T, c *snapshot.Cluster) string {
	t.Helper()
	var b bytes.Buffer
	if _, err := snapshot.Write(&b, c, snapshot.Header{}, snapshot.OutputFormat{}); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestRecordFor: --for ends the recording by itself, cleanly.
func TestRecordFor(t *testing.T) {
	fakeCluster(t)
	existingKubeconfig(t)
	rec := filepath.Join(t.TempDir(), "rec.yaml")
	_, errOut, err := runCmd(t, newRecordCommand, "-o", rec, "--for", "200ms", "--context", "prod")
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	for _, w := range []string{"prod: recording to " + rec + ": the initial state, 4 objects (1 nodes, 1 pods); now watching for 200ms", "recorded 0 changes"} {
		if !strings.Contains(errOut, w) {
			t.Errorf("stderr lacks %q:\n%s", w, errOut)
		}
	}
	o, err := snapshot.Open(rec)
	if err != nil {
		t.Fatal(err)
	}
	if o.Format != snapshot.FormatRecording || len(o.Changes) != 0 || o.RecordedUntil.Sub(o.Header.RecordingStarted) < 200*time.Millisecond ||
		len(o.Report.Problems) != 0 {
		t.Errorf("format %q, %d changes, %v..%v, problems %s", o.Format, len(o.Changes), o.Header.RecordingStarted, o.RecordedUntil, o.Report)
	}
}

func TestRecordRefuses(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    []string
		kubeenv bool
		err     string
	}{
		{"--snapshot", []string{"-o", "x.json", "--snapshot", stuckPodRecording}, true, "record watches a live cluster"},
		{"--demo", []string{"-o", "x.json", "--demo"}, true, "--snapshot and --demo have no changes to record"},
		{"no cluster", []string{"-o", "x.json"}, false, "no cluster to record"},
		{"bad extension", []string{"-o", "x.txt"}, true, "cannot tell the format from the name"},
		{"protobuf", []string{"-o", "x.pb"}, true, "protobuf (.pb) is for snapshots"},
		{"negative --for", []string{"-o", "x.json", "--for", "-1s"}, true, "--for must not be negative"},
		{"-o required", nil, true, `required flag(s) "output" not set`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fakeCluster(t)
			if tc.kubeenv {
				existingKubeconfig(t)
			}
			_, _, err := runCmd(t, newRecordCommand, tc.args...)
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("err = %v, want %q", err, tc.err)
			}
		})
	}
}

// TestReplayStuckPodSimulate replays the recording in testdata with
// --simulate (schedtui schedules every pod itself): the pod fails at
// the start (and on every flush retry), node-b joins 40 minutes later and
// the pod binds there at that virtual time.
func TestReplayStuckPodSimulate(t *testing.T) {
	out, errOut, err := runCmd(t, newRunCommand, "--snapshot", stuckPodRecording, "--simulate")
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	if !strings.Contains(errOut, "a recording: 6 changes from 2026-03-02T09:00:00Z (until 2026-03-02T10:00:00Z); run, explain and the debugger replay them") {
		t.Errorf("stderr:\n%s", errOut)
	}
	var order []string
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		switch {
		case len(f) >= 3 && f[1] == "batch/report":
			order = append(order, f[0]+" report "+f[2])
		case len(f) >= 4 && f[1] == "cluster:":
			order = append(order, f[0]+" "+f[2]+" "+f[4])
		}
	}
	got := strings.Join(order, "\n")
	for _, want := range []string{
		"+0s report Unschedulable\n+5m30s report Unschedulable\n+10m0s PodAdd default/web-2",
		"+25m0s NodeUpdate node-a\n+27m30s report Unschedulable",
		"+38m30s report Unschedulable\n+40m0s NodeAdd node-b\n+40m0s report Scheduled\n+40m0.3s PodUpdate batch/report\n+45m0s PodDelete default/web-1",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("events\n%s\nlack\n%s\n(output:\n%s)", got, want, out)
		}
	}
	if !strings.Contains(out, "+40m0s   batch/report                             Scheduled     node-b") {
		t.Errorf("output:\n%s", out)
	}
	// The cluster's scheduler bound both pods where schedtui did.
	for _, want := range []string{
		"+10m0.4s   observed: default/web-2: the cluster → node-a, schedtui → node-a: agree",
		"+40m0.3s   observed: batch/report: the cluster → node-b, schedtui → node-b: agree",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}

	// explain follows the same replay: the pod's last attempt is the
	// binding when node-b joins, and --until stops where run would.
	checkCmd(t, newExplainCommand, []string{"--snapshot", stuckPodRecording, "--simulate", "batch/report"}, cmdWant{stdout: []string{
		"9  +40m0s   NodeAdd", "Attempt 9 of 9, at +40m0s:", "Node:       node-b"}})
	checkCmd(t, newExplainCommand, []string{"--snapshot", stuckPodRecording, "--simulate", "batch/report", "--until", "30m"}, cmdWant{stdout: []string{
		"Outcome:    Unschedulable", "Now:        in Unschedulable"}})
	compareExplainRun(t, "stuck pod recording", "--snapshot", stuckPodRecording, "--simulate")

	// JSON: the cluster lines, and the binding at 09:40.
	out, _, err = runCmd(t, newRunCommand, "--snapshot", stuckPodRecording, "-o", "json", "--simulate")
	if err != nil {
		t.Fatal(err)
	}
	var cluster []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatal(err)
		}
		switch m["kind"] {
		case "cluster":
			cluster = append(cluster, m["time"].(string)+" "+m["change"].(string)+" "+m["object"].(string)+" "+m["node"].(string))
		case "attempt":
			if m["outcome"] == "Scheduled" && m["pod"] == "batch/report" && m["node"] != "node-b" {
				t.Errorf("report bound to %v", m["node"])
			}
		}
	}
	want := []string{
		"2026-03-02T09:10:00Z PodAdd Pod default/web-2 ",
		"2026-03-02T09:10:00.4Z PodUpdate Pod default/web-2 node-a",
		"2026-03-02T09:25:00Z NodeUpdate Node node-a node-a",
		"2026-03-02T09:40:00Z NodeAdd Node node-b node-b",
		"2026-03-02T09:40:00.3Z PodUpdate Pod batch/report node-b",
		"2026-03-02T09:45:00Z PodDelete Pod default/web-1 node-a",
	}
	if strings.Join(cluster, "\n") != strings.Join(want, "\n") {
		t.Errorf("cluster lines\n%s\nwant\n%s", strings.Join(cluster, "\n"), strings.Join(want, "\n"))
	}
	if !strings.Contains(out, `{"kind":"observed","time":"2026-03-02T09:40:00.3Z","pod":"batch/report","node":"node-b","predicted":"node-b","verdict":"agree","message":"schedtui chose node-b too","attempt":10}`) {
		t.Errorf("no observation of report's binding:\n%s", out)
	}
	if !strings.Contains(out, `{"kind":"queue","time":"2026-03-02T09:40:00Z","pod":"batch/report","from":"Unschedulable","to":"Active","event":"NodeAdd","message":""}`) {
		t.Errorf("no NodeAdd move at 09:40:\n%s", out)
	}

	// --until counts from the recording's start.
	out, _, err = runCmd(t, newRunCommand, "--snapshot", stuckPodRecording, "--until", "30m", "--simulate")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, "NodeAdd") || !strings.Contains(out, "+25m0s     cluster: NodeUpdate Node node-a") ||
		!strings.Contains(out, "pending  batch/report") {
		t.Errorf("--until 30m:\n%s", out)
	}
}

// TestReplayStuckPodShadow replays the recording in testdata in shadow
// mode, the default: schedtui schedules nothing itself; each binding of
// the cluster's scheduler gets schedtui's attempt on the state it had and
// an observation, all agreeing; explain explains that attempt.
func TestReplayStuckPodShadow(t *testing.T) {
	out, errOut, err := runCmd(t, newRunCommand, "--snapshot", stuckPodRecording)
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	if !strings.Contains(errOut, shadowLine) {
		t.Errorf("stderr:\n%s", errOut)
	}
	want := `scheduler: kube-scheduler 1.37
+10m0s     cluster: PodAdd Pod default/web-2
+10m0.4s   cluster: PodUpdate Pod default/web-2 on node-a
+10m0.4s default/web-2                            Scheduled     node-a
+10m0.4s   observed: default/web-2: the cluster → node-a, schedtui → node-a: agree (schedtui chose node-a too) · judged on 1 bound pod(s)
+25m0s     cluster: NodeUpdate Node node-a
+40m0s     cluster: NodeAdd Node node-b
+40m0.3s   cluster: PodUpdate Pod batch/report on node-b
+40m0.3s batch/report                             Scheduled     node-b
+40m0.3s   observed: batch/report: the cluster → node-b, schedtui → node-b: agree (schedtui chose node-b too) · judged on 2 bound pod(s)
+45m0s     cluster: PodDelete Pod default/web-1
`
	if out != want {
		t.Errorf("output:\n%s\nwant:\n%s", out, want)
	}
	out, _, err = runCmd(t, newRunCommand, "--snapshot", stuckPodRecording, "-o", "json")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, `{"kind":"observed","time":"2026-03-02T09:40:00.3Z","pod":"batch/report","node":"node-b","predicted":"node-b","verdict":"agree","message":"schedtui chose node-b too","judgedOn":{"bound":2,"inFlight":[]},"attempt":2}`) {
		t.Errorf("no observation of report's binding:\n%s", out)
	}
	if strings.Contains(out, `"verdict":"disagree"`) || strings.Contains(out, `"kind":"queue"`) && strings.Contains(out, `"to":"InFlight"`) {
		t.Errorf("a disagreement, or schedtui popped a pod:\n%s", out)
	}
	checkCmd(t, newExplainCommand, []string{"--snapshot", stuckPodRecording, "batch/report"}, cmdWant{stdout: []string{
		"Attempt 1 of 1, at +40m0.3s:", "Node:       node-b"}})
	compareExplainRun(t, "stuck pod recording, shadow", "--snapshot", stuckPodRecording)
}

// TestReplayCutShort: a recording whose recorder was killed mid-line
// replays up to its last complete change, with a warning.
func TestReplayCutShort(t *testing.T) {
	o, err := snapshot.Open(stuckPodRecording)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	rw, err := snapshot.NewRecordingWriter(&buf, o.Cluster, *o.Header, snapshot.OutputFormat{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range o.Changes {
		if err := rw.Add(c.Time, c.Type, c.Object); err != nil {
			t.Fatal(err)
		}
	}
	data := buf.Bytes()
	// Killed in the middle of the last change (the pod deletion).
	path := filepath.Join(t.TempDir(), "cut.json")
	if err := os.WriteFile(path, data[:len(data)-30], 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, err := runCmd(t, newRunCommand, "--snapshot", path)
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	if !strings.Contains(errOut, "warning: not one complete JSON object: the recording was cut short here") ||
		!strings.Contains(errOut, "a recording: 5 changes") {
		t.Errorf("stderr:\n%s", errOut)
	}
	if !strings.Contains(out, "+40m0.3s batch/report                             Scheduled     node-b") || strings.Contains(out, "PodDelete") {
		t.Errorf("output:\n%s", out)
	}
}

// TestReplayBackend: the debugger's backend replays a recording too.
func TestReplayBackend(t *testing.T) {
	var errOut bytes.Buffer
	o, err := snapshot.Open(stuckPodRecording)
	if err != nil {
		t.Fatal(err)
	}
	r := replayOf(o, &errOut, false)
	b, err := tui.NewBackend("rec", o.Cluster, scheduler.Options{Registry: plugins.NewInTreeRegistry(), Seed: 1}, r.forTUI(&errOut)...)
	if err != nil {
		t.Fatal(err)
	}
	if !b.Now().Equal(o.Header.RecordingStarted) {
		t.Errorf("starts at %v", b.Now())
	}
	var last *record.Attempt
	for {
		a, ok := b.Step()
		if !ok {
			break
		}
		last = a
	}
	if last == nil || last.Pod != "batch/report" || last.Node != "node-b" || !last.Time.Equal(o.Header.RecordingStarted.Add(40*time.Minute)) {
		t.Errorf("last attempt %+v", last)
	}
	simulated := &source{mode: runMode{kind: simulating, source: recordingReplay}, replay: r}
	if n := simulated.notice(nil); !strings.Contains(n, "simulating a recording: schedtui schedules every pod itself; 6 changes over 45m0s") {
		t.Errorf("notice %q", n)
	}
	// A change the engine refuses at the start is reported.
	bad := &replay{start: o.Header.RecordingStarted, changes: []change.Change{{Kind: change.NodeDelete, Node: &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "ghost"}}, At: o.Header.RecordingStarted}},
		where: []string{"rec.yaml:9"}}
	if _, err := tui.NewBackend("rec", o.Cluster, scheduler.Options{Registry: plugins.NewInTreeRegistry()}, bad.forTUI(&errOut)...); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(errOut.String(), `rec.yaml:9: warning: NodeDelete Node ghost not applied: node "ghost": no such node`) {
		t.Errorf("stderr:\n%s", errOut.String())
	}
}

// TestConvertRecording: schedtui snapshot on a recording keeps its
// initial state, as a plain snapshot.
func TestConvertRecording(t *testing.T) {
	out := filepath.Join(t.TempDir(), "start.yaml")
	_, errOut, err := runCmd(t, newSnapshotCommand, "--snapshot", stuckPodRecording, "-o", out)
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	if !strings.Contains(errOut, "note: 6 changes of the recording are left out") {
		t.Errorf("stderr:\n%s", errOut)
	}
	o, err := snapshot.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	if o.Format != snapshot.FormatFile || o.Header == nil || o.Header.IsRecording() || o.Header.Context != "prod" ||
		len(o.Changes) != 0 || len(o.Cluster.Nodes) != 1 || len(o.Cluster.Pods) != 2 {
		t.Errorf("format %q header %+v, %d changes, %d nodes, %d pods", o.Format, o.Header, len(o.Changes), len(o.Cluster.Nodes), len(o.Cluster.Pods))
	}
}
