package interpodaffinity

import (
	"fmt"
	"reflect"
	"runtime"
	"testing"

	v1 "k8s.io/api/core/v1"

	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/framework/frameworktest"
	"github.com/schedtui/schedtui/scheduler/plugins/helper"
)

// TestChunkedWalksAddUp: on a cluster large enough to be split between
// goroutines, PreFilter's counts and PreScore's weights are those of one
// goroutine walking every node, zones spanning the chunks included.
func TestChunkedWalksAddUp(t *testing.T) {
	var nodes []*v1.Node
	var pods []*v1.Pod
	for i := range 3 * helper.MinParallelNodes {
		name := fmt.Sprintf("node-%04d", i)
		nodes = append(nodes, mkNode(name, map[string]string{
			v1.LabelHostname: name, v1.LabelTopologyZone: fmt.Sprintf("zone-%d", i%7)}))
		app := fmt.Sprintf("app-%d", i%5)
		b := mkPod(name+"-pod").ns("team-a").node(name).label("app", app)
		switch i % 4 {
		case 0:
			b.reqAnti(term(v1.LabelTopologyZone, sel(in("app", "web"))))
		case 1:
			b.prefAff(int32(1+i%9), term(v1.LabelTopologyZone, sel(in("app", "web"))))
		case 2:
			b.prefAnti(int32(1+i%3), term(v1.LabelHostname, sel(exists("app"))))
		}
		pods = append(pods, b.obj())
	}
	incoming := mkPod("web").ns("team-a").label("app", "web").
		reqAff(term(v1.LabelTopologyZone, sel(in("app", "app-1", "app-2")))).
		reqAnti(term(v1.LabelTopologyZone, sel(in("app", "app-4")))).
		prefAff(5, term(v1.LabelTopologyZone, sel(in("app", "app-3")))).
		prefAnti(2, term(v1.LabelHostname, sel(in("app", "app-0")))).obj()

	walk := func(procs int) (*preFilterState, *preScoreState) {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		h := frameworktest.NewHandle(nodes, pods, teamNamespaces()...)
		pl := newPlugin(t, &configv1.InterPodAffinityArgs{HardPodAffinityWeight: i32(1)}, h)
		state := framework.NewCycleState()
		if _, st := pl.PreFilter(ctx, state, incoming, h.Snap.List()); !st.IsSuccess() {
			t.Fatalf("PreFilter with %d procs: %v", procs, st)
		}
		if st := pl.PreScore(ctx, state, incoming, h.Snap.List()); !st.IsSuccess() {
			t.Fatalf("PreScore with %d procs: %v", procs, st)
		}
		f, err := getPreFilterState(state)
		if err != nil {
			t.Fatal(err)
		}
		s, err := getPreScoreState(state)
		if err != nil {
			t.Fatal(err)
		}
		return f, s
	}
	oneF, oneS := walk(1)
	if len(oneF.existingAntiAffinityCounts) == 0 || len(oneF.affinityCounts) == 0 || len(oneF.antiAffinityCounts) == 0 || len(oneS.topologyScore) == 0 {
		t.Fatalf("the fixture counts nothing somewhere: %v %v %v %v", oneF.existingAntiAffinityCounts, oneF.affinityCounts, oneF.antiAffinityCounts, oneS.topologyScore)
	}
	for _, procs := range []int{2, 3, 8} {
		f, s := walk(procs)
		for _, c := range []struct {
			what      string
			got, want any
		}{
			{"existing anti-affinity counts", f.existingAntiAffinityCounts, oneF.existingAntiAffinityCounts},
			{"affinity counts", f.affinityCounts, oneF.affinityCounts},
			{"anti-affinity counts", f.antiAffinityCounts, oneF.antiAffinityCounts},
			{"topology scores", s.topologyScore, oneS.topologyScore},
		} {
			if !reflect.DeepEqual(c.got, c.want) {
				t.Errorf("%d procs: %s differ from one goroutine's:\n got %v\nwant %v", procs, c.what, c.got, c.want)
			}
		}
	}
}
