package tui

import (
	"strings"
	"testing"
)

// groupHarness stops after the demo's gang's first group cycle through a
// breakpoint on the group (group=NAME), which also checks that one: the
// engine steps a cycle whole, so it stops at the cycle's last member.
func groupHarness(t *testing.T, w, h int) *harness {
	t.Helper()
	hs := newHarness(t, w, h)
	hs.keys("b")
	hs.typeText("group=llm-train-workers")
	hs.keys("<enter>", "<esc>", "c")
	hs.contains("default/llm-train-7 Unschedulable", "breakpoint hit: group=*/llm-train-workers")
	return hs
}

// TestGroupPodView: a member's Pod view starts with its group's cycle:
// the verdict (6 of 8 placeable, minCount 8), the condition, where the
// members went and why the others found none, the hints proven by
// re-running the group cycle, the members × nodes matrix, then the
// member's own part.
func TestGroupPodView(t *testing.T) {
	hs := groupHarness(t, 120, 45)
	hs.keys("2")
	hs.contains(
		"Pod group default/llm-train-workers (gang, minCount 8), group cycle 1: Stuck: 6 of 8 members placeable; minCount 8.",
		"PodGroupInitiallyScheduled: False (Unschedulable): minCount (8) cannot be satisfied: 6 scheduled, 1 remaining",
		"• 6 members found a node in memory, released with the group: gpu-b1 × 4, gpu-b2 × 2",
		"• no node for llm-train-6: 4 × Insufficient nvidia.com/gpu (NodeResourcesFit)",
		"Hint: minCount 6 (PodGroup default/llm-train-workers",
		"Hint: 2 more nvidia.com/gpu on gpu-b2 (zone demo-1b) → the group schedules, members on gpu-b1, gpu-b2",
		"member       node-a1 node-b1 node-a2 node-b2 gpu-b1 gpu-b2",
		"llm-train-0  NodeAff Fit     Taint   Fit     ✓      ○",
		"llm-train-7  ·       ·       ·       ·       ·      ·      (not tried)",
		"llm-train-7 was not tried: the cycle stops once minCount cannot be met.",
	)
	hs.golden(120, 45)
	// The member's Filter map leads with its group's first hint.
	hs.keys("3")
	hs.contains("Hint: minCount 6 (PodGroup default/llm-train-workers: the gang runs with the 6 of its 8 members that fit) → the group")
}

// TestGroupQueuesView: the Queues view lists the gang as one entry with
// its policy, members queued and placed and its state; e explains it, B
// toggles a breakpoint on the group, enter opens its first member's
// attempt.
func TestGroupQueuesView(t *testing.T) {
	hs := groupHarness(t, 120, 40)
	hs.keys("1", "G", "e")
	hs.contains("pod groups (1) — one queue entry per group",
		"default/llm-train-workers              prio 50     gang, minCount 8 · 8 queued · 0 placed ·",
		"Explain: Pod group",
		"is a gang: its members are scheduled all or nothing",
		"Members queued (8): llm-train-0, llm-train-1")
	hs.golden(120, 40)
	hs.keys("e", "B", "b")
	if s := hs.screen(); !strings.Contains(s, "group=*/llm-train-workers") || !strings.Contains(s, "group=default/llm-train-workers") {
		t.Errorf("B on the group adds a breakpoint on it:\n%s", s)
	}
	hs.keys("<esc>", "1", "G", "enter")
	hs.contains("default/llm-train-0 Unschedulable", "llm-train-0 fit: the cycle placed it on gpu-b1 in memory; it waits with its group")
}

// TestGroupMemberSteps: the engine runs a group cycle as one step; n that
// makes one lands on its first member, n then shows the next member's
// recorded attempt of the same cycle (the header says which), { goes
// back, and n from the last member runs the engine again (here the
// gang's next cycle).
func TestGroupMemberSteps(t *testing.T) {
	hs := newHarness(t, 120, 45)
	for range 12 {
		hs.keys("n")
	}
	hs.contains("attempt 12/12")
	hs.keys("n", "2")
	hs.contains("attempt 13/20 (cursor at 20)  member 1/8 of group cycle 1  default/llm-train-0",
		"group cycle 1 of default/llm-train-workers ran as one step (8 members, Unschedulable): n steps through its members")
	hs.keys("n", "n")
	hs.contains("attempt 15/20 (cursor at 20)  member 3/8 of group cycle 1  default/llm-train-2",
		"Pod group default/llm-train-workers (gang, minCount 8), group cycle 1",
		"llm-train-2 fit: the cycle placed it on gpu-b1 in memory")
	hs.golden(120, 45)
	hs.keys("{")
	hs.contains("attempt 14/20 (cursor at 20)  member 2/8 of group cycle 1  default/llm-train-1")
	hs.keys("{", "{")
	hs.contains("member 1/8 is the first of group cycle 1")
	for range 7 {
		hs.keys("}")
	}
	hs.contains("attempt 20/20  member 8/8 of group cycle 1  default/llm-train-7",
		"Unschedulable · last member: n runs the next attempt")
	hs.keys("}")
	hs.contains("member 8/8 is the last of group cycle 1: n runs the next attempt")
	// The gang is retried: the engine runs its second cycle, and n lands
	// on that cycle's first member.
	hs.keys("n")
	hs.contains("attempt 21/28 (cursor at 28)  member 1/8 of group cycle 2  default/llm-train-0")
}
