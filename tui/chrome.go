package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/schedtui/schedtui/scheduler/record"
)

// The chrome around the body: the header (where the debugger stands, and
// the view tabs) on top, the status bar (status line, keys) at the bottom.
// Both are components as soft-serve's tabs and statusbar.

// header is the two top lines: the source, the focused attempt, the
// breakpoints and the queue counts; then the view tabs, which switch
// views by key or click (goToMsg).
type header struct {
	c   *Common
	b   *Backend
	src Source
	w   int

	// tabsCache is the rendered tab bar; it changes with the active view,
	// the theme and the width only.
	tabsCache  string
	tabsFor    viewID
	tabsStyles *Styles
}

func newHeader(c *Common, b *Backend, src Source) *header { return &header{c: c, b: b, src: src} }

func (h *header) Init() tea.Cmd    { return nil }
func (h *header) SetSize(w, _ int) { h.w, h.tabsCache = w, "" }

func (h *header) Update(msg tea.Msg) tea.Cmd {
	k := h.c.Keys
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		switch {
		case key.Matches(msg, k.NextView):
			h.c.post(goToMsg{(h.c.Active + 1) % numViews, false})
		case key.Matches(msg, k.PrevView):
			h.c.post(goToMsg{(h.c.Active + numViews - 1) % numViews, false})
		case key.Matches(msg, k.Views):
			h.c.post(goToMsg{viewID(msg.String()[0] - '1'), true})
		}
	case tea.MouseClickMsg:
		mouse := msg.Mouse()
		_, spans := h.tabs()
		for i, s := range spans {
			if mouse.Y == 1 && mouse.X >= s[0] && mouse.X < s[1] {
				h.c.post(goToMsg{viewID(i), true})
			}
		}
	}
	return nil
}

func (h *header) ShortHelp() []key.Binding {
	k := h.c.Keys
	return []key.Binding{k.NextView, k.PrevView, k.Views}
}

func (h *header) FullHelp() [][]key.Binding { return [][]key.Binding{h.ShortHelp()} }

func (h *header) View() string {
	if h.tabsStyles != h.c.St || h.tabsFor != h.c.Active || h.tabsCache == "" {
		tabs, _ := h.tabs()
		h.tabsCache, h.tabsFor, h.tabsStyles = line(tabs, h.w), h.c.Active, h.c.St
	}
	return h.title() + "\n" + h.tabsCache
}

// tabs renders the view tabs and returns each tab's x range for clicks.
func (h *header) tabs() (string, [numViews][2]int) {
	st := h.c.St
	var b strings.Builder
	var spans [numViews][2]int
	x := 0
	for i := viewID(0); i < numViews; i++ {
		label := fmt.Sprintf(" %d %s ", i+1, viewTitles[i])
		spans[i] = [2]int{x, x + len(label)}
		x += len(label)
		if i == h.c.Active {
			b.WriteString(st.TabActive.Render(label))
		} else {
			b.WriteString(st.Tab.Render(label))
		}
	}
	return b.String(), spans
}

func (h *header) title() string {
	st, c := h.c.St, h.c
	src := h.b.Name
	if h.src != nil {
		src = h.src.Name()
	}
	s := st.HeaderKey.Render("schedtui") + " " + st.Dim.Render(src) + forecastBadge(c)
	counts := ""
	if w := c.World; w != nil {
		if a := c.focused(); a != nil {
			where := forecastPrefix(c) + fmt.Sprintf("attempt %d/%d", c.Focus+1, w.attempts.Len())
			if c.Focus != w.cursor.Attempt {
				where += fmt.Sprintf(" (cursor at %d)", w.cursor.Attempt+1)
			}
			if g, k := memberOf(w, c.Focus); c.MemberStep && g != nil {
				where += fmt.Sprintf("  member %d/%d of group cycle %d", k+1, len(g.Members), g.Seq)
			}
			s += "  " + where + "  " + st.Bold.Render(a.Pod) + " " + outcomeStyled(st, a, c)
			if c.Focus == w.cursor.Attempt && w.cursor.Phase < a.LastPhase() {
				s += st.Warn.Render(" @" + w.cursor.Phase.String())
			}
		} else {
			s += "  no attempt yet"
		}
		if len(c.Bps) > 0 {
			s += st.Warn.Render(fmt.Sprintf("  ● %d bp", len(c.Bps)))
		}
		counts = fmt.Sprintf("  active %d · unsched %d · gated %d", len(w.queue.ActiveQ), len(w.queue.Unschedulable), len(w.queue.Gated))
	}
	// The scheduler simulated comes before the counts, which the Queues
	// view shows anyway; on a narrow screen as "k8s 1.37".
	if label := h.b.Scheduler; label != "" {
		if ansi.StringWidth(s)+2+ansi.StringWidth(label) > h.w {
			label = strings.Replace(label, "kube-scheduler ", "k8s ", 1)
		}
		s += st.Dim.Render("  " + label)
	}
	if counts != "" && ansi.StringWidth(s)+len(counts) <= h.w {
		s += st.Dim.Render(counts)
	}
	return line(s, h.w)
}

func outcomeStyled(st *Styles, a *record.Attempt, c *Common) string {
	t := outcomeText(a, c)
	switch {
	case !c.revealed(a.LastPhase()):
		return st.Warn.Render(t)
	case a.Outcome == record.Scheduled:
		return st.Good.Render(t)
	case a.Outcome == record.Waiting:
		// Assumed, its binding waiting for devices: not a failure (yet).
		return st.Warn.Render(t)
	}
	return st.Bad.Render(t)
}

// statusBar is the two bottom lines: the last operation's note or error
// (or the running one), the search filter and the live source's state;
// then the keys of what has them (the active view or the top dialog).
type statusBar struct {
	c     *Common
	w     int
	text  string
	isErr bool
	// attempt is the attempt the note is about (-1: none): it shows on
	// the views of that attempt only.
	attempt   int
	busy      string
	progress  progressView
	queries   [numViews]string // each view's search
	src       *SourceStatus
	help      help.Model
	helpTheme *Styles
}

func newStatusBar(c *Common, notice string) *statusBar {
	return &statusBar{c: c, text: notice, attempt: -1, help: help.New(), progress: newProgressView()}
}

func (s *statusBar) Init() tea.Cmd             { return nil }
func (s *statusBar) SetSize(w, _ int)          { s.w = w; s.help.SetWidth(w) }
func (s *statusBar) ShortHelp() []key.Binding  { return nil }
func (s *statusBar) FullHelp() [][]key.Binding { return nil }

func (s *statusBar) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case statusMsg:
		s.text, s.isErr, s.attempt = msg.text, msg.err, msg.attempt
	case busyMsg:
		if msg.label == "" {
			s.progress.set(progressMsg{})
		}
		s.busy = msg.label
	case progressMsg:
		s.progress.set(msg)
	case searchMsg:
		s.queries[msg.view] = msg.q
	case sourceMsg:
		if len(msg.batch) > 0 {
			last := msg.batch[len(msg.batch)-1]
			s.src = &last
		}
	}
	return nil
}

// View is the status line.
func (s *statusBar) View() string {
	st := s.c.St
	left, style := "", st.Status
	switch {
	case s.busy != "":
		left = s.busy + "…"
		if p := s.progress.text(s.busy); p != "" {
			left = s.busy + " " + p
		}
	case s.attempt >= 0 && (s.attempt != s.c.Focus || !attemptViews[s.c.Active]):
		// A note about an attempt (breakpoint hit, attempt #n) applies to
		// the views of that attempt only.
	case s.isErr:
		left, style = s.text, st.StatusErr
	default:
		left = s.text
	}
	if q := s.queries[s.c.Active]; q != "" {
		left = "filter: " + q + " (esc clears) · " + left
	}
	right := ""
	if src := s.src; src != nil {
		switch {
		case src.Err != nil && !src.Connected && src.LastEvent != "":
			right = "disconnected: " + src.LastEvent
		case src.Err != nil:
			right = "source: " + src.Err.Error()
		case !src.Connected:
			right = "source: connecting…"
		case src.Total > 0 && src.Synced < src.Total:
			right = fmt.Sprintf("syncing %d/%d", src.Synced, src.Total)
		default:
			right = "live"
			if w := s.c.World; w != nil && w.observed.String() != "" {
				right += " · " + w.observed.String()
			}
			if src.LastEvent != "" {
				right += " · " + src.LastEvent
			}
		}
	} else if w := s.c.World; w != nil {
		var parts []string
		if o := w.observed.String(); o != "" {
			parts = append(parts, o)
		}
		if w.done {
			parts = append(parts, "engine quiescent")
		}
		right = strings.Join(parts, " · ")
	}
	if w := s.c.World; w != nil {
		if kept := keptText(w.retained); kept != "" {
			right = strings.TrimPrefix(right+" · "+kept, " · ")
		}
	}
	right = forecastStatus(s.c, right)
	rw := len([]rune(right))
	return style.Render(fit(left, max(0, s.w-rw-1))) + " " + st.Dim.Render(right)
}

// attemptViews show the focused attempt (the Queues, Nodes and Events
// views show the engine's state, the What-if view an edited pod).
var attemptViews = [numViews]bool{viewAttempt: true, viewFilter: true, viewScores: true, viewPreempt: true}

// keysView is the key line for km.
func (s *statusBar) keysView(km help.KeyMap) string {
	if s.helpTheme != s.c.St {
		s.help.Styles, s.helpTheme = s.c.St.Help, s.c.St
	}
	return line(s.help.ShortHelpView(km.ShortHelp()), s.w)
}
