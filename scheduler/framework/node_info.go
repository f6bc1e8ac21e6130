package framework

import (
	"fmt"
	"sync/atomic"

	v1 "k8s.io/api/core/v1"
)

// NodeInfo is a node with the pods the scheduler believes run on it (bound
// and assumed) and the aggregates Filter and Score plugins read.
type NodeInfo struct {
	node *v1.Node
	// name is node.Name, kept beside the pointer: every Filter and Score
	// of the cycle asks for it, and following the pointer to the node
	// object is a cache miss per node in large clusters.
	name string

	Pods                         []*PodInfo
	PodsWithAffinity             []*PodInfo
	PodsWithRequiredAntiAffinity []*PodInfo
	UsedPorts                    HostPortInfo
	// Requested sums the pods' requests; NonZeroRequested applies the
	// 100m/200Mi defaults to cpu and memory (used for spreading scores).
	Requested        *Resource
	NonZeroRequested *Resource
	Allocatable      *Resource
	// ImageStates holds, for each image name on the node, its size and how
	// many nodes of the cluster have it.
	ImageStates map[string]*ImageStateSummary
	// PVCRefCounts counts pods using each "namespace/claim" on the node.
	PVCRefCounts map[string]int
	// DeclaredFeatures is node.status.declaredFeatures.
	DeclaredFeatures []string
	// Generation changes whenever the NodeInfo does.
	Generation int64
	// resourceGates decide how the pods' requests are summed.
	resourceGates ResourceGates
	// Verdicts are the node-local plugins' verdicts on this node, kept by
	// the framework runtime for later cycles (NodeLocalPlugin); they hold
	// while Generation is theirs. Clone does not copy them.
	Verdicts *NodeVerdicts
}

// NodeVerdicts are the verdicts a profile's node-local plugins gave on one
// node for pods of one shape, each plugin by its ordinal among the
// profile's node-local Filter or Score plugins (runtime's verdict memo
// numbers them): bit i of FilterKnown says Filter plugin i's status is
// kept, success unless bit i of FilterFailed is set and Failures[i] holds
// it; bit i of ScoreKnown that Scores[i] is Score plugin i's raw score.
// One small block per node: the walk over hundreds of nodes a cycle
// touches it instead of the plugins' data.
type NodeVerdicts struct {
	// Generation is the NodeInfo's Generation they were given on; Key
	// names the profile, the pod's shape and the number of nodes
	// (runtime's verdict memo hands the keys out).
	Generation                            int64
	Key                                   uint64
	FilterKnown, FilterFailed, ScoreKnown uint64
	Failures                              []*Status
	Scores                                [MaxNodeLocalScores]int64
}

// MaxNodeLocalScores is how many node-local Score plugins of a profile
// have their scores kept (the default profile has seven, VolumeBinding
// and DynamicResources in some cycles only).
const MaxNodeLocalScores = 8

// MaxNodeLocalFilters is how many node-local Filter plugins of a profile
// have their statuses kept (the default profile has six).
const MaxNodeLocalFilters = 64

// generation numbers every NodeInfo change in the process, shared by every
// engine in it (a live session's, its forecasts', a what-if's), so that a
// generation is never given twice: NodeVolumeLimits' per-node memory
// relies on it, as upstream's snapshot update does.
var generation atomic.Int64

func nextGeneration() int64 { return generation.Add(1) }

// NewNodeInfo returns an empty NodeInfo holding pods, their requests
// summed with v1.37's default gates.
func NewNodeInfo(pods ...*v1.Pod) *NodeInfo {
	return NewNodeInfoWithGates(DefaultResourceGates, pods...)
}

// NewNodeInfoWithGates returns an empty NodeInfo holding pods, their
// requests summed as the resource gates say.
func NewNodeInfoWithGates(g ResourceGates, pods ...*v1.Pod) *NodeInfo {
	n := &NodeInfo{
		resourceGates:    g,
		Requested:        &Resource{},
		NonZeroRequested: &Resource{},
		Allocatable:      &Resource{},
		UsedPorts:        HostPortInfo{},
		ImageStates:      map[string]*ImageStateSummary{},
		PVCRefCounts:     map[string]int{},
		Generation:       nextGeneration(),
	}
	for _, p := range pods {
		n.AddPod(p)
	}
	return n
}

// Node returns the node object (nil for a NodeInfo without one).
func (n *NodeInfo) Node() *v1.Node {
	if n == nil {
		return nil
	}
	return n.node
}

// Name returns the node's name, or "" without a node.
func (n *NodeInfo) Name() string {
	if n == nil {
		return ""
	}
	return n.name
}

// SetNode sets the node and its allocatable resources.
func (n *NodeInfo) SetNode(node *v1.Node) {
	n.node = node
	n.name = node.Name
	n.Allocatable = NewResource(node.Status.Allocatable)
	n.DeclaredFeatures = node.Status.DeclaredFeatures
	n.Generation = nextGeneration()
}

// Clone copies the NodeInfo; pod infos are shared (they are immutable).
func (n *NodeInfo) Clone() *NodeInfo {
	c := &NodeInfo{
		node:             n.node,
		name:             n.name,
		Requested:        n.Requested.Clone(),
		NonZeroRequested: n.NonZeroRequested.Clone(),
		Allocatable:      n.Allocatable.Clone(),
		UsedPorts:        make(HostPortInfo, len(n.UsedPorts)),
		ImageStates:      n.ImageStates,
		PVCRefCounts:     make(map[string]int, len(n.PVCRefCounts)),
		DeclaredFeatures: n.DeclaredFeatures,
		Generation:       n.Generation,
		resourceGates:    n.resourceGates,
	}
	for ip, m := range n.UsedPorts {
		cm := make(map[ProtocolPort]struct{}, len(m))
		for k := range m {
			cm[k] = struct{}{}
		}
		c.UsedPorts[ip] = cm
	}
	for k, v := range n.PVCRefCounts {
		c.PVCRefCounts[k] = v
	}
	if len(n.Pods) > 0 {
		c.Pods = append([]*PodInfo(nil), n.Pods...)
	}
	if len(n.PodsWithAffinity) > 0 {
		c.PodsWithAffinity = append([]*PodInfo(nil), n.PodsWithAffinity...)
	}
	if len(n.PodsWithRequiredAntiAffinity) > 0 {
		c.PodsWithRequiredAntiAffinity = append([]*PodInfo(nil), n.PodsWithRequiredAntiAffinity...)
	}
	return c
}

func podWithAffinity(p *v1.Pod) bool {
	a := p.Spec.Affinity
	return a != nil && (a.PodAffinity != nil || a.PodAntiAffinity != nil)
}

func podWithRequiredAntiAffinity(p *v1.Pod) bool {
	a := p.Spec.Affinity
	return a != nil && a.PodAntiAffinity != nil && len(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution) != 0
}

// PodResource is what pod would hold on this node, summed as its pods are.
func (n *NodeInfo) PodResource(pod *v1.Pod) PodResource {
	return NewPodInfo(pod).CalculateResourceWith(n.resourceGates)
}

// AddPod adds a pod.
func (n *NodeInfo) AddPod(pod *v1.Pod) { n.AddPodInfo(NewPodInfo(pod)) }

// AddPodInfo adds a parsed pod.
func (n *NodeInfo) AddPodInfo(pi *PodInfo) {
	n.Pods = append(n.Pods, pi)
	if podWithAffinity(pi.Pod) {
		n.PodsWithAffinity = append(n.PodsWithAffinity, pi)
	}
	if podWithRequiredAntiAffinity(pi.Pod) {
		n.PodsWithRequiredAntiAffinity = append(n.PodsWithRequiredAntiAffinity, pi)
	}
	n.update(pi, 1)
}

// removeFromSlice swaps the last element into the removed slot, as
// upstream does; pod order on a node therefore changes on removal, which
// matters to anything that iterates pods in order (preemption victims).
func removeFromSlice(s []*PodInfo, key string) ([]*PodInfo, *PodInfo) {
	for i := range s {
		if s[i].Key() == key {
			removed := s[i]
			s[i] = s[len(s)-1]
			s[len(s)-1] = nil
			s = s[:len(s)-1]
			if len(s) == 0 {
				return nil, removed
			}
			return s, removed
		}
	}
	return s, nil
}

// RemovePod removes a pod by UID.
func (n *NodeInfo) RemovePod(pod *v1.Pod) error {
	key := string(pod.UID)
	if podWithAffinity(pod) {
		n.PodsWithAffinity, _ = removeFromSlice(n.PodsWithAffinity, key)
	}
	if podWithRequiredAntiAffinity(pod) {
		n.PodsWithRequiredAntiAffinity, _ = removeFromSlice(n.PodsWithRequiredAntiAffinity, key)
	}
	var removed *PodInfo
	if n.Pods, removed = removeFromSlice(n.Pods, key); removed != nil {
		n.update(removed, -1)
		return nil
	}
	return fmt.Errorf("no corresponding pod %s in pods of node %s", pod.Name, n.Name())
}

func (n *NodeInfo) update(pi *PodInfo, sign int64) {
	res := pi.CalculateResourceWith(n.resourceGates)
	n.Requested.MilliCPU += sign * res.Resource.MilliCPU
	n.Requested.Memory += sign * res.Resource.Memory
	n.Requested.EphemeralStorage += sign * res.Resource.EphemeralStorage
	for name, q := range res.Resource.ScalarResources {
		n.Requested.AddScalar(name, sign*q)
	}
	n.NonZeroRequested.MilliCPU += sign * res.Non0CPU
	n.NonZeroRequested.Memory += sign * res.Non0Mem
	for _, p := range HostPorts(pi.Pod) {
		if sign > 0 {
			n.UsedPorts.Add(p.HostIP, string(p.Protocol), p.HostPort)
		} else {
			n.UsedPorts.Remove(p.HostIP, string(p.Protocol), p.HostPort)
		}
	}
	for _, v := range pi.Pod.Spec.Volumes {
		if v.PersistentVolumeClaim == nil {
			continue
		}
		key := pi.Pod.Namespace + "/" + v.PersistentVolumeClaim.ClaimName
		if sign > 0 {
			n.PVCRefCounts[key]++
		} else if n.PVCRefCounts[key]--; n.PVCRefCounts[key] <= 0 {
			delete(n.PVCRefCounts, key)
		}
	}
	n.Generation = nextGeneration()
}
