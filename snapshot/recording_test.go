package snapshot

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/schedtui/schedtui/internal/docread"
	"github.com/schedtui/schedtui/scheduler/extender"
)

var recStart = time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)

// recInitial is a small initial state: a node, a bound pod, a pending pod.
const recInitial = `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: small, resourceVersion: "10"}
  status:
    allocatable: {cpu: "2", memory: 4Gi, pods: "110"}
- apiVersion: v1
  kind: Pod
  metadata: {name: web-1, namespace: default, resourceVersion: "11", creationTimestamp: "2026-03-02T08:00:00Z"}
  spec:
    nodeName: small
    containers: [{name: c, image: web, resources: {requests: {cpu: "1"}}}]
- apiVersion: v1
  kind: Pod
  metadata: {name: report, namespace: default, resourceVersion: "12", creationTimestamp: "2026-03-02T08:59:00Z"}
  spec:
    containers: [{name: c, image: report, resources: {requests: {cpu: "4"}}}]
`

func recNode(name, cpu string) *v1.Node {
	rl := v1.ResourceList{v1.ResourceCPU: resource.MustParse(cpu), v1.ResourceMemory: resource.MustParse("8Gi"), v1.ResourcePods: resource.MustParse("110")}
	return &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, ResourceVersion: "20", UID: types.UID("uid-" + name),
		CreationTimestamp: metav1.NewTime(recStart.Add(-time.Hour)),
		ManagedFields:     []metav1.ManagedFieldsEntry{{Manager: "kubelet"}}},
		Status: v1.NodeStatus{Capacity: rl, Allocatable: rl}}
}

type recEvent struct {
	at  time.Duration
	typ watch.EventType
	obj runtime.Object
}

func recEvents() []recEvent {
	cordoned := recNode("small", "2")
	cordoned.Spec.Unschedulable = true
	prio := int32(0)
	web2 := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web-2", Namespace: "default", UID: "uid-web-2", ResourceVersion: "21"},
		Spec: v1.PodSpec{Priority: &prio, Containers: []v1.Container{{Name: "c", Image: "web"}}}}
	return []recEvent{
		{10 * time.Minute, watch.Added, web2},
		{25 * time.Minute, watch.Modified, cordoned},
		{40 * time.Minute, watch.Added, recNode("big", "8")},
		{41 * time.Minute, watch.Added, &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "fast", ResourceVersion: "30"}, Provisioner: "x"}},
		{45 * time.Minute, watch.Deleted, &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web-1", Namespace: "default", ResourceVersion: "40"}}},
	}
}

// writeRecording records recInitial and recEvents; the recorder stops
// after the first n events (n < 0: all of them, and Close).
func writeRecording(t *testing.T, f OutputFormat, n int) ([]byte, *Cluster) {
	t.Helper()
	c, r, err := Load("initial.yaml", []byte(recInitial))
	if err != nil || r.HasErrors() {
		t.Fatalf("%v %s", err, r)
	}
	var buf bytes.Buffer
	rw, err := NewRecordingWriter(&buf, c, Header{RecordingStarted: recStart, Context: "prod", SchedtuiVersion: "test"}, f)
	if err != nil {
		t.Fatal(err)
	}
	evs := recEvents()
	if n < 0 || n > len(evs) {
		n = len(evs)
	}
	for _, ev := range evs[:n] {
		if err := rw.Add(recStart.Add(ev.at), ev.typ, ev.obj); err != nil {
			t.Fatal(err)
		}
		if err := rw.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	if n == len(evs) {
		if err := rw.Close(recStart.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
	}
	if rw.Changes() != n || rw.Objects() != len(c.Objects()) {
		t.Errorf("writer counts %d changes, %d objects", rw.Changes(), rw.Objects())
	}
	return buf.Bytes(), c
}

func objectJSON(t *testing.T, o runtime.Object) string {
	t.Helper()
	b, err := encodeObject(o, false)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func clusterJSON(t *testing.T, c *Cluster) string {
	var b strings.Builder
	for _, o := range c.Objects() {
		b.WriteString(objectJSON(t, o) + "\n")
	}
	return b.String()
}

func TestRecordingRoundTrip(t *testing.T) {
	for _, f := range []OutputFormat{{YAML: true}, {}, {YAML: true, Gzip: true}, {Gzip: true}} {
		name := "rec.json"
		if f.YAML {
			name = "rec.yaml"
		}
		t.Run(name+map[bool]string{true: ".gz"}[f.Gzip], func(t *testing.T) {
			data, initial := writeRecording(t, f, -1)
			if !IsRecording(data) {
				t.Fatal("IsRecording is false")
			}
			o, err := ReadRecording(name, data)
			if err != nil {
				t.Fatal(err)
			}
			if len(o.Report.Problems) > 0 {
				t.Errorf("problems:\n%s", o.Report)
			}
			if o.Format != FormatRecording || o.Header == nil || !o.Header.RecordingStarted.Equal(recStart) || o.Header.Context != "prod" {
				t.Errorf("format %q, header %+v", o.Format, o.Header)
			}
			if !o.RecordedUntil.Equal(recStart.Add(time.Hour)) {
				t.Errorf("recorded until %v", o.RecordedUntil)
			}
			if got, want := clusterJSON(t, o.Cluster), clusterJSON(t, initial); got != want {
				t.Errorf("initial state differs:\n%s\nwant\n%s", got, want)
			}
			evs := recEvents()
			if len(o.Changes) != len(evs) {
				t.Fatalf("%d changes, want %d", len(o.Changes), len(evs))
			}
			for i, ch := range o.Changes {
				ev := evs[i]
				if !ch.Time.Equal(recStart.Add(ev.at)) || ch.Type != ev.typ || ch.File != name || ch.Line == 0 {
					t.Errorf("change %d: %s %v at %s:%d", i, ch.Type, ch.Time, ch.File, ch.Line)
				}
				if reflect.TypeOf(ch.Object) != reflect.TypeOf(ev.obj) {
					t.Errorf("change %d: %T, want %T", i, ch.Object, ev.obj)
				}
			}
			// Stored objects keep what the server sent (no managedFields).
			if got, want := objectJSON(t, o.Changes[2].Object), objectJSON(t, evs[2].obj); got != want {
				t.Errorf("node added:\n%s\nwant\n%s", got, want)
			}
			if n := o.Changes[2].Object.(*v1.Node); len(n.ManagedFields) != 0 {
				t.Error("managedFields recorded")
			}
			// A pod the server would have admitted keeps its priority; a
			// deleted object needs only its name.
			if p := o.Changes[0].Object.(*v1.Pod); p.Spec.Priority == nil || p.UID != "uid-web-2" {
				t.Errorf("added pod %+v", p.Spec)
			}
			if p := o.Changes[4].Object.(*v1.Pod); p.Name != "web-1" || p.UID == "" {
				t.Errorf("deleted pod %s uid %q", p.Name, p.UID)
			}
			// Open detects it from the file.
			path := filepath.Join(t.TempDir(), name)
			if f.Gzip {
				path += ".gz"
			}
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			o2, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			if o2.Format != FormatRecording || len(o2.Changes) != len(evs) || o2.Changes[0].File != path {
				t.Errorf("Open: format %q, %d changes", o2.Format, len(o2.Changes))
			}
		})
	}
}

// TestRecordingFormat pins the documents' shape.
func TestRecordingFormat(t *testing.T) {
	data, _ := writeRecording(t, OutputFormat{}, -1)
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	last := lines[len(lines)-1]
	if last != `{"apiVersion":"schedtui.dev/v1","kind":"RecordingEnd","time":"2026-03-02T10:00:00Z"}` {
		t.Errorf("end marker %s", last)
	}
	change := lines[len(lines)-2]
	var doc map[string]any
	if err := json.Unmarshal([]byte(change), &doc); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(change, `{"apiVersion":"schedtui.dev/v1","kind":"RecordedChange","time":"2026-03-02T09:45:00Z","type":"DELETED","object":{`) {
		t.Errorf("change line %s", change)
	}
	if !strings.Contains(string(data), `"schedtui.dev/recording-started": "2026-03-02T09:00:00Z"`) {
		t.Errorf("no recording-started annotation:\n%s", data[:400])
	}
	y, _ := writeRecording(t, OutputFormat{YAML: true}, -1)
	for _, want := range []string{"# recording-started: \"2026-03-02T09:00:00Z\"\n", "\n---\napiVersion: schedtui.dev/v1\nkind: RecordedChange\nobject:\n",
		"time: \"2026-03-02T09:10:00Z\"\ntype: ADDED\n---\n", "kind: RecordingEnd\ntime: \"2026-03-02T10:00:00Z\"\n"} {
		if !strings.Contains(string(y), want) {
			t.Errorf("YAML lacks %q:\n%s", want, y)
		}
	}
}

func problemsText(o *Opened) string { return o.Report.String() }

// TestRecordingCutShort: a recorder killed mid-write leaves a readable
// prefix; the reader warns instead of failing.
func TestRecordingCutShort(t *testing.T) {
	full, _ := writeRecording(t, OutputFormat{}, 3)
	fullYAML, _ := writeRecording(t, OutputFormat{YAML: true}, 3)
	gzData, _ := writeRecording(t, OutputFormat{Gzip: true}, 3)
	for _, tc := range []struct {
		name    string
		data    []byte
		changes int
		warn    string
	}{
		{"JSON, no end marker", full, 3, "the recording has no end (RecordingEnd): it was cut short"},
		{"JSON, cut in the last line", full[:len(full)-40], 2, fmt.Sprintf("rec:%d: warning: not one complete JSON object: the recording was cut short here", bytes.Count(full, []byte("\n")))},
		{"YAML, no end marker", fullYAML, 3, "the recording has no end"},
		{"YAML, cut in the last object", fullYAML[:bytes.LastIndex(fullYAML, []byte("name: big"))+7], 2, "the recording was cut short here"},
		{"YAML, cut in the last type", fullYAML[:len(fullYAML)-4], 2, `type: Unsupported value: "AD"`},
		{"gzip, not closed: readable up to the last flush", gzData, 3, "truncated gzip data"},
		{"gzip, cut mid-stream", gzData[:len(gzData)-20], 2, "truncated gzip data"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, err := ReadRecording("rec", tc.data)
			if err != nil {
				t.Fatal(err)
			}
			if len(o.Changes) != tc.changes || !o.RecordedUntil.IsZero() {
				t.Errorf("%d changes (want %d), until %v", len(o.Changes), tc.changes, o.RecordedUntil)
			}
			if !strings.Contains(problemsText(o), tc.warn) || o.Report.HasErrors() {
				t.Errorf("problems:\n%s\nwant a warning %q and no error", problemsText(o), tc.warn)
			}
			if len(o.Cluster.Nodes) != 1 || len(o.Cluster.Pods) != 2 {
				t.Errorf("initial state %d nodes %d pods", len(o.Cluster.Nodes), len(o.Cluster.Pods))
			}
		})
	}
	// Cut inside the List: nothing to replay, a parse error.
	if _, err := ReadRecording("rec", full[:200]); err == nil {
		t.Error("a recording cut in its initial state opened")
	}
}

// recHeaderYAML starts a hand-written YAML recording.
const recHeaderYAML = "# schedtui-snapshot: v1\n# recording-started: \"2026-03-02T09:00:00Z\"\n" + recInitial

func change(at, typ, object string) string {
	return "---\napiVersion: schedtui.dev/v1\nkind: RecordedChange\ntime: " + at + "\ntype: " + typ + "\nobject:\n" + object
}

const recNodeBig = "  apiVersion: v1\n  kind: Node\n  metadata: {name: big}\n  status: {allocatable: {cpu: \"8\", pods: \"110\"}}\n"

// TestRecordingProblems: bad changes are reported with file, line and
// object, and skipped; the rest replays.
func TestRecordingProblems(t *testing.T) {
	end := "---\napiVersion: schedtui.dev/v1\nkind: RecordingEnd\ntime: 2026-03-02T10:00:00Z\n"
	good := change("2026-03-02T09:40:00Z", "ADDED", recNodeBig)
	// The first change's first line, the second one's.
	l1 := strings.Count(recHeaderYAML, "\n") + 2
	l2 := l1 + strings.Count(good, "\n")
	at := func(line int, rest string) string { return fmt.Sprintf("rec.yaml:%d: %s", line, rest) }
	plainNode := "---\n" + strings.ReplaceAll(recNodeBig, "\n  ", "\n")[2:]
	for _, tc := range []struct {
		name    string
		docs    string
		changes int
		want    []string
	}{
		{"unknown kind", change("2026-03-02T09:10:00Z", "ADDED", "  apiVersion: v1\n  kind: Secret\n  metadata: {name: s}\n") + good + end, 1,
			[]string{at(l1, "warning: Secret s: object.kind: kind Secret (apiVersion v1) is not read by schedtui; the change is skipped")}},
		{"bad time", change("yesterday", "ADDED", recNodeBig) + good + end, 1,
			[]string{at(l1, `Node big: time: Invalid value: "yesterday": must be an RFC 3339 time`)}},
		{"missing time", "---\napiVersion: schedtui.dev/v1\nkind: RecordedChange\ntype: ADDED\nobject:\n" + recNodeBig + good + end, 1,
			[]string{at(l1, "Node big: time: Required value")}},
		{"bad type", change("2026-03-02T09:10:00Z", "BOOKMARK", recNodeBig) + good + end, 1,
			[]string{at(l1, `Node big: type: Unsupported value: "BOOKMARK": supported values: "ADDED", "MODIFIED", "DELETED"; the change is skipped`)}},
		{"missing object", "---\napiVersion: schedtui.dev/v1\nkind: RecordedChange\ntime: 2026-03-02T09:10:00Z\ntype: ADDED\n" + good + end, 1,
			[]string{at(l1, "object: Required value: the object the change is about; the change is skipped")}},
		{"invalid object", change("2026-03-02T09:10:00Z", "ADDED", "  apiVersion: v1\n  kind: Pod\n  metadata: {name: p}\n  spec: {containers: [{name: c, image: i, resources: {requests: {cpu: 2x}}}]}\n") + good + end, 1,
			[]string{at(l1, "Pod default/p: object.spec.containers[0].resources.requests.cpu:")}},
		{"pod of a missing priority class", change("2026-03-02T09:10:00Z", "ADDED", "  apiVersion: v1\n  kind: Pod\n  metadata: {name: p}\n  spec: {priorityClassName: gold, containers: [{name: c, image: i}]}\n") + good + end, 1,
			[]string{at(l1, `Pod default/p: spec.priorityClassName: pods "p" is forbidden: no PriorityClass with name gold was found`)}},
		{"a plain object among the changes", good + plainNode + end, 1,
			[]string{at(l2, `Node big: not a recording document (apiVersion "v1", kind "Node"): after the initial state a recording holds RecordedChange, ExtenderAnswer and RecordingEnd documents`)}},
		{"a plain object right after the List is initial state", plainNode + change("2026-03-02T09:10:00Z", "DELETED", "  {apiVersion: v1, kind: Node, metadata: {name: big}}\n") + end, 1, nil},
		{"unknown field", "---\napiVersion: schedtui.dev/v1\nkind: RecordedChange\ntime: 2026-03-02T09:40:00Z\ntype: ADDED\nwhen: now\nobject:\n" + recNodeBig + end, 1,
			[]string{at(l1, "warning: when: unknown field (ignored)")}},
		{"time going back", good + change("2026-03-02T09:30:00Z", "ADDED", strings.ReplaceAll(recNodeBig, "big", "other")) + end, 2,
			[]string{at(l2, "warning: Node other: time: 2026-03-02T09:30:00Z is before the previous change (2026-03-02T09:40:00Z): applied right after it")}},
		{"before the start", change("2026-03-02T08:30:00Z", "ADDED", recNodeBig) + end, 1,
			[]string{"warning: Node big: time: 2026-03-02T08:30:00Z is before the recording started (2026-03-02T09:00:00Z): applied at the start"}},
		{"after the end", good + end + good, 1,
			[]string{at(l2+4, fmt.Sprintf("a document after the end of the recording (RecordingEnd at line %d); it is ignored", l2))}},
		{"an extender answer with an unknown field", "---\napiVersion: schedtui.dev/v1\nkind: ExtenderAnswer\ntime: 2026-03-02T09:40:00Z\n" +
			"extender: http://x\nverb: filter\npod: default/p\nnodes: [a]\nstatus: 200\nlatency: 1ms\nbodyy: x\n" + good + end, 1,
			[]string{at(l1, `ExtenderAnswer: json: unknown field "bodyy"; the change is skipped`)}},
		{"an extender answer without a verb or an answer", "---\napiVersion: schedtui.dev/v1\nkind: ExtenderAnswer\ntime: 2026-03-02T09:40:00Z\n" +
			"extender: http://x\npod: default/p\nnodes: [a]\nlatency: 1ms\n" + good + end, 1,
			[]string{at(l1, `ExtenderAnswer: verb required; the change is skipped`)}},
		{"broken YAML in the middle", "---\napiVersion: schedtui.dev/v1\nkind: RecordedChange\ntime: \"2026\n---\n" + good + end, 1,
			[]string{at(l1, "yaml: ")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, err := ReadRecording("rec.yaml", []byte(recHeaderYAML+tc.docs))
			if err != nil {
				t.Fatal(err)
			}
			if len(o.Changes) != tc.changes {
				t.Errorf("%d changes, want %d", len(o.Changes), tc.changes)
			}
			for _, w := range tc.want {
				if !strings.Contains(problemsText(o), w) {
					t.Errorf("problems:\n%s\nlack %q", problemsText(o), w)
				}
			}
			for i := 1; i < len(o.Changes); i++ {
				if o.Changes[i].Time.Before(o.Changes[i-1].Time) {
					t.Errorf("change times go back: %v", o.Changes)
				}
			}
		})
	}
}

// TestRecordingExtenderAnswers: the extenders' answers written among the
// changes are read back in order, in both formats, with the header's
// mark; the changes around them are unaffected.
func TestRecordingExtenderAnswers(t *testing.T) {
	c, r, err := Load("initial.yaml", []byte(recInitial))
	if err != nil || r.HasErrors() {
		t.Fatalf("%v %s", err, r)
	}
	answers := []extender.Exchange{
		{Extender: "http://ext:8888/", Verb: "filter", Pod: "default/report", PodUID: "u-report", Nodes: []string{"small", "big"},
			Status: 200, Body: []byte(`{"NodeNames":["big"],"FailedNodes":{"small":"no"}}`), Latency: 1500 * time.Microsecond},
		{Extender: "http://ext:8888/", Verb: "prioritize", Pod: "default/report", PodUID: "u-report", Nodes: []string{"big"},
			Error: "context deadline exceeded", Latency: 2 * time.Second},
		{Extender: "http://ext:8888/", Verb: "filter", Pod: "default/report", PodUID: "u-report", Nodes: []string{}, Status: 503},
	}
	for _, f := range []OutputFormat{{}, {YAML: true}, {Gzip: true}} {
		var buf bytes.Buffer
		h := Header{RecordingStarted: recStart, ExtenderAnswers: ExtenderAnswersRecorded}
		rw, err := NewRecordingWriter(&buf, c, h, f)
		if err != nil {
			t.Fatal(err)
		}
		evs := recEvents()
		for i, ev := range evs[:2] {
			if err := rw.Add(recStart.Add(ev.at), ev.typ, ev.obj); err != nil {
				t.Fatal(err)
			}
			if err := rw.AddExtenderAnswer(recStart.Add(ev.at), answers[i]); err != nil {
				t.Fatal(err)
			}
		}
		if err := rw.AddExtenderAnswer(recStart.Add(time.Minute), answers[2]); err != nil {
			t.Fatal(err)
		}
		if err := rw.Close(recStart.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		if rw.ExtenderAnswers() != 3 {
			t.Errorf("%+v: the writer counts %d answers", f, rw.ExtenderAnswers())
		}
		o, err := ReadRecording("rec", buf.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		if len(o.Report.Problems) > 0 || len(o.Changes) != 2 || o.Header.ExtenderAnswers != ExtenderAnswersRecorded {
			t.Fatalf("%+v: %d changes, header %+v, problems:\n%s", f, len(o.Changes), o.Header, o.Report)
		}
		var got []extender.Exchange
		for _, a := range o.ExtenderAnswers {
			got = append(got, a.Exchange)
		}
		if !reflect.DeepEqual(got, answers) {
			t.Errorf("%+v: answers read back\n%+v\nwant\n%+v", f, got, answers)
		}
		if o.ExtenderAnswers[2].Time.Before(o.Changes[1].Time) || o.ExtenderAnswers[0].Line == 0 {
			t.Errorf("%+v: the last answer at %v, line of the first %d", f, o.ExtenderAnswers[2].Time, o.ExtenderAnswers[0].Line)
		}
	}
}

// TestRecordingAdmission: hand-written changes are defaulted and admitted
// as snapshot objects, against the classes the recording has so far.
func TestRecordingAdmission(t *testing.T) {
	docs := change("2026-03-02T09:05:00Z", "ADDED", "  apiVersion: scheduling.k8s.io/v1\n  kind: PriorityClass\n  metadata: {name: gold}\n  value: 1000\n") +
		change("2026-03-02T09:06:00Z", "ADDED", "  apiVersion: v1\n  kind: Pod\n  metadata: {name: p}\n  spec: {priorityClassName: gold, containers: [{name: c, image: i, resources: {limits: {cpu: \"1\"}}}]}\n") +
		change("2026-03-02T09:07:00Z", "MODIFIED", "  apiVersion: v1\n  kind: Pod\n  metadata: {name: report, resourceVersion: \"13\"}\n  spec: {nodeName: small, containers: [{name: c, image: report, resources: {requests: {cpu: \"4\"}}}]}\n")
	o, err := ReadRecording("rec.yaml", []byte(recHeaderYAML+docs))
	if err != nil {
		t.Fatal(err)
	}
	if o.Report.HasErrors() || len(o.Changes) != 3 {
		t.Fatalf("%d changes, problems:\n%s", len(o.Changes), o.Report)
	}
	if pc, ok := o.Changes[0].Object.(*schedulingv1.PriorityClass); !ok || pc.UID == "" {
		t.Errorf("priority class %+v", o.Changes[0].Object)
	}
	p := o.Changes[1].Object.(*v1.Pod)
	if p.Namespace != "default" || p.Spec.Priority == nil || *p.Spec.Priority != 1000 || p.Spec.SchedulerName != v1.DefaultSchedulerName ||
		!p.Spec.Containers[0].Resources.Requests.Cpu().Equal(resource.MustParse("1")) || !p.CreationTimestamp.Time.Equal(recStart.Add(6*time.Minute)) {
		t.Errorf("added pod not defaulted and admitted: %+v %v", p.Spec, p.CreationTimestamp)
	}
	up := o.Changes[2].Object.(*v1.Pod)
	var initial *v1.Pod
	for _, q := range o.Cluster.Pods {
		if q.Name == "report" {
			initial = q
		}
	}
	if up.UID != initial.UID || up.Spec.Priority == nil {
		t.Errorf("updated pod uid %q (initial %q), priority %v", up.UID, initial.UID, up.Spec.Priority)
	}
}

// TestRecordingInDirectory: in a directory a recording is one more file
// of the initial state; its changes are not replayed.
func TestRecordingInDirectory(t *testing.T) {
	dir := t.TempDir()
	data, _ := writeRecording(t, OutputFormat{}, -1)
	writeFile(t, filepath.Join(dir, "a-rec.json"), data)
	writeFile(t, filepath.Join(dir, "b.yaml"), []byte(strings.ReplaceAll(recNodeBig, "\n  ", "\n")[2:]))
	o, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if o.Format != FormatDirectory || len(o.Changes) != 0 || len(o.Cluster.Nodes) != 2 || len(o.Cluster.Pods) != 2 {
		t.Errorf("format %q, %d changes, %d nodes, %d pods", o.Format, len(o.Changes), len(o.Cluster.Nodes), len(o.Cluster.Pods))
	}
	if !strings.Contains(o.Report.String(), "a-rec.json: warning: a recording: only its initial state is read") {
		t.Errorf("problems:\n%s", o.Report)
	}
}

// TestNotARecording: a plain snapshot is not taken for a recording.
func TestNotARecording(t *testing.T) {
	if IsRecording([]byte(recInitial)) {
		t.Error("a List is a recording")
	}
	if _, err := ReadRecording("x.yaml", []byte(recInitial)); err == nil || !strings.Contains(err.Error(), "not a recording") {
		t.Errorf("err %v", err)
	}
	if _, err := NewRecordingWriter(&bytes.Buffer{}, &Cluster{}, Header{}, OutputFormat{}); err == nil {
		t.Error("a recording without a start time")
	}
}

// FuzzReadRecording checks that no input makes ReadRecording panic, and
// that the changes it returns are usable: typed, named, in time order.
func FuzzReadRecording(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		_ = IsRecording(data)
		o, err := ReadRecording("fuzz.json", data)
		if err != nil {
			var pe *docread.ParseError
			if !errors.As(err, &pe) || o != nil {
				t.Fatalf("error %T %v with result %v", err, err, o != nil)
			}
			return
		}
		if o.Cluster == nil || o.Report == nil || !o.Header.IsRecording() {
			t.Fatalf("opened %+v", o)
		}
		for _, a := range o.ExtenderAnswers {
			if a.Line <= 0 || a.Extender == "" || a.Verb == "" || a.Pod == "" || a.Status == 0 && a.Error == "" {
				t.Fatalf("extender answer %+v", a)
			}
		}
		prev := o.Header.RecordingStarted
		for _, c := range o.Changes {
			if c.Object == nil || c.Time.Before(prev) || c.Line <= 0 {
				t.Fatalf("change %+v after %v", c, prev)
			}
			prev = c.Time
			if acc, err := meta.Accessor(c.Object); err != nil || acc.GetName() == "" || acc.GetUID() == "" {
				t.Fatalf("change object %v (%v)", c.Object, err)
			}
		}
		for _, p := range o.Report.Problems {
			_ = p.String()
		}
	})
}

// TestRecordingWithoutHeader: change documents in a file without the
// recording header are explained, not replayed.
func TestRecordingWithoutHeader(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.yaml")
	writeFile(t, path, []byte(recInitial+change("2026-03-02T09:40:00Z", "ADDED", recNodeBig)))
	o, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if o.Format != FormatFile || len(o.Changes) != 0 || !strings.Contains(o.Report.String(), "RecordedChange documents are a recording's changes, but the file's header has no recording-started") {
		t.Errorf("format %q, %d changes, problems:\n%s", o.Format, len(o.Changes), o.Report)
	}
}
