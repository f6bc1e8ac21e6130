package scenario

// Curated scenarios about the cycle around the plugins: nominated pods,
// preemption's victims, pods the queue skips or the snapshot leaves out, an
// empty cluster, the single-feasible-node shortcut.

import (
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// curNominatedFastPath: a pod whose status.nominatedNodeName passes Filter
// is placed there without scoring, although other nodes would score higher.
func curNominatedFastPath() *Scenario {
	b := curatedBase("nominated-fast-path")
	b.addNode(cnode("node-busy", "", 8000, 16*gi))
	b.addNode(cnode("node-idle-1", "", 8000, 16*gi))
	b.addNode(cnode("node-idle-2", "", 8000, 16*gi))
	b.bound("default", "busy", "node-busy", app("busy"), "", ctr("c", nginx, "cpu=6", "memory=12Gi"))
	p := newPod("default", "returning", app("web"), ctr("c", nginx, "cpu=1", "memory=1Gi"))
	p = b.pending(p)
	p.Status.NominatedNodeName = "node-busy"
	markUnschedulable(p, b.now(), "0/3 nodes are available: 3 Insufficient cpu. preemption: found a potential placement for pod on node node-busy, preempting 1 victims")
	return b.done(`returning is scheduled to node-busy (nominated node passes Filter): no Score plugins run.`, FeatNominatedHigher, "Nominated/fast-path")
}

// curNominatedBlocksLower: a nominated pod of higher or equal priority is
// added to its node in the first filter pass; a lower-priority pod that would
// fit alone is rejected there, a higher-priority one ignores the nomination.
func curNominatedBlocksLower() *Scenario {
	b := curatedBase("nominated-blocks-lower-priority")
	b.addPriorityClass("low", 100, false, "", "")
	b.addPriorityClass("mid", 1000, false, "", "")
	b.addPriorityClass("top", 10000, false, "", "")
	b.addNode(cnode("node-1", "", 4000, 16*gi))
	b.addNode(cnode("node-2", "", 4000, 16*gi))
	victim := b.bound("default", "victim", "node-1", app("batch"), "low", ctr("c", nginx, "cpu=2"))
	b.bound("default", "full", "node-2", app("full"), "top", ctr("c", nginx, "cpu=3900m"))
	nom := newPod("default", "nominated", app("svc"), ctr("c", nginx, "cpu=3"))
	nom.Spec.PriorityClassName = "mid"
	nom = b.pending(nom)
	nom.Status.NominatedNodeName = "node-1"
	markUnschedulable(nom, b.now(), "0/2 nodes are available: 2 Insufficient cpu. preemption: found a potential placement for pod on node node-1, preempting 1 victims")
	terminate(victim, b.now(), true)
	lower := newPod("default", "lower", app("lower"), ctr("c", nginx, "cpu=1"))
	lower.Spec.PriorityClassName = "low"
	b.pending(lower)
	higher := newPod("default", "higher", app("higher"), ctr("c", nginx, "cpu=1"))
	higher.Spec.PriorityClassName = "top"
	b.pending(higher)
	return b.done(`Queue order: higher (10000), nominated (1000), lower (100). higher ignores the lower-priority nomination and
fits node-1 (2000m free). nominated (3000m) still does not fit (victim terminating) and is not eligible for preemption
("not eligible due to a terminating pod on the nominated node."). lower (1000m) would fit node-1's remaining 1000m but
pass 1 adds the nominated pod: Insufficient cpu.`,
		FeatNominatedHigher, FeatNominatedLower, FeatNominatedTerminating, "Nominated/two-pass-filter")
}

// curPreemptionPDB: victim selection with PDBs (violations first, disrupted
// pods not counted, empty selectors matching nothing), start times and a
// preemptionPolicy=Never pod.
func curPreemptionPDB() *Scenario {
	b := curatedBase("preemption-pdb")
	b.addPriorityClass("low", 100, false, "", "")
	b.addPriorityClass("mid", 500, false, "", "")
	b.addPriorityClass("high", 10000, false, "", "")
	b.addPriorityClass("high-never", 10000, false, v1.PreemptNever, "")
	for i := 1; i <= 3; i++ {
		b.addNode(cnode(fmt.Sprintf("node-%d", i), "", 4000, 16*gi))
	}
	start := func(p *v1.Pod, min int) { p.Status.StartTime = ptrTo(at(time.Duration(min) * time.Minute)) }
	var guarded []*v1.Pod
	for i := 1; i <= 3; i++ {
		n := fmt.Sprintf("node-%d", i)
		g := b.bound("default", fmt.Sprintf("guarded-%d", i), n, app("guarded"), "low", ctr("c", nginx, "cpu=2"))
		start(g, 10*i)
		guarded = append(guarded, g)
		f := b.bound("default", fmt.Sprintf("free-%d", i), n, app("free"), []string{"low", "mid", "low"}[i-1], ctr("c", nginx, "cpu=1500m"))
		start(f, 60-10*i)
	}
	b.addPDB("default", "guarded", &metav1.LabelSelector{MatchLabels: app("guarded")}, ptrTo(intstr.FromInt32(2)), nil, 1, 3, 2, 3,
		map[string]metav1.Time{guarded[0].Name: at(time.Hour)})
	b.addPDB("default", "everything", &metav1.LabelSelector{}, nil, ptrTo(intstr.FromInt32(0)), 0, 6, 6, 6, nil)
	p := newPod("default", "urgent", app("u"), ctr("c", nginx, "cpu=2500m"))
	p.Spec.PriorityClassName = "high"
	b.pending(p)
	p = newPod("default", "urgent-never", app("u"), ctr("c", nginx, "cpu=2500m"))
	p.Spec.PriorityClassName = "high-never"
	b.pending(p)
	return b.done(`Every node runs guarded-N (2000m, priority 100) and free-N (1500m); urgent needs 2500m, so each node's minimal
victim set is {guarded-N}. The PDB allows 1 disruption and guarded-1 is in disruptedPods; no candidate violates it. Ties
on violations/priority/count are broken by the latest start time: node-3 (guarded-3 started last). The empty-selector PDB
matches nothing in 1.37. urgent-never: "preemption: not eligible due to preemptionPolicy=Never."`,
		FeatPDB, FeatPDBDisrupted, FeatPDBEmptySelector, FeatStartTimes, FeatPreemptNever, FeatHighPriorityNoFit)
}

// curTerminatingVictim: a nominated pod whose node still runs a
// lower-priority pod being preempted is not eligible to preempt again.
func curTerminatingVictim() *Scenario {
	b := curatedBase("preemption-terminating-victim")
	b.addPriorityClass("low", 100, false, "", "")
	b.addPriorityClass("high", 10000, false, "", "")
	b.addNode(cnode("node-1", "", 4000, 8*gi))
	b.addNode(cnode("node-2", "", 4000, 8*gi))
	v := b.bound("default", "victim", "node-1", app("v"), "low", ctr("c", nginx, "cpu=3"))
	b.bound("default", "other", "node-2", app("o"), "low", ctr("c", nginx, "cpu=3"))
	p := newPod("default", "preemptor", app("p"), ctr("c", nginx, "cpu=2"))
	p.Spec.PriorityClassName = "high"
	p = b.pending(p)
	p.Status.NominatedNodeName = "node-1"
	markUnschedulable(p, b.now(), "0/2 nodes are available: 2 Insufficient cpu. preemption: found a potential placement for pod on node node-1, preempting 1 victims")
	terminate(v, b.now(), true)
	return b.done(`The nominated node fails (victim still counted); PostFilter: "preemption: not eligible due to a terminating pod on
the nominated node." (no new victims on node-2).`, FeatNominatedTerminating)
}

// curNoNodes: an empty cluster: "no nodes available to schedule pods", no
// PostFilter.
func curNoNodes() *Scenario {
	b := curatedBase("no-nodes")
	b.pending(newPod("default", "lonely", app("l"), ctr("c", nginx, "cpu=100m")))
	return b.done(`Error "no nodes available to schedule pods"; PostFilter does not run.`, "Scheduler/no-nodes")
}

// curSucceededPodsIgnored: pods in phase Succeeded or Failed are excluded by
// the scheduler's pod informer (field selector), so they use no resources.
// A replay that does not honour field selectors would count them.
func curSucceededPodsIgnored() *Scenario {
	b := curatedBase("succeeded-pods-ignored")
	b.addNode(cnode("node-1", "", 4000, 8*gi))
	done := b.bound("default", "finished-job", "node-1", app("job"), "", ctr("c", nginx, "cpu=3"))
	done.Status.Phase = v1.PodSucceeded
	done.Status.Conditions = nil
	done.Status.ContainerStatuses = nil
	failed := b.bound("default", "failed-job", "node-1", app("job"), "", ctr("c", nginx, "cpu=3"))
	failed.Status.Phase = v1.PodFailed
	failed.Status.Conditions = nil
	b.pending(newPod("default", "fits-if-ignored", app("f"), ctr("c", nginx, "cpu=2")))
	return b.done(`fits-if-ignored schedules onto node-1: finished-job (Succeeded) and failed-job (Failed) are not in the cache.`,
		"Cache/terminal-pods-ignored")
}

// curDeletingPendingPod: a pending pod with a deletionTimestamp is skipped
// (no attempt); the next pod is scheduled.
func curDeletingPendingPod() *Scenario {
	b := curatedBase("pending-pod-being-deleted")
	b.addNode(cnode("node-1", "", 4000, 8*gi))
	p := b.pending(newPod("default", "going-away", app("g"), ctr("c", nginx, "cpu=100m")))
	p.DeletionTimestamp = ptrTo(b.now())
	p.DeletionGracePeriodSeconds = ptrTo(int64(30))
	p.Finalizers = []string{"example.com/cleanup"}
	b.pending(newPod("default", "staying", app("s"), ctr("c", nginx, "cpu=100m")))
	return b.done(`going-away is skipped ("skip schedule deleting pod"), staying is scheduled.`, "Queue/skip-deleting-pod")
}

// curSingleFeasibleNode: exactly one feasible node is returned without
// scoring.
func curSingleFeasibleNode() *Scenario {
	b := curatedBase("single-feasible-node")
	b.addNode(cnode("node-1", "", 4000, 8*gi, withLabels("disktype", "ssd")))
	b.addNode(cnode("node-2", "", 4000, 8*gi, withLabels("disktype", "hdd")))
	b.addNode(cnode("node-3", "", 4000, 8*gi, withLabels("disktype", "hdd", "cpu-generation", "4")))
	p := newPod("default", "ssd-only", app("s"), ctr("c", nginx, "cpu=100m"))
	p.Spec.NodeSelector = map[string]string{"disktype": "ssd"}
	b.pending(p)
	p = newPod("default", "gt-3", app("g"), ctr("c", nginx, "cpu=100m"))
	p.Spec.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{
		NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchExpressions: []v1.NodeSelectorRequirement{{Key: "cpu-generation", Operator: v1.NodeSelectorOpGt, Values: []string{"3"}}}}}}}}
	b.pending(p)
	return b.done(`Each pod has one feasible node and is placed there without running Score plugins.`, FeatNodeSelector, FeatNAGt)
}
