package engine

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/schedtui/schedtui/internal/scenario"
	"github.com/schedtui/schedtui/scheduler/change"
	"github.com/schedtui/schedtui/scheduler/history"
	"github.com/schedtui/schedtui/scheduler/plugins"
	"github.com/schedtui/schedtui/scheduler/record"
)

// TestVerdictMemoAgrees runs many clusters with the framework's verdict
// memo (runtime/verdicts.go) and without it (RecomputeVerdicts, every node
// evaluated by every plugin in every cycle, as upstream does) and requires
// the same run byte for byte: every attempt's record (every node's Filter
// status and every plugin's raw, normalized and total scores, the
// feasible nodes, the outcome, the message), the timeline and the queue.
// The clusters: generated scenarios of every kind (the differential
// suite's generator, with preemption, resource shapes, and more than 100
// nodes so that the rotating start index matters), every curated
// scenario (one subtle behaviour each), the throughput
// workloads, pods of a few shapes over many identical nodes with
// preemption and pods that fit nowhere, pods of one shape whose claims of
// different sizes VolumeBinding scores against each node's local volumes
// (a Score plugin the memo takes only for pods without claims), pods of
// one shape whose claims' prioritized lists DynamicResources scores
// differently (the same), and the same few-shapes cluster with the cluster
// changed halfway through: nodes tainted, cordoned, relabelled, resized,
// added and deleted, bound pods deleted.
func TestVerdictMemoAgrees(t *testing.T) {
	type run struct {
		name  string
		build func(t *testing.T, opts Options) *Engine
		// changes are applied once the queue is quiet, then the run goes on.
		changes func(e *Engine) []change.Change
	}
	var runs []run
	fromScenario := func(sc *scenario.Scenario) func(t *testing.T, opts Options) *Engine {
		return func(t *testing.T, opts Options) *Engine { return build(t, sc.Cluster.DeepCopy(), opts) }
	}
	for seed := int64(1); seed <= 16; seed++ {
		o := scenario.Options{}
		switch seed % 4 {
		case 1:
			o.Preemption = true
		case 2:
			o.ResourceShapes = true
		case 3:
			o.MinNodes, o.MaxNodes = 110, 160
		}
		sc := scenario.Generate(seed, o)
		runs = append(runs, run{name: fmt.Sprintf("generated/%d", seed), build: fromScenario(sc)})
	}
	// The curated scenarios aim at one subtle behaviour each, the
	// plugins' scores among them (VolumeBinding's, DRA's).
	for _, sc := range append(append(scenario.Curated(), scenario.CuratedDRA()...), scenario.CuratedDRAExtended()...) {
		runs = append(runs, run{name: "curated/" + sc.Name, build: fromScenario(sc)})
	}
	for _, w := range scenario.ThroughputWorkloads {
		sc, err := scenario.Throughput(w, scenario.ThroughputSize{Nodes: 200, InitPods: 60, MeasurePods: 120})
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, run{name: "throughput/" + w, build: fromScenario(sc), changes: clusterChanges})
	}
	shapes := func(t *testing.T, opts Options) *Engine {
		nodes, pods := genCluster(150, 600, 2500, 25, 20)
		opts.Registry = plugins.NewInTreeRegistry()
		e, err := New(nodes, pods, nil, opts)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	runs = append(runs, run{name: "shapes", build: shapes}, run{name: "shapes/changed", build: shapes, changes: clusterChanges},
		run{name: "local-volumes", build: func(t *testing.T, opts Options) *Engine { return load(t, localVolumesCluster(), opts) }},
		run{name: "prioritized-claims", build: func(t *testing.T, opts Options) *Engine { return load(t, prioritizedClaimsCluster(), opts) }})

	for _, r := range runs {
		t.Run(r.name, func(t *testing.T) {
			play := func(recompute bool) (string, *Engine) {
				e := r.build(t, Options{Seed: 7, RecomputeVerdicts: recompute})
				e.RunUntil(11 * time.Minute)
				if r.changes != nil {
					for _, c := range r.changes(e) {
						if err := e.Apply(c); err != nil {
							t.Fatal(err)
						}
					}
					e.RunUntil(22 * time.Minute)
				}
				return timelineJSON(t, e), e
			}
			want, _ := play(true)
			got, e := play(false)
			if got != want {
				t.Fatalf("with the verdict memo the run differs from the run without it:\n%s", firstDifference(got, want))
			}
			if !verdictsKept(e) && !strings.HasPrefix(r.name, "curated/") {
				t.Fatalf("no node holds kept verdicts: the memo was not used")
			}
		})
	}
}

// clusterChanges are the changes TestVerdictMemoAgrees makes halfway:
// every fifth node changed (tainted, cordoned, relabelled, resized in
// turn), a node added like the first, the last node deleted, and every
// seventh bound pod deleted.
func clusterChanges(e *Engine) []change.Change {
	var out []change.Change
	nodes := e.Scheduler().Snapshot().List()
	for i, ni := range nodes {
		if i%5 != 0 {
			continue
		}
		n := ni.Node().DeepCopy()
		switch i / 5 % 4 {
		case 0:
			n.Spec.Taints = append(n.Spec.Taints, v1.Taint{Key: "memo", Value: "x", Effect: v1.TaintEffectNoSchedule})
		case 1:
			n.Spec.Unschedulable = true
		case 2:
			n.Labels["memo"] = "relabelled"
			n.Spec.Taints = append(n.Spec.Taints, v1.Taint{Key: "soft", Effect: v1.TaintEffectPreferNoSchedule})
		case 3:
			n.Status.Allocatable = n.Status.Allocatable.DeepCopy()
			n.Status.Allocatable[v1.ResourceCPU] = resource.MustParse("64")
		}
		out = append(out, change.Change{Kind: change.NodeUpdate, Node: n})
	}
	added := nodes[0].Node().DeepCopy()
	added.Name, added.UID, added.ResourceVersion = "memo-added", "memo-added-uid", ""
	added.Labels["kubernetes.io/hostname"] = added.Name
	added.CreationTimestamp = metav1.NewTime(e.now)
	out = append(out, change.Change{Kind: change.NodeAdd, Node: added},
		change.Change{Kind: change.NodeDelete, Node: nodes[len(nodes)-1].Node()})
	k := 0
	for _, ni := range nodes {
		for _, pi := range ni.Pods {
			if k++; k%7 == 0 {
				out = append(out, change.Change{Kind: change.PodDelete, Pod: pi.Pod})
			}
		}
	}
	return out
}

// verdictsKept reports whether some node of e's snapshot holds verdicts
// the memo kept.
func verdictsKept(e *Engine) bool {
	for _, ni := range e.Scheduler().Snapshot().List() {
		if v := ni.Verdicts; v != nil && (v.FilterKnown != 0 || v.ScoreKnown != 0) {
			return true
		}
	}
	return false
}

// firstDifference is the first line where got and want differ, both ways.
func firstDifference(got, want string) string {
	line := 1
	for i := 0; i < len(got) && i < len(want); i++ {
		if got[i] != want[i] {
			return fmt.Sprintf("line %d at byte %d:\n got: %.400s\nwant: %.400s", line, i, got[max(0, i-200):], want[max(0, i-200):])
		}
		if got[i] == '\n' {
			line++
		}
	}
	return fmt.Sprintf("one is a prefix of the other (%d and %d bytes)", len(got), len(want))
}

// TestLinesOnlyWritesTheSameLines runs headless engines with and without
// Retention.LinesOnly and requires every event and every attempt's line
// (record.DetailSummary, what `run -o json --detail summary` writes) to be
// the same, and LinesOnly's attempts to carry no per-node detail.
func TestLinesOnlyWritesTheSameLines(t *testing.T) {
	clusters := map[string]*scenario.Scenario{}
	for _, seed := range []int64{3, 5, 9} {
		clusters[fmt.Sprintf("generated/%d", seed)] = scenario.Generate(seed, scenario.Options{Preemption: seed == 5})
	}
	basic, err := scenario.Throughput(scenario.WorkloadBasic, scenario.ThroughputSize{Nodes: 200, InitPods: 60, MeasurePods: 120})
	if err != nil {
		t.Fatal(err)
	}
	clusters["throughput/SchedulingBasic"] = basic
	for name, sc := range clusters {
		t.Run(name, func(t *testing.T) {
			lines := func(linesOnly bool) string {
				var b strings.Builder
				opts := Options{Seed: 7, Retention: Retention{Headless: true, LinesOnly: linesOnly}}
				opts.OnEvent = func(ev history.Event, a *record.Attempt) {
					if a == nil {
						v, _ := EventJSON(ev)
						j, err := json.Marshal(v)
						if err != nil {
							t.Fatal(err)
						}
						b.Write(j)
						b.WriteByte('\n')
						return
					}
					if linesOnly && (a.Feasible != nil || a.Scores != nil || !a.Summarized) {
						t.Fatalf("attempt %d of %s keeps per-node detail", a.Seq, a.Pod)
					}
					j, err := a.MarshalDetail(record.DetailSummary)
					if err != nil {
						t.Fatal(err)
					}
					b.Write(j)
					b.WriteByte('\n')
				}
				e := build(t, sc.Cluster.DeepCopy(), opts)
				e.RunUntil(11 * time.Minute)
				return b.String()
			}
			want := lines(false)
			if got := lines(true); got != want {
				t.Fatalf("the lines differ:\n%s", firstDifference(got, want))
			}
		})
	}
}

// localVolumesCluster is 12 nodes with two local volumes each, of sizes
// that differ from node to node, and 24 pods of one shape, each with its
// own WaitForFirstConsumer claim of 5 or 25 GiB: VolumeBinding's score of
// a node (how full the volume it would bind is) differs from pod to pod
// of the same shape, and changes as volumes are bound.
func localVolumesCluster() string {
	var b strings.Builder
	b.WriteString(listHeader)
	b.WriteString(`- apiVersion: storage.k8s.io/v1
  kind: StorageClass
  metadata: {name: local}
  provisioner: kubernetes.io/no-provisioner
  volumeBindingMode: WaitForFirstConsumer
`)
	for n := 0; n < 12; n++ {
		node := fmt.Sprintf("node-%02d", n)
		b.WriteString(nodeYAML(node, "8", ""))
		for v, size := range []int{10 * (n%4 + 1), 15 * (n%3 + 2)} {
			fmt.Fprintf(&b, `- apiVersion: v1
  kind: PersistentVolume
  metadata: {name: pv-%[1]s-%[2]d, uid: uid-pv-%[1]s-%[2]d, resourceVersion: '1'}
  spec:
    capacity: {storage: %[3]dGi}
    accessModes: [ReadWriteOnce]
    storageClassName: local
    persistentVolumeReclaimPolicy: Retain
    local: {path: /mnt/%[2]d}
    nodeAffinity:
      required:
        nodeSelectorTerms: [{matchExpressions: [{key: kubernetes.io/hostname, operator: In, values: [%[1]s]}]}]
  status: {phase: Available}
`, node, v, size)
		}
	}
	for i := 0; i < 24; i++ {
		size := 5 + 20*(i%2)
		fmt.Fprintf(&b, `- apiVersion: v1
  kind: PersistentVolumeClaim
  metadata: {name: data-%[1]d, namespace: default, uid: uid-pvc-data-%[1]d, resourceVersion: '1'}
  spec:
    storageClassName: local
    accessModes: [ReadWriteOnce]
    resources: {requests: {storage: %[2]dGi}}
  status: {phase: Pending}
`, i, size)
		b.WriteString(podYAML(fmt.Sprintf("p%02d", i), "100m", 0, fmt.Sprintf("    volumes: [{name: d, persistentVolumeClaim: {claimName: data-%d}}]\n", i)))
	}
	return b.String()
}

// prioritizedClaimsCluster is three nodes with L4 GPUs, one of them with
// H100s too, and 12 pods of one shape, each with its own claim: every
// other claim prefers an H100 and takes an L4 second (DynamicResources
// scores 8 where it gets its first choice, 7 where its second), the rest
// ask for an L4 only (8 wherever one is free).
func prioritizedClaimsCluster() string {
	const driver = "gpu.example.com"
	var b strings.Builder
	b.WriteString(listHeader)
	for _, model := range []string{"l4", "h100"} {
		fmt.Fprintf(&b, `- apiVersion: resource.k8s.io/v1
  kind: DeviceClass
  metadata: {name: %[1]s}
  spec:
    selectors: [{cel: {expression: 'device.driver == "%[2]s" && device.attributes["%[2]s"].model == "%[1]s"'}}]
`, model, driver)
	}
	for n, models := range [][]string{{"l4"}, {"h100", "l4"}, {"l4"}} {
		node := fmt.Sprintf("node-%d", n)
		b.WriteString(nodeYAML(node, "8", ""))
		fmt.Fprintf(&b, `- apiVersion: resource.k8s.io/v1
  kind: ResourceSlice
  metadata: {name: %[1]s-gpus}
  spec:
    driver: %[2]s
    nodeName: %[1]s
    pool: {name: %[1]s, generation: 1, resourceSliceCount: 1}
    devices:
`, node, driver)
		for _, model := range models {
			for d := 0; d < 4; d++ {
				fmt.Fprintf(&b, "    - {name: %s-%d, attributes: {model: {string: %s}}}\n", model, d, model)
			}
		}
	}
	for i := 0; i < 12; i++ {
		first := `{name: big, deviceClassName: h100, allocationMode: ExactCount, count: 1}, `
		if i%2 == 1 {
			first = ""
		}
		fmt.Fprintf(&b, `- apiVersion: resource.k8s.io/v1
  kind: ResourceClaim
  metadata: {name: claim-%[1]d, namespace: default, uid: uid-claim-%[1]d}
  spec:
    devices:
      requests:
      - name: gpu
        firstAvailable: [%[2]s{name: small, deviceClassName: l4, allocationMode: ExactCount, count: 1}]
`, i, first)
		b.WriteString(podYAML(fmt.Sprintf("p%02d", i), "100m", 0, fmt.Sprintf("    resourceClaims: [{name: c0, resourceClaimName: claim-%d}]\n", i)))
	}
	return b.String()
}
