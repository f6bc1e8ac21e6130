package framework

import v1 "k8s.io/api/core/v1"

// This file holds what the queue engine needs beyond a snapshot built once:
// copies for checkpoints and rebuilding after node changes.

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
// its pods, and gets the new node object; a new node starts empty. Image
// summaries are recomputed for every node, in new maps, so that copies
// sharing the old maps are unaffected.
func RebuildSnapshot(nodes []*v1.Node, existing func(name string) *NodeInfo) *Snapshot {
	images := imageSummaries(nodes)
	ordered := NodeTreeOrder(nodes)
	infos := make([]*NodeInfo, 0, len(ordered))
	for _, node := range ordered {
		ni := existing(node.Name)
		if ni == nil {
			ni = NewNodeInfo()
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
