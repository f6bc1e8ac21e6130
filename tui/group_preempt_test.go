package tui

import (
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/schedtui/schedtui/scheduler"
	"github.com/schedtui/schedtui/scheduler/features"
	"github.com/schedtui/schedtui/scheduler/plugins"
	"github.com/schedtui/schedtui/snapshot"
)

// groupPreemptCluster: the gang default/train (2 workers of 2 cpu,
// minCount 2, priority 100) fits nowhere. n2 is held by keeper (priority
// 200) and batch-1; n1 by batch-0, of PodGroup default/batch whose
// disruptionMode is all; n3 by solo, of PodGroup default/svc (basic,
// disruptionMode single by default). The gang's preemption takes batch-0
// and, with it, the rest of its group (batch-1 on n2), and solo alone.
const groupPreemptCluster = `
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: low}
value: 10
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: train}
value: 100
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 200
---
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {kubernetes.io/hostname: n1}}
status: {allocatable: {cpu: "2", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: n2, labels: {kubernetes.io/hostname: n2}}
status: {allocatable: {cpu: "2", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: n3, labels: {kubernetes.io/hostname: n3}}
status: {allocatable: {cpu: "2", memory: 8Gi, pods: "110"}}
---
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: train, namespace: default, creationTimestamp: "2026-01-01T00:00:00Z"}
spec: {schedulingPolicy: {gang: {minCount: 2}}, priorityClassName: train}
---
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: batch, namespace: default, creationTimestamp: "2026-01-01T00:00:00Z"}
spec: {schedulingPolicy: {gang: {minCount: 2}}, priorityClassName: low, disruptionMode: {all: {}}}
---
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: svc, namespace: default, creationTimestamp: "2026-01-01T00:00:00Z"}
spec: {schedulingPolicy: {basic: {}}}
---
apiVersion: v1
kind: Pod
metadata: {name: batch-0, namespace: default, creationTimestamp: "2026-01-01T00:00:00Z"}
spec: {nodeName: n1, priorityClassName: low, schedulingGroup: {podGroupName: batch}, containers: [{name: c, image: x, resources: {requests: {cpu: "2"}}}]}
status: {phase: Running, startTime: "2026-01-01T00:00:00Z"}
---
apiVersion: v1
kind: Pod
metadata: {name: batch-1, namespace: default, creationTimestamp: "2026-01-01T00:00:00Z"}
spec: {nodeName: n2, priorityClassName: low, schedulingGroup: {podGroupName: batch}, containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]}
status: {phase: Running, startTime: "2026-01-01T00:00:00Z"}
---
apiVersion: v1
kind: Pod
metadata: {name: keeper, namespace: default, creationTimestamp: "2026-01-01T00:00:00Z"}
spec: {nodeName: n2, priorityClassName: high, containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]}
status: {phase: Running, startTime: "2026-01-01T00:00:00Z"}
---
apiVersion: v1
kind: Pod
metadata: {name: solo, namespace: default, creationTimestamp: "2026-01-01T00:00:00Z"}
spec: {nodeName: n3, schedulingGroup: {podGroupName: svc}, containers: [{name: c, image: x, resources: {requests: {cpu: "2"}}}]}
status: {phase: Running, startTime: "2026-01-01T00:00:00Z"}
---
apiVersion: v1
kind: Pod
metadata: {name: worker-0, namespace: default, creationTimestamp: "2026-01-01T00:00:00Z"}
spec: {priorityClassName: train, schedulingGroup: {podGroupName: train}, containers: [{name: c, image: x, resources: {requests: {cpu: "2"}}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: worker-1, namespace: default, creationTimestamp: "2026-01-01T00:00:00Z"}
spec: {priorityClassName: train, schedulingGroup: {podGroupName: train}, containers: [{name: c, image: x, resources: {requests: {cpu: "2"}}}]}
`

func groupPreemptHarness(t *testing.T, w, h int) *harness {
	t.Helper()
	r, err := features.Resolve("", "", "GenericWorkload=true")
	if err != nil {
		t.Fatal(err)
	}
	c, rep, err := snapshot.LoadUnder("gang-preemption", []byte(groupPreemptCluster), &r.Features)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Problems) > 0 {
		t.Fatalf("the scenario does not load cleanly: %v", rep)
	}
	b, err := NewBackend("gang-preemption", c, scheduler.Options{Registry: plugins.NewInTreeRegistry(), Seed: 1, Features: &r.Features})
	if err != nil {
		t.Fatal(err)
	}
	hs := &harness{t: t, m: New(Options{Backend: b, NoColor: true})}
	hs.send(tea.WindowSizeMsg{Width: w, Height: h})
	hs.run(hs.m.Init())
	return hs
}

// TestGroupPreemptView: the Preempt view of a member of a group cycle
// whose PodGroupPostFilter preempted shows the group's victims per node,
// the group each belonged to and its disruptionMode (all: the whole
// group, its pod on another node too), and the cycle's message.
func TestGroupPreemptView(t *testing.T) {
	hs := groupPreemptHarness(t, 120, 24)
	hs.keys("n", "5")
	hs.contains("Pod group default/train (gang, minCount 2, priority 100), group cycle 1: its members found no placement;",
		"Message: minCount (2) cannot be satisfied: 0 scheduled, 1 remaining, pod group preemption: found a placement for",
		"3 victim(s) on 3 node(s). Members nominated: worker-0 → n1, worker-1 → n3.",
		"   n1               default/batch-0            10       default/batch              all → whole group",
		"   n2               default/batch-1            10       default/batch              all → whole group",
		"   n3               default/solo               0        default/svc                single → this pod")
	hs.golden(120, 24)
	// The other member's attempt shows the same preemption; enter opens
	// the selected victim's node.
	hs.keys("n")
	hs.contains("member 2/2 of group cycle 1  default/worker-1", "   n2               default/batch-1")
	hs.keys("j", "<enter>")
	if title, _ := hs.m.views[viewNodes].(*nodesView).Explain(); hs.m.c.Active != viewNodes || title != "n2" {
		t.Errorf("enter on batch-1 opens %q in view %d, want n2 in the Nodes view", title, hs.m.c.Active)
	}
}
