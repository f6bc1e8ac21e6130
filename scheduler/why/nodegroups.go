package why

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/schedtui/schedtui/scheduler"
	"github.com/schedtui/schedtui/scheduler/plugins/names"
	"github.com/schedtui/schedtui/scheduler/record"
)

// "Add a node like X": what cluster-autoscaler and Karpenter do for a
// pod no node takes. The cluster's nodes are grouped into node groups
// (a pool label, else identical shapes); a group's first node in
// node-tree order is copied under a new name, with its labels, taints
// (but the ones a node's condition or an autoscaler puts),
// allocatable and capacity, and none of its pods but the DaemonSet pods
// the controller would create there.

// poolLabels name a node's pool, the first a node carries deciding;
// nodes without one are grouped by shape.
var poolLabels = []struct{ key, what string }{
	{"cloud.google.com/gke-nodepool", "node pool"},
	{"eks.amazonaws.com/nodegroup", "node group"},
	{"karpenter.sh/nodepool", "NodePool"},
	{"kubernetes.azure.com/agentpool", "agent pool"},
	{v1.LabelInstanceTypeStable, "instance type"},
}

// transientTaints are put on a node by its conditions, by cordoning or
// by an autoscaler removing it: a new node of the group has none.
var transientTaints = map[string]bool{
	v1.TaintNodeNotReady: true, v1.TaintNodeUnreachable: true, v1.TaintNodeUnschedulable: true,
	v1.TaintNodeMemoryPressure: true, v1.TaintNodeDiskPressure: true, v1.TaintNodePIDPressure: true,
	v1.TaintNodeNetworkUnavailable: true, v1.TaintNodeOutOfService: true,
	"ToBeDeletedByClusterAutoscaler": true, "DeletionCandidateOfClusterAutoscaler": true,
	"karpenter.sh/disrupted": true,
}

// emptyNodeClears are the Filter plugins whose rejection an empty copy of
// the node may not repeat: the others look only at the node's labels,
// taints and the pod, which the copy shares.
var emptyNodeClears = map[string]bool{
	names.NodeResourcesFit: true, names.NodePorts: true, names.InterPodAffinity: true,
	names.PodTopologySpread: true, names.VolumeRestrictions: true, names.NodeVolumeLimits: true,
	names.NodeUnschedulable: true, names.TaintToleration: true, // but for a taint the copy keeps
}

// keepsUntoleratedTaint reports whether a copy of node keeps a
// NoSchedule or NoExecute taint pod does not tolerate.
func keepsUntoleratedTaint(pod *v1.Pod, node *v1.Node) bool {
	for i := range node.Spec.Taints {
		t := &node.Spec.Taints[i]
		if transientTaints[t.Key] || t.Effect == v1.TaintEffectPreferNoSchedule {
			continue
		}
		tolerated := false
		for j := range pod.Spec.Tolerations {
			// TaintTolerationComparisonOperators is alpha and off in 1.37.
			tolerated = tolerated || pod.Spec.Tolerations[j].ToleratesTaint(noLog, t, false)
		}
		if !tolerated {
			return true
		}
	}
	return false
}

// maxNodeGroups bounds the groups tried for one attempt; maxEstimate the
// pods and nodes the estimate of how many nodes are needed places.
const (
	maxNodeGroups = 3
	maxEstimate   = 50
)

// NodeGroup is the node group an "add a node like X" hint adds a node
// to, and how many such nodes the pods pending like the pod need.
type NodeGroup struct {
	// Like is the node copied.
	Like string `json:"like"`
	// PoolLabel and Pool are the label naming the group and its value;
	// empty for a group of identical shapes.
	PoolLabel string `json:"poolLabel,omitempty"`
	Pool      string `json:"pool,omitempty"`
	// Zone is the copy's topology.kubernetes.io/zone.
	Zone string `json:"zone,omitempty"`
	// Nodes is how many nodes the group has.
	Nodes int `json:"nodes"`
	// Pending counts the pods pending like this one (the same
	// controller, the pod included); Needed is how many such nodes they
	// need, each placed where the re-run Filter passes it; Unplaced
	// those no such node takes, not even an empty one.
	Pending  int `json:"pending"`
	Needed   int `json:"needed"`
	Unplaced int `json:"unplaced,omitempty"`
}

// newNode is a node to add and the DaemonSet pods bound to it.
type newNode struct {
	node  *v1.Node
	pods  []*v1.Pod
	group NodeGroup
}

// groupKey is the node group of node: its pool label and zone, else its
// shape (labels but the hostname, taints, allocatable).
func groupKey(n *v1.Node) (key, poolLabel string) {
	zone := n.Labels[v1.LabelTopologyZone]
	for _, l := range poolLabels {
		if v, ok := n.Labels[l.key]; ok {
			return l.key + "=" + v + "\x00" + zone, l.key
		}
	}
	lbl := map[string]string{}
	for k, v := range n.Labels {
		if k != v1.LabelHostname {
			lbl[k] = v
		}
	}
	var taints []string
	for _, t := range n.Spec.Taints {
		if !transientTaints[t.Key] {
			taints = append(taints, t.ToString())
		}
	}
	sort.Strings(taints)
	var alloc []string
	for r, q := range n.Status.Allocatable {
		alloc = append(alloc, string(r)+"="+q.String())
	}
	sort.Strings(alloc)
	return "shape\x00" + selectorString(lbl) + "\x00" + strings.Join(taints, ",") + "\x00" + strings.Join(alloc, ","), ""
}

// nodeGroupCandidates is one "add a node like X" candidate per node group
// (at most maxNodeGroups, in node-tree order of their first node) with a
// node only plugins an empty copy may clear rejected: X is the first
// such node.
func nodeGroupCandidates(in Input, d *record.FullDiagnosis) []candidate {
	type group struct {
		first     int
		poolLabel string
		members   int
		eligible  bool
	}
	groups := map[string]*group{}
	var order []string
	for n, name := range d.Nodes.Names {
		ni := in.nodeInfo(name)
		if ni == nil {
			continue
		}
		k, pl := groupKey(ni.Node())
		g := groups[k]
		if g == nil {
			g = &group{poolLabel: pl}
			groups[k] = g
			order = append(order, k)
		}
		g.members++
		if g.eligible || d.Narrowed[n] {
			continue
		}
		g.eligible, g.first = true, n
		for p, plugin := range d.Plugins {
			st := d.Cell(n, p)
			if d.SkippedPlugins[p] || st.Code == record.CodeSuccess {
				continue
			}
			if !emptyNodeClears[plugin] || plugin == names.TaintToleration && keepsUntoleratedTaint(in.Pod, ni.Node()) {
				g.eligible = false
			}
		}
	}
	var out []candidate
	for _, k := range order {
		g := groups[k]
		if !g.eligible || len(out) == maxNodeGroups {
			continue
		}
		like := in.nodeInfo(d.Nodes.Names[g.first]).Node()
		a := in.nodeLike(like, freshNodeName(in, like.Name, nil))
		a.group = NodeGroup{Like: like.Name, PoolLabel: g.poolLabel, Pool: like.Labels[g.poolLabel], Zone: like.Labels[v1.LabelTopologyZone], Nodes: g.members}
		c := newCandidate([]change{{desc: a.describe(), add: a}})
		c.votes = g.members
		out = append(out, c)
	}
	return out
}

// describe is the hint's text: the node copied, its pool and zone, the
// DaemonSet pods it would run.
func (a *newNode) describe() string {
	var parts []string
	for _, l := range poolLabels {
		if l.key == a.group.PoolLabel {
			parts = append(parts, l.what+" "+a.group.Pool)
		}
	}
	if a.group.PoolLabel == "" && a.group.Nodes > 1 {
		parts = append(parts, fmt.Sprintf("%d nodes of this shape", a.group.Nodes))
	}
	if a.group.Zone != "" {
		parts = append(parts, "zone "+a.group.Zone)
	}
	if len(a.pods) > 0 {
		parts = append(parts, "empty but for "+plural(len(a.pods), "DaemonSet pod", "DaemonSet pods"))
	}
	if len(parts) == 0 {
		return "add a node like " + a.group.Like
	}
	return fmt.Sprintf("add a node like %s (%s)", a.group.Like, strings.Join(parts, ", "))
}

// freshNodeName is like-new (like-new-2, ...): a name no node has, nor
// any of taken.
func freshNodeName(in Input, like string, taken map[string]bool) string {
	for i := 1; ; i++ {
		name := like + "-new"
		if i > 1 {
			name += "-" + strconv.Itoa(i)
		}
		if _, err := in.Sched.Snapshot().Get(name); err != nil && !taken[name] {
			return name
		}
	}
}

// nodeLike is a new node named name shaped as like, with the DaemonSet
// pods that would land on it.
func (in Input) nodeLike(like *v1.Node, name string) *newNode {
	n := &v1.Node{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Node"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{}},
		Spec:       v1.NodeSpec{},
		Status: v1.NodeStatus{
			Capacity: like.Status.Capacity.DeepCopy(), Allocatable: like.Status.Allocatable.DeepCopy(),
			Conditions: append([]v1.NodeCondition(nil), like.Status.Conditions...), NodeInfo: like.Status.NodeInfo,
			DeclaredFeatures: append([]string(nil), like.Status.DeclaredFeatures...),
		},
	}
	for k, v := range like.Labels {
		n.Labels[k] = v
	}
	n.Labels[v1.LabelHostname] = name
	for _, t := range like.Spec.Taints {
		if !transientTaints[t.Key] {
			n.Spec.Taints = append(n.Spec.Taints, t)
		}
	}
	return &newNode{node: n, pods: in.daemonPods(like, n)}
}

// daemonPods are the pods the DaemonSet controller would create on n:
// one per DaemonSet of the cluster whose predicate takes n, then a copy
// of each pod of a DaemonSet the cluster does not hold that runs on like
// (a recording without its DaemonSets).
func (in Input) daemonPods(like, n *v1.Node) []*v1.Pod {
	var out []*v1.Pod
	known := map[string]bool{}
	for _, ds := range in.DaemonSets {
		known[ds.Namespace+"/"+ds.Name] = true
		if run, _, _ := scheduler.NodeShouldRunDaemonPod(n, ds); !run {
			continue
		}
		p := scheduler.DaemonSetPod(ds, n.Name)
		if in.AdmitDaemonPod != nil {
			admitted, err := in.AdmitDaemonPod(p)
			if err != nil {
				continue
			}
			p = admitted
		}
		p.Spec.NodeName = n.Name
		out = append(out, p)
	}
	ni := in.nodeInfo(like.Name)
	if ni == nil {
		return out
	}
	for _, pi := range ni.Pods {
		ref := metav1.GetControllerOf(pi.Pod)
		if ref == nil || ref.Kind != "DaemonSet" || known[pi.Pod.Namespace+"/"+ref.Name] {
			continue
		}
		p := pi.Pod.DeepCopy()
		p.Name = ref.Name + "-" + n.Name
		p.UID = types.UID(fmt.Sprintf("daemonset-%s-%s-%s", p.Namespace, ref.Name, n.Name))
		p.ResourceVersion, p.Spec.NodeName = "", n.Name
		if a := p.Spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
			for _, t := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
				for _, r := range t.MatchFields {
					for i, v := range r.Values {
						if r.Key == metav1.ObjectNameField && v == like.Name {
							r.Values[i] = n.Name
						}
					}
				}
			}
		}
		out = append(out, p)
	}
	return out
}

// pendingLike lists the other pods pending like pod: not bound, not
// gated, not being deleted, with pod's controller.
func pendingLike(in Input, pod *v1.Pod) []*v1.Pod {
	own := metav1.GetControllerOf(pod)
	if own == nil {
		return nil
	}
	var out []*v1.Pod
	for _, p := range in.Sched.Objects().Pods() {
		ref := metav1.GetControllerOf(p)
		if p.Spec.NodeName != "" || p.DeletionTimestamp != nil || len(p.Spec.SchedulingGates) > 0 || p.Namespace != pod.Namespace ||
			p.Name == pod.Name || ref == nil || ref.Kind != own.Kind || ref.Name != own.Name || ref.UID != own.UID {
			continue
		}
		out = append(out, p)
		if len(out) == maxEstimate-1 {
			break
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// estimate places pod (which the proof found fits on a's node, already
// added), then each pod pending like it, first-fit on the nodes added so
// far, adding another node like a's when none takes it, each placement
// decided by re-running PreFilter and Filter. It leaves the fork as it
// found it (pod pending, a's node added) and returns a's group with the
// counts.
func (a *newNode) estimate(in Input, pod *v1.Pod) *NodeGroup {
	s := in.Sched
	g := a.group
	g.Pending, g.Needed = 1, 1
	others := pendingLike(in, pod)
	if len(others) == 0 {
		return &g
	}
	g.Pending += len(others)
	var nodes0 []*v1.Node
	for _, ni := range s.Snapshot().List() {
		nodes0 = append(nodes0, ni.Node())
	}
	like := in.nodeInfo(g.Like).Node()
	added := []*newNode{a}
	taken := map[string]bool{a.node.Name: true}
	var placed, pending []*v1.Pod
	place := func(p *v1.Pod, node string) {
		b := p.DeepCopy()
		b.Spec.NodeName = node
		s.AddAssignedPod(b)
		placed, pending = append(placed, b), append(pending, p)
	}
	place(pod, a.node.Name)
	for _, p := range others {
		var names []string
		for _, n := range added {
			names = append(names, n.node.Name)
		}
		if fits := feasible(s, p, names); len(fits) > 0 {
			place(p, fits[0])
			continue
		}
		if len(added) == maxEstimate {
			g.Unplaced++
			continue
		}
		more := in.nodeLike(like, freshNodeName(in, like.Name, taken))
		taken[more.node.Name] = true
		nodes := append(append([]*v1.Node(nil), nodes0...), more.node)
		s.SetNodes(nodes)
		for _, dp := range more.pods {
			s.AddAssignedPod(dp)
		}
		if fits := feasible(s, p, []string{more.node.Name}); len(fits) > 0 {
			nodes0 = nodes
			added = append(added, more)
			place(p, more.node.Name)
			continue
		}
		for _, dp := range more.pods {
			s.RemoveAssignedPod(dp)
		}
		s.SetNodes(nodes0)
		g.Unplaced++
	}
	g.Needed = len(added)
	// Undo: the placed pods pending again, the extra nodes gone.
	for i, b := range placed {
		s.RemoveAssignedPod(b)
		s.SetPendingPod(pending[i])
	}
	for _, n := range added[1:] {
		for _, dp := range n.pods {
			s.RemoveAssignedPod(dp)
		}
	}
	if len(added) > 1 {
		s.SetNodes(nodes0[:len(nodes0)-len(added)+1])
	}
	return &g
}

// NodeLike is a new node cloned from like (its labels with a fresh
// hostname, taints, capacity: the node a hint's "add a node like" adds),
// then the DaemonSet pods that would run on it: the objects a what-if
// adds for "add a node to this node's group". in needs Sched, DaemonSets
// and AdmitDaemonPod.
func NodeLike(in Input, like *v1.Node) []any {
	a := in.nodeLike(like, freshNodeName(in, like.Name, nil))
	out := []any{a.node}
	for _, p := range a.pods {
		out = append(out, p)
	}
	return out
}
