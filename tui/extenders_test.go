package tui

import (
	"testing"

	tea "charm.land/bubbletea/v2"
	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/schedtui/schedtui/internal/extendertest"
	"github.com/schedtui/schedtui/scheduler"
	"github.com/schedtui/schedtui/scheduler/plugins"
)

// extenderHarness is the demo with one test extender (filter and
// prioritize, weight 1) whose rules are the labels given to its nodes.
func extenderHarness(t *testing.T, labels map[string]map[string]string) (*harness, *extendertest.Server) {
	t.Helper()
	c, gates := loadDemo(t)
	for _, n := range c.Nodes {
		for k, v := range labels[n.Name] {
			n.Labels[k] = v
		}
	}
	srv := extendertest.Start(c.Nodes)
	t.Cleanup(srv.Close)
	cfg := &configv1.KubeSchedulerConfiguration{Extenders: []configv1.Extender{{URLPrefix: srv.URL(), FilterVerb: "filter",
		PrioritizeVerb: "prioritize", Weight: 1, NodeCacheCapable: true}}}
	b, err := NewBackend("demo", c, scheduler.Options{Registry: plugins.NewInTreeRegistry(), Seed: 1, Features: gates, Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	hs := &harness{t: t, m: New(Options{Backend: b, NoColor: true})}
	hs.send(tea.WindowSizeMsg{Width: 200, Height: 50})
	hs.run(hs.m.Init())
	return hs, srv
}

// An extender that rejects a node is a column of the Filter map, named by
// its URL prefix, and the teaching pane shows its raw answer.
func TestExtenderFilterColumn(t *testing.T) {
	hs, srv := extenderHarness(t, map[string]map[string]string{"node-b1": {"extender.test/filter": "fail"}})
	// critical-api fits nowhere (no extender call); frontend-1 passes the
	// plugins on node-a1 and node-b1, and the extender rejects node-b1.
	hs.keys("n", "n", "3")
	hs.contains(srv.URL(), "rejected by the test")
	for range 5 {
		hs.keys("l")
	}
	hs.keys("j", "e")
	hs.contains("Rejected: rejected by the test extender", "Raw answer:", `"FailedNodes":{"node-b1"`)
	hs.keys("7")
	hs.contains("extenders: filter")
}

// An extender that scores is a column of the score matrix, and its calls
// show in the Events view.
func TestExtenderScoreColumn(t *testing.T) {
	hs, srv := extenderHarness(t, map[string]map[string]string{"node-b1": {"extender.test/score": "7"}})
	hs.keys("n", "n", "4")
	hs.contains(srv.URL())
	hs.keys("7")
	hs.contains("extenders: filter", ", prioritize")
}

// The attempts a rewind makes again get the answers they got, without
// calling out, and the Events view says so.
func TestExtenderCallReplayed(t *testing.T) {
	hs, srv := extenderHarness(t, map[string]map[string]string{"node-b1": {"extender.test/filter": "fail"}})
	hs.keys("n", "n", "n")
	calls := len(srv.Calls())
	hs.keys("u", "7")
	hs.contains("filter", "replayed")
	if got := len(srv.Calls()); got != calls {
		t.Errorf("the rewind called the extender %d times", got-calls)
	}
}
