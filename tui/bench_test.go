package tui

import (
	"fmt"
	"testing"

	tea "charm.land/bubbletea/v2"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/schedtui/schedtui/scheduler/engine"
	"github.com/schedtui/schedtui/scheduler/record"
)

// bigModel is a root model over one synthetic attempt at scale: nodes
// feasible nodes scored by plugins Score plugins, and as many Filter
// plugins, every other node rejected. No scheduler runs: the benchmark
// measures the UI alone.
func bigModel(nodes, plugins int) *Model {
	a := syntheticAttempt("default/big", nodes, func(p, i int) int64 { return int64((i*7 + p*13) % 101) }, plugins)
	a.Statuses = []record.Status{{Code: record.CodeUnschedulable, Plugin: "P3", Reasons: []string{"Insufficient cpu"}}}
	var filterPlugins []string
	for p := 0; p < plugins; p++ {
		filterPlugins = append(filterPlugins, fmt.Sprintf("P%d", p))
	}
	return syntheticModel(a, filterPlugins, 160, 50)
}

// syntheticAttempt is a scheduled attempt of pod over nodes nodes, all
// feasible, each plugin p scoring node i score(p, i); node 0 won.
func syntheticAttempt(pod string, nodes int, score func(p, i int) int64, plugins int) *record.Attempt {
	names := make([]string, nodes)
	for i := range names {
		names[i] = fmt.Sprintf("node-%05d", i)
	}
	a := &record.Attempt{
		Seq: 1, Pod: pod, Profile: "default-scheduler", Outcome: record.Scheduled, Chosen: 0,
		Nodes: record.NewNodeList(names), AbsentStatus: -1, Scored: true, Node: names[0],
	}
	for i := range a.Phases {
		a.Phases[i].Code = record.CodeSuccess
	}
	for p := 0; p < plugins; p++ {
		col := record.ScoreColumn{Plugin: fmt.Sprintf("Plugin%d", p), Weight: int32(p%3 + 1)}
		for i := 0; i < nodes; i++ {
			col.AppendScore(score(p, i))
		}
		a.Scores = append(a.Scores, col)
	}
	for i := 0; i < nodes; i++ {
		a.Feasible = append(a.Feasible, int32(i))
	}
	return a
}

// syntheticModel is a root model of w×h showing attempt a alone, over
// its nodes; no scheduler runs.
func syntheticModel(a *record.Attempt, filterPlugins []string, width, height int) *Model {
	w := &world{
		attempts: engine.AttemptsOf(a), cursor: engine.Cursor{Attempt: 0, Phase: record.PhaseBind},
		cluster: cluster{nodeIdx: map[string]int{}, nominated: map[string][]nominee{}}, pods: map[string]*v1.Pod{},
		filterPlugins: map[string][]string{a.Profile: filterPlugins},
	}
	for i, n := range a.Nodes.Names {
		w.nodes = append(w.nodes, nodeView{node: &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: n}}})
		w.nodeIdx[n] = i
	}
	m := New(Options{Backend: &Backend{Name: "synthetic"}})
	m.Update(tea.WindowSizeMsg{Width: width, Height: height})
	m.Update(engineMsg{w: w})
	return m
}

// BenchmarkKeyPress is one key press (j) through Update and View on the
// 5000-node × 10-plugin score matrix; the frame budget is 16ms.
func BenchmarkKeyPress(b *testing.B) {
	for _, v := range []struct {
		name string
		view viewID
	}{{"scores", viewScores}, {"filter", viewFilter}, {"nodes", viewNodes}} {
		b.Run(fmt.Sprintf("%s_5000x10", v.name), func(b *testing.B) {
			m := bigModel(5000, 10)
			// The switch refreshes the view, outside the timing.
			m.goTo(v.view, false)
			down := tea.KeyPressMsg{Code: 'j', Text: "j"}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				m.Update(down)
				_ = m.View()
			}
		})
	}
}
