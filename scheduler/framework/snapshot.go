package framework

import (
	"cmp"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	v1 "k8s.io/api/core/v1"
	"k8s.io/component-helpers/node/topology"
)

// Snapshot is the cluster as one scheduling cycle sees it: NodeInfos in the
// node tree's order, the pods on them, and which PVCs are in use.
type Snapshot struct {
	nodeInfoMap                 map[string]*NodeInfo
	nodeInfoList                []*NodeInfo
	havePodsWithAffinity        []*NodeInfo
	havePodsWithRequiredAntiAff []*NodeInfo
	usedPVCSet                  map[string]struct{}
	// treeIndex is each NodeInfo's index in nodeInfoList, made on first
	// use (AddPod), which never changes once the snapshot is built.
	treeIndex map[*NodeInfo]int
	// mutations, during a mutation session (StartMutations), holds a copy
	// of each NodeInfo as it was before the session first changed it.
	mutations map[*NodeInfo]*NodeInfo
	// placement limits a pod-group cycle's nodes (placement.go).
	placement *placementNodes
}

// NewSnapshot builds a snapshot of nodes, given in the order they were
// added to the cluster (the snapshot lists them in node-tree order), and
// the pods bound to them. Pods naming nodes that do not exist are ignored,
// as the cache ignores them until their node appears.
func NewSnapshot(nodes []*v1.Node, pods []*v1.Pod) *Snapshot {
	return NewSnapshotWithGates(nodes, pods, DefaultResourceGates)
}

// NewSnapshotWithGates is NewSnapshot with the pods' requests summed as
// the resource gates say.
func NewSnapshotWithGates(nodes []*v1.Node, pods []*v1.Pod, g ResourceGates) *Snapshot {
	s := &Snapshot{nodeInfoMap: make(map[string]*NodeInfo, len(nodes)), usedPVCSet: map[string]struct{}{}}
	images := imageSummaries(nodes)
	ordered := NodeTreeOrder(nodes)
	s.nodeInfoList = make([]*NodeInfo, 0, len(ordered))
	for _, node := range ordered {
		ni := NewNodeInfoWithGates(g)
		ni.SetNode(node)
		s.nodeInfoMap[node.Name] = ni
		s.nodeInfoList = append(s.nodeInfoList, ni)
	}
	// Each node's image states touch that node only.
	inParallel(len(s.nodeInfoList), 64, func(start, end int) {
		for _, ni := range s.nodeInfoList[start:end] {
			names := 0
			for _, img := range ni.Node().Status.Images {
				names += len(img.Names)
			}
			// Sized once: a node lists tens of images.
			ni.ImageStates = make(map[string]*ImageStateSummary, names)
			for _, img := range ni.Node().Status.Images {
				for _, name := range img.Names {
					ni.ImageStates[name] = images[name]
				}
			}
		}
	})
	infos := boundPodInfos(pods, s.nodeInfoMap, g)
	for i, p := range pods {
		if infos[i] != nil {
			s.nodeInfoMap[p.Spec.NodeName].AddPodInfo(infos[i])
		}
	}
	s.refreshLists()
	return s
}

// boundPodInfos returns the PodInfo of every pod bound to a node of
// nodes, its requests already summed under g (nil for the other pods),
// computed on GOMAXPROCS goroutines: summing a pod's requests is most of
// the time it takes to add it to its node, and each pod's touches nothing
// else, so that adding them in order afterwards costs little.
func boundPodInfos(pods []*v1.Pod, nodes map[string]*NodeInfo, g ResourceGates) []*PodInfo {
	infos := make([]*PodInfo, len(pods))
	inParallel(len(pods), 256, func(start, end int) {
		for i := start; i < end; i++ {
			p := pods[i]
			if _, ok := nodes[p.Spec.NodeName]; ok && p.Spec.NodeName != "" {
				infos[i] = NewPodInfo(p)
				infos[i].CalculateResourceWith(g)
			}
		}
	})
	return infos
}

// inParallel calls fn on consecutive ranges [start, end) of at most chunk
// of n items, on up to GOMAXPROCS goroutines, and returns when all are
// done.
func inParallel(n, chunk int, fn func(start, end int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), (n+chunk-1)/chunk) {
		wg.Go(func() {
			for {
				start := int(next.Add(int64(chunk))) - chunk
				if start >= n {
					return
				}
				fn(start, min(n, start+chunk))
			}
		})
	}
	wg.Wait()
}

// The snapshot is kept current in place (AddPod, RemovePod) and rebuilt
// when the node set changes (RebuildSnapshot); SnapshotFromNodeInfos
// builds one over copies for checkpoints.

// SnapshotFromNodeInfos builds a snapshot over NodeInfos that are already
// in node-tree order. The NodeInfos are used as they are, not copied.
func SnapshotFromNodeInfos(infos []*NodeInfo) *Snapshot {
	s := &Snapshot{nodeInfoMap: make(map[string]*NodeInfo, len(infos)), usedPVCSet: map[string]struct{}{}}
	s.nodeInfoList = make([]*NodeInfo, 0, len(infos))
	for _, ni := range infos {
		s.nodeInfoMap[ni.Name()] = ni
		s.nodeInfoList = append(s.nodeInfoList, ni)
	}
	s.refreshLists()
	return s
}

// RebuildSnapshot builds a snapshot after nodes were added, updated or
// removed: nodes are given in the order they were added to the cluster;
// a node that already had a NodeInfo (existing returns it) keeps it, with
// its pods, and gets the new node object; a new node starts empty,
// summing requests as the resource gates say. Image
// summaries are recomputed for every node, in new maps, so that copies
// sharing the old maps are unaffected.
func RebuildSnapshot(nodes []*v1.Node, existing func(name string) *NodeInfo, g ResourceGates) *Snapshot {
	images := imageSummaries(nodes)
	ordered := NodeTreeOrder(nodes)
	infos := make([]*NodeInfo, 0, len(ordered))
	for _, node := range ordered {
		ni := existing(node.Name)
		if ni == nil {
			ni = NewNodeInfoWithGates(g)
		}
		if ni.Node() != node {
			ni.SetNode(node)
		}
		states := map[string]*ImageStateSummary{}
		for _, img := range node.Status.Images {
			for _, name := range img.Names {
				states[name] = images[name]
			}
		}
		ni.ImageStates = states
		// New image maps are a change checkpoints must see.
		ni.Generation = nextGeneration()
		infos = append(infos, ni)
	}
	return SnapshotFromNodeInfos(infos)
}

// RefreshLists recomputes the affinity lists and the used-PVC set after
// NodeInfos were changed in place.
func (s *Snapshot) RefreshLists() { s.refreshLists() }

// imageSummaries returns, per image name, how many nodes report it and its
// size as the first node (in add order) reported it: the scheduler cache
// records the size once, when the image is first seen. The nodes have
// distinct names (the cache keys them by name), so a node is counted once
// per image by remembering the last node counted (a set of node names per
// image took a second at 15,000 nodes).
func imageSummaries(nodes []*v1.Node) map[string]*ImageStateSummary {
	type counted struct {
		size     int64 // as the range's first node reported it
		numNodes int
		lastNode int // index+1 of the last node counted
	}
	// Each of up to GOMAXPROCS ranges of nodes is counted apart, then the
	// ranges are summed in node order: the size is the first range's.
	ranges := max(1, min(runtime.GOMAXPROCS(0), len(nodes)/256))
	per := (len(nodes) + ranges - 1) / max(ranges, 1)
	counts := make([]map[string]*counted, ranges)
	inParallel(len(nodes), max(per, 1), func(start, end int) {
		images := map[string]*counted{}
		for i := start; i < end; i++ {
			for _, img := range nodes[i].Status.Images {
				for _, name := range img.Names {
					c := images[name]
					if c == nil {
						c = &counted{size: img.SizeBytes}
						images[name] = c
					}
					if c.lastNode != i+1 {
						c.lastNode = i + 1
						c.numNodes++
					}
				}
			}
		}
		counts[start/max(per, 1)] = images
	})
	out := map[string]*ImageStateSummary{}
	for _, images := range counts {
		for name, c := range images {
			s := out[name]
			if s == nil {
				s = &ImageStateSummary{Size: c.size}
				out[name] = s
			}
			s.NumNodes += c.numNodes
		}
	}
	return out
}

func (s *Snapshot) refreshLists() {
	s.havePodsWithAffinity = s.havePodsWithAffinity[:0]
	s.havePodsWithRequiredAntiAff = s.havePodsWithRequiredAntiAff[:0]
	clear(s.usedPVCSet)
	for _, ni := range s.nodeInfoList {
		if len(ni.PodsWithAffinity) > 0 {
			s.havePodsWithAffinity = append(s.havePodsWithAffinity, ni)
		}
		if len(ni.PodsWithRequiredAntiAffinity) > 0 {
			s.havePodsWithRequiredAntiAff = append(s.havePodsWithRequiredAntiAff, ni)
		}
		for key := range ni.PVCRefCounts {
			s.usedPVCSet[key] = struct{}{}
		}
	}
}

// List returns NodeInfos in node-tree order.
func (s *Snapshot) List() []*NodeInfo { return s.nodeInfoList }

// HavePodsWithAffinityList returns nodes with pods that have pod (anti-)affinity.
func (s *Snapshot) HavePodsWithAffinityList() []*NodeInfo { return s.havePodsWithAffinity }

// HavePodsWithRequiredAntiAffinityList returns nodes with pods that have
// required pod anti-affinity.
func (s *Snapshot) HavePodsWithRequiredAntiAffinityList() []*NodeInfo {
	return s.havePodsWithRequiredAntiAff
}

// Get returns a node's NodeInfo.
func (s *Snapshot) Get(name string) (*NodeInfo, error) {
	if ni, ok := s.nodeInfoMap[name]; ok && ni.Node() != nil {
		return ni, nil
	}
	return nil, fmt.Errorf("nodeinfo not found for node name %q", name)
}

// NumNodes counts the nodes.
func (s *Snapshot) NumNodes() int { return len(s.nodeInfoList) }

// IsPVCUsedByPods reports whether a bound or assumed pod uses the claim
// "namespace/name".
func (s *Snapshot) IsPVCUsedByPods(key string) bool {
	_, ok := s.usedPVCSet[key]
	return ok
}

// StartMutations opens a mutation session, upstream's
// MutableSnapshotSharedLister.StartMutations: the pods added and removed
// until EndMutations (workload-aware preemption takes victims off and puts
// members on) are undone then, each node left exactly as it was, its pods
// in their order. Sessions do not nest.
func (s *Snapshot) StartMutations() error {
	if s.mutations != nil {
		return fmt.Errorf("cannot stack mutations")
	}
	s.mutations = map[*NodeInfo]*NodeInfo{}
	return nil
}

// EndMutations closes the session, restoring every node it changed in
// place (the NodeInfos keep their identity; each gets a new generation,
// so that nothing that copied it during the session is taken as current).
func (s *Snapshot) EndMutations() error {
	if s.mutations == nil {
		return fmt.Errorf("no mutation session started")
	}
	for ni, before := range s.mutations {
		*ni = *before
		ni.Generation = nextGeneration()
	}
	restored := len(s.mutations) > 0
	s.mutations = nil
	if restored {
		s.refreshLists()
	}
	return nil
}

// noteMutation keeps ni as it is before a session's first change to it.
func (s *Snapshot) noteMutation(ni *NodeInfo) {
	if s.mutations == nil {
		return
	}
	if _, kept := s.mutations[ni]; !kept {
		s.mutations[ni] = ni.Clone()
	}
}

// AddPod puts an assumed or bound pod on its node (after Reserve/Bind).
func (s *Snapshot) AddPod(pod *v1.Pod) error {
	ni, ok := s.nodeInfoMap[pod.Spec.NodeName]
	if !ok {
		return fmt.Errorf("node %q of pod %s/%s is not in the snapshot", pod.Spec.NodeName, pod.Namespace, pod.Name)
	}
	s.noteMutation(ni)
	before := listMembership(ni)
	ni.AddPod(pod)
	// A pod added can only make its node join a list: it goes in at its
	// place in node-tree order, as refreshLists would put it, without a
	// walk over every node (SchedulingPodAntiAffinity's every pod puts
	// its node in the anti-affinity list).
	after := listMembership(ni)
	if after.affinity && !before.affinity {
		s.havePodsWithAffinity = s.insertInTreeOrder(s.havePodsWithAffinity, ni)
	}
	if after.requiredAntiAffinity && !before.requiredAntiAffinity {
		s.havePodsWithRequiredAntiAff = s.insertInTreeOrder(s.havePodsWithRequiredAntiAff, ni)
	}
	// A claim the pod uses is now in use, whatever it was before.
	for _, v := range pod.Spec.Volumes {
		if v.PersistentVolumeClaim != nil {
			s.usedPVCSet[pod.Namespace+"/"+v.PersistentVolumeClaim.ClaimName] = struct{}{}
		}
	}
	return nil
}

// insertInTreeOrder inserts ni into list, a subsequence of nodeInfoList,
// keeping nodeInfoList's order.
func (s *Snapshot) insertInTreeOrder(list []*NodeInfo, ni *NodeInfo) []*NodeInfo {
	if s.treeIndex == nil {
		s.treeIndex = make(map[*NodeInfo]int, len(s.nodeInfoList))
		for i, n := range s.nodeInfoList {
			s.treeIndex[n] = i
		}
	}
	at := s.treeIndex[ni]
	i, _ := slices.BinarySearchFunc(list, at, func(n *NodeInfo, at int) int { return cmp.Compare(s.treeIndex[n], at) })
	return slices.Insert(list, i, ni)
}

// RemovePod takes a pod off its node.
func (s *Snapshot) RemovePod(pod *v1.Pod) error {
	ni, ok := s.nodeInfoMap[pod.Spec.NodeName]
	if !ok {
		return fmt.Errorf("node %q of pod %s/%s is not in the snapshot", pod.Spec.NodeName, pod.Namespace, pod.Name)
	}
	s.noteMutation(ni)
	before := listMembership(ni)
	if err := ni.RemovePod(pod); err != nil {
		return err
	}
	// A claim the pod used may still be used by a pod on another node,
	// which only a walk over every node tells.
	if listMembership(ni) != before || usesClaims(pod) {
		s.refreshLists()
	}
	return nil
}

// membership is which of the snapshot's lists a NodeInfo belongs in.
// AddPod and RemovePod rebuild the lists only when the pod's node joined
// or left one (or, on removal, the pod used claims): walking every node on
// each assume would dominate the cycle in large clusters.
type membership struct{ affinity, requiredAntiAffinity bool }

func listMembership(ni *NodeInfo) membership {
	return membership{len(ni.PodsWithAffinity) > 0, len(ni.PodsWithRequiredAntiAffinity) > 0}
}

func usesClaims(pod *v1.Pod) bool {
	for _, v := range pod.Spec.Volumes {
		if v.PersistentVolumeClaim != nil {
			return true
		}
	}
	return false
}

// NodeTreeOrder orders nodes as the scheduler cache's node tree lists them:
// nodes bucketed by zone key (zones in first-seen order, nodes in add
// order), then interleaved round-robin across zones.
func NodeTreeOrder(nodes []*v1.Node) []*v1.Node {
	var zones []string
	tree := map[string][]*v1.Node{}
	for _, n := range nodes {
		z := topology.GetZoneKey(n)
		if _, ok := tree[z]; !ok {
			zones = append(zones, z)
		}
		tree[z] = append(tree[z], n)
	}
	out := make([]*v1.Node, 0, len(nodes))
	for i := 0; len(out) < len(nodes); i++ {
		for _, z := range zones {
			if i < len(tree[z]) {
				out = append(out, tree[z][i])
			}
		}
	}
	return out
}
