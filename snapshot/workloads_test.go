package snapshot

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/schedtui/schedtui/internal/docread"
	"github.com/schedtui/schedtui/scheduler/features"
)

// gangCluster is a training job as the API server serves it with the
// workload gates on: its Workload, the CompositePodGroup above its
// PodGroup, the PodGroup, and a worker naming the group.
const gangCluster = `apiVersion: v1
kind: Node
metadata: {name: n1}
---
apiVersion: scheduling.k8s.io/v1beta1
kind: Workload
metadata: {name: train, namespace: ml}
spec:
  compositePodGroupTemplates:
  - name: job
    schedulingPolicy: {gang: {minGroupCount: 1}}
    podGroupTemplates:
    - name: workers
      schedulingPolicy: {gang: {minCount: 2}}
      schedulingConstraints: {topology: [{key: topology.kubernetes.io/zone}]}
---
apiVersion: scheduling.k8s.io/v1alpha3
kind: CompositePodGroup
metadata: {name: train-job, namespace: ml}
spec:
  workloadRef: {workloadName: train, templateName: job}
  schedulingPolicy: {gang: {minGroupCount: 1}}
---
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: train-workers, namespace: ml}
spec:
  parentCompositePodGroupName: train-job
  workloadRef: {workloadName: train, templateName: workers}
  schedulingPolicy: {gang: {minCount: 2}}
  schedulingConstraints: {topology: [{key: topology.kubernetes.io/zone}]}
---
apiVersion: v1
kind: Pod
metadata: {name: worker-0, namespace: ml}
spec:
  schedulingGroup: {podGroupName: train-workers}
  containers: [{name: c, image: trainer}]
`

// workloadGates are v1.37's defaults with the workload gates on (off:
// the defaults).
func workloadGates(on bool) features.Features {
	g := features.Default()
	if on {
		g.EnableGenericWorkload = true
		g.EnableTopologyAwareWorkloadScheduling = true
		g.EnableCompositePodGroup = true
		g.EnablePodGroupPreemptionPolicy = true
		g.EnableDRAWorkloadResourceClaims = true
	}
	return g
}

func loadGated(t *testing.T, on bool, name, data string) (*Cluster, *docread.Report) {
	t.Helper()
	l := NewLoader()
	l.ValidateUnder(workloadGates(on))
	if err := l.LoadData(name, []byte(data)); err != nil {
		t.Fatal(err)
	}
	return l.Finish()
}

func openGated(t *testing.T, on bool, path string) *Opened {
	t.Helper()
	o, err := OpenUnder(path, nil, workloadGates(on))
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// checkGang checks that c holds gangCluster's objects, defaulted.
func checkGang(t *testing.T, c *Cluster, r *docread.Report) {
	t.Helper()
	if len(r.Problems) > 0 {
		t.Fatalf("problems:\n%s", r)
	}
	if len(c.Workloads) != 1 || len(c.CompositePodGroups) != 1 || len(c.PodGroups) != 1 || len(c.Pods) != 1 {
		t.Fatalf("got %d Workloads, %d CompositePodGroups, %d PodGroups, %d pods", len(c.Workloads), len(c.CompositePodGroups), len(c.PodGroups), len(c.Pods))
	}
	pg := c.PodGroups[0]
	if pg.Namespace != "ml" || pg.Spec.SchedulingPolicy.Gang == nil || pg.Spec.SchedulingPolicy.Gang.MinCount != 2 ||
		pg.Spec.ParentCompositePodGroupName == nil || *pg.Spec.ParentCompositePodGroupName != "train-job" {
		t.Errorf("PodGroup: %+v", pg.Spec)
	}
	if dm := pg.Spec.DisruptionMode; dm == nil || dm.Single == nil {
		t.Errorf("PodGroup disruptionMode not defaulted to single: %+v", dm)
	}
	if pp := pg.Spec.PreemptionPolicy; pp == nil || *pp != schedulingv1beta1.PreemptLowerPriority {
		t.Errorf("PodGroup preemptionPolicy not defaulted under PodGroupPreemptionPolicy: %v", pp)
	}
	if dm := c.CompositePodGroups[0].Spec.DisruptionMode; dm == nil || dm.Single == nil {
		t.Errorf("CompositePodGroup disruptionMode not defaulted to single: %+v", dm)
	}
	if sg := c.Pods[0].Spec.SchedulingGroup; sg == nil || sg.PodGroupName == nil || *sg.PodGroupName != "train-workers" {
		t.Errorf("pod's schedulingGroup: %+v", sg)
	}
}

// TestWorkloadKindsInEveryFormat: the three kinds and a pod's
// schedulingGroup load from YAML documents, and from what Write makes of
// them in every format (JSON and YAML Lists, protobuf, gzipped), from the
// API server's typed Lists (items without apiVersion and kind), from
// `kubectl get -o yaml`'s List and from a `kubectl cluster-info dump`
// tree holding them.
func TestWorkloadKindsInEveryFormat(t *testing.T) {
	c, r := loadGated(t, true, "gang.yaml", gangCluster)
	checkGang(t, c, r)
	want := clusterJSON(t, c)
	dir := t.TempDir()
	for _, name := range []string{"s.yaml", "s.json", "s.pb", "s.yaml.gz", "s.json.gz", "s.pb.gz"} {
		path := filepath.Join(dir, name)
		if _, err := WriteFile(path, c, Header{Context: "test"}); err != nil {
			t.Fatal(err)
		}
		o := openGated(t, true, path)
		checkGang(t, o.Cluster, o.Report)
		if got := clusterJSON(t, o.Cluster); got != want {
			t.Errorf("%s read back:\n%s\nwant\n%s", name, got, want)
		}
	}

	// The API server's responses: typed Lists whose items carry neither
	// apiVersion nor kind.
	typed := `{"apiVersion":"scheduling.k8s.io/v1beta1","kind":"WorkloadList","metadata":{"resourceVersion":"9"},"items":[
  {"metadata":{"name":"train","namespace":"ml","resourceVersion":"5"},"spec":{"podGroupTemplates":[{"name":"workers","schedulingPolicy":{"gang":{"minCount":2}}}]}}]}
{"apiVersion":"scheduling.k8s.io/v1beta1","kind":"PodGroupList","metadata":{"resourceVersion":"9"},"items":[
  {"metadata":{"name":"train-workers","namespace":"ml","resourceVersion":"6"},"spec":{"workloadRef":{"workloadName":"train","templateName":"workers"},"schedulingPolicy":{"gang":{"minCount":2}}}}]}
{"apiVersion":"scheduling.k8s.io/v1alpha3","kind":"CompositePodGroupList","metadata":{"resourceVersion":"9"},"items":[
  {"metadata":{"name":"train-job","namespace":"ml","resourceVersion":"7"},"spec":{"workloadRef":{"workloadName":"train","templateName":"job"},"schedulingPolicy":{"basic":{}}}}]}
`
	tc, tr := loadGated(t, false, "responses.json", typed)
	if len(tr.Problems) > 0 || len(tc.Workloads) != 1 || len(tc.PodGroups) != 1 || len(tc.CompositePodGroups) != 1 {
		t.Errorf("typed Lists: %d Workloads, %d PodGroups, %d CompositePodGroups; problems:\n%s", len(tc.Workloads), len(tc.PodGroups), len(tc.CompositePodGroups), tr)
	}

	// kubectl get workloads,podgroups,compositepodgroups -A -o yaml.
	var kubectl strings.Builder
	kubectl.WriteString("apiVersion: v1\nkind: List\nmetadata: {resourceVersion: \"\"}\nitems:\n")
	for _, doc := range strings.Split(gangCluster, "---\n") {
		if !strings.Contains(doc, "scheduling.k8s.io") {
			continue
		}
		for i, line := range strings.Split(strings.TrimSuffix(doc, "\n"), "\n") {
			prefix := "  "
			if i == 0 {
				prefix = "- "
			}
			kubectl.WriteString(prefix + line + "\n")
		}
	}
	kc, kr := loadGated(t, true, "kubectl.yaml", kubectl.String())
	if len(kr.Problems) > 0 || len(kc.Workloads) != 1 || len(kc.PodGroups) != 1 || len(kc.CompositePodGroups) != 1 {
		t.Errorf("kubectl's List: %d Workloads, %d PodGroups, %d CompositePodGroups; problems:\n%s", len(kc.Workloads), len(kc.PodGroups), len(kc.CompositePodGroups), kr)
	}

	// A cluster-info dump tree with the kinds beside its own files.
	dump := filepath.Join(t.TempDir(), "dump")
	copyTree(t, "testdata/cluster-info-dump", dump, nil)
	writeFile(t, filepath.Join(dump, "ml", "scheduling.json"), []byte(typed))
	o := openGated(t, false, dump)
	if o.Format != FormatClusterInfoDump || len(o.Cluster.Workloads) != 1 || len(o.Cluster.PodGroups) != 1 || len(o.Cluster.CompositePodGroups) != 1 {
		t.Errorf("cluster-info dump (%s): %d Workloads, %d PodGroups, %d CompositePodGroups", o.Format, len(o.Cluster.Workloads), len(o.Cluster.PodGroups), len(o.Cluster.CompositePodGroups))
	}
	if p := findProblem(o.Report, "not read by schedtui", "PodGroup"); p != nil {
		t.Errorf("the kinds are skipped: %s", p)
	}
}

// TestSchedulingGroupGate: the API server keeps a new pod's
// spec.schedulingGroup only with GenericWorkload on; a pod read back from
// an API server keeps it whatever the gate, as the server that stored it
// took it.
func TestSchedulingGroupGate(t *testing.T) {
	pods := `apiVersion: v1
kind: Pod
metadata: {name: new, namespace: ml}
spec:
  schedulingGroup: {podGroupName: train-workers}
  containers: [{name: c, image: trainer}]
---
apiVersion: v1
kind: Pod
metadata: {name: stored, namespace: ml, resourceVersion: "12", uid: u-stored}
spec:
  schedulingGroup: {podGroupName: train-workers}
  containers: [{name: c, image: trainer}]
`
	group := func(c *Cluster, name string) string {
		for _, p := range c.Pods {
			if p.Name == name {
				if sg := p.Spec.SchedulingGroup; sg != nil && sg.PodGroupName != nil {
					return *sg.PodGroupName
				}
				return ""
			}
		}
		t.Fatalf("no pod %s", name)
		return ""
	}
	for _, on := range []bool{true, false} {
		c, r := loadGated(t, on, "pods.yaml", pods)
		wantDropped(t, on, r, "pods.yaml:1: warning: Pod ml/new: spec.schedulingGroup: dropped, as the API server drops it from a new Pod with feature gate GenericWorkload off (enable the gate to keep it)")
		wantNew := ""
		if on {
			wantNew = "train-workers"
		}
		if got := group(c, "new"); got != wantNew {
			t.Errorf("gate %v: new pod's group %q, want %q", on, got, wantNew)
		}
		if got := group(c, "stored"); got != "train-workers" {
			t.Errorf("gate %v: stored pod's group %q, want it kept", on, got)
		}
	}
}

// TestSchedulingGroupGateOnTemplates: the API server drops
// spec.schedulingGroup from the pod template of every workload kind
// schedtui reads as from a pod (DropDisabledTemplateFields on create),
// unless GenericWorkload is on or the object was read back from an API
// server.
func TestSchedulingGroupGateOnTemplates(t *testing.T) {
	const template = `
  selector: {matchLabels: {app: w}}
  template:
    metadata: {labels: {app: w}}
    spec:
      schedulingGroup: {podGroupName: train-workers}
      containers: [{name: c, image: trainer}]`
	var docs []string
	for _, kind := range []string{"apps/v1 ReplicaSet", "apps/v1 StatefulSet", "apps/v1 DaemonSet", "v1 ReplicationController"} {
		apiVersion, kind, _ := strings.Cut(kind, " ")
		spec := template
		if kind == "ReplicationController" {
			spec = strings.Replace(template, "selector: {matchLabels: {app: w}}", "selector: {app: w}", 1)
		}
		for _, meta := range []string{"{name: new, namespace: ml}", `{name: stored, namespace: ml, resourceVersion: "7", uid: u-` + kind + "}"} {
			docs = append(docs, "apiVersion: "+apiVersion+"\nkind: "+kind+"\nmetadata: "+meta+"\nspec:"+spec)
		}
	}
	data := strings.Join(docs, "\n---\n") + "\n"
	for _, on := range []bool{true, false} {
		c, r := loadGated(t, on, "workloads.yaml", data)
		var want []string
		for i, kind := range []string{"ReplicaSet", "StatefulSet", "DaemonSet", "ReplicationController"} {
			want = append(want, fmt.Sprintf("workloads.yaml:%d: warning: %s ml/new: spec.template.spec.schedulingGroup: dropped, as the API server drops it from a new %s with feature gate GenericWorkload off (enable the gate to keep it)", 1+22*i, kind, kind))
		}
		wantDropped(t, on, r, want...)
		templates := map[string]*v1.PodTemplateSpec{}
		for _, o := range c.ReplicaSets {
			templates["ReplicaSet "+o.Name] = &o.Spec.Template
		}
		for _, o := range c.StatefulSets {
			templates["StatefulSet "+o.Name] = &o.Spec.Template
		}
		for _, o := range c.DaemonSets {
			templates["DaemonSet "+o.Name] = &o.Spec.Template
		}
		for _, o := range c.ReplicationControllers {
			templates["ReplicationController "+o.Name] = o.Spec.Template
		}
		if len(templates) != 8 {
			t.Fatalf("gate %v: %d workloads loaded, want 8", on, len(templates))
		}
		for name, tmpl := range templates {
			got := ""
			if sg := tmpl.Spec.SchedulingGroup; sg != nil && sg.PodGroupName != nil {
				got = *sg.PodGroupName
			}
			want := "train-workers"
			if !on && strings.HasSuffix(name, " new") {
				want = ""
			}
			if got != want {
				t.Errorf("gate %v: %s's template group %q, want %q", on, name, got, want)
			}
		}
	}
}

// TestSchedulingGroupGateOnRecordedTemplates: a recording's change that
// creates a workload loses its template's spec.schedulingGroup as a
// loaded one does, unless GenericWorkload is on.
func TestSchedulingGroupGateOnRecordedTemplates(t *testing.T) {
	initial, r := loadGated(t, true, "initial.yaml", "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n")
	if r.HasErrors() {
		t.Fatal(r)
	}
	group := "train-workers"
	ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "agents", Namespace: "ml"}}
	ds.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "a"}}
	ds.Spec.Template.Labels = map[string]string{"app": "a"}
	ds.Spec.Template.Spec.SchedulingGroup = &v1.PodSchedulingGroup{PodGroupName: &group}
	ds.Spec.Template.Spec.Containers = []v1.Container{{Name: "c", Image: "agent"}}
	var buf bytes.Buffer
	rw, err := NewRecordingWriter(&buf, initial, Header{RecordingStarted: recStart, Context: "prod"}, OutputFormat{YAML: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := rw.Add(recStart.Add(time.Minute), watch.Added, ds); err != nil {
		t.Fatal(err)
	}
	if err := rw.Close(recStart.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "rec.yaml")
	writeFile(t, path, buf.Bytes())
	for _, on := range []bool{true, false} {
		o := openGated(t, on, path)
		if len(o.Changes) != 1 {
			t.Fatalf("gate %v: %d changes, want 1:\n%s", on, len(o.Changes), o.Report)
		}
		got, ok := o.Changes[0].Object.(*appsv1.DaemonSet)
		if !ok {
			t.Fatalf("gate %v: change of %T", on, o.Changes[0].Object)
		}
		if kept := got.Spec.Template.Spec.SchedulingGroup != nil; kept != on {
			t.Errorf("gate %v: template's schedulingGroup kept: %v", on, kept)
		}
	}
}

// TestWorkloadValidation: what the API server refuses of each kind is
// reported at the object's file and line, naming the object and the
// field, in upstream's words. With their gates off the gated fields of a
// new object are dropped before validation (PrepareForCreate), not
// refused: what remains is validated as the API server validates it.
func TestWorkloadValidation(t *testing.T) {
	bad := `apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: zero, namespace: ml}
spec:
  schedulingPolicy: {gang: {minCount: 0}}
---
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: negative, namespace: ml}
spec:
  schedulingPolicy: {basic: {}, gang: {minCount: -1}}
  disruptionMode: {}
---
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: orphan, namespace: ml}
spec:
  parentCompositePodGroupName: job
  schedulingPolicy: {basic: {}}
  resourceClaims: [{name: gpus}]
---
apiVersion: scheduling.k8s.io/v1beta1
kind: Workload
metadata: {name: empty, namespace: ml}
spec: {}
---
apiVersion: scheduling.k8s.io/v1beta1
kind: Workload
metadata: {name: twice, namespace: ml}
spec:
  podGroupTemplates:
  - {name: a, schedulingPolicy: {basic: {}}, priority: 10}
  - {name: a, schedulingPolicy: {gang: {minCount: 1}}}
---
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: ml}
spec:
  schedulingGroup: {podGroupName: Not_A_Name}
  containers: [{name: c, image: i}]
---
apiVersion: scheduling.k8s.io/v1alpha3
kind: CompositePodGroup
metadata: {name: nowhere, namespace: ml}
spec:
  schedulingPolicy: {gang: {minGroupCount: 0}}
`
	_, r := loadGated(t, true, "bad.yaml", bad)
	wantProblems(t, r,
		`bad.yaml:1: PodGroup ml/zero: spec.schedulingPolicy.gang.minCount: Required value`,
		`bad.yaml:7: PodGroup ml/negative: spec.schedulingPolicy: Invalid value: "{basic, gang}": must specify exactly one of: `+"`basic`, `gang`",
		`bad.yaml:7: PodGroup ml/negative: spec.schedulingPolicy.gang.minCount: Invalid value: -1: must be greater than or equal to 1`,
		`bad.yaml:7: PodGroup ml/negative: spec.disruptionMode: Invalid value: "": must specify one of: `+"`single`, `all`",
		`bad.yaml:14: PodGroup ml/orphan: spec.workloadRef: Required value: must be set when parentCompositePodGroupName is set`,
		`bad.yaml:14: PodGroup ml/orphan: spec.resourceClaims[0]: Invalid value: "": must specify one of: `+"`resourceClaimName`, `resourceClaimTemplateName`",
		`bad.yaml:22: Workload ml/empty: spec: Invalid value: "": must specify one of: `+"`podGroupTemplates`, `compositePodGroupTemplates`",
		`bad.yaml:27: Workload ml/twice: spec.podGroupTemplates[1]: Duplicate value: {"name":"a","schedulingPolicy":{"gang":{"minCount":1}},"schedulingConstraints":null}`,
		`bad.yaml:27: Workload ml/twice: spec: Invalid value: null: detected multiple priority configurations`,
		`bad.yaml:35: Pod ml/p: spec.schedulingGroup.podGroupName: Invalid value: "Not_A_Name": a lowercase RFC 1123 subdomain`,
		`bad.yaml:42: CompositePodGroup ml/nowhere: spec.workloadRef: Required value`,
		`bad.yaml:42: CompositePodGroup ml/nowhere: spec.schedulingPolicy.gang.minGroupCount: Required value`,
	)

	// The gated fields of gangCluster, with the gates off: the Workload
	// loses its only templates, composite ones, and is then refused as
	// one with none; the PodGroup loses its parent and its constraints
	// and loads.
	c, r := loadGated(t, false, "gang.yaml", gangCluster)
	wantProblems(t, r,
		`gang.yaml:5: Workload ml/train: spec: Invalid value: "": must specify one of: `+"`podGroupTemplates`, `compositePodGroupTemplates`",
	)
	if len(c.PodGroups) != 1 {
		t.Fatalf("%d PodGroups loaded, want train-workers:\n%s", len(c.PodGroups), r)
	}
	if s := c.PodGroups[0].Spec; s.ParentCompositePodGroupName != nil || s.SchedulingConstraints != nil {
		t.Errorf("PodGroup kept gated fields with the gates off: %+v", s)
	}
	// Read back from an API server, they stay.
	stored := strings.ReplaceAll(gangCluster, "namespace: ml}", "namespace: ml, resourceVersion: \"3\"}")
	c, r = loadGated(t, false, "stored.yaml", stored)
	if r.HasErrors() || len(c.Workloads) != 1 || len(c.PodGroups) != 1 {
		t.Fatalf("stored objects refused with the gates off:\n%s", r)
	}
	if s := c.PodGroups[0].Spec; s.ParentCompositePodGroupName == nil || s.SchedulingConstraints == nil {
		t.Errorf("stored PodGroup lost gated fields: %+v", s)
	}
}

// TestWorkloadKindsRecorded: a recording holds the kinds in its initial
// state and their changes (added, updated, deleted), read back as
// written; a change that creates an object loses the fields of the gates
// that are off, as the API server drops them, unless it was read back
// from an API server.
func TestWorkloadKindsRecorded(t *testing.T) {
	// As a live cluster hands them over: read back from its API server.
	stored := strings.ReplaceAll(gangCluster, "namespace: ml}", "namespace: ml, resourceVersion: \"3\"}")
	initial, r := loadGated(t, false, "initial.yaml", stored)
	if r.HasErrors() {
		t.Fatal(r)
	}
	updated := initial.PodGroups[0].DeepCopy()
	updated.ResourceVersion = "4"
	updated.Spec.SchedulingPolicy.Gang.MinCount = 1
	added := initial.PodGroups[0].DeepCopy()
	created := metav1.NewTime(recStart)
	added.Name, added.UID, added.ResourceVersion, added.CreationTimestamp = "train-ps", "uid-ps", "5", created
	worker := initial.Pods[0].DeepCopy()
	worker.Name, worker.UID, worker.ResourceVersion, worker.CreationTimestamp = "worker-1", "uid-w1", "6", created
	// Not from an API server: its gated fields are dropped with the gates
	// off.
	handMade := added.DeepCopy()
	handMade.Name, handMade.UID, handMade.ResourceVersion = "hand-made", "uid-hm", ""
	events := []recEvent{
		{time.Minute, watch.Added, added},
		{2 * time.Minute, watch.Modified, updated},
		{3 * time.Minute, watch.Added, worker},
		{4 * time.Minute, watch.Added, handMade},
		{5 * time.Minute, watch.Deleted, added},
		{6 * time.Minute, watch.Deleted, initial.CompositePodGroups[0]},
		{7 * time.Minute, watch.Deleted, initial.Workloads[0]},
	}
	var buf bytes.Buffer
	rw, err := NewRecordingWriter(&buf, initial, Header{RecordingStarted: recStart, Context: "prod"}, OutputFormat{YAML: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range events {
		if err := rw.Add(recStart.Add(ev.at), ev.typ, ev.obj); err != nil {
			t.Fatal(err)
		}
	}
	if err := rw.Close(recStart.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "rec.yaml")
	writeFile(t, path, buf.Bytes())
	o := openGated(t, false, path)
	if got, want := clusterJSON(t, o.Cluster), clusterJSON(t, initial); got != want {
		t.Errorf("initial state:\n%s\nwant\n%s", got, want)
	}
	// The hand-made change is new: its gated fields are dropped and said.
	var warned []string
	for _, p := range o.Report.Problems {
		warned = append(warned, strings.TrimPrefix(p.String(), path))
	}
	if want := []string{
		":224: warning: PodGroup ml/hand-made: spec.schedulingConstraints: dropped, as the API server drops it from a new PodGroup with feature gate TopologyAwareWorkloadScheduling off (enable the gate to keep it)",
		":224: warning: PodGroup ml/hand-made: spec.parentCompositePodGroupName: dropped, as the API server drops it from a new PodGroup with feature gate CompositePodGroup off (enable the gate to keep it)",
	}; strings.Join(warned, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%s", o.Report)
	}
	var got []string
	for _, ch := range o.Changes {
		got = append(got, fmt.Sprintf("%s %T %s", ch.Type, ch.Object, objectJSON(t, ch.Object)))
	}
	dropped := handMade.DeepCopy()
	dropped.Spec.ParentCompositePodGroupName, dropped.Spec.SchedulingConstraints = nil, nil
	var want []string
	for _, ev := range events {
		obj := ev.obj
		if obj == handMade {
			obj = dropped
		}
		want = append(want, fmt.Sprintf("%s %T %s", ev.typ, obj, objectJSON(t, obj)))
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("changes:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// wantDropped: with the gate on nothing is reported; with it off, exactly
// the warnings want, one per field dropped from a new object.
func wantDropped(t *testing.T, on bool, r *docread.Report, want ...string) {
	t.Helper()
	if on {
		want = nil
	}
	var got []string
	for _, p := range r.Problems {
		got = append(got, p.String())
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("gate %v: report:\n%s\nwant:\n%s", on, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
