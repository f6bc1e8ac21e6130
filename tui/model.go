package tui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// MinWidth and MinHeight are the smallest terminal the layout supports.
const (
	MinWidth  = 80
	MinHeight = 24
)

// Options configure the TUI.
type Options struct {
	Backend *Backend
	// Source is the live source, nil for a snapshot.
	Source Source
	// NoColor drops every colour (NO_COLOR).
	NoColor bool
	// Notice is shown in the status line at start (loader warnings).
	Notice string
	// Compare starts in compare mode with this second side
	// (--compare-with); NewComparison builds one for the C dialog (nil:
	// C is not offered).
	Compare       *Comparison
	NewComparison NewComparison
	// Shown, if not nil, is called once, when the first frame with the
	// engine's state has been drawn (schedtui then lets the garbage
	// collector run as usual again: see internal/gcpace).
	Shown func()
	// Lesson, if not nil, is schedtui learn's lesson, shown above the
	// view (lesson.go).
	Lesson *LessonRun
}

// Model is the root. It routes messages (to the session, the chrome, the
// top dialog or the active view) and lays the frame out; everything else
// is in its components.
type Model struct {
	c *Common
	s *session

	header *header
	status *statusBar
	views  [numViews]view
	// dirty views refresh when they become active.
	dirty   [numViews]bool
	history []viewID

	dialogs []dialog // the stack; the last one has the keys
	search  *searchDialog
	bps     *breakpointsDialog
	whatIf  *whatIfDialog

	w, h    int
	noColor bool
	// teach shows the teaching pane beside or under the body.
	teach bool
	// shown is Options.Shown until it is called.
	shown func()
	// lesson is schedtui learn's banner, nil outside a lesson.
	lesson *lessonBanner
}

// New builds the root model.
func New(o Options) *Model {
	c := &Common{
		St: NewStyles(true, o.NoColor), Keys: DefaultKeyMap(), Focus: -1, Active: viewAttempt,
		Forks: map[int]*forkResult{}, Diags: map[int]*diagResult{}, Hints: map[int]*hintsResult{},
		Loc: time.UTC,
	}
	if o.Backend != nil && o.Backend.Clock != nil {
		c.Loc = time.Local
	}
	m := &Model{
		c: c, s: newSession(o.Backend, o.Source, c), noColor: o.NoColor,
		header: newHeader(c, o.Backend, o.Source), status: newStatusBar(c, o.Notice),
		search: newSearchDialog(c), bps: newBreakpointsDialog(c), whatIf: newWhatIfDialog(c),
		shown: o.Shown, lesson: newLessonBanner(c, o.Lesson),
	}
	m.s.cmp, m.s.newCmp = o.Compare, o.NewComparison
	m.views = [numViews]view{
		newQueuesView(c), newAttemptView(c), newFilterView(c), newScoresView(c),
		newPreemptView(c), newNodesView(c), newEventsView(c), newWhatIfView(c),
	}
	return m
}

// Init captures the engine's initial state and asks for the background.
func (m *Model) Init() tea.Cmd {
	return tea.Batch(m.s.Init(), tea.RequestBackgroundColor)
}

// Update handles msg, then the messages its handling posted, in order.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	cmds := []tea.Cmd{m.update(msg)}
	for {
		for len(m.c.outbox) > 0 {
			next := m.c.outbox[0]
			m.c.outbox = m.c.outbox[1:]
			cmds = append(cmds, m.update(next))
		}
		// Refreshing the active view may post (a view asking for data it
		// lacks, as the Filter view the full diagnosis of a new attempt).
		m.current()
		if len(m.c.outbox) == 0 {
			m.pin()
			m.checkLesson()
			return m, tea.Batch(cmds...)
		}
	}
}

func (m *Model) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.w, m.h = msg.Width, msg.Height
		m.resize()
	case tea.BackgroundColorMsg:
		m.c.St = NewStyles(msg.IsDark(), m.noColor)
	case tea.KeyPressMsg:
		return m.onKey(msg)
	case tea.MouseClickMsg, tea.MouseWheelMsg:
		return m.onMouse(msg.(tea.MouseMsg))
	case openDialogMsg:
		msg.d.SetSize(m.w, m.h-4)
		m.dialogs = append(m.dialogs, msg.d)
		return msg.d.Open()
	case closeDialogMsg:
		if n := len(m.dialogs); n > 0 {
			m.dialogs = m.dialogs[:n-1]
		}
	case goToMsg:
		m.goTo(msg.view, msg.remember)
	case stateMsg:
		if msg.view == allViews {
			m.dirty = [numViews]bool{true, true, true, true, true, true, true, true}
		} else {
			m.dirty[msg.view] = true
		}
	case routed:
		return m.fresh(msg.to).Update(msg.msg)
	case openNodeMsg:
		// The node is shown whatever the Nodes view's search.
		m.c.post(searchMsg{view: viewNodes})
		cmd := m.fresh(viewNodes).Update(selectNodeMsg{msg.node})
		m.goTo(viewNodes, true)
		return cmd
	case openWhatIfMsg:
		m.c.post(openDialogMsg{m.whatIf})
	case openSearchMsg:
		m.c.post(openDialogMsg{m.search})
	case searchMsg:
		m.search.Update(msg)
		m.status.Update(msg)
		return m.fresh(msg.view).Update(msg)
	case statusMsg, busyMsg, progressMsg:
		return m.status.Update(msg)
	case sourceMsg:
		m.status.Update(msg)
		return m.s.Update(msg)
	case comparisonMsg:
		// The Pod and Scores views split once a second side is there.
		cmd := m.s.Update(msg)
		m.resize()
		return cmd
	default:
		return m.s.Update(msg)
	}
	return nil
}

// fresh is view id, refreshed first if the state changed since it last was.
func (m *Model) fresh(id viewID) view {
	if m.dirty[id] {
		m.dirty[id] = false
		m.views[id].Refresh()
	}
	return m.views[id]
}

// current is the active view, fresh.
func (m *Model) current() view { return m.fresh(m.c.Active) }

func (m *Model) goTo(v viewID, remember bool) {
	if v == m.c.Active {
		return
	}
	if remember {
		m.history = append(m.history, m.c.Active)
		if len(m.history) > 50 {
			m.history = m.history[1:]
		}
	}
	m.c.Active = v
	m.current()
}

// top is the dialog with the keys, or nil.
func (m *Model) top() dialog {
	if n := len(m.dialogs); n > 0 {
		return m.dialogs[n-1]
	}
	return nil
}

// body is the topmost dialog shown in the body, or nil.
func (m *Model) body() dialog {
	for i := len(m.dialogs) - 1; i >= 0; i-- {
		if !m.dialogs[i].Inline() {
			return m.dialogs[i]
		}
	}
	return nil
}

// keys is what has the keys: the top dialog or the active view.
func (m *Model) keys() help.KeyMap {
	if d := m.top(); d != nil {
		return d
	}
	return m.current()
}

func (m *Model) onKey(msg tea.KeyPressMsg) tea.Cmd {
	k := m.c.Keys
	if m.lesson != nil && m.lesson.prompting && msg.String() != "ctrl+c" {
		// The answer prompt takes every key, q too.
		m.lesson.key(msg, m.checkLesson)
		return nil
	}
	switch {
	case (msg.String() == "ctrl+c" || key.Matches(msg, k.Back)) && m.s.cancelLong():
		// A long operation stops after its attempt in progress; a second
		// Ctrl-C quits.
		return nil
	case msg.String() == "ctrl+c",
		// q would quit after the running operation anyway.
		m.top() == nil && !m.s.holding() && key.Matches(msg, k.Quit):
		return tea.Quit
	case m.s.hold(msg):
		// Typed ahead: applied in order once the engine is free.
		return nil
	}
	if d := m.top(); d != nil {
		return d.Update(msg)
	}
	switch {
	case key.Matches(msg, k.Help):
		var subject help.KeyMap = m.current()
		if m.lesson != nil {
			subject = lessonHelp{subject}
		}
		m.c.post(openDialogMsg{newHelpDialog(m.c, subject)})
	case m.lesson != nil && m.lesson.key(msg, m.checkLesson):
	case key.Matches(msg, k.Next):
		return m.s.next()
	case key.Matches(msg, k.Step):
		return m.s.stepPhase()
	case key.Matches(msg, k.Continue):
		return m.s.continueToBreakpoint()
	case key.Matches(msg, k.Member):
		if msg.String() == "{" {
			return m.s.memberKey(-1)
		}
		return m.s.memberKey(1)
	case key.Matches(msg, k.Rewind):
		return m.s.rewind()
	case key.Matches(msg, k.Breakpoints):
		m.c.post(openDialogMsg{m.bps})
	case key.Matches(msg, k.Explain):
		m.teach = !m.teach
		m.resize()
	case key.Matches(msg, k.WhatIf):
		if m.c.focused() == nil {
			m.s.status("what-if edits the attempt in view: press n for one first", false)
			return nil
		}
		m.c.post(openDialogMsg{m.whatIf})
	case key.Matches(msg, k.WhatIfObject):
		if m.c.focused() == nil {
			m.s.status("what-if edits the cluster the attempt in view saw: press n for one first", false)
			return nil
		}
		m.c.post(openDialogMsg{newObjectDialog(m.c, m.s.b, m.objectInView())})
	case key.Matches(msg, k.CompareWith):
		if m.s.newCmp == nil {
			// compareWith says why.
			return m.s.compareWith("")
		}
		m.c.post(openDialogMsg{newCompareDialog(m.c)})
	case key.Matches(msg, k.NextView, k.PrevView, k.Views):
		return m.header.Update(msg)
	case key.Matches(msg, k.Back):
		switch {
		case m.search.query() != "":
			m.c.post(searchMsg{view: m.c.Active})
		case m.teach:
			m.teach = false
			m.resize()
		case len(m.history) > 0:
			m.c.Active = m.history[len(m.history)-1]
			m.history = m.history[:len(m.history)-1]
		}
	default:
		return m.current().Update(msg)
	}
	return nil
}

// objectInView is what the object editor opens on: the node selected in
// the Nodes view, else the pod of the attempt in view.
func (m *Model) objectInView() string {
	if v, ok := m.current().(*nodesView); ok {
		if n := v.selected(); n != nil {
			return "Node/" + n.node.Name
		}
	}
	if p := m.c.pod(); p != nil {
		return "Pod/" + p.Namespace + "/" + p.Name
	}
	return ""
}

// onMouse handles a click or a wheel turn; while an operation runs it is
// held, as keys are, and applied in order after it.
func (m *Model) onMouse(msg tea.MouseMsg) tea.Cmd {
	if m.s.hold(msg) || m.body() != nil {
		return nil
	}
	if _, ok := msg.(tea.MouseWheelMsg); ok {
		return m.current().Update(msg)
	}
	return m.onClick(msg.Mouse())
}

func (m *Model) onClick(mouse tea.Mouse) tea.Cmd {
	if mouse.Button != tea.MouseLeft {
		return nil
	}
	switch {
	case mouse.Y == 1:
		return m.header.Update(tea.MouseClickMsg(mouse))
	case mouse.Y >= 2+m.lessonLines() && mouse.Y < m.h-2:
		bw, _, _, _, _ := m.layout()
		if mouse.X < bw {
			return m.current().Click(mouse.X, mouse.Y-2-m.lessonLines())
		}
	}
	return nil
}

// layout is the rectangle of the active view (bw×bh) and of the teaching
// pane (pw×ph), beside the view or under it.
func (m *Model) layout() (bw, bh, pw, ph int, side bool) {
	bw, bh = m.w, max(1, m.h-4-m.lessonLines())
	if !m.teach {
		return bw, bh, 0, 0, false
	}
	if m.w >= 130 {
		pw = m.w * 2 / 5
		return m.w - pw - 1, bh, pw, bh, true
	}
	ph = min(11, bh/2)
	return bw, bh - ph, bw, ph, false
}

func (m *Model) resize() {
	bw, bh, _, _, _ := m.layout()
	for id, v := range m.views {
		if m.split(viewID(id)) {
			v.SetSize(splitWidth(bw), bh)
			continue
		}
		v.SetSize(bw, bh)
	}
	m.header.SetSize(m.w, 2)
	m.status.SetSize(m.w, 2)
	for _, d := range append([]dialog{m.search, m.bps, m.whatIf}, m.dialogs...) {
		d.SetSize(m.w, m.h-4)
	}
}

// View draws the frame. Every part is computed from state; nothing here
// does I/O or runs the scheduler.
func (m *Model) View() tea.View {
	var v tea.View
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = "schedtui"
	switch {
	case m.w == 0:
		v.SetContent("")
	case m.w < MinWidth || m.h < MinHeight:
		msg := fmt.Sprintf("schedtui needs a terminal of at least %d×%d; this one is %d×%d. Enlarge the window (q quits).", MinWidth, MinHeight, m.w, m.h)
		v.SetContent(block(strings.Join(wrap(msg, m.w), "\n"), m.w, m.h))
	default:
		v.SetContent(m.render())
		if m.shown != nil && m.c.World != nil {
			m.shown()
			m.shown = nil
		}
	}
	return v
}

// render lays the frame out: header (2 lines), body, status line, keys.
func (m *Model) render() string {
	var b strings.Builder
	b.WriteString(m.header.View())
	b.WriteByte('\n')
	if m.lesson != nil {
		b.WriteString(m.lesson.View(m.w))
		b.WriteByte('\n')
	}
	bw, _, pw, ph, side := m.layout()
	if d := m.body(); d != nil {
		b.WriteString(block(d.View(), m.w, m.h-4-m.lessonLines()))
	} else {
		body := m.current().View()
		if m.split(m.c.Active) {
			_, bh, _, _, _ := m.layout()
			lw := splitWidth(bw)
			body = joinSide(body, comparePane(m.c, m.c.Active == viewScores, bw-lw-1, bh), lw, m.c.St.Border.Render("│"))
		}
		if m.teach {
			pane := m.pane(pw, ph)
			if side {
				body = joinSide(body, pane, bw, m.c.St.Border.Render("│"))
			} else {
				body += "\n" + pane
			}
		}
		b.WriteString(body)
	}
	b.WriteByte('\n')
	statusLine := m.status.View()
	for _, d := range m.dialogs {
		if d.Inline() {
			statusLine = d.View()
		}
	}
	b.WriteString(statusLine)
	b.WriteByte('\n')
	b.WriteString(m.status.keysView(m.keys()))
	return b.String()
}

// pane is the teaching pane: the active view's explanation of its
// selection.
func (m *Model) pane(w, h int) string {
	st := m.c.St
	title, body := m.current().Explain()
	lines := []string{st.PaneTitle.Render(fit("Explain: "+title, w))}
	for _, l := range body {
		lines = append(lines, wrap(l, w)...)
	}
	if len(lines) > h {
		lines = append(lines[:h-1], st.Dim.Render("… (widen the terminal for the side pane)"))
	}
	return block(strings.Join(lines, "\n"), w, h)
}

// pin tells the backend which pods the views keep whole (retention.go):
// the focused attempt's pod and the breakpoints' pods.
func (m *Model) pin() {
	if m.s.b == nil {
		return
	}
	pod := ""
	if a := m.c.focused(); a != nil {
		pod = a.Pod
	}
	m.s.b.pins.set(pod, m.c.Bps)
}

// split reports whether view id shows split, the second side on its
// right: in compare mode, the Pod and Scores views.
func (m *Model) split(id viewID) bool {
	return m.s.cmp != nil && (id == viewAttempt || id == viewScores)
}

// splitWidth is the first side's share of a split body w wide.
func splitWidth(w int) int { return (w - 1) / 2 }

// lessonLines is the lesson banner's height, 0 outside a lesson.
func (m *Model) lessonLines() int {
	if m.lesson == nil {
		return 0
	}
	return lessonHeight
}

// checkLesson runs the lesson's check on the state and the active view's
// teaching pane (its selection and explanation).
func (m *Model) checkLesson() bool {
	if m.lesson == nil || m.c.World == nil {
		return false
	}
	title, body := m.current().Explain()
	return m.lesson.check(title, body)
}
