package snapshot

import (
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/schedtui/schedtui/internal/docread"
)

const nodeN1 = `apiVersion: v1
kind: Node
metadata:
  name: n1
`

func pod(name string, extra string) string {
	return `apiVersion: v1
kind: Pod
metadata:
  name: ` + name + `
spec:
  containers:
  - name: c
    image: img
` + extra
}

func TestProblems(t *testing.T) {
	type want struct {
		severity docread.Severity
		parts    []string // substrings of docread.Problem.String()
		line     int
	}
	cases := []struct {
		name     string
		data     string
		problems []want
		pods     string // comma-separated names of the pods that load
	}{
		{
			name: "unknown kind, one warning per kind with a count",
			data: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n---\n" +
				"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n---\n" + pod("p1", ""),
			problems: []want{
				{docread.Warning, []string{"kind ConfigMap (apiVersion v1) is not read by schedtui: 3 objects skipped"}, 1},
				{docread.Warning, []string{"kind Deployment (apiVersion apps/v1) is not read by schedtui: 1 object skipped"}, 9},
			},
			pods: "p1",
		},
		{
			name: "unknown field is a warning, the object loads",
			data: pod("p1", "    bogus: 1\n  alsoBogus: {a: 1}\n"),
			problems: []want{
				{docread.Warning, []string{"Pod default/p1: spec.alsoBogus: unknown field (ignored)"}, 1},
				{docread.Warning, []string{"Pod default/p1: spec.containers[0].bogus: unknown field (ignored)"}, 1},
			},
			pods: "p1",
		},
		{
			name: "bad quantity",
			data: pod("p1", "    resources:\n      requests:\n        cpu: 5x\n") + "---\n" + pod("p2", ""),
			problems: []want{{docread.Error, []string{
				"t.yaml:1: Pod default/p1: spec.containers[0].resources.requests.cpu: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"}, 1}},
			pods: "p2",
		},
		{
			name: "several decode errors in one object",
			data: pod("p1", "    resources:\n      limits:\n        memory: lots\n        example.com/gpu: x\n  priority: high\n"),
			problems: []want{
				{docread.Error, []string{"spec.containers[0].resources.limits[example.com/gpu]: quantities must match"}, 1},
				{docread.Error, []string{"spec.containers[0].resources.limits.memory: quantities must match"}, 1},
				{docread.Error, []string{"spec.priority: cannot unmarshal string into a value of type int32"}, 1},
			},
		},
		{
			name: "negative quantity and request above limit",
			data: pod("p1", "    resources:\n      requests:\n        cpu: -1\n        memory: 2Gi\n      limits:\n        memory: 1Gi\n"),
			problems: []want{
				{docread.Error, []string{"spec.containers[0].resources.requests.cpu: Invalid value: \"-1\": must be greater than or equal to 0"}, 1},
				{docread.Error, []string{"spec.containers[0].resources.requests: Invalid value: \"2Gi\": must be less than or equal to memory limit of 1Gi"}, 1},
			},
		},
		{
			name: "duplicate name within kind and namespace",
			data: pod("p1", "") + "---\n" + pod("p1", "") + "---\n" + strings.Replace(pod("p1", ""), "name: p1", "name: p1\n  namespace: other", 1) +
				"---\n" + nodeN1 + "---\n" + nodeN1,
			problems: []want{
				{docread.Error, []string{"t.yaml:10: Pod default/p1: metadata.name: pods \"p1\" already exists (first defined at t.yaml:1)"}, 10},
				{docread.Error, []string{"Node n1: metadata.name: nodes \"n1\" already exists (first defined at t.yaml:29)"}, 34},
			},
			pods: "p1,p1",
		},
		{
			name: "duplicate uid",
			data: strings.Replace(pod("p1", ""), "name: p1", "name: p1\n  uid: u-1", 1) + "---\n" +
				strings.Replace(pod("p2", ""), "name: p2", "name: p2\n  uid: u-1", 1),
			problems: []want{{docread.Error, []string{"Pod default/p2: metadata.uid: Duplicate value: \"u-1\" (already used by Pod default/p1 at t.yaml:1)"}, 11}},
			pods:     "p1",
		},
		{
			name:     "missing name",
			data:     "apiVersion: v1\nkind: Pod\nmetadata: {}\nspec:\n  containers: [{name: c, image: i}]\n---\n" + pod("p2", ""),
			problems: []want{{docread.Error, []string{"Pod default/<unnamed>: metadata.name: Required value: name or generateName is required"}, 1}},
			pods:     "p2",
		},
		{
			name: "missing kind and apiVersion",
			data: "metadata: {name: x}\n---\napiVersion: v1\nkind: Node\nmetadata: {name: n1}\n---\nkind: Node\nmetadata: {name: n2}\n---\napiVersion: policy/v1beta1\nkind: PodDisruptionBudget\nmetadata: {name: pdb}\n",
			problems: []want{
				{docread.Error, []string{"t.yaml:1: kind: Required value"}, 1},
				{docread.Error, []string{"t.yaml:7: Node n2: apiVersion: Required value"}, 7},
				{docread.Error, []string{"t.yaml:10: PodDisruptionBudget default/pdb: apiVersion: Unsupported value: \"policy/v1beta1\": supported values: \"policy/v1\""}, 10},
			},
		},
		{
			name: "document that is not an object",
			data: "just a string\n---\n- 1\n- 2\n",
			problems: []want{
				{docread.Error, []string{"t.yaml:1: document is not an object"}, 1},
				{docread.Error, []string{"t.yaml:3: document is not an object"}, 3},
				{docread.Error, []string{"t.yaml:4: document is not an object"}, 4},
			},
		},
		{
			name:     "missing PriorityClass",
			data:     pod("p1", "  priorityClassName: gold\n") + "---\n" + pod("p2", ""),
			problems: []want{{docread.Error, []string{"t.yaml:1: Pod default/p1: spec.priorityClassName: pods \"p1\" is forbidden: no PriorityClass with name gold was found"}, 1}},
			pods:     "p2",
		},
		{
			name: "priority in the pod differs from the class",
			data: "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: gold}\nvalue: 100\n---\n" +
				pod("p1", "  priorityClassName: gold\n  priority: 5\n") + "---\n" + pod("p2", "  priorityClassName: gold\n  priority: 100\n"),
			problems: []want{{docread.Error, []string{"Pod default/p1: spec.priority: pods \"p1\" is forbidden: the integer value of priority (5) must not be provided in pod spec; priority admission controller computed 100 from the given PriorityClass name"}, 6}},
			pods:     "p2",
		},
		{
			name: "preemption policy in the pod differs from the class",
			data: "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: gold}\nvalue: 100\npreemptionPolicy: Never\n---\n" +
				pod("p1", "  priorityClassName: gold\n  preemptionPolicy: PreemptLowerPriority\n"),
			problems: []want{{docread.Error, []string{"spec.preemptionPolicy: pods \"p1\" is forbidden: the string value of PreemptionPolicy (PreemptLowerPriority) must not be provided in pod spec; priority admission controller computed Never from the given PriorityClass name"}, 7}},
		},
		{
			name: "captured pods keep their stored priority",
			data: strings.Replace(pod("p1", "  priorityClassName: deleted\n  priority: 7\n"), "name: p1", "name: p1\n  resourceVersion: \"12\"", 1) + "---\n" +
				strings.Replace(pod("p2", "  priority: 3\n"), "name: p2", "name: p2\n  resourceVersion: \"13\"", 1),
			problems: []want{
				{docread.Warning, []string{"Pod default/p1: spec.priorityClassName: pods \"p1\" is forbidden: no PriorityClass with name deleted was found; keeping the stored priority 7"}, 1},
				{docread.Warning, []string{"Pod default/p2: spec.priority: pods \"p2\" is forbidden: the integer value of priority (3) must not be provided in pod spec; priority admission controller computed 0 from the given PriorityClass name; keeping the stored priority"}, 13},
			},
			pods: "p1,p2",
		},
		{
			name: "invalid PriorityClasses",
			data: "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: system-foo}\nvalue: 5\n---\n" +
				"apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: system-node-critical}\nvalue: 5\n---\n" +
				"apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: system-cluster-critical}\nvalue: 2000000000\nglobalDefault: true\n---\n" +
				"apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: huge}\nvalue: 1000000001\n---\n" +
				"apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: odd}\nvalue: 1\npreemptionPolicy: Sometimes\n---\n" +
				"apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: max}\nvalue: 1000000000\n",
			problems: []want{
				{docread.Error, []string{"t.yaml:1: PriorityClass system-foo: metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: system-foo is not a known system priority class"}, 1},
				{docread.Error, []string{"t.yaml:6: PriorityClass system-node-critical: metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: value of system-node-critical PriorityClass must be 2000001000"}, 6},
				{docread.Error, []string{"PriorityClass system-cluster-critical: metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: globalDefault of system-cluster-critical PriorityClass must be false"}, 11},
				{docread.Error, []string{"PriorityClass huge: value: Forbidden: maximum allowed value of a user defined priority is 1000000000"}, 17},
				{docread.Error, []string{"PriorityClass odd: preemptionPolicy: Unsupported value: \"Sometimes\": supported values: \"PreemptLowerPriority\", \"Never\""}, 22},
			},
		},
		{
			name: "second globalDefault is rejected",
			data: "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: low}\nvalue: 10\nglobalDefault: true\n---\n" +
				"apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: lower}\nvalue: 1\nglobalDefault: true\n",
			problems: []want{{docread.Error, []string{"t.yaml:7: PriorityClass lower: globalDefault: priorityclasses.scheduling.k8s.io \"lower\" is forbidden: PriorityClass low is already marked as default. Only one default can exist"}, 7}},
		},
		{
			name:     "namespace on a cluster-scoped object is dropped",
			data:     "apiVersion: v1\nkind: Node\nmetadata: {name: n1, namespace: x}\n",
			problems: []want{{docread.Warning, []string{"Node x/n1: metadata.namespace: Node is cluster-scoped; namespace \"x\" ignored"}, 1}},
		},
		{
			name: "invalid scheduling fields",
			data: pod("p1", "  tolerations:\n  - key: a\n    operator: Exists\n    value: b\n  topologySpreadConstraints:\n  - maxSkew: 0\n    topologyKey: zone\n    whenUnsatisfiable: Maybe\n") +
				"---\napiVersion: v1\nkind: Node\nmetadata: {name: n1}\nspec:\n  taints:\n  - key: k\n    effect: Sometimes\n",
			problems: []want{
				{docread.Error, []string{"spec.tolerations[0].operator: Invalid value: \"b\": value must be empty when `operator` is 'Exists'"}, 1},
				{docread.Error, []string{"spec.topologySpreadConstraints[0].maxSkew: Invalid value: 0: must be greater than zero"}, 1},
				{docread.Error, []string{"spec.topologySpreadConstraints[0].whenUnsatisfiable: Unsupported value: \"Maybe\""}, 1},
				{docread.Error, []string{"Node n1: spec.taints[0].effect: Unsupported value: \"Sometimes\""}, 18},
			},
		},
		{
			name:     "ephemeral containers cannot have resources",
			data:     pod("p1", "  ephemeralContainers:\n  - name: dbg\n    image: busybox\n    resources: {limits: {cpu: 1}}\n"),
			problems: []want{{docread.Error, []string{"Pod default/p1: spec.ephemeralContainers[0].resources: Forbidden: cannot be set for an Ephemeral Container"}, 1}},
		},
		{
			name: "workload selectors",
			data: "apiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: rs}\nspec:\n  selector: {matchLabels: {app: a}}\n  template:\n    metadata: {labels: {app: b}}\n    spec: {containers: [{name: c, image: i}]}\n---\n" +
				"apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: ss}\nspec:\n  template:\n    spec: {containers: [{name: c, image: i}]}\n",
			problems: []want{
				{docread.Error, []string{"ReplicaSet default/rs: spec.template.metadata.labels: Invalid value:", "`selector` does not match template `labels`"}, 1},
				{docread.Error, []string{"StatefulSet default/ss: spec.selector: Required value"}, 10},
			},
		},
		{
			name:     "duplicate YAML keys",
			data:     pod("p1", "  schedulerName: a\n  schedulerName: b\n"),
			problems: []want{{docread.Warning, []string{"t.yaml:10: warning: duplicate key \"schedulerName\" (the last value is used)"}, 10}},
			pods:     "p1",
		},
		{
			name:     "pod bound to a node that is not in the snapshot",
			data:     nodeN1 + "---\n" + pod("p1", "  nodeName: n1\n") + "---\n" + pod("p2", "  nodeName: n9\n"),
			problems: []want{{docread.Warning, []string{"Pod default/p2: spec.nodeName: bound to node \"n9\", which is not in the snapshot"}, 16}},
			pods:     "p1,p2",
		},
		{
			name:     "NaN has no JSON form",
			data:     nodeN1 + "---\napiVersion: v1\nkind: Node\nmetadata:\n  name: n2\n  annotations: {a: .nan}\n",
			problems: []want{{docread.Error, []string{"t.yaml:6: cannot convert YAML to JSON: unsupported value: NaN"}, 6}},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, r := mustLoad(t, "t.yaml", tc.data)
			if len(r.Problems) != len(tc.problems) {
				t.Errorf("%d problems, want %d:\n%s", len(r.Problems), len(tc.problems), r)
			}
			for _, w := range tc.problems {
				p := findProblem(r, w.parts...)
				if p == nil {
					t.Errorf("missing problem %q in\n%s", w.parts, r)
					continue
				}
				if p.Severity != w.severity || p.Line != w.line {
					t.Errorf("%s: severity %v line %d, want %v line %d", p, p.Severity, p.Line, w.severity, w.line)
				}
			}
			var names []string
			for _, p := range c.Pods {
				names = append(names, p.Name)
			}
			if got := strings.Join(names, ","); got != tc.pods {
				t.Errorf("pods %q, want %q", got, tc.pods)
			}
		})
	}
}

func TestProblemString(t *testing.T) {
	p := docread.Problem{Severity: docread.Error, File: "snap.yaml", Line: 42, Object: "Pod default/web-1", Field: "spec.containers[0].resources.requests.cpu", Message: "bad"}
	if got, want := p.String(), "snap.yaml:42: Pod default/web-1: spec.containers[0].resources.requests.cpu: bad"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	p = docread.Problem{Severity: docread.Warning, File: "f", Message: "m"}
	if got, want := p.String(), "f: warning: m"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestReportSortedByFileAndLine(t *testing.T) {
	l := NewLoader()
	if err := l.LoadData("b.yaml", []byte("apiVersion: v1\nkind: Secret\nmetadata: {name: s}\n---\n"+pod("bad_1", ""))); err != nil {
		t.Fatal(err)
	}
	if err := l.LoadData("a.yaml", []byte(pod("bad_2", ""))); err != nil {
		t.Fatal(err)
	}
	_, r := l.Finish()
	var got []string
	for _, p := range r.Problems {
		got = append(got, p.File+":"+string(rune('0'+p.Line)))
	}
	if strings.Join(got, " ") != "b.yaml:1 b.yaml:5 a.yaml:1" {
		t.Errorf("order %v\n%s", got, r)
	}
	if len(r.Errors()) != 2 || len(r.Warnings()) != 1 || !r.HasErrors() {
		t.Errorf("errors/warnings split wrong:\n%s", r)
	}
}

func TestLoaderKeepsEarlierFilesOnParseError(t *testing.T) {
	l := NewLoader()
	if err := l.LoadData("good.yaml", []byte(nodeN1)); err != nil {
		t.Fatal(err)
	}
	if err := l.LoadData("bad.yaml", []byte("kind: [\n")); err == nil {
		t.Fatal("no error for bad.yaml")
	}
	c, _ := l.Finish()
	if len(c.Nodes) != 1 || len(c.Pods) != 0 {
		t.Errorf("nodes %v pods %v", nodeNames(c), podNames(c))
	}
}

func TestAddObject(t *testing.T) {
	l := NewLoader()
	l.AddObject(&v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Spec: v1.PodSpec{Containers: []v1.Container{{Name: "c", Image: "i"}}}}, "live", 0)
	l.AddObject(&v1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm"}}, "live", 0)
	l.AddObject((*v1.Pod)(nil), "live", 0)
	c, r := l.Finish()
	if len(c.Pods) != 1 || c.Pods[0].Namespace != "default" || c.Pods[0].Spec.SchedulerName != v1.DefaultSchedulerName || c.Pods[0].Kind != "Pod" {
		t.Errorf("pod not normalized: %+v", c.Pods)
	}
	if findProblem(r, "ConfigMap", "not read by schedtui") == nil {
		t.Errorf("no warning for ConfigMap:\n%s", r)
	}
}

func TestGenerateName(t *testing.T) {
	data := "apiVersion: v1\nkind: Pod\nmetadata: {generateName: web-}\nspec: {containers: [{name: c, image: i}]}\n---\n" +
		"apiVersion: v1\nkind: Pod\nmetadata: {generateName: web-}\nspec: {containers: [{name: c, image: i}], priorityClassName: nope}\n"
	c1, r := mustLoad(t, "g.yaml", data)
	c2, _ := mustLoad(t, "g.yaml", data)
	if len(c1.Pods) != 1 || !strings.HasPrefix(c1.Pods[0].Name, "web-") || len(c1.Pods[0].Name) != len("web-")+5 {
		t.Fatalf("pods %v", podNames(c1))
	}
	if c1.Pods[0].Name != c2.Pods[0].Name || c1.Pods[0].UID != c2.Pods[0].UID {
		t.Errorf("generated names are not deterministic")
	}
	// The API server generates names after admission: no name in the message.
	if findProblem(r, "pods is forbidden: no PriorityClass with name nope was found") == nil {
		t.Errorf("missing admission error:\n%s", r)
	}
}
