package e2e

import "testing"

// TestObservedRow: the Events view's observation rows, as the TUI draws
// them (tui/view_events.go eventText), certain or not, are what
// liveObservations counts.
func TestObservedRow(t *testing.T) {
	for row, want := range map[string]string{
		"  9 04:19:50 observed   default/pending-001: the cluster's scheduler finds no node; schedtui: no node (agree)":              "agree",
		" 13 04:20:40 observed   default/pending-002: the cluster bound it to node-019; schedtui: node-019 (agree, uncertain)":       "agree",
		"160 04:20:41 observed   team-b/pending-011: the cluster's scheduler finds no node; schedtui: no node (disagree, uncertain)": "disagree",
		" 56 04:19:50 observed   default/pending-007: the cluster bound it to node-016; schedtui: node-015 (tie)   ":                 "tie",
	} {
		m := observedRow.FindStringSubmatch(row)
		if m == nil || m[2] != want {
			t.Errorf("%q: got %q, want the verdict %q", row, m, want)
		}
	}
}
