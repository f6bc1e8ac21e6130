package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"
)

// TestExplainPodGroup: explain podgroup/ on the demo's gang: its cycles,
// the verdict, the hints proven by re-running the group cycle, the
// members × nodes matrix; -o json; a member's explanation leads with its
// group's verdict; the errors name what is wrong.
func TestExplainPodGroup(t *testing.T) {
	checkCmd(t, newExplainCommand, []string{"--demo", "podgroup/default/llm-train-workers"}, cmdWant{stdout: []string{
		"PodGroup:   default/llm-train-workers\n",
		"Workload:   default/llm-train/workers\n",
		"Policy:     gang, minCount 8\n",
		"Members:    8, 0 bound\n",
		"  1   +0s     Unschedulable  6/8        minCount (8) cannot be satisfied: 6 scheduled, 1 remaining",
		"Stuck: 6 of 8 members placeable; minCount 8. A gang places all or none: no member binds.",
		"• 6 members found a node in memory, released with the group: gpu-b1 × 4, gpu-b2 × 2",
		"Hint: minCount 6 (PodGroup default/llm-train-workers: the gang runs with the 6 of its 8 members that fit) → the group schedules",
		"Hint: add a node like gpu-b1 (NodePool gpu-pool-b, zone demo-1b) → the group schedules",
		"Hint: 2 more nvidia.com/gpu on gpu-b2 (zone demo-1b) → the group schedules",
		"Hint: remove pod default/llm-serve-0 (holds 2 nvidia.com/gpu on gpu-b2) → the group schedules",
		"llm-train-6  NodeAff Fit     Taint   Fit     Fit    Fit\n",
	}})

	out, _, err := runCmd(t, newExplainCommand, "--demo", "podgroup/llm-train-workers", "-n", "default", "-o", "json", "--attempt", "1")
	if err != nil {
		t.Fatal(err)
	}
	var x struct {
		PodGroup, Policy string
		MinCount, Cycle  int
		Cycles           []struct {
			Result          string
			Placeable, Size int
		}
		Matrix []struct {
			Member, Node string
			Nodes        map[string]string
		}
		Hints []struct {
			Summary string
			FitsOn  []string
		}
	}
	if err := json.Unmarshal([]byte(out), &x); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if x.PodGroup != "default/llm-train-workers" || x.Policy != "Gang" || x.MinCount != 8 || x.Cycle != 1 ||
		len(x.Cycles) == 0 || x.Cycles[0].Result != "Unschedulable" || x.Cycles[0].Placeable != 6 || x.Cycles[0].Size != 8 {
		t.Errorf("explain -o json: %+v", x)
	}
	if len(x.Matrix) != 8 || x.Matrix[0].Node != "gpu-b1" || x.Matrix[0].Nodes["gpu-b1"] != "placed" || x.Matrix[0].Nodes["gpu-b2"] != "fits" ||
		x.Matrix[6].Nodes["gpu-b1"] != "NodeResourcesFit" || len(x.Matrix[7].Nodes) != 0 {
		t.Errorf("matrix: %+v", x.Matrix)
	}
	if len(x.Hints) != 4 || !strings.HasPrefix(x.Hints[0].Summary, "minCount 6") || len(x.Hints[0].FitsOn) == 0 {
		t.Errorf("hints: %+v", x.Hints)
	}

	checkCmd(t, newExplainCommand, []string{"--demo", "default/llm-train-3", "--attempt", "1"}, cmdWant{stdout: []string{
		"Group:      default/llm-train-workers (gang, minCount 8), cycle 1: Stuck: 6 of 8 members placeable; minCount 8.",
		"            llm-train-3 fit",
		"(explain podgroup/default/llm-train-workers: every member × node, and the group's hints)",
	}})
	for _, tc := range []struct {
		args []string
		err  string
	}{
		{[]string{"--demo", "podgroup/default/llm-train-worker"}, `podgroup "default/llm-train-worker" not found; did you mean default/llm-train-workers?`},
		{[]string{"--demo", "podgroup/llm-train-workers", "--all"}, "--all is for a pod"},
		{[]string{"--demo", "podgroup/llm-train-workers", "--attempt", "99"}, "--attempt 99 is beyond its last"},
		{[]string{"--demo", "podgroup/llm-train-workers", "--without", "pod/default/llm-serve-0"}, "--with and --without re-run one pod's attempt"},
	} {
		checkCmd(t, newExplainCommand, tc.args, cmdWant{errSubstr: tc.err})
	}
}

// compositeGates turn on composite pod groups (and the gates they need).
const compositeGates = "GenericWorkload=true,TopologyAwareWorkloadScheduling=true,CompositePodGroup=true"

// TestExplainCompositePodGroup: explain compositepodgroup/ on a
// hierarchy that places nobody (its child b fits nowhere): the root's
// policy, every member of its PodGroups, each PodGroup's condition; a
// PodGroup below the root is explained with its hierarchy, its cycles
// the root's with its own outcome; -o json; the errors name what is
// wrong.
func TestExplainCompositePodGroup(t *testing.T) {
	out, _, err := runCmd(t, newExplainCommand, "--snapshot", "testdata/composite.yaml", "--feature-gates", compositeGates, "compositepodgroup/default/job")
	if err != nil {
		t.Fatal(err)
	}
	golden.RequireEqual(t, []byte(out))

	checkCmd(t, newExplainCommand, []string{"--snapshot", "testdata/composite.yaml", "--feature-gates", compositeGates, "podgroup/default/a"}, cmdWant{stdout: []string{
		"PodGroup:   default/a\n",
		"Hierarchy:  below CompositePodGroup default/job (the queue holds and tries the hierarchy as one)\n",
		"Policy:     gang, minCount 2\n",
		"Members:    2, 0 bound\n",
		"Unschedulable  2/3        pod group is unschedulable, 0/1 placements are available, first placement status: minCount (2) cannot be satisfied: 1 scheduled, 0 remaining",
	}})
	jsonOut, _, err := runCmd(t, newExplainCommand, "--snapshot", "testdata/composite.yaml", "--feature-gates", compositeGates, "podgroup/default/b", "-o", "json")
	if err != nil {
		t.Fatal(err)
	}
	var x struct {
		PodGroup, Kind, Hierarchy string
		Cycles                    []struct{ Result, Message string }
	}
	if err := json.Unmarshal([]byte(jsonOut), &x); err != nil {
		t.Fatalf("%v:\n%s", err, jsonOut)
	}
	if x.PodGroup != "default/b" || x.Kind != "" || x.Hierarchy != "default/job" || len(x.Cycles) == 0 ||
		!strings.Contains(x.Cycles[0].Message, "minCount (1) cannot be satisfied: 0 scheduled, 0 remaining") {
		t.Errorf("explain podgroup/default/b -o json: %+v", x)
	}
	checkCmd(t, newExplainCommand, []string{"--snapshot", "testdata/composite.yaml", "--feature-gates", compositeGates, "default/b-0"}, cmdWant{stdout: []string{
		"Group:      default/job (composite, gang, minGroupCount 2), cycle 1: Stuck: 2 of 3 members placeable; minGroupCount 2.",
		"(explain compositepodgroup/default/job: every member × node, and the group's hints)",
	}})
	for _, tc := range []struct {
		args []string
		err  string
	}{
		{[]string{"compositepodgroup/default/jo"}, `compositepodgroup "default/jo" not found; did you mean default/job?`},
		{[]string{"compositepodgroup/job", "--all"}, "--all is for a pod: explain compositepodgroup/job"},
	} {
		checkCmd(t, newExplainCommand, append([]string{"--snapshot", "testdata/composite.yaml", "--feature-gates", compositeGates}, tc.args...), cmdWant{errSubstr: tc.err})
	}
}
