package why

import (
	"fmt"
	"sort"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	resourcehelper "k8s.io/component-helpers/resource"

	"github.com/schedtui/schedtui/scheduler"
	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/plugins/names"
	"github.com/schedtui/schedtui/scheduler/record"
)

// A pod group's hints: the changes that would let the whole group
// schedule, each proven by re-running the group's cycle on the cluster as
// the cycle saw it with the change applied (Apply), as a member's hints
// are proven by re-running its Filter. The candidates: minCount lowered
// to the members placeable, more of the resource the members missed on a
// node they used, nodes added like the ones they used, and the pods
// holding that resource there removed.

// GroupHintsInput is one group cycle and the cluster as it began.
type GroupHintsInput struct {
	GroupInput
	// Sched is a fork of the cluster as the cycle began (its first
	// member's attempt, engine.Fork), which the candidates are read from;
	// Pod is that member as popped.
	Sched *scheduler.Scheduler
	Pod   *v1.Pod
	// Fork makes another such fork: each candidate is proven on a fresh
	// one, since a group cycle's effects (members assumed, bound, the
	// PodGroup's condition) are not undone.
	Fork func() (*scheduler.Scheduler, *v1.Pod, error)
	// DaemonSets and AdmitDaemonPod are Input's: a node added runs the
	// DaemonSet pods the controller would create there.
	DaemonSets     []*appsv1.DaemonSet
	AdmitDaemonPod func(*v1.Pod) (*v1.Pod, error)
}

// maxAddedNodes bounds the nodes an "add N nodes like X" hint adds.
const maxAddedNodes = 8

// GroupHints finds and proves the group's hints, least disruptive first.
// Only a cycle that left the group unschedulable gets hints.
func GroupHints(in GroupHintsInput) (*Result, error) {
	res := &Result{}
	g := in.Group
	if g == nil || in.Sched == nil || in.Pod == nil || in.Fork == nil || g.Result != record.GroupUnschedulable {
		return res, nil
	}
	if g.Composite {
		res.Note = "No hint: schedtui proves hints for one PodGroup's cycle, not for a composite hierarchy's."
		return res, nil
	}
	pg, err := in.Sched.Objects().PodGroup(g.Namespace, g.Name)
	if err != nil {
		return nil, fmt.Errorf("podgroup %s: %w", g.Key(), err)
	}
	proven := map[string]bool{}
	for _, c := range in.groupCandidates(pg) {
		if c.family != "" && proven[c.family] {
			continue
		}
		res.Tried++
		h, ok, err := in.proveGroup(c)
		if err != nil {
			return nil, err
		}
		if ok {
			res.Hints = append(res.Hints, h)
			proven[c.family] = c.family != ""
		}
	}
	sort.SliceStable(res.Hints, func(i, j int) bool { return res.Hints[i].rank < res.Hints[j].rank })
	if len(res.Hints) == 0 {
		res.Note = "No hint: no change schedtui tries for a group (minCount lowered to the members placeable, more of the missing resource on a node the members used, nodes added like those, the pods holding it there removed) lets the group schedule."
	}
	return res, nil
}

// groupChange is one candidate: the objects it adds or replaces and the
// pods it removes.
type groupChange struct {
	desc    string
	objects []any
	remove  []*v1.Pod
	rank    disruption
	// family names candidates of which only the first proven counts
	// ("add": one node more each).
	family string
}

// groupCandidates lists the candidates for the cycle; pg is the group's
// PodGroup (each candidate edits a copy).
func (in GroupHintsInput) groupCandidates(pg *schedulingv1beta1.PodGroup) []groupChange {
	g := in.Group
	var out []groupChange
	placeable, size := Placeable(g), GroupSize(g)
	if gang := pg.Spec.SchedulingPolicy.Gang; gang != nil && placeable > 0 && placeable < int(gang.MinCount) {
		lowered := pg.DeepCopy()
		lowered.Spec.SchedulingPolicy.Gang.MinCount = int32(placeable)
		out = append(out, groupChange{desc: fmt.Sprintf("minCount %d (PodGroup %s: the gang runs with the %d of its %d members that fit)", placeable, g.Key(), placeable, size),
			objects: []any{lowered}, rank: keepsIntent})
	}
	if c := pg.Spec.SchedulingConstraints; c != nil && len(c.Topology) > 0 {
		var keys []string
		for _, t := range c.Topology {
			keys = append(keys, t.Key)
		}
		free := pg.DeepCopy()
		free.Spec.SchedulingConstraints = nil
		out = append(out, groupChange{desc: fmt.Sprintf("drop the topology constraint (PodGroup %s: schedulingConstraints.topology %s): the members may spread across domains", g.Key(), strings.Join(keys, ", ")),
			objects: []any{free}, rank: editsSpecOrNodes})
	}
	// The nodes the members used, in the order first used: where more of
	// what they missed would let the others in.
	var used []string
	seen := map[string]bool{}
	for _, m := range g.Members {
		if m.Node != "" && !seen[m.Node] {
			seen[m.Node] = true
			used = append(used, m.Node)
		}
	}
	if len(used) == 0 {
		return out
	}
	missing, order := in.missingResources(seen)
	last := used[len(used)-1]
	for _, res := range order {
		ni, err := in.Sched.Snapshot().Get(last)
		if err != nil {
			continue
		}
		n := ni.Node().DeepCopy()
		for _, list := range []v1.ResourceList{n.Status.Allocatable, n.Status.Capacity} {
			if list == nil {
				continue // a node that reports no capacity
			}
			q := list[res]
			list[res] = quantity(res, quantityAmount(res, &q)+missing[res])
		}
		out = append(out, groupChange{desc: fmt.Sprintf("%s more %s on %s%s", qty(res, missing[res]), res, last, zoneOf(n)),
			objects: []any{n}, rank: editsSpecOrNodes})
	}
	if ni, err := in.Sched.Snapshot().Get(used[0]); err == nil {
		unplaced := size - placeable
		like := ni.Node()
		_, pl := groupKey(like)
		base := Input{Sched: in.Sched, DaemonSets: in.DaemonSets, AdmitDaemonPod: in.AdmitDaemonPod}
		for count := 1; count <= min(unplaced, maxAddedNodes); count++ {
			c := groupChange{rank: addsToCluster, family: "add"}
			taken := map[string]bool{}
			var first *newNode
			for i := 0; i < count; i++ {
				a := base.nodeLike(like, freshNodeName(base, like.Name, taken))
				taken[a.node.Name] = true
				c.objects = append(c.objects, a.node)
				for _, p := range a.pods {
					c.objects = append(c.objects, p)
				}
				if first == nil {
					first = a
				}
			}
			first.group = NodeGroup{Like: like.Name, PoolLabel: pl, Pool: like.Labels[pl], Zone: like.Labels[v1.LabelTopologyZone]}
			c.desc = first.describe()
			if count > 1 {
				c.desc = strings.Replace(c.desc, "add a node like", fmt.Sprintf("add %d nodes like", count), 1)
			}
			out = append(out, c)
		}
	}
	// The pods that hold what the members missed on the nodes they used,
	// the largest holder first: moving one away.
	members := map[string]bool{}
	for _, m := range g.Members {
		members[m.Pod] = true
	}
	// A pod holding several of the resources is one candidate.
	removed := map[string]bool{}
	for _, res := range order {
		type holder struct {
			pod    *v1.Pod
			node   string
			amount int64
		}
		var holders []holder
		for _, node := range used {
			ni, err := in.Sched.Snapshot().Get(node)
			if err != nil {
				continue
			}
			for _, pi := range ni.Pods {
				if members[key(pi.Pod)] || removed[key(pi.Pod)] {
					continue
				}
				q := resourcehelper.PodRequests(pi.Pod, resourcehelper.PodResourcesOptions{})[res]
				if n := quantityAmount(res, &q); n > 0 {
					holders = append(holders, holder{pi.Pod, node, n})
				}
			}
		}
		sort.SliceStable(holders, func(i, j int) bool { return holders[i].amount > holders[j].amount })
		for _, h := range holders[:min(len(holders), 2)] {
			removed[key(h.pod)] = true
			out = append(out, groupChange{desc: fmt.Sprintf("remove pod %s (holds %s %s on %s)", key(h.pod), qty(res, h.amount), res, h.node),
				remove: []*v1.Pod{h.pod}, rank: movesOthers})
		}
	}
	return out
}

// missingResources are the resources NodeResourcesFit found insufficient
// on the nodes the members used (used) for the members that found no
// node, in the order first seen, with the sum of those members' requests
// of each (the members not tried included: they need it too).
func (in GroupHintsInput) missingResources(used map[string]bool) (map[v1.ResourceName]int64, []v1.ResourceName) {
	g := in.Group
	missing := map[v1.ResourceName]int64{}
	var order []v1.ResourceName
	for i, m := range g.Members {
		a := (*record.Attempt)(nil)
		if i < len(in.Members) {
			a = in.Members[i]
		}
		if m.Node != "" || a == nil || a.Nodes == nil {
			continue
		}
		for _, r := range a.Rejected {
			st := a.Statuses[r.Status]
			if st.Plugin != names.NodeResourcesFit || !used[a.Nodes.Names[r.Node]] {
				continue
			}
			for _, r := range st.Reasons {
				if res, ok := strings.CutPrefix(r, "Insufficient "); ok {
					if _, seen := missing[v1.ResourceName(res)]; !seen {
						missing[v1.ResourceName(res)] = 0
						order = append(order, v1.ResourceName(res))
					}
				}
			}
		}
	}
	for _, m := range g.Members {
		if m.Node != "" {
			continue
		}
		ns, name, _ := strings.Cut(m.Pod, "/")
		p, err := in.Sched.Objects().Pod(ns, name)
		if err != nil {
			continue
		}
		reqs := resourcehelper.PodRequests(p, resourcehelper.PodResourcesOptions{})
		for _, res := range order {
			q := reqs[res]
			missing[res] += quantityAmount(res, &q)
		}
	}
	return missing, order
}

// zoneOf is " (zone Z)" for a node with a zone label, else "".
func zoneOf(n *v1.Node) string {
	if z := n.Labels[v1.LabelTopologyZone]; z != "" {
		return " (zone " + z + ")"
	}
	return ""
}

// proveGroup applies c to a fresh fork and re-runs the group cycle there,
// and returns the hint when the group schedules.
func (in GroupHintsInput) proveGroup(c groupChange) (Hint, bool, error) {
	h := Hint{Summary: c.desc, Objects: []any{}, Remove: []Ref{}, Changes: 1, rank: c.rank}
	e := Edits{Objects: c.objects}
	for _, p := range c.remove {
		e.Remove = append(e.Remove, Ref{Kind: "Pod", Namespace: p.Namespace, Name: p.Name})
	}
	s, pod, err := in.Fork()
	if err != nil {
		return h, false, err
	}
	if _, _, err := Apply(s, pod, e); err != nil {
		return h, false, nil
	}
	g, err := RerunGroup(s, in.Group)
	if err != nil {
		return h, false, err
	}
	if g == nil || g.Result != record.GroupScheduled {
		return h, false, nil
	}
	seen := map[string]bool{}
	for _, m := range g.Members {
		if m.Node != "" && !seen[m.Node] {
			seen[m.Node] = true
			h.FitsOn = append(h.FitsOn, m.Node)
		}
	}
	for _, obj := range e.Objects {
		h.Objects = append(h.Objects, APIObject(obj))
	}
	h.Remove = append(h.Remove, e.Remove...)
	return h, true, nil
}

// RerunGroup runs the cycle of group g again on s, a fork the caller owns
// (the cycle's effects stay in it): the same members, queued afresh, and
// the PodGroup as s stores it. It returns the new cycle's record.
func RerunGroup(s *scheduler.Scheduler, g *record.GroupAttempt) (*record.GroupAttempt, error) {
	q := &framework.QueuedPodGroupInfo{PodGroupInfo: &framework.PodGroupInfo{Namespace: g.Namespace, Name: g.Name}}
	for _, m := range g.Members {
		ns, name, _ := strings.Cut(m.Pod, "/")
		p, err := s.Objects().Pod(ns, name)
		if err != nil {
			return nil, fmt.Errorf("member %s of pod group %s: %w", m.Pod, g.Key(), err)
		}
		if p.Spec.NodeName != "" {
			continue // bound since: it counts as scheduled
		}
		q.AddMember(&framework.QueuedPodInfo{PodInfo: framework.NewPodInfo(p)})
	}
	if len(q.Members) == 0 {
		return nil, fmt.Errorf("pod group %s: no member left to schedule", g.Key())
	}
	return s.ScheduleOnePodGroup(q).Group, nil
}
