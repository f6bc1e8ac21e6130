package extender

import (
	"strings"
	"testing"

	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/schedtui/schedtui/internal/extendertest"
)

// What a recording keeps (OnExchange) answers the same requests again in
// a store preloaded with it, in the order they came, without calling the
// extender; a request it has no answer for fails naming it.
func TestRecordedAnswers(t *testing.T) {
	nodes, infos := testNodes("a", "b")
	srv := extendertest.Start(nodes)
	defer srv.Close()
	cfg := configv1.Extender{URLPrefix: srv.URL(), FilterVerb: "filter", NodeCacheCapable: true}
	live := NewAnswers()
	var kept []Exchange
	live.OnExchange(func(x Exchange) { kept = append(kept, x) })
	e, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	e.UseAnswers(live, func() bool { return false })
	if _, _, _, err := e.Filter(testPod(), infos); err != nil {
		t.Fatal(err)
	}
	// The node's label changes: the second answer differs.
	nodes[1].Labels["extender.test/filter"] = "fail"
	srv.SetNodes(nodes)
	if _, _, _, err := e.Filter(testPod(), infos); err != nil {
		t.Fatal(err)
	}
	if len(kept) != 2 || kept[0].Verb != VerbFilter || kept[0].Pod != "default/p" || strings.Join(kept[1].Nodes, ",") != "a,b" ||
		kept[1].Status != 200 || !strings.Contains(string(kept[1].Body), "rejected by the test extender") {
		t.Fatalf("kept %+v", kept)
	}
	calls := len(srv.Calls())

	replayed := NewAnswers()
	replayed.Preload(kept)
	r, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	r.UseAnswers(replayed, func() bool { return false })
	var failed []int
	for range 3 {
		_, f, _, err := r.Filter(testPod(), infos)
		if err != nil {
			t.Fatal(err)
		}
		failed = append(failed, len(f))
	}
	// In order, the last answer repeated once all were taken.
	if failed[0] != 0 || failed[1] != 1 || failed[2] != 1 {
		t.Errorf("nodes failed per replayed call: %v", failed)
	}
	for _, c := range r.TakeCalls() {
		if !c.Replayed {
			t.Errorf("a call not marked replayed: %+v", c)
		}
	}
	_, _, _, err = r.Filter(testPod(), infos[:1])
	want := "no recorded answer for filter of pod default/p by extender " + srv.URL()
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("unrecorded request: %v, want %q", err, want)
	}
	if c := r.TakeCalls(); len(c) != 1 || c[0].Replayed || c[0].Error == "" {
		t.Errorf("the unrecorded call: %+v", c)
	}
	if got := len(srv.Calls()); got != calls {
		t.Errorf("the replay called the extender %d times", got-calls)
	}
}
