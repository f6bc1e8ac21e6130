package why

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	resourcehelper "k8s.io/component-helpers/resource"

	"github.com/schedtui/schedtui/internal/docread"
	"github.com/schedtui/schedtui/scheduler/engine"
	"github.com/schedtui/schedtui/scheduler/features"
	"github.com/schedtui/schedtui/scheduler/plugins"
	"github.com/schedtui/schedtui/scheduler/record"
	"github.com/schedtui/schedtui/snapshot"
	"github.com/schedtui/schedtui/snapshot/apiserver"
)

// run loads a snapshot, runs it to quiescence and returns the engine.
func run(t testing.TB, yaml string) *engine.Engine {
	t.Helper()
	c, rep, err := snapshot.Load("test.yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	if rep != nil {
		for _, p := range rep.Problems {
			// The demo's training job is gated (GenericWorkload): under
			// the default gates these tests run, its members are ordinary
			// pods, as the warning says.
			if p.Severity != docread.Warning || !strings.Contains(p.Message, "feature gate GenericWorkload off") {
				t.Fatalf("snapshot problems: %v", rep.Problems)
			}
		}
	}
	e, err := engine.New(c.Nodes, c.Pods, c.SchedulerObjects(), engine.Options{Registry: plugins.NewInTreeRegistry()})
	if err != nil {
		t.Fatal(err)
	}
	e.RunToQuiescence()
	return e
}

// inputFor forks the last attempt of pod.
func inputFor(t testing.TB, e *engine.Engine, pod string) Input {
	t.Helper()
	for i := e.Attempts().Len() - 1; i >= 0; i-- {
		a := e.Attempts().At(i)
		if a.Pod != pod {
			continue
		}
		s, p, err := e.Fork(i)
		if err != nil {
			t.Fatal(err)
		}
		return Input{Attempt: a, Sched: s, Pod: p}
	}
	t.Fatalf("no attempt of %s", pod)
	return Input{}
}

func node(name, cpu string, labels, spec, status string) string {
	return fmt.Sprintf(`- apiVersion: v1
  kind: Node
  metadata:
    name: %s
    labels: {kubernetes.io/hostname: %s%s}
  spec: {%s}
  status:
    allocatable: {cpu: '%s', memory: 8Gi, pods: '110'}
    capacity: {cpu: '%s', memory: 8Gi, pods: '110'}
    %s
`, name, name, labels, spec, cpu, cpu, status)
}

func pod(name, cpu, labels, nodeName, spec string) string {
	nn := ""
	if nodeName != "" {
		nn = "nodeName: " + nodeName + "\n    "
	}
	return fmt.Sprintf(`- apiVersion: v1
  kind: Pod
  metadata: {name: %s, namespace: default, uid: uid-%s, creationTimestamp: '2025-12-31T00:00:00Z', labels: {%s}}
  spec:
    %scontainers: [{name: c, image: x, resources: {requests: {cpu: '%s'}}}]
%s`, name, name, labels, nn, cpu, spec)
}

const header = "apiVersion: v1\nkind: List\nitems:\n"

// stuck forks the last attempt of pod, which must be unschedulable, with
// its full diagnosis.
func stuck(t *testing.T, e *engine.Engine, pod string) Input {
	t.Helper()
	in := inputFor(t, e, pod)
	if in.Attempt.Outcome != record.Unschedulable {
		t.Fatalf("outcome %s on %q: %s", in.Attempt.Outcome, in.Attempt.Node, in.Attempt.Message)
	}
	d, err := in.Sched.Diagnose(in.Pod)
	if err != nil {
		t.Fatal(err)
	}
	in.Diag = d
	return in
}

// verify re-forks the attempt, applies the hint (its pod as the API server
// stores it) and checks the pod is feasible on every node of fitsOn.
func verify(t *testing.T, e *engine.Engine, in Input, h Hint) {
	t.Helper()
	i := -1
	for j, a := range e.Attempts().All() {
		if a == in.Attempt {
			i = j
		}
	}
	s, p, err := e.Fork(i)
	if err != nil {
		t.Fatal(err)
	}
	var nodes []*v1.Node
	for _, ni := range s.Snapshot().List() {
		nodes = append(nodes, ni.Node())
	}
	changedNodes := false
	var bound []*v1.Pod
	for _, o := range h.Objects {
		switch o := o.(type) {
		case *v1.Pod:
			if o.Spec.NodeName != "" {
				// A bound pod changed, or a DaemonSet pod on a node the
				// hint adds.
				bound = append(bound, o)
				continue
			}
			p = asStored(t, o)
			s.SetPendingPod(p)
		case *v1.Node:
			changedNodes = true
			if k := slices.IndexFunc(nodes, func(n *v1.Node) bool { return n.Name == o.Name }); k >= 0 {
				nodes[k] = o
			} else {
				nodes = append(nodes, o)
			}
		}
	}
	if changedNodes {
		s.SetNodes(nodes)
	}
	for _, b := range bound {
		if old, err := s.Objects().Pod(b.Namespace, b.Name); err == nil {
			s.UpdateAssignedPod(old, b)
		} else {
			s.AddAssignedPod(b)
		}
	}
	for _, r := range h.Remove {
		victim, err := s.Objects().Pod(r.Namespace, r.Name)
		if err != nil {
			t.Fatalf("hint %q removes %v: %v", h.Summary, r, err)
		}
		s.RemoveAssignedPod(victim)
	}
	for _, n := range h.FitsOn {
		v, err := s.FilterOnNode(p, n)
		if err != nil {
			t.Fatal(err)
		}
		if !v.Fits() {
			t.Errorf("hint %q: the pod does not fit on %s: %+v %+v", h.Summary, n, v.PreFilter, v.First)
		}
	}
}

// TestHintRespectsOtherPlugins is issue 9's case: the node with the most
// free cpu is rejected by VolumeBinding too, so lowering the request to
// its free cpu is no hint; lowering it to what a node the claim's PV
// reaches has free is.
func TestHintRespectsOtherPlugins(t *testing.T) {
	y := header +
		node("node-11", "4", "", "", "") + pod("busy-11", "3050m", "", "node-11", "") +
		node("node-b", "4", "", "", "") + pod("busy-b", "3200m", "", "node-b", "") +
		node("node-c", "4", "", "", "") + pod("busy-c", "3400m", "", "node-c", "") +
		`- apiVersion: storage.k8s.io/v1
  kind: StorageClass
  metadata: {name: local}
  provisioner: kubernetes.io/no-provisioner
  volumeBindingMode: WaitForFirstConsumer
- apiVersion: v1
  kind: PersistentVolume
  metadata: {name: pv-1}
  spec:
    capacity: {storage: 1Gi}
    accessModes: [ReadWriteOnce]
    storageClassName: local
    claimRef: {namespace: default, name: data}
    local: {path: /mnt/1}
    nodeAffinity:
      required:
        nodeSelectorTerms: [{matchExpressions: [{key: kubernetes.io/hostname, operator: In, values: [node-b, node-c]}]}]
  status: {phase: Bound}
- apiVersion: v1
  kind: PersistentVolumeClaim
  metadata: {name: data, namespace: default, annotations: {pv.kubernetes.io/bind-completed: 'yes'}}
  spec:
    accessModes: [ReadWriteOnce]
    storageClassName: local
    volumeName: pv-1
    resources: {requests: {storage: 1Gi}}
  status: {phase: Bound}
` + pod("big", "1000m", "", "", "    volumes: [{name: d, persistentVolumeClaim: {claimName: data}}]\n")
	e := run(t, y)
	in := stuck(t, e, "default/big")
	verdict := strings.Join(Verdict(in), "\n")
	t.Log(verdict)
	for _, want := range []string{"claim default/data", "storage class local", "pv-1", "WaitForFirstConsumer"} {
		if !strings.Contains(verdict, want) {
			t.Errorf("verdict does not name %q", want)
		}
	}
	res, err := Hints(in, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(strings.Join(res.Lines(), "\n"))
	if len(res.Hints) == 0 {
		t.Fatal("no hint")
	}
	for _, h := range res.Hints {
		if strings.Contains(h.Summary, "950m") {
			t.Errorf("hint %q opens node-11, which VolumeBinding rejects", h.Summary)
		}
		for _, n := range h.FitsOn {
			if n == "node-11" {
				t.Errorf("hint %q claims node-11", h.Summary)
			}
		}
		verify(t, e, in, h)
	}
	if res.Hints[0].Summary != "cut the pod's cpu request by 40% to 600m (from 1000m)" || strings.Join(res.Hints[0].FitsOn, ",") != "node-b,node-c" {
		t.Errorf("best hint %q on %v", res.Hints[0].Summary, res.Hints[0].FitsOn)
	}
	// The fork is left as it was.
	if v := strings.Join(Verdict(in), "\n"); v != verdict {
		t.Errorf("verdict after hints differs:\n%s", v)
	}
}

// TestHintsOthersAntiAffinity: two pods whose own anti-affinity selects
// the pod block it; the pod has no anti-affinity of its own, so relaxing
// it is no hint (offering it dereferenced the pod's nil affinity: found
// by conformance's TestHintsHoldUpstream); a second node is, before
// removing both running pods.
func TestHintsOthersAntiAffinity(t *testing.T) {
	anti := "    affinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: api}}}]}}\n"
	y := node("node-a", "4", "", "", "") + pod("db-0", "100m", "app: db", "node-a", anti) + pod("db-1", "100m", "app: db", "node-a", anti) +
		pod("p", "100m", "app: api", "", "")
	e := run(t, y)
	in := stuck(t, e, "default/p")
	res, err := Hints(in, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hints) == 0 || res.Hints[0].Summary != "add a node like node-a" {
		t.Fatalf("hints %+v, note %q", res.Hints, res.Note)
	}
	for _, h := range res.Hints {
		verify(t, e, in, h)
	}
}

// asStored is the hint's pod as the API server stores it: defaulted the
// way the snapshot loader defaults it. Defaulting must leave the pod's
// resources as the hint shows them: what is shown is what was proven.
func asStored(t *testing.T, p *v1.Pod) *v1.Pod {
	t.Helper()
	stored := p.DeepCopy()
	apiserver.Default(stored)
	if !equality.Semantic.DeepEqual(resourcesOf(stored), resourcesOf(p)) {
		t.Errorf("the API server stores the hint's pod %s/%s with other resources than shown:\nshown  %v\nstored %v", p.Namespace, p.Name, resourcesOf(p), resourcesOf(stored))
	}
	if errs := apiserver.Validate(stored, apiserver.ValidationOptions{AllowTaintTolerationComparisonOperators: features.Default().EnableTaintTolerationComparisonOperators}); len(errs) > 0 {
		t.Errorf("the API server rejects the hint's pod %s/%s: %v", p.Namespace, p.Name, errs.ToAggregate())
	}
	// The API server's consistency check (validatePodResourceConsistency),
	// which apiserver.Validate does not make.
	if r := stored.Spec.Resources; r != nil {
		agg := resourcehelper.AggregateContainerRequests(stored, resourcehelper.PodResourcesOptions{})
		for name, q := range r.Requests {
			if c, ok := agg[name]; ok && c.Cmp(q) > 0 {
				t.Errorf("the hint's pod %s/%s requests %s of %s at pod level, less than its containers' %s", p.Namespace, p.Name, q.String(), name, c.String())
			}
		}
	}
	return stored
}

// resourcesOf lists a pod's resources: pod-level, then each init and
// regular container's.
func resourcesOf(p *v1.Pod) []v1.ResourceRequirements {
	var out []v1.ResourceRequirements
	if p.Spec.Resources != nil {
		out = append(out, *p.Spec.Resources)
	}
	for _, c := range append(slices.Clone(p.Spec.InitContainers), p.Spec.Containers...) {
		out = append(out, c.Resources)
	}
	return out
}
