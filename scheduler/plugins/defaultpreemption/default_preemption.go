// Package defaultpreemption is the DefaultPreemption PostFilter plugin:
// when a pod fits no node, find nodes where evicting lower-priority pods
// would let it fit, pick one, and nominate the pod there.
package defaultpreemption

import (
	"context"
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/plugins/names"
	"github.com/schedtui/schedtui/scheduler/record"
)

// Name is the plugin's name.
const Name = names.DefaultPreemption

// DefaultPreemption implements PostFilter.
type DefaultPreemption struct {
	h    framework.Handle
	args configv1.DefaultPreemptionArgs
	// running holds the UIDs of preemptors whose victims are still
	// terminating: PreEnqueue gates them until the engine clears them.
	running map[string]bool
	// async is the SchedulerAsyncPreemption gate: off, preemption's API
	// calls are made inside PostFilter, so nothing is ever gated.
	async bool
	// workloads is GenericWorkload: pods of a pod group are preempted at
	// the group's priority, a disruptionMode-all group whole, and pod
	// groups preempt (PodGroupPostFilter). composites is CompositePodGroup
	// (hierarchies), groupPolicy PodGroupPreemptionPolicy.
	workloads, composites, groupPolicy bool
}

var (
	_ framework.PostFilterPlugin  = &DefaultPreemption{}
	_ framework.PreEnqueuePlugin  = &DefaultPreemption{}
	_ framework.EnqueueExtensions = &DefaultPreemption{}
)

// New builds the plugin; nil args mean 10% / 100 candidates.
func New(args runtime.Object, h framework.Handle) (framework.Plugin, error) {
	gates := h.Features()
	pl := &DefaultPreemption{h: h, running: map[string]bool{}, async: gates.EnableAsyncPreemption,
		workloads: gates.EnableGenericWorkload, composites: gates.EnableGenericWorkload && gates.EnableCompositePodGroup,
		groupPolicy: gates.EnablePodGroupPreemptionPolicy}
	pct, abs := int32(10), int32(100)
	pl.args = configv1.DefaultPreemptionArgs{MinCandidateNodesPercentage: &pct, MinCandidateNodesAbsolute: &abs}
	if args != nil {
		a, ok := args.(*configv1.DefaultPreemptionArgs)
		if !ok {
			return nil, fmt.Errorf("got args of type %T, want *DefaultPreemptionArgs", args)
		}
		if a.MinCandidateNodesPercentage != nil {
			pl.args.MinCandidateNodesPercentage = a.MinCandidateNodesPercentage
		}
		if a.MinCandidateNodesAbsolute != nil {
			pl.args.MinCandidateNodesAbsolute = a.MinCandidateNodesAbsolute
		}
	}
	p, n := *pl.args.MinCandidateNodesPercentage, *pl.args.MinCandidateNodesAbsolute
	if p < 0 || p > 100 {
		return nil, fmt.Errorf("minCandidateNodesPercentage: Invalid value: %d: not in valid range [0, 100]", p)
	}
	if n < 0 {
		return nil, fmt.Errorf("minCandidateNodesAbsolute: Invalid value: %d: not in valid range [0, inf)", n)
	}
	if p == 0 && n == 0 {
		return nil, fmt.Errorf("minCandidateNodesPercentage, minCandidateNodesAbsolute: cannot both be zero")
	}
	return pl, nil
}

// Name returns the plugin's name.
func (pl *DefaultPreemption) Name() string { return Name }

// SetPreempting marks (or unmarks) a preemptor whose victims are still
// terminating; the engine calls it as async preemption proceeds.
func (pl *DefaultPreemption) SetPreempting(uid string, running bool) {
	if running {
		pl.running[uid] = true
	} else {
		delete(pl.running, uid)
	}
}

// PreEnqueue gates a preemptor while its preemption is in progress: a pod
// of a pod group (GenericWorkload) while its root group's is, a pod of a
// group not found not at all.
func (pl *DefaultPreemption) PreEnqueue(_ context.Context, p *v1.Pod) *framework.Status {
	if !pl.async {
		return nil
	}
	if sg := p.Spec.SchedulingGroup; sg != nil && sg.PodGroupName != nil && pl.workloads {
		uid, found := pl.rootGroupUID(p.Namespace, *sg.PodGroupName)
		if found && pl.running[uid] {
			return framework.NewStatus(framework.UnschedulableAndUnresolvable, "waiting for the preemption for this pod group to be finished")
		}
		return nil
	}
	if pl.running[string(p.UID)] {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, "waiting for the preemption for this pod to be finished")
	}
	return nil
}

// rootGroupUID is the UID of the group a pod group's preemption marks: the
// PodGroup, or with CompositePodGroup the root of its hierarchy.
func (pl *DefaultPreemption) rootGroupUID(namespace, podGroup string) (string, bool) {
	if !pl.composites {
		pg, err := pl.h.Objects().PodGroup(namespace, podGroup)
		if err != nil {
			return "", false
		}
		return string(pg.UID), true
	}
	uid, found := "", false
	pl.groups().walkUp(namespace, podGroup, func(_ groupKey, pg *schedulingv1beta1.PodGroup, cpg *schedulingv1alpha3.CompositePodGroup) {
		found = true
		if pg != nil {
			uid = string(pg.UID)
		} else {
			uid = string(cpg.UID)
		}
	})
	return uid, found
}

// EventsToRegister registers victim deletion only so that the gate above is
// re-checked; the hint itself never requeues. Without async preemption
// the plugin never rejects a pod and registers nothing.
func (pl *DefaultPreemption) EventsToRegister(context.Context) ([]framework.ClusterEventWithHint, error) {
	if !pl.async {
		return nil, nil
	}
	return []framework.ClusterEventWithHint{{
		Event:          framework.ClusterEvent{Resource: framework.AssignedPod, ActionType: framework.Delete},
		QueueingHintFn: func(*v1.Pod, any, any) (framework.QueueingHint, error) { return framework.QueueSkip, nil },
	}}, nil
}

// PostFilter runs the preemption evaluation and prefixes its message with
// "preemption: ".
func (pl *DefaultPreemption) PostFilter(ctx context.Context, state *framework.CycleState, pod *v1.Pod, m *framework.NodeToStatus) (*framework.PostFilterResult, *framework.Status) {
	rec := &record.Preemption{Chosen: -1}
	state.Write(record.PreemptionStateKey, &record.PreemptionState{Preemption: rec})
	result, status := pl.preempt(ctx, state, pod, m, rec)
	if msg := status.Message(); len(msg) > 0 {
		return result, framework.NewStatus(status.Code(), "preemption: "+msg)
	}
	return result, status
}

func (pl *DefaultPreemption) preempt(ctx context.Context, state *framework.CycleState, pod *v1.Pod, m *framework.NodeToStatus, rec *record.Preemption) (*framework.PostFilterResult, *framework.Status) {
	// Upstream re-reads the preemptor from the informer.
	if fresh, err := pl.h.Objects().Pod(pod.Namespace, pod.Name); err == nil {
		pod = fresh
	} else {
		return nil, framework.AsStatus(err)
	}
	if ok, msg := pl.eligible(pod, m.Get(pod.Status.NominatedNodeName)); !ok {
		rec.Reason = msg
		return nil, framework.NewStatus(framework.Unschedulable, msg)
	}
	rec.Eligible = true
	allNodes := pl.h.Snapshot().List()
	candidates, statuses, err := pl.findCandidates(ctx, state, allNodes, pod, m)
	for _, c := range candidates {
		rec.Candidates = append(rec.Candidates, pl.recordCandidate(c))
	}
	if err != nil && len(candidates) == 0 {
		return nil, framework.AsStatus(err)
	}
	if len(candidates) == 0 {
		fitErr := &framework.FitError{Pod: pod, NumAllNodes: len(allNodes), Diagnosis: framework.Diagnosis{NodeToStatus: statuses}}
		fitErr.Diagnosis.NodeToStatus.SetAbsentNodesStatus(framework.NewStatus(framework.UnschedulableAndUnresolvable, "Preemption is not helpful for scheduling"))
		return framework.NewPostFilterResultWithNominatedNode(""), framework.NewStatus(framework.Unschedulable, fitErr.Error())
	}
	if exts := pl.h.Extenders(); len(exts) > 0 {
		var st *framework.Status
		if candidates, st = pl.callExtenders(exts, pod, candidates); !st.IsSuccess() {
			return nil, st
		}
		rec.Candidates = rec.Candidates[:0]
		for _, c := range candidates {
			rec.Candidates = append(rec.Candidates, pl.recordCandidate(c))
		}
		if len(candidates) == 0 {
			return nil, framework.NewStatus(framework.Unschedulable, "no candidate node for preemption")
		}
	}
	best, decidedBy, tied := pickOneNodeForPreemption(candidates, pl.h.Now())
	rec.Chosen = best
	rec.DecidedBy = decidedBy
	rec.Tied = tied
	c := candidates[best]
	return framework.NewPostFilterResultWithNominatedNode(c.node),
		framework.NewStatus(framework.Success, fmt.Sprintf("found a potential placement for pod on node %v, preempting %d victims", c.node, len(c.victims)))
}

// eligible is PodEligibleToPreemptOthers.
func (pl *DefaultPreemption) eligible(pod *v1.Pod, nominatedStatus *framework.Status) (bool, string) {
	if pod.Spec.PreemptionPolicy != nil && *pod.Spec.PreemptionPolicy == v1.PreemptNever {
		return false, "not eligible due to preemptionPolicy=Never."
	}
	if nnn := pod.Status.NominatedNodeName; nnn != "" {
		// A nomination to a node the pod can no longer use is stale.
		if nominatedStatus.Code() == framework.UnschedulableAndUnresolvable {
			return true, ""
		}
		if ni, err := pl.h.Snapshot().Get(nnn); err == nil {
			prio := corev1helpers.PodPriority(pod)
			g := pl.groups()
			for _, p := range ni.Pods {
				// A pod of a group counts at its group's priority.
				if g.priority(p.Pod) < prio && TerminatingByPreemption(p.Pod) {
					return false, "not eligible due to a terminating pod on the nominated node."
				}
			}
		}
	}
	return true, ""
}

// TerminatingByPreemption reports a pod being deleted because the scheduler
// preempted it (DisruptionTarget=True, reason PreemptionByScheduler).
func TerminatingByPreemption(p *v1.Pod) bool {
	if p.DeletionTimestamp == nil {
		return false
	}
	for _, c := range p.Status.Conditions {
		if c.Type == v1.DisruptionTarget {
			return c.Status == v1.ConditionTrue && c.Reason == v1.PodReasonPreemptionByScheduler
		}
	}
	return false
}

// candidate is a node with the victims whose eviction lets the pod fit.
type candidate struct {
	node          string
	victims       []*v1.Pod
	pdbViolations int
	// groupOf names the disruptionMode-all group (namespace/name) a victim
	// pod is evicted with, by its UID; nil when there is none.
	groupOf map[types.UID]string
}

// newCandidate flattens the chosen victims into their pods, in order.
func newCandidate(node string, chosen []*victim, pdbViolations int) *candidate {
	c := &candidate{node: node, pdbViolations: pdbViolations}
	for _, v := range chosen {
		for _, pi := range v.pods {
			c.victims = append(c.victims, pi.Pod)
			if v.group != "" {
				if c.groupOf == nil {
					c.groupOf = map[types.UID]string{}
				}
				c.groupOf[pi.Pod.UID] = v.group
			}
		}
	}
	return c
}

func (pl *DefaultPreemption) recordCandidate(c *candidate) record.Candidate {
	rc := record.Candidate{Node: c.node, PDBViolations: c.pdbViolations}
	violated := map[*v1.Pod][]string{}
	_, viol := splitByPDB(c.victims, pl.h.Objects().PodDisruptionBudgets())
	for _, v := range viol {
		violated[v.pod] = v.pdbs
	}
	now := pl.h.Now()
	g := pl.groups()
	for _, v := range c.victims {
		rc.Victims = append(rc.Victims, record.Victim{
			// A pod of a group is preempted at its group's priority.
			Pod: v.Namespace + "/" + v.Name, Priority: g.priority(v),
			StartTime: startTime(v, now), PDBs: violated[v], Group: c.groupOf[v.UID],
		})
		if n := v.Spec.NodeName; n != c.node {
			// A pod of a group victim elsewhere, or any victim of a pod
			// group's cluster-wide candidate.
			rc.Victims[len(rc.Victims)-1].Node = n
		}
	}
	return rc
}

// startTime is the pod's start time, or now for pods not started yet.
func startTime(p *v1.Pod, now time.Time) time.Time {
	if p.Status.StartTime != nil {
		return p.Status.StartTime.Time
	}
	return now
}
