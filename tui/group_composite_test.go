package tui

import (
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/schedtui/schedtui/scheduler"
	"github.com/schedtui/schedtui/scheduler/features"
	"github.com/schedtui/schedtui/scheduler/plugins"
	"github.com/schedtui/schedtui/snapshot"
)

// compositeCluster: the CompositePodGroup default/job, a composite gang
// (minGroupCount 2) of the gangs a (two workers of 3 cpu, minCount 2) and
// b (one worker of 5 cpu, minCount 1), on two nodes of 4 cpu: a fits, b
// fits nowhere, so the hierarchy places nobody.
const compositeCluster = `
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {kubernetes.io/hostname: n1}}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: n2, labels: {kubernetes.io/hostname: n2}}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: scheduling.k8s.io/v1alpha3
kind: CompositePodGroup
metadata: {name: job, namespace: default, creationTimestamp: "2026-01-01T00:00:00Z"}
spec: {workloadRef: {workloadName: job, templateName: job}, schedulingPolicy: {gang: {minGroupCount: 2}}}
---
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: a, namespace: default, creationTimestamp: "2026-01-01T00:00:01Z"}
spec: {parentCompositePodGroupName: job, workloadRef: {workloadName: job, templateName: a}, schedulingPolicy: {gang: {minCount: 2}}}
---
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: b, namespace: default, creationTimestamp: "2026-01-01T00:00:02Z"}
spec: {parentCompositePodGroupName: job, workloadRef: {workloadName: job, templateName: b}, schedulingPolicy: {gang: {minCount: 1}}}
---
apiVersion: v1
kind: Pod
metadata: {name: a-0, namespace: default, creationTimestamp: "2026-01-01T00:00:00Z"}
spec: {schedulingGroup: {podGroupName: a}, containers: [{name: c, image: x, resources: {requests: {cpu: "3"}}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: a-1, namespace: default, creationTimestamp: "2026-01-01T00:00:00Z"}
spec: {schedulingGroup: {podGroupName: a}, containers: [{name: c, image: x, resources: {requests: {cpu: "3"}}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: b-0, namespace: default, creationTimestamp: "2026-01-01T00:00:00Z"}
spec: {schedulingGroup: {podGroupName: b}, containers: [{name: c, image: x, resources: {requests: {cpu: "5"}}}]}
`

func compositeHarness(t *testing.T, w, h int) *harness {
	t.Helper()
	r, err := features.Resolve("", "", "GenericWorkload=true,TopologyAwareWorkloadScheduling=true,CompositePodGroup=true")
	if err != nil {
		t.Fatal(err)
	}
	c, rep, err := snapshot.LoadUnder("composite", []byte(compositeCluster), &r.Features)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Problems) > 0 {
		t.Fatalf("the scenario does not load cleanly: %v", rep)
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
