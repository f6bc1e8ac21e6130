package tui

import (
	"strings"
	"testing"
)

// TestHelpPerView: ? lists exactly the active view's keys and the global
// ones, all of them on screen at 80×24; a key a view does not list does
// nothing there (/ on the Pod view).
func TestHelpPerView(t *testing.T) {
	global := []string{"n", "s", "c", "{/}", "b", "u", "w", "C", "e", "?", "q", "tab", "shift+tab", "1-8", "esc"}
	vertical := []string{"↑/k", "↓/j", "g", "G", "pgup", "pgdn"}
	grid := append([]string{"←/h", "→/l"}, vertical...)
	own := map[viewID][]string{
		viewQueues:  append([]string{"enter", "B", "/"}, vertical...),
		viewAttempt: append([]string{"W"}, vertical...),
		viewFilter:  append([]string{"f", "o", "a", "enter", "/"}, grid...),
		viewScores:  append([]string{"m", "o", "enter", "/"}, grid...),
		viewPreempt: append([]string{"enter"}, vertical...),
		viewNodes:   append([]string{"/", "W"}, vertical...),
		viewEvents:  append([]string{"enter", "/"}, vertical...),
		viewWhatIf:  append([]string{"a", "W"}, vertical...),
	}
	hs := newHarness(t, 80, 24)
	hs.keys("n")
	for v := viewID(0); v < numViews; v++ {
		hs.send(goToMsg{view: v})
		hs.keys("?")
		d, ok := hs.m.top().(*helpDialog)
		if !ok {
			t.Fatalf("%s: ? opened %T", viewTitles[v], hs.m.top())
		}
		want := map[string]bool{}
		for _, k := range append(append([]string{}, global...), own[v]...) {
			want[k] = true
		}
		got := map[string]bool{}
		screen := hs.screen()
		for _, g := range d.FullHelp() {
			for _, b := range g {
				h := b.Help()
				got[h.Key] = true
				if !strings.Contains(screen, h.Desc) {
					t.Errorf("%s: the help lists %s %q off screen:\n%s", viewTitles[v], h.Key, h.Desc, screen)
				}
			}
		}
		for k := range want {
			if !got[k] {
				t.Errorf("%s: the help lacks %s", viewTitles[v], k)
			}
		}
		for k := range got {
			if !want[k] {
				t.Errorf("%s: the help lists %s, which does nothing there", viewTitles[v], k)
			}
		}
		hs.keys("x") // closes the help
	}
	hs.send(goToMsg{view: viewAttempt})
	hs.keys("/")
	if d := hs.m.top(); d != nil {
		t.Errorf("/ on the Pod view (no search) opened %s", d.Title())
	}
}

// TestGlobalWhatIfAndCompare: w opens the what-if form from any view once
// an attempt is in view, and says why not before; C without a way to
// build a second side says so instead of doing nothing.
func TestGlobalWhatIfAndCompare(t *testing.T) {
	hs := newHarness(t, 80, 24)
	hs.keys("w")
	if hs.m.top() != nil {
		t.Fatalf("w before any attempt opened %T", hs.m.top())
	}
	hs.contains("what-if edits the attempt in view: press n for one first")
	hs.keys("C")
	hs.contains("compare mode is not offered here")
	hs.keys("n", "1", "w")
	if hs.m.top() != hs.m.whatIf {
		t.Fatalf("w in the Queues view opened %T, want the what-if form", hs.m.top())
	}
}
