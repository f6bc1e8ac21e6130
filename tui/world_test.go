package tui

import (
	"strings"
	"testing"

	"github.com/schedtui/schedtui/scheduler/record"
)

// TestPreemptedEventNamesThePod: the victim's Preempted event names the
// preemptor by namespace/name, not by UID.
func TestPreemptedEventNamesThePod(t *testing.T) {
	hs := newHarness(t, 160, 40)
	hs.keys("n", "n", "7")
	hs.contains("Preempted default/web-2 on node-b2: Preempted by pod default/critical-api on node node-b2")
	uid := string(hs.m.c.World.pods["default/critical-api"].UID)
	if uid == "" || strings.Contains(hs.screen(), uid) {
		t.Errorf("the preemptor's UID %q shows:\n%s", uid, hs.screen())
	}
}

// TestSteppingHidesLaterPhases: stepped to Filter, no view shows what
// PostFilter (preemption) or the attempt's end produced.
func TestSteppingHidesLaterPhases(t *testing.T) {
	hs := newHarness(t, 160, 40)
	hs.keys("s", "s", "s", "s")
	if c := hs.m.c.World.cursor; c.Phase != record.PhaseFilter {
		t.Fatalf("cursor %+v, want at Filter", c)
	}
	for _, v := range []string{"3", "7"} {
		hs.keys(v)
		s := body(hs.screen())
		for _, leak := range []string{"preemption", "nominated to", "Unschedulable (Schedule", "critical-api: Unschedulable"} {
			if strings.Contains(s, leak) {
				t.Errorf("view %s at the Filter phase shows %q:\n%s", v, leak, s)
			}
		}
	}
	hs.keys("3")
	hs.contains("0/6 nodes are available: 3 Insufficient cpu, 3 node(s) had untolerated taint(s).")
	hs.keys("s") // PostFilter
	hs.contains("preemption: found a potential placement")
	hs.keys("7")
	hs.contains("nominated to node-b2")
}

// TestSteppingHidesTheQueueAfter: stepped to the Filter phase of
// critical-api's attempt (it ends Unschedulable), neither the Queues view
// nor the header's counts show it among the unschedulable pods: they show
// the queue as the attempt popped it, until its last phase is revealed.
func TestSteppingHidesTheQueueAfter(t *testing.T) {
	hs := newHarness(t, 160, 40)
	hs.keys("s", "s", "s", "s", "1")
	if c := hs.m.c.World.cursor; c.Phase != record.PhaseFilter {
		t.Fatalf("cursor %+v, want at Filter", c)
	}
	hs.contains("active 19 · unsched 0 · gated 1", "Unschedulable (0)")
	if s := body(hs.screen()); strings.Contains(s, "critical-api") {
		t.Errorf("at the Filter phase the Queues view lists critical-api (in flight):\n%s", s)
	}
	hs.keys("s", "1") // PostFilter, its last phase
	hs.contains("active 19 · unsched 1 · gated 1", "Unschedulable (1)", "default/critical-api")
}
