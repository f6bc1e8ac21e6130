package upstream

import (
	"encoding/json"
	"reflect"
	"testing"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	configv1 "k8s.io/kube-scheduler/config/v1"
	"k8s.io/utils/ptr"

	"github.com/schedtui/schedtui/scheduler/record"
	"github.com/schedtui/schedtui/snapshot"
)

// attempt builds an expected AttemptJSON with the empty collections Run
// renders for absent data.
func attempt(a record.AttemptJSON) record.AttemptJSON {
	a.Kind = "attempt"
	if a.Feasible == nil {
		a.Feasible = []string{}
	}
	if a.Filter == nil {
		a.Filter = map[string]record.FilterJSON{}
	}
	if a.Scores == nil {
		a.Scores = map[string]map[string]record.ScoreJSON{}
	}
	if a.Total == nil {
		a.Total = map[string]int64{}
	}
	if a.Top == nil {
		a.Top = []string{}
	}
	if a.Victims == nil {
		a.Victims = []string{}
	}
	return a
}

func score(raw, normalized, weight int64) record.ScoreJSON {
	return record.ScoreJSON{Raw: raw, Normalized: normalized, Final: normalized * weight}
}

// zeroScores are the Score plugins of the default profile that run (are not
// skipped at PreScore) for a pod without volumes, claims or images known to
// any node, and score 0 everywhere: VolumeBinding's PreScore does not skip
// while StorageCapacityScoring is on (volume_binding.go PreScore),
// DynamicResources and ImageLocality have no PreScore.
func zeroScores(m map[string]record.ScoreJSON) map[string]record.ScoreJSON {
	m["VolumeBinding"] = score(0, 0, 1)
	m["DynamicResources"] = score(0, 0, 2)
	m["ImageLocality"] = score(0, 0, 1)
	return m
}

func TestRun(t *testing.T) {
	const (
		taintReason = "node(s) had untolerated taint(s)"
		cpuReason   = "Insufficient cpu"
	)
	immediate := storagev1.VolumeBindingImmediate
	tests := []struct {
		name    string
		cluster *snapshot.Cluster
		// pending defaults to the unbound pods of the cluster, in order.
		pending []*v1.Pod
		want    []record.AttemptJSON
	}{
		{
			// a hand-computed scoring example (the formulas of every default Score
			// plugin): node-a is the example; node-b
			// is an empty twin so that scoring happens at all.
			// node-a: LeastAllocated cpu (4000-1500)*100/4000 = 62, memory
			// (8Gi-3Gi)*100/8Gi = 62 -> 62; BalancedAllocation 0.375/0.375
			// vs 0.25/0.25: 50+(50+100-100)/2 = 75; TaintToleration raw 0
			// -> normalized 100 -> 300. node-b: (3500*100/4000, 7Gi*100/8Gi)
			// = (87, 87) -> 87; 75; 300.
			name: "spec 6.10 worked example",
			cluster: &snapshot.Cluster{
				Nodes: []*v1.Node{node("node-a", "4", "8Gi"), node("node-b", "4", "8Gi")},
				Pods: []*v1.Pod{
					pod("existing", "1", "2Gi", onNode("node-a")),
					pod("incoming", "500m", "1Gi"),
				},
			},
			want: []record.AttemptJSON{attempt(record.AttemptJSON{
				Pod: "default/incoming", Outcome: record.OutcomeScheduled, Node: "node-b",
				Feasible: []string{"node-a", "node-b"},
				Scores: map[string]map[string]record.ScoreJSON{
					"node-a": zeroScores(map[string]record.ScoreJSON{
						"NodeResourcesFit":                score(62, 62, 1),
						"NodeResourcesBalancedAllocation": score(75, 75, 1),
						"TaintToleration":                 score(0, 100, 3),
					}),
					"node-b": zeroScores(map[string]record.ScoreJSON{
						"NodeResourcesFit":                score(87, 87, 1),
						"NodeResourcesBalancedAllocation": score(75, 75, 1),
						"TaintToleration":                 score(0, 100, 3),
					}),
				},
				Total: map[string]int64{"node-a": 437, "node-b": 462},
				Top:   []string{"node-b"},
			})},
		},
		{
			// node-1 has a NoSchedule taint (U&U: never a preemption
			// candidate); node-2/3 lack cpu and hold only pods of the same
			// priority, so preemption finds no victims.
			name: "FitError with mixed reasons and failed preemption",
			cluster: &snapshot.Cluster{
				Nodes: []*v1.Node{
					node("node-1", "8", "8Gi", noSchedule("dedicated")),
					node("node-2", "2", "8Gi"),
					node("node-3", "2", "8Gi"),
				},
				Pods: []*v1.Pod{
					pod("busy-2", "1500m", "1Gi", onNode("node-2")),
					pod("busy-3", "1500m", "1Gi", onNode("node-3")),
					pod("incoming", "1", "1Gi"),
				},
			},
			want: []record.AttemptJSON{attempt(record.AttemptJSON{
				Pod: "default/incoming", Outcome: record.OutcomeUnschedulable,
				Filter: map[string]record.FilterJSON{
					"node-1": {Plugin: "TaintToleration", Reasons: []string{taintReason}},
					"node-2": {Plugin: "NodeResourcesFit", Reasons: []string{cpuReason}},
					"node-3": {Plugin: "NodeResourcesFit", Reasons: []string{cpuReason}},
				},
				Message: "0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 Insufficient cpu. " +
					"preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod.",
			})},
		},
		{
			// VolumeBinding's PreFilter rejects the pod (unbound claim with
			// Immediate binding): the rejection is the absent-nodes status,
			// rendered for every node. The U&U rejection stops the PreFilter
			// loop before DynamicResources' PreFilter writes its cycle state,
			// so DynamicResources' PostFilter (first in the PostFilter list)
			// fails reading it (dynamicresources.go:1160-1162, fwk.ErrNotFound)
			// and RunPostFilterPlugins returns that Error before
			// DefaultPreemption runs (framework.go:1183-1185): the PostFilter
			// message is "not found", not a preemption message.
			name: "PreFilter rejection",
			cluster: &snapshot.Cluster{
				Nodes: []*v1.Node{node("node-1", "4", "8Gi"), node("node-2", "4", "8Gi"), node("node-3", "4", "8Gi")},
				StorageClasses: []*storagev1.StorageClass{{
					ObjectMeta:        metav1.ObjectMeta{Name: "fast"},
					Provisioner:       "example.com/csi",
					VolumeBindingMode: &immediate,
				}},
				PersistentVolumeClaims: []*v1.PersistentVolumeClaim{{
					ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "data", UID: "pvc-data"},
					Spec: v1.PersistentVolumeClaimSpec{
						AccessModes:      []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce},
						StorageClassName: ptr.To("fast"),
						Resources:        v1.VolumeResourceRequirements{Requests: v1.ResourceList{v1.ResourceStorage: resource.MustParse("1Gi")}},
					},
					Status: v1.PersistentVolumeClaimStatus{Phase: v1.ClaimPending},
				}},
				Pods: []*v1.Pod{pod("incoming", "100m", "128Mi", withPVC("data"))},
			},
			want: []record.AttemptJSON{attempt(record.AttemptJSON{
				Pod: "default/incoming", Outcome: record.OutcomeUnschedulable,
				Filter: map[string]record.FilterJSON{
					"node-1": {Plugin: "VolumeBinding", Reasons: []string{"pod has unbound immediate PersistentVolumeClaims"}},
					"node-2": {Plugin: "VolumeBinding", Reasons: []string{"pod has unbound immediate PersistentVolumeClaims"}},
					"node-3": {Plugin: "VolumeBinding", Reasons: []string{"pod has unbound immediate PersistentVolumeClaims"}},
				},
				Message: "0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims. not found",
			})},
		},
		{
			// A PreFilterResult naming only a node that does not exist: the
			// candidate list is empty and every node gets the absent-nodes
			// status "didn't satisfy plugin(s)" (U&U, no plugin upstream;
			// the record names NodeAffinity, whose result it is). All
			// PreFilters ran, so PostFilter reaches preemption, which has no
			// Unschedulable node to try.
			name: "PreFilterResult excludes every node",
			cluster: &snapshot.Cluster{
				Nodes: []*v1.Node{node("node-1", "4", "8Gi"), node("node-2", "4", "8Gi"), node("node-3", "4", "8Gi")},
				Pods:  []*v1.Pod{pod("incoming", "100m", "64Mi", pinnedTo("node-9"))},
			},
			want: []record.AttemptJSON{attempt(record.AttemptJSON{
				Pod: "default/incoming", Outcome: record.OutcomeUnschedulable,
				Filter: map[string]record.FilterJSON{
					"node-1": {Plugin: "NodeAffinity", Reasons: []string{"node(s) didn't satisfy plugin(s) [NodeAffinity]"}},
					"node-2": {Plugin: "NodeAffinity", Reasons: []string{"node(s) didn't satisfy plugin(s) [NodeAffinity]"}},
					"node-3": {Plugin: "NodeAffinity", Reasons: []string{"node(s) didn't satisfy plugin(s) [NodeAffinity]"}},
				},
				Message: "0/3 nodes are available: 3 node(s) didn't satisfy plugin(s) [NodeAffinity]. " +
					"preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
			})},
		},
		{
			// The nominated node passes its Filters: it is the only feasible
			// node and wins without scoring, although node-a and node-b fit
			// as well.
			name: "nominated node fast path",
			cluster: &snapshot.Cluster{
				Nodes: []*v1.Node{node("node-a", "4", "8Gi"), node("node-b", "4", "8Gi"), node("node-c", "4", "8Gi")},
				Pods:  []*v1.Pod{pod("incoming", "1", "1Gi", nominated("node-c"))},
			},
			want: []record.AttemptJSON{attempt(record.AttemptJSON{
				Pod: "default/incoming", Outcome: record.OutcomeScheduled, Node: "node-c",
				Feasible: []string{"node-c"},
				Top:      []string{"node-c"},
			})},
		},
		{
			// The nominator knows input nominations from the start: "big"
			// (priority 10, nominated to node-a) reserves 3 of node-a's 4
			// cpus for the lower-priority "small" attempted before it.
			name: "input nomination reserves room",
			cluster: &snapshot.Cluster{
				Nodes: []*v1.Node{node("node-a", "4", "8Gi"), node("node-b", "4", "8Gi")},
				Pods: []*v1.Pod{
					pod("big", "3", "1Gi", priority(10), nominated("node-a")),
					pod("small", "2", "1Gi"),
				},
			},
			pending: []*v1.Pod{
				pod("small", "2", "1Gi"),
				pod("big", "3", "1Gi", priority(10), nominated("node-a")),
			},
			want: []record.AttemptJSON{
				attempt(record.AttemptJSON{
					Pod: "default/small", Outcome: record.OutcomeScheduled, Node: "node-b",
					Feasible: []string{"node-b"},
					Filter:   map[string]record.FilterJSON{"node-a": {Plugin: "NodeResourcesFit", Reasons: []string{cpuReason}}},
					Top:      []string{"node-b"},
				}),
				attempt(record.AttemptJSON{
					Pod: "default/big", Outcome: record.OutcomeScheduled, Node: "node-a",
					Feasible: []string{"node-a"},
					Top:      []string{"node-a"},
				}),
			},
		},
		{
			// The second pod sees the first one bound to the only node.
			name: "second pod sees the first bound",
			cluster: &snapshot.Cluster{
				Nodes: []*v1.Node{node("node-1", "4", "8Gi")},
				Pods:  []*v1.Pod{pod("first", "3", "1Gi"), pod("second", "2", "1Gi")},
			},
			want: []record.AttemptJSON{
				attempt(record.AttemptJSON{
					Pod: "default/first", Outcome: record.OutcomeScheduled, Node: "node-1",
					Feasible: []string{"node-1"}, Top: []string{"node-1"},
				}),
				attempt(record.AttemptJSON{
					Pod: "default/second", Outcome: record.OutcomeUnschedulable,
					Filter: map[string]record.FilterJSON{"node-1": {Plugin: "NodeResourcesFit", Reasons: []string{cpuReason}}},
					Message: "0/1 nodes are available: 1 Insufficient cpu. " +
						"preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.",
				}),
			},
		},
		{
			// Preemption: both nodes are candidates with one victim each;
			// the lower-priority victim (low-1, priority 0) decides node-1.
			// The victim is deleted and the retry takes the nominated node.
			name: "preemption then retry on the nominated node",
			cluster: &snapshot.Cluster{
				Nodes: []*v1.Node{node("node-1", "2", "8Gi"), node("node-2", "2", "8Gi")},
				Pods: []*v1.Pod{
					pod("low-1", "2", "1Gi", onNode("node-1"), startedAt(metav1.Unix(1000, 0))),
					pod("low-2", "2", "1Gi", onNode("node-2"), priority(5), startedAt(metav1.Unix(1000, 0))),
					pod("high", "1", "1Gi", priority(100)),
				},
			},
			pending: []*v1.Pod{pod("high", "1", "1Gi", priority(100)), pod("high", "1", "1Gi", priority(100))},
			want: []record.AttemptJSON{
				attempt(record.AttemptJSON{
					Pod: "default/high", Outcome: record.OutcomeUnschedulable,
					Filter: map[string]record.FilterJSON{
						"node-1": {Plugin: "NodeResourcesFit", Reasons: []string{cpuReason}},
						"node-2": {Plugin: "NodeResourcesFit", Reasons: []string{cpuReason}},
					},
					Message:       "0/2 nodes are available: 2 Insufficient cpu. preemption: found a potential placement for pod on node node-1, preempting 1 victims",
					NominatedNode: "node-1",
					Victims:       []string{"default/low-1"},
				}),
				attempt(record.AttemptJSON{
					Pod: "default/high", Outcome: record.OutcomeScheduled, Node: "node-1",
					Feasible: []string{"node-1"}, Top: []string{"node-1"},
				}),
			},
		},
		{
			// After preemption nominates "high" to node-1 (victim low-1
			// deleted), node-1 is empty, but "filler" (priority 0 <= 100)
			// must leave room for the nominated pod: 2 - 1 cpu < 2.
			name: "nomination from preemption reserves room",
			cluster: &snapshot.Cluster{
				Nodes: []*v1.Node{node("node-1", "2", "8Gi"), node("node-2", "2", "8Gi")},
				Pods: []*v1.Pod{
					pod("low-1", "2", "1Gi", onNode("node-1"), startedAt(metav1.Unix(1000, 0))),
					pod("low-2", "2", "1Gi", onNode("node-2"), priority(5), startedAt(metav1.Unix(1000, 0))),
					pod("high", "1", "1Gi", priority(100)),
					pod("filler", "2", "1Gi"),
				},
			},
			pending: []*v1.Pod{
				pod("high", "1", "1Gi", priority(100)),
				pod("filler", "2", "1Gi"),
				pod("high", "1", "1Gi", priority(100)),
			},
			want: []record.AttemptJSON{
				attempt(record.AttemptJSON{
					Pod: "default/high", Outcome: record.OutcomeUnschedulable,
					Filter: map[string]record.FilterJSON{
						"node-1": {Plugin: "NodeResourcesFit", Reasons: []string{cpuReason}},
						"node-2": {Plugin: "NodeResourcesFit", Reasons: []string{cpuReason}},
					},
					Message:       "0/2 nodes are available: 2 Insufficient cpu. preemption: found a potential placement for pod on node node-1, preempting 1 victims",
					NominatedNode: "node-1",
					Victims:       []string{"default/low-1"},
				}),
				attempt(record.AttemptJSON{
					Pod: "default/filler", Outcome: record.OutcomeUnschedulable,
					Filter: map[string]record.FilterJSON{
						"node-1": {Plugin: "NodeResourcesFit", Reasons: []string{cpuReason}},
						"node-2": {Plugin: "NodeResourcesFit", Reasons: []string{cpuReason}},
					},
					Message: "0/2 nodes are available: 2 Insufficient cpu. " +
						"preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.",
				}),
				attempt(record.AttemptJSON{
					Pod: "default/high", Outcome: record.OutcomeScheduled, Node: "node-1",
					Feasible: []string{"node-1"}, Top: []string{"node-1"},
				}),
			},
		},
		{
			// NodeAffinity's PreFilterResult (matchFields on metadata.name,
			// as for DaemonSet pods) narrows the search to node-b; the other
			// nodes get the absent-nodes status, which has a reason but no
			// plugin upstream: the record names NodeAffinity.
			name: "PreFilterResult narrowing on success",
			cluster: &snapshot.Cluster{
				Nodes: []*v1.Node{node("node-a", "4", "8Gi"), node("node-b", "4", "8Gi"), node("node-c", "4", "8Gi")},
				Pods:  []*v1.Pod{pod("daemon", "100m", "64Mi", pinnedTo("node-b"))},
			},
			want: []record.AttemptJSON{attempt(record.AttemptJSON{
				Pod: "default/daemon", Outcome: record.OutcomeScheduled, Node: "node-b",
				Feasible: []string{"node-b"},
				Filter: map[string]record.FilterJSON{
					"node-a": {Plugin: "NodeAffinity", Reasons: []string{"node(s) didn't satisfy plugin(s) [NodeAffinity]"}},
					"node-c": {Plugin: "NodeAffinity", Reasons: []string{"node(s) didn't satisfy plugin(s) [NodeAffinity]"}},
				},
				Top: []string{"node-b"},
			})},
		},
		{
			// Scalar resources follow cpu/memory in NodeResourcesFit's
			// reasons; upstream emits them in map order, rendered sorted.
			name: "NodeResourcesFit reason order",
			cluster: &snapshot.Cluster{
				Nodes: []*v1.Node{func() *v1.Node {
					n := node("node-1", "1", "1Gi")
					for _, r := range []v1.ResourceName{"example.com/zeta", "example.com/alpha"} {
						n.Status.Capacity[r] = resource.MustParse("1")
						n.Status.Allocatable[r] = resource.MustParse("1")
					}
					return n
				}()},
				Pods: []*v1.Pod{
					pod("hog", "", "", onNode("node-1"), func(p *v1.Pod) {
						p.Spec.Containers[0].Resources.Requests = v1.ResourceList{
							v1.ResourceCPU: resource.MustParse("1"), v1.ResourceMemory: resource.MustParse("1Gi"),
							"example.com/zeta": resource.MustParse("1"), "example.com/alpha": resource.MustParse("1"),
						}
						p.Spec.Containers[0].Resources.Limits = v1.ResourceList{
							"example.com/zeta": resource.MustParse("1"), "example.com/alpha": resource.MustParse("1"),
						}
					}),
					pod("incoming", "", "", func(p *v1.Pod) {
						p.Spec.Containers[0].Resources.Requests = v1.ResourceList{
							v1.ResourceMemory: resource.MustParse("1Mi"), v1.ResourceCPU: resource.MustParse("1m"),
							"example.com/zeta": resource.MustParse("1"), "example.com/alpha": resource.MustParse("1"),
						}
						p.Spec.Containers[0].Resources.Limits = v1.ResourceList{
							"example.com/zeta": resource.MustParse("1"), "example.com/alpha": resource.MustParse("1"),
						}
					}),
				},
			},
			want: []record.AttemptJSON{attempt(record.AttemptJSON{
				Pod: "default/incoming", Outcome: record.OutcomeUnschedulable,
				Filter: map[string]record.FilterJSON{"node-1": {Plugin: "NodeResourcesFit", Reasons: []string{
					"Insufficient cpu", "Insufficient memory", "Insufficient example.com/alpha", "Insufficient example.com/zeta",
				}}},
				Message: "0/1 nodes are available: 1 Insufficient cpu, 1 Insufficient example.com/alpha, 1 Insufficient example.com/zeta, 1 Insufficient memory. " +
					"preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.",
			})},
		},
		{
			name:    "no nodes",
			cluster: &snapshot.Cluster{Pods: []*v1.Pod{pod("incoming", "1", "1Gi")}},
			want: []record.AttemptJSON{attempt(record.AttemptJSON{
				// UnschedulableAndUnresolvable: the PodScheduled reason is
				// Unschedulable.
				Pod: "default/incoming", Outcome: record.OutcomeUnschedulable, Message: "no nodes available to schedule pods",
			})},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pending := tc.pending
			if pending == nil {
				pending = pendingOf(tc.cluster)
			}
			got := run(t, tc.cluster, nil, pending)
			for i := range tc.want {
				if !reflect.DeepEqual(got[i], tc.want[i]) {
					g, _ := json.MarshalIndent(got[i], "", "  ")
					w, _ := json.MarshalIndent(tc.want[i], "", "  ")
					t.Errorf("attempt %d:\ngot  %s\nwant %s", i, g, w)
				}
			}
		})
	}
}

// TestRunConfig checks that a KubeSchedulerConfiguration reaches upstream:
// NodeResourcesFit weighted 5, BalancedAllocation and ImageLocality disabled.
func TestRunConfig(t *testing.T) {
	cfg := &configv1.KubeSchedulerConfiguration{
		Profiles: []configv1.KubeSchedulerProfile{{
			SchedulerName: ptr.To(v1.DefaultSchedulerName),
			Plugins: &configv1.Plugins{
				Score: configv1.PluginSet{
					Enabled:  []configv1.Plugin{{Name: "NodeResourcesFit", Weight: ptr.To[int32](5)}},
					Disabled: []configv1.Plugin{{Name: "NodeResourcesBalancedAllocation"}, {Name: "ImageLocality"}},
				},
			},
		}},
	}
	c := &snapshot.Cluster{
		Nodes: []*v1.Node{node("node-a", "4", "8Gi"), node("node-b", "4", "8Gi")},
		Pods: []*v1.Pod{
			pod("existing", "1", "2Gi", onNode("node-a")),
			pod("incoming", "500m", "1Gi"),
		},
	}
	scores := func(fit int64) map[string]record.ScoreJSON {
		return map[string]record.ScoreJSON{
			"NodeResourcesFit": score(fit, fit, 5),
			"TaintToleration":  score(0, 100, 3),
			"VolumeBinding":    score(0, 0, 1),
			"DynamicResources": score(0, 0, 2),
		}
	}
	want := attempt(record.AttemptJSON{
		Pod: "default/incoming", Outcome: record.OutcomeScheduled, Node: "node-b",
		Feasible: []string{"node-a", "node-b"},
		Scores:   map[string]map[string]record.ScoreJSON{"node-a": scores(62), "node-b": scores(87)},
		Total:    map[string]int64{"node-a": 300 + 5*62, "node-b": 300 + 5*87},
		Top:      []string{"node-b"},
	})
	got := run(t, c, cfg, pendingOf(c))
	if !reflect.DeepEqual(got[0], want) {
		g, _ := json.MarshalIndent(got[0], "", "  ")
		w, _ := json.MarshalIndent(want, "", "  ")
		t.Errorf("got  %s\nwant %s", g, w)
	}

	bad := cfg.DeepCopy()
	bad.Profiles = append(bad.Profiles, bad.Profiles[0])
	if _, err := Run(t.Context(), c, bad, pendingOf(c)); err == nil {
		t.Errorf("Run accepted two profiles with the same schedulerName")
	} else {
		t.Logf("duplicate profile: %v", err)
	}
}
