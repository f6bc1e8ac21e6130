package tui

import (
	"slices"
	"testing"
)

// TestWrapBreaksAtSeparators: a word wider than the line (a toleration's
// key in a narrow split) breaks after a separator, not mid-word.
func TestWrapBreaksAtSeparators(t *testing.T) {
	for _, tc := range []struct {
		s    string
		w    int
		want []string
	}{
		{"node.kubernetes.io/pid-pressure Exists:NoSchedule,", 22, []string{"node.kubernetes.io/", "pid-pressure", "Exists:NoSchedule,"}},
		{"example.com/gpu=present:NoSchedule", 20, []string{"example.com/", "gpu=present:", "NoSchedule"}},
		{"abcdefghijklmnopqrstuvwxyz", 10, []string{"abcdefghij", "klmnopqrst", "uvwxyz"}},
		{"a short line", 40, []string{"a short line"}},
	} {
		if got := wrap(tc.s, tc.w); !slices.Equal(got, tc.want) {
			t.Errorf("wrap(%q, %d) = %q, want %q", tc.s, tc.w, got, tc.want)
		}
	}
}
