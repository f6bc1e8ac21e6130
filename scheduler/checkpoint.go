package scheduler

import (
	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/queue"
	"github.com/schedtui/schedtui/scheduler/record"
)

// State is a Scheduler's mutable state at one moment, for checkpoints:
// NodeInfo copies (shared with the previous checkpoint where unchanged),
// the object store, nominations, the rotating node index, the attempt
// counter and the random source.
type State struct {
	infos     []*framework.NodeInfo
	byName    map[string]*framework.NodeInfo
	objects   *framework.ObjectStore
	nominated *queue.Nominations
	nodeList  *record.NodeList
	nextStart int
	seq       int
	groupSeq  int
	pcg       []byte
}

// CaptureState copies the scheduler's state. NodeInfos that did not change
// since prev (same generation) share prev's copy, so a checkpoint costs
// O(nodes) pointers plus the nodes that changed.
func (s *Scheduler) CaptureState(prev *State) (*State, error) {
	st := &State{
		objects: s.objects.Clone(), nominated: s.nominator.Export(), nodeList: s.nodeList,
		nextStart: s.nextStartNodeIndex, seq: s.seq, groupSeq: s.groupSeq,
	}
	list := s.snapshot.List()
	st.infos = make([]*framework.NodeInfo, len(list))
	st.byName = make(map[string]*framework.NodeInfo, len(list))
	for i, ni := range list {
		var c *framework.NodeInfo
		if prev != nil {
			if p := prev.byName[ni.Name()]; p != nil && p.Generation == ni.Generation && p.Node() == ni.Node() {
				c = p
			}
		}
		if c == nil {
			c = ni.Clone()
		}
		st.infos[i] = c
		st.byName[ni.Name()] = c
	}
	if s.hooks.pcg != nil {
		b, err := s.hooks.pcg.MarshalBinary()
		if err != nil {
			return nil, err
		}
		st.pcg = b
	}
	return st, nil
}

// RestoreState puts a captured state into s, normally a Scheduler freshly
// built by New with the same options (so that no plugin keeps memory of
// the future). The checkpoint itself is left intact.
func (s *Scheduler) RestoreState(st *State) error {
	infos := make([]*framework.NodeInfo, len(st.infos))
	for i, ni := range st.infos {
		infos[i] = ni.Clone()
	}
	s.snapshot = framework.SnapshotFromNodeInfos(infos)
	s.objects.CopyFrom(st.objects)
	s.nominator.Import(st.nominated)
	s.nodeList = st.nodeList
	s.nextStartNodeIndex = st.nextStart
	s.seq = st.seq
	s.groupSeq = st.groupSeq
	s.rebuildAssumed()
	return s.usePCGState(st.pcg)
}
