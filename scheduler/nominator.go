package scheduler

import (
	"k8s.io/apimachinery/pkg/types"

	"github.com/schedtui/schedtui/scheduler/framework"
)

// Nominator tracks pods nominated to nodes (status.nominatedNodeName or a
// preemption's decision), in nomination order per node.
type Nominator struct {
	byNode map[string][]*framework.PodInfo
	byUID  map[types.UID]string
	// resolve, when the engine sets it, maps a stored entry to the queue's
	// current PodInfo (see SetResolver).
	resolve func(*framework.PodInfo) *framework.PodInfo
}

// NewNominator returns an empty nominator.
func NewNominator() *Nominator {
	return &Nominator{byNode: map[string][]*framework.PodInfo{}, byUID: map[types.UID]string{}}
}

// Add nominates pi to node, replacing any earlier nomination; an empty
// node only removes it.
func (n *Nominator) Add(pi *framework.PodInfo, node string) {
	n.Delete(pi.Pod.UID)
	if node == "" || pi.Pod.Spec.NodeName != "" {
		return
	}
	n.byUID[pi.Pod.UID] = node
	n.byNode[node] = append(n.byNode[node], pi)
}

// Delete removes a pod's nomination.
func (n *Nominator) Delete(uid types.UID) {
	node, ok := n.byUID[uid]
	if !ok {
		return
	}
	delete(n.byUID, uid)
	list := n.byNode[node]
	for i, pi := range list {
		if pi.Pod.UID == uid {
			n.byNode[node] = append(list[:i:i], list[i+1:]...)
			break
		}
	}
	if len(n.byNode[node]) == 0 {
		delete(n.byNode, node)
	}
}

// NominatedNode returns a pod's nominated node.
func (n *Nominator) NominatedNode(uid types.UID) string { return n.byUID[uid] }

// NominatedPodsForNode lists the pods nominated to node.
func (n *Nominator) NominatedPodsForNode(node string) []*framework.PodInfo {
	list := n.byNode[node]
	if n.resolve == nil || len(list) == 0 {
		return list
	}
	out := make([]*framework.PodInfo, len(list))
	for i, pi := range list {
		out[i] = n.resolve(pi)
	}
	return out
}

// Nodes lists nodes with nominations.
func (n *Nominator) Nodes() []string {
	out := make([]string, 0, len(n.byNode))
	for k := range n.byNode {
		out = append(out, k)
	}
	return out
}
