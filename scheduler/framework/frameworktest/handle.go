// Package frameworktest provides a framework.Handle over fixed objects for
// plugin unit tests.
package frameworktest

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/schedtui/schedtui/scheduler/features"
	"github.com/schedtui/schedtui/scheduler/framework"
)

// Handle is a framework.Handle over a fixed snapshot and object store.
// Filters, when set, are what RunFilterPluginsWithNominatedPods runs (in
// order, first failure wins, no nominated pods); PreFilterExtensions are
// what the AddPod/RemovePod runners call.
type Handle struct {
	Snap                *framework.Snapshot
	Store               *framework.ObjectStore
	Nominated           map[string][]*framework.PodInfo
	Filters             []framework.FilterPlugin
	PreFilterExtensions []framework.PreFilterExtensions
	Random              *rand.Rand
	Clock               time.Time
	// Gates are the feature gates the plugins see (NewHandle: 1.37's defaults).
	Gates features.Features
	// Ext are the extenders preemption calls (none unless a test sets them).
	Ext []framework.Extender
	// GroupStates are the pod groups' states by namespace/name (empty
	// when absent).
	GroupStates map[string]*framework.PodGroupState
}

var _ framework.Handle = &Handle{}

// NewHandle builds a snapshot of nodes (in the given order) with the pods
// bound to them, and stores objs (PVCs, Services, ...) and every pod in
// the object store.
func NewHandle(nodes []*v1.Node, pods []*v1.Pod, objs ...any) *Handle {
	store := framework.NewObjectStore()
	for _, p := range pods {
		store.Add(p)
	}
	for _, o := range objs {
		store.Add(o)
	}
	return &Handle{
		Snap:      framework.NewSnapshot(nodes, pods),
		Store:     store,
		Nominated: map[string][]*framework.PodInfo{},
		Random:    rand.New(rand.NewPCG(1, 2)),
		Clock:     time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
		Gates:     features.Default(),
	}
}

func (h *Handle) Snapshot() *framework.Snapshot   { return h.Snap }
func (h *Handle) Objects() framework.ObjectLister { return h.Store }
func (h *Handle) Rand() *rand.Rand                { return h.Random }
func (h *Handle) Now() time.Time                  { return h.Clock }
func (h *Handle) Features() features.Features     { return h.Gates }
func (h *Handle) Extenders() []framework.Extender { return h.Ext }
func (h *Handle) PodGroupState(namespace, name string) *framework.PodGroupState {
	if s, ok := h.GroupStates[framework.PodGroupKey(namespace, name)]; ok {
		return s
	}
	return &framework.PodGroupState{}
}
func (h *Handle) NominatedPodsForNode(node string) []*framework.PodInfo {
	return h.Nominated[node]
}

func (h *Handle) RunFilterPluginsWithNominatedPods(ctx context.Context, state *framework.CycleState, pod *v1.Pod, ni *framework.NodeInfo) *framework.Status {
	for _, f := range h.Filters {
		if s := f.Filter(ctx, state, pod, ni); !s.IsSuccess() {
			return s.WithPlugin(f.Name())
		}
	}
	return nil
}

func (h *Handle) RunPreFilterExtensionAddPod(ctx context.Context, state *framework.CycleState, pod *v1.Pod, add *framework.PodInfo, ni *framework.NodeInfo) *framework.Status {
	for _, e := range h.PreFilterExtensions {
		if s := e.AddPod(ctx, state, pod, add, ni); !s.IsSuccess() {
			return s
		}
	}
	return nil
}

func (h *Handle) RunPreFilterExtensionRemovePod(ctx context.Context, state *framework.CycleState, pod *v1.Pod, rm *framework.PodInfo, ni *framework.NodeInfo) *framework.Status {
	for _, e := range h.PreFilterExtensions {
		if s := e.RemovePod(ctx, state, pod, rm, ni); !s.IsSuccess() {
			return s
		}
	}
	return nil
}

// HintCase is one call of a queueing hint function: the pod waiting, the
// event's old and new objects, and the hint wanted.
type HintCase struct {
	Name           string
	Pod            *v1.Pod
	OldObj, NewObj any
	Want           framework.QueueingHint
	WantErr        bool
}

// RunHints runs each case as a subtest; a case without a pod gets
// defaultPod.
func RunHints(t *testing.T, fn framework.QueueingHintFn, defaultPod *v1.Pod, cases []HintCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			pod := tc.Pod
			if pod == nil {
				pod = defaultPod
			}
			got, err := fn(pod, tc.OldObj, tc.NewObj)
			if (err != nil) != tc.WantErr {
				t.Fatalf("err = %v, wantErr %v", err, tc.WantErr)
			}
			if got != tc.Want {
				t.Errorf("hint = %v, want %v", got, tc.Want)
			}
		})
	}
}
