package tui

import (
	"os"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/schedtui/schedtui/scheduler"
	"github.com/schedtui/schedtui/scheduler/features"
	"github.com/schedtui/schedtui/scheduler/plugins"
	"github.com/schedtui/schedtui/snapshot"
)

// compositeCluster is explain's composite scenario (shared with the
// command's tests): the CompositePodGroup default/job, a composite gang
// (minGroupCount 2) of the gangs a (two workers of 3 cpu, minCount 2) and
// b (one worker of 5 cpu, minCount 1), on two nodes of 4 cpu: a fits, b
// fits nowhere, so the hierarchy places nobody.
const compositeCluster = "../cmd/schedtui/testdata/composite.yaml"

func compositeHarness(t *testing.T, w, h int) *harness {
	t.Helper()
	return compositeHarnessWith(t, w, h, nil)
}

// compositeHarnessWith is compositeHarness with the cluster edited first.
func compositeHarnessWith(t *testing.T, w, h int, edit func(*snapshot.Cluster)) *harness {
	t.Helper()
	r, err := features.Resolve("", "", "GenericWorkload=true,TopologyAwareWorkloadScheduling=true,CompositePodGroup=true")
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(compositeCluster)
	if err != nil {
		t.Fatal(err)
	}
	c, rep, err := snapshot.LoadUnder("composite", data, &r.Features)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Problems) > 0 {
		t.Fatalf("the scenario does not load cleanly: %v", rep)
	}
	if edit != nil {
		edit(c)
	}
	b, err := NewBackend("composite", c, scheduler.Options{Registry: plugins.NewInTreeRegistry(), Seed: 1, Features: &r.Features})
	if err != nil {
		t.Fatal(err)
	}
	hs := &harness{t: t, m: New(Options{Backend: b, NoColor: true})}
	hs.send(tea.WindowSizeMsg{Width: w, Height: h})
	hs.run(hs.m.Init())
	return hs
}

// TestCompositeGroupPodView: a member's Pod view starts with its
// hierarchy's cycle: the composite verdict (minGroupCount), the outcome
// of each PodGroup below the root with the condition the cycle wrote,
// why b's worker found no node, and the members × nodes matrix of every
// member of the hierarchy.
func TestCompositeGroupPodView(t *testing.T) {
	hs := compositeHarness(t, 120, 30)
	hs.keys("n", "2")
	hs.contains(
		"Composite pod group default/job (gang, minGroupCount 2), group cycle 1: Stuck: 2 of 3 members placeable; minGroupCount",
		"CompositePodGroup default/job: Unschedulable",
		"• PodGroup a (gang, minCount 2): PodGroupInitiallyScheduled: False (Unschedulable)",
		"• PodGroup b (gang, minCount 1): PodGroupInitiallyScheduled: False (Unschedulable)",
		"• no node for b-0: 2 × Insufficient cpu (NodeResourcesFit)",
	)
	hs.golden(120, 30)
}

// TestCompositeGroupQueuesView: the Queues view lists the hierarchy as
// one entry, its root's, with its PodGroups; e explains it.
func TestCompositeGroupQueuesView(t *testing.T) {
	hs := compositeHarness(t, 120, 30)
	hs.keys("n", "1", "G", "e")
	hs.contains("pod groups (1) — one queue entry per group",
		"composite, minGroupCount 2 · 3 queued · 0 placed · backoff, 1s left",
		"is a CompositePodGroup, the root of a hierarchy of pod groups (a, b)",
		"unless at least minGroupCount (2) of the groups directly below it are placed")
	hs.golden(120, 30)
}

// TestCompositeRootMissing: without the root, the members wait for it,
// and the Queues view names the CompositePodGroup they wait for.
func TestCompositeRootMissing(t *testing.T) {
	hs := compositeHarnessWith(t, 120, 30, func(c *snapshot.Cluster) { c.CompositePodGroups = nil })
	hs.keys("1")
	hs.contains("default/a-0", "waiting for CompositePodGroup job (above PodGroup a) to exist")
}
