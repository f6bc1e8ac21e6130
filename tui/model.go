package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/schedtui/schedtui/scheduler/engine"
	"github.com/schedtui/schedtui/scheduler/record"
)

// viewID names a view; the number keys follow this order.
type viewID int

const (
	viewQueues viewID = iota
	viewAttempt
	viewFilter
	viewScores
	viewPreempt
	viewNodes
	viewEvents
	viewWhatIf
	numViews
)

var viewTitles = [numViews]string{"Queues", "Pod", "Filter", "Scores", "Preempt", "Nodes", "Events", "What-if"}

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
}

// Messages. Components ask the root for things by messages; async
// results come back as messages, routed to the component that asked.
type (
	engineMsg struct {
		w    *world
		note string
		err  error
	}
	forkMsg struct {
		attempt int
		f       *forkResult
	}
	diagMsg struct {
		attempt int
		fork    *forkResult
		d       *diagResult
	}
	routed struct {
		to  viewID
		msg tea.Msg
	}
	whatIfMsg       struct{ res *whatIfResult }
	needDiagMsg     struct{ attempt int }
	openPodMsg      struct{ pod string }
	openNodeMsg     struct{ node string }
	focusAttemptMsg struct {
		attempt int
		view    viewID
	}
	toggleBreakpointMsg struct{ bp engine.Breakpoint }
	openWhatIfMsg       struct{}
	sourceMsg           struct {
		batch  []SourceStatus
		closed bool
	}
	// liveMsg is the engine's state captured after live changes.
	liveMsg struct{ w *world }
)

// Model is the root: layout, global keys, the engine's Cmds, overlays.
type Model struct {
	b   *Backend
	src Source
	c   *Common

	views   [numViews]component
	active  viewID
	history []viewID

	w, h    int
	noColor bool

	busy      string
	status    string
	statusErr bool
	srcStatus *SourceStatus
	// liveCapturing: a capture after live changes is running;
	// liveStale: more changes arrived meanwhile.
	liveCapturing, liveStale bool
	// disagreements counts the observations where the cluster's
	// scheduler decided otherwise than schedtui.
	disagreements int

	teach    bool
	showHelp bool
	help     help.Model

	searching bool
	search    textinput.Model

	bps      []engine.Breakpoint
	bpOpen   bool
	bpInput  textinput.Model
	bpCursor int

	// tabsCache is the rendered tab bar; it changes with the active view
	// and the theme only.
	tabsCache  string
	tabsFor    viewID
	tabsStyles *Styles

	wiOpen   bool
	wiInputs [3]textinput.Model
	wiFocus  int

	// toAttempt: the running engine op was started from the queue list;
	// show the attempt it makes.
	toAttempt bool

	queued []queuedOp

	forkPending map[int]bool
	diagPending map[int]bool
}

type queuedOp struct {
	label string
	op    func() string
}

// New builds the root model.
func New(o Options) *Model {
	m := &Model{
		b: o.Backend, src: o.Source, noColor: o.NoColor, status: o.Notice,
		c: &Common{
			St: NewStyles(true, o.NoColor), Keys: DefaultKeyMap(), Focus: -1,
			Forks: map[int]*forkResult{}, Diags: map[int]*diagResult{},
		},
		help:        help.New(),
		forkPending: map[int]bool{},
		diagPending: map[int]bool{},
		active:      viewAttempt,
	}
	m.views = [numViews]component{
		newQueuesView(m.c), newAttemptView(m.c), newFilterView(m.c), newScoresView(m.c),
		newPreemptView(m.c), newNodesView(m.c), newEventsView(m.c), newWhatIfView(m.c),
	}
	m.search = m.newInput("/", "filter rows…")
	m.bpInput = m.newInput("add: ", "pod=default/web-*  |  unschedulable  |  preemption  |  node=NAME")
	for i, p := range []string{"requests:     ", "tolerations:  ", "nodeSelector: "} {
		m.wiInputs[i] = m.newInput(p, "")
	}
	m.applyStyles()
	return m
}

func (m *Model) newInput(prompt, placeholder string) textinput.Model {
	ti := textinput.New()
	ti.Prompt = prompt
	ti.Placeholder = placeholder
	return ti
}

// applyStyles pushes the theme into the bubbles.
func (m *Model) applyStyles() {
	m.help.Styles = m.c.St.Help
	inputs := []*textinput.Model{&m.search, &m.bpInput, &m.wiInputs[0], &m.wiInputs[1], &m.wiInputs[2]}
	for _, ti := range inputs {
		s := textinput.DefaultStyles(m.c.St.Dark)
		// A blinking cursor means a tick per half second, and a frame per
		// tick; a steady one costs nothing and keeps screens reproducible.
		s.Cursor.Blink = false
		ti.SetStyles(s)
	}
}

// Init captures the engine's initial state and asks for the background.
func (m *Model) Init() tea.Cmd {
	cmds := []tea.Cmd{m.engineCmd("loading", func() string { return "" }), tea.RequestBackgroundColor}
	if m.src != nil {
		cmds = append(cmds, waitSource(m.src.Updates()))
	}
	return tea.Batch(cmds...)
}

// waitSource delivers what a live source sent within one frame as one
// message, then is re-issued: watch events arrive in bursts and a frame
// per event would swamp the renderer.
func waitSource(ch <-chan SourceStatus) tea.Cmd {
	return func() tea.Msg {
		s, ok := <-ch
		if !ok {
			return sourceMsg{closed: true}
		}
		batch := []SourceStatus{s}
		for len(batch) < 1000 {
			select {
			case s, ok := <-ch:
				if !ok {
					return sourceMsg{batch: batch, closed: true}
				}
				batch = append(batch, s)
			default:
				return sourceMsg{batch: batch}
			}
		}
		return sourceMsg{batch: batch}
	}
}

// engineCmd runs op on the engine in a Cmd and captures the state after.
func (m *Model) engineCmd(label string, op func() string) tea.Cmd {
	if m.busy != "" {
		// Keys typed ahead (s s s) run in order once the engine is free;
		// a bound keeps a held key from queueing minutes of work.
		if len(m.queued) < 32 {
			m.queued = append(m.queued, queuedOp{label, op})
		}
		return nil
	}
	m.busy = label
	m.toAttempt = m.active == viewQueues && label != "loading"
	b := m.b
	return func() tea.Msg {
		var msg engineMsg
		b.Locked(func() {
			msg.note = op()
			msg.w = capture(b)
		})
		return msg
	}
}

func (m *Model) setStatus(s string, isErr bool) { m.status, m.statusErr = s, isErr }

// ensureFork computes the focused attempt's fork in the background.
func (m *Model) ensureFork() tea.Cmd {
	i := m.c.Focus
	if i < 0 || m.c.Forks[i] != nil || m.forkPending[i] {
		return nil
	}
	m.forkPending[i] = true
	b := m.b
	return func() tea.Msg {
		f := &forkResult{}
		b.Locked(func() { f.sched, f.pod, f.err = b.Fork(i) })
		return forkMsg{attempt: i, f: f}
	}
}

// diagCmd runs the full diagnosis of attempt i on its fork.
func (m *Model) diagCmd(i int) tea.Cmd {
	if m.diagPending[i] || m.c.Diags[i] != nil {
		return nil
	}
	m.diagPending[i] = true
	b := m.b
	have := m.c.Forks[i]
	return func() tea.Msg {
		msg := diagMsg{attempt: i, fork: have, d: &diagResult{}}
		b.Locked(func() {
			if msg.fork == nil || msg.fork.err != nil {
				f := &forkResult{}
				f.sched, f.pod, f.err = b.Fork(i)
				msg.fork = f
			}
			if msg.fork.err != nil {
				msg.d.err = msg.fork.err
				return
			}
			msg.d.d, msg.d.err = msg.fork.sched.Diagnose(msg.fork.pod)
		})
		return msg
	}
}

func (m *Model) refreshAll() {
	for _, v := range m.views {
		v.Refresh()
	}
}

// bodySize is the rectangle of the active view (and of the teaching pane).
func (m *Model) layout() (bw, bh, pw, ph int, side bool) {
	bw, bh = m.w, max(1, m.h-4)
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
	for _, v := range m.views {
		v.SetSize(bw, bh)
	}
	m.help.SetWidth(m.w)
	m.search.SetWidth(max(10, m.w-10))
	m.bpInput.SetWidth(max(10, m.w-10))
	for i := range m.wiInputs {
		m.wiInputs[i].SetWidth(max(10, m.w-20))
	}
}

func (m *Model) goTo(v viewID, remember bool) {
	if v == m.active {
		return
	}
	if remember {
		m.history = append(m.history, m.active)
		if len(m.history) > 50 {
			m.history = m.history[1:]
		}
	}
	m.active = v
}

// Update is the one type switch of the program.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.w, m.h = msg.Width, msg.Height
		m.tabsCache = ""
		m.resize()
		return m, nil
	case tea.BackgroundColorMsg:
		m.c.St = NewStyles(msg.IsDark(), m.noColor)
		m.applyStyles()
		return m, nil
	case engineMsg:
		return m, m.onEngine(msg)
	case forkMsg:
		delete(m.forkPending, msg.attempt)
		m.c.Forks[msg.attempt] = msg.f
		if msg.f.err != nil && msg.attempt == m.c.Focus {
			m.setStatus("replaying the cluster for this attempt failed: "+msg.f.err.Error(), true)
		}
		m.refreshAll()
		return m, nil
	case diagMsg:
		delete(m.diagPending, msg.attempt)
		m.c.Diags[msg.attempt] = msg.d
		if m.c.Forks[msg.attempt] == nil {
			m.c.Forks[msg.attempt] = msg.fork
		}
		m.views[viewFilter].Refresh()
		return m, nil
	case routed:
		return m, m.views[msg.to].Update(msg.msg)
	case needDiagMsg:
		return m, m.diagCmd(msg.attempt)
	case openNodeMsg:
		m.views[viewNodes].(*nodesView).selectNode(msg.node)
		m.goTo(viewNodes, true)
		return m, nil
	case focusAttemptMsg:
		m.focus(msg.attempt)
		m.goTo(msg.view, true)
		return m, m.ensureFork()
	case openPodMsg:
		return m, m.openPod(msg.pod)
	case toggleBreakpointMsg:
		m.toggleBreakpoint(msg.bp)
		return m, nil
	case openWhatIfMsg:
		return m, m.openWhatIf()
	case sourceMsg:
		var redraw tea.Cmd
		if len(msg.batch) > 0 {
			s := msg.batch[len(msg.batch)-1]
			m.srcStatus = &s
			redraw = m.liveCapture()
		}
		if msg.closed || m.src == nil {
			return m, redraw
		}
		return m, tea.Batch(redraw, waitSource(m.src.Updates()))
	case liveMsg:
		m.liveCapturing = false
		if m.busy == "" && msg.w != nil {
			m.showWorld(msg.w)
			m.refreshAll()
		}
		if m.liveStale {
			m.liveStale = false
			return m, m.liveCapture()
		}
		return m, nil
	case tea.KeyPressMsg:
		return m, m.onKey(msg)
	case tea.MouseClickMsg:
		return m, m.onClick(msg.Mouse())
	case tea.MouseWheelMsg:
		if !m.overlay() {
			return m, m.views[m.active].Update(msg)
		}
	}
	return m, nil
}

func (m *Model) overlay() bool { return m.bpOpen || m.wiOpen || m.showHelp }

func (m *Model) focus(i int) {
	m.c.Focus = i
	m.refreshAll()
}

// liveCapture captures the engine's state after live changes so that
// every view shows them without a key press. One capture runs at a time;
// changes that arrive meanwhile get one more.
func (m *Model) liveCapture() tea.Cmd {
	if m.liveCapturing {
		m.liveStale = true
		return nil
	}
	m.liveCapturing = true
	b := m.b
	return func() tea.Msg {
		var w *world
		b.Locked(func() { w = capture(b) })
		return liveMsg{w: w}
	}
}

// showWorld replaces the state the views read, dropping the caches of
// attempts it no longer has (a rewind); the caller refreshes the views.
func (m *Model) showWorld(w *world) {
	for i := range m.c.Forks {
		if i >= len(w.attempts) {
			delete(m.c.Forks, i)
		}
	}
	for i := range m.c.Diags {
		if i >= len(w.attempts) {
			delete(m.c.Diags, i)
		}
	}
	m.c.World = w
	m.disagreements = 0
	for i := range w.events {
		if ev := &w.events[i]; ev.Kind == engine.EventObserved && ev.Reason == string(engine.Disagree) {
			m.disagreements++
		}
	}
}

func (m *Model) onEngine(msg engineMsg) tea.Cmd {
	m.busy = ""
	if msg.err != nil {
		m.setStatus(msg.err.Error(), true)
		return nil
	}
	if msg.note != "" {
		m.setStatus(msg.note, false)
	}
	w := msg.w
	first := m.c.World == nil
	m.showWorld(w)
	if m.toAttempt && w.cursor.Attempt >= 0 {
		m.goTo(viewAttempt, true)
	}
	m.toAttempt = false
	m.c.Focus = w.cursor.Attempt
	if first && w.cursor.Attempt < 0 {
		m.active = viewQueues
	}
	m.refreshAll()
	cmd := m.ensureFork()
	if len(m.queued) > 0 {
		q := m.queued[0]
		m.queued = m.queued[1:]
		cmd = tea.Batch(cmd, m.engineCmd(q.label, q.op))
	}
	return cmd
}

func (m *Model) openPod(pod string) tea.Cmd {
	w := m.c.World
	if w == nil {
		return nil
	}
	for i := len(w.attempts) - 1; i >= 0; i-- {
		if w.attempts[i].Pod == pod {
			m.focus(i)
			m.goTo(viewAttempt, true)
			return m.ensureFork()
		}
	}
	if indexIn(w.queue.ActiveQ, pod) < 0 {
		m.setStatus(pod+" was never attempted (gated pods wait for their gates)", true)
		return nil
	}
	bp := []engine.Breakpoint{{PodPattern: pod}}
	m.goTo(viewAttempt, true)
	return m.engineCmd("running to "+pod, func() string {
		if m.b.Continue(bp) < 0 {
			return "the engine went quiet before " + pod + " was attempted"
		}
		return "stopped at " + pod
	})
}

func (m *Model) toggleBreakpoint(bp engine.Breakpoint) {
	for i, b := range m.bps {
		if b == bp {
			m.bps = append(m.bps[:i], m.bps[i+1:]...)
			m.setStatus("breakpoint removed: "+bpString(bp), false)
			return
		}
	}
	m.bps = append(m.bps, bp)
	m.setStatus("breakpoint added: "+bpString(bp), false)
}

func bpString(bp engine.Breakpoint) string {
	var s []string
	if bp.PodPattern != "" {
		s = append(s, "pod="+bp.PodPattern)
	}
	if bp.Unschedulable {
		s = append(s, "unschedulable")
	}
	if bp.Preemption {
		s = append(s, "preemption")
	}
	if bp.Node != "" {
		s = append(s, "node="+bp.Node)
	}
	return strings.Join(s, " ")
}

// parseBreakpoint reads the breakpoint editor's syntax.
func parseBreakpoint(s string) (engine.Breakpoint, error) {
	s = strings.TrimSpace(s)
	k, v, _ := strings.Cut(s, "=")
	switch strings.ToLower(k) {
	case "pod":
		if v == "" {
			return engine.Breakpoint{}, fmt.Errorf("pod= needs a pattern")
		}
		if !strings.Contains(v, "/") {
			v = "*/" + v
		}
		return engine.Breakpoint{PodPattern: v}, nil
	case "node":
		if v == "" {
			return engine.Breakpoint{}, fmt.Errorf("node= needs a node name")
		}
		return engine.Breakpoint{Node: v}, nil
	case "unschedulable", "u":
		return engine.Breakpoint{Unschedulable: true}, nil
	case "preemption", "p":
		return engine.Breakpoint{Preemption: true}, nil
	}
	return engine.Breakpoint{}, fmt.Errorf("%q: use pod=GLOB, node=NAME, unschedulable or preemption", s)
}

func (m *Model) openWhatIf() tea.Cmd {
	a := m.c.focused()
	p := m.c.pod()
	if a == nil || p == nil {
		m.setStatus("no attempt to re-run", true)
		return nil
	}
	e := editOf(p)
	m.wiInputs[0].SetValue(e.Requests)
	m.wiInputs[1].SetValue(e.Tolerations)
	m.wiInputs[2].SetValue(e.NodeSelector)
	m.wiOpen, m.wiFocus = true, 0
	for i := range m.wiInputs {
		m.wiInputs[i].Blur()
	}
	return m.wiInputs[0].Focus()
}

func (m *Model) onKey(msg tea.KeyPressMsg) tea.Cmd {
	k := m.c.Keys
	if msg.String() == "ctrl+c" {
		return tea.Quit
	}
	switch {
	case m.bpOpen:
		return m.bpKey(msg)
	case m.wiOpen:
		return m.wiKey(msg)
	case m.searching:
		return m.searchKey(msg)
	case m.showHelp:
		if key.Matches(msg, k.Quit) && msg.String() == "q" {
			m.showHelp = false
			return nil
		}
		m.showHelp = false
		return nil
	}
	switch {
	case key.Matches(msg, k.Quit):
		return tea.Quit
	case key.Matches(msg, k.Help):
		m.showHelp = true
	case key.Matches(msg, k.Next):
		return m.engineCmd("stepping", func() string {
			if a, ok := m.b.Step(); ok {
				return fmt.Sprintf("attempt #%d: %s %s", a.Seq, a.Pod, a.Outcome)
			}
			return "nothing left to schedule"
		})
	case key.Matches(msg, k.Step):
		return m.engineCmd("stepping", func() string {
			c := m.b.StepPhase()
			if c.Attempt < 0 {
				return "nothing left to schedule"
			}
			return "phase " + c.Phase.String()
		})
	case key.Matches(msg, k.Continue):
		bps := append([]engine.Breakpoint(nil), m.bps...)
		return m.engineCmd("continuing", func() string {
			i := m.b.Continue(bps)
			if i < 0 {
				if len(bps) == 0 {
					return "no breakpoints set (b): ran until nothing was left to schedule"
				}
				return "no breakpoint hit: nothing left to schedule"
			}
			return "breakpoint hit: " + bpString(bps[i])
		})
	case key.Matches(msg, k.Rewind):
		return m.engineCmd("rewinding", func() string {
			if err := m.b.Rewind(1); err != nil {
				return "rewind: " + err.Error()
			}
			return "rewound one attempt"
		})
	case key.Matches(msg, k.Breakpoints):
		m.bpOpen = true
		return m.bpInput.Focus()
	case key.Matches(msg, k.Search):
		m.searching = true
		return m.search.Focus()
	case key.Matches(msg, k.Explain):
		m.teach = !m.teach
		m.resize()
	case key.Matches(msg, k.NextView):
		m.goTo((m.active+1)%numViews, false)
	case key.Matches(msg, k.PrevView):
		m.goTo((m.active+numViews-1)%numViews, false)
	case key.Matches(msg, k.Views):
		m.goTo(viewID(msg.String()[0]-'1'), true)
	case key.Matches(msg, k.Back):
		switch {
		case m.search.Value() != "":
			m.search.SetValue("")
			m.views[m.active].SetFilter("")
		case m.teach:
			m.teach = false
			m.resize()
		case len(m.history) > 0:
			m.active = m.history[len(m.history)-1]
			m.history = m.history[:len(m.history)-1]
		}
	default:
		return m.views[m.active].Update(msg)
	}
	return nil
}

func (m *Model) searchKey(msg tea.KeyPressMsg) tea.Cmd {
	switch msg.String() {
	case "enter":
		m.searching = false
		m.search.Blur()
		return nil
	case "esc":
		m.searching = false
		m.search.Blur()
		m.search.SetValue("")
		m.views[m.active].SetFilter("")
		return nil
	}
	var cmd tea.Cmd
	m.search, cmd = m.search.Update(msg)
	m.views[m.active].SetFilter(m.search.Value())
	return cmd
}

func (m *Model) bpKey(msg tea.KeyPressMsg) tea.Cmd {
	switch msg.String() {
	case "esc":
		m.bpOpen = false
		m.bpInput.Blur()
		return nil
	case "enter":
		if v := m.bpInput.Value(); v != "" {
			bp, err := parseBreakpoint(v)
			if err != nil {
				m.setStatus(err.Error(), true)
				return nil
			}
			m.toggleBreakpoint(bp)
			m.bpInput.SetValue("")
		}
		return nil
	case "up":
		m.bpCursor = max(0, m.bpCursor-1)
		return nil
	case "down":
		m.bpCursor = min(len(m.bps)-1, m.bpCursor+1)
		return nil
	case "delete", "ctrl+d":
		if m.bpCursor < len(m.bps) {
			m.bps = append(m.bps[:m.bpCursor], m.bps[m.bpCursor+1:]...)
			m.bpCursor = max(0, min(m.bpCursor, len(m.bps)-1))
		}
		return nil
	}
	var cmd tea.Cmd
	m.bpInput, cmd = m.bpInput.Update(msg)
	return cmd
}

func (m *Model) wiKey(msg tea.KeyPressMsg) tea.Cmd {
	switch msg.String() {
	case "esc":
		m.wiOpen = false
		return nil
	case "tab", "down":
		m.wiInputs[m.wiFocus].Blur()
		m.wiFocus = (m.wiFocus + 1) % len(m.wiInputs)
		return m.wiInputs[m.wiFocus].Focus()
	case "shift+tab", "up":
		m.wiInputs[m.wiFocus].Blur()
		m.wiFocus = (m.wiFocus + len(m.wiInputs) - 1) % len(m.wiInputs)
		return m.wiInputs[m.wiFocus].Focus()
	case "enter":
		m.wiOpen = false
		a := m.c.focused()
		if a == nil {
			return nil
		}
		e := whatIfEdit{Requests: m.wiInputs[0].Value(), Tolerations: m.wiInputs[1].Value(), NodeSelector: m.wiInputs[2].Value()}
		if p := m.c.pod(); p != nil {
			if _, err := applyEdit(p, e); err != nil {
				m.setStatus("what-if: "+err.Error(), true)
				m.wiOpen = true
				return nil
			}
		}
		wv := m.views[viewWhatIf].(*whatIfView)
		wv.busy = true
		m.goTo(viewWhatIf, true)
		return runWhatIf(m.b, m.c.Focus, a, e)
	}
	var cmd tea.Cmd
	m.wiInputs[m.wiFocus], cmd = m.wiInputs[m.wiFocus].Update(msg)
	return cmd
}

// tabs renders the view tabs and returns each tab's x range for clicks.
func (m *Model) tabs() (string, [numViews][2]int) {
	st := m.c.St
	var b strings.Builder
	var spans [numViews][2]int
	x := 0
	for i := viewID(0); i < numViews; i++ {
		label := fmt.Sprintf(" %d %s ", i+1, viewTitles[i])
		spans[i] = [2]int{x, x + len(label)}
		x += len(label)
		if i == m.active {
			b.WriteString(st.TabActive.Render(label))
		} else {
			b.WriteString(st.Tab.Render(label))
		}
	}
	return b.String(), spans
}

func (m *Model) onClick(mouse tea.Mouse) tea.Cmd {
	if m.overlay() || mouse.Button != tea.MouseLeft {
		return nil
	}
	switch {
	case mouse.Y == 1:
		_, spans := m.tabs()
		for i, s := range spans {
			if mouse.X >= s[0] && mouse.X < s[1] {
				m.goTo(viewID(i), true)
			}
		}
	case mouse.Y >= 2 && mouse.Y < m.h-2:
		bw, _, _, _, _ := m.layout()
		if mouse.X < bw {
			return m.views[m.active].Click(mouse.X, mouse.Y-2)
		}
	}
	return nil
}

func (m *Model) header() string {
	st := m.c.St
	name := "schedtui"
	src := m.b.Name
	if m.src != nil {
		src = m.src.Name()
	}
	s := st.HeaderKey.Render(name) + " " + st.Dim.Render(src)
	if w := m.c.World; w != nil {
		if a := m.c.focused(); a != nil {
			where := fmt.Sprintf("attempt %d/%d", m.c.Focus+1, len(w.attempts))
			if m.c.Focus != w.cursor.Attempt {
				where += fmt.Sprintf(" (cursor at %d)", w.cursor.Attempt+1)
			}
			s += "  " + where + "  " + st.Bold.Render(a.Pod) + " " + outcomeStyled(st, a, m.c)
			if m.c.Focus == w.cursor.Attempt && w.cursor.Phase < engine.LastPhase(a) {
				s += st.Warn.Render(" @" + w.cursor.Phase.String())
			}
		} else {
			s += "  no attempt yet"
		}
		if len(m.bps) > 0 {
			s += st.Warn.Render(fmt.Sprintf("  ● %d bp", len(m.bps)))
		}
		counts := fmt.Sprintf("  active %d · unsched %d · gated %d", len(w.queue.ActiveQ), len(w.queue.Unschedulable), len(w.queue.Gated))
		if ansi.StringWidth(s)+len(counts) <= m.w {
			s += st.Dim.Render(counts)
		}
	}
	return line(s, m.w)
}

func outcomeStyled(st *Styles, a *record.Attempt, c *Common) string {
	t := outcomeText(a, c)
	switch {
	case !c.revealed(engine.LastPhase(a)):
		return st.Warn.Render(t)
	case a.Outcome == record.Scheduled:
		return st.Good.Render(t)
	}
	return st.Bad.Render(t)
}

func (m *Model) statusLine() string {
	st := m.c.St
	if m.searching {
		return line(m.search.View(), m.w)
	}
	left := m.status
	style := st.Status
	if m.busy != "" {
		left = m.busy + "…"
	} else if m.statusErr {
		style = st.StatusErr
	}
	if q := m.search.Value(); q != "" {
		left = "filter: " + q + " (esc clears) · " + left
	}
	right := ""
	if s := m.srcStatus; s != nil {
		switch {
		case s.Err != nil && !s.Connected && s.LastEvent != "":
			right = "disconnected: " + s.LastEvent
		case s.Err != nil:
			right = "source: " + s.Err.Error()
		case !s.Connected:
			right = "source: connecting…"
		case s.Total > 0 && s.Synced < s.Total:
			right = fmt.Sprintf("syncing %d/%d", s.Synced, s.Total)
		default:
			right = "live"
			if n := m.disagreements; n > 0 {
				right += fmt.Sprintf(" · %d disagreement(s) with the cluster (events: 7)", n)
			}
			if s.LastEvent != "" {
				right += " · " + s.LastEvent
			}
		}
	} else if w := m.c.World; w != nil && w.done {
		right = "engine quiescent"
	}
	rw := len([]rune(right))
	return style.Render(fit(left, max(0, m.w-rw-1))) + " " + st.Dim.Render(right)
}

// View draws the frame. Every part is computed from state; nothing here
// does I/O or runs the scheduler.
func (m *Model) View() tea.View {
	var v tea.View
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = "schedtui"
	if m.w == 0 {
		v.SetContent("")
		return v
	}
	if m.w < MinWidth || m.h < MinHeight {
		msg := fmt.Sprintf("schedtui needs a terminal of at least %d×%d; this one is %d×%d. Enlarge the window (q quits).", MinWidth, MinHeight, m.w, m.h)
		v.SetContent(block(strings.Join(wrap(msg, m.w), "\n"), m.w, m.h))
		return v
	}
	v.SetContent(m.render())
	return v
}

func (m *Model) render() string {
	var b strings.Builder
	b.WriteString(m.header())
	b.WriteByte('\n')
	if m.tabsStyles != m.c.St || m.tabsFor != m.active || m.tabsCache == "" {
		tabs, _ := m.tabs()
		m.tabsCache, m.tabsFor, m.tabsStyles = line(tabs, m.w), m.active, m.c.St
	}
	b.WriteString(m.tabsCache)
	b.WriteByte('\n')
	bw, bh, pw, ph, side := m.layout()
	var body string
	switch {
	case m.showHelp:
		body = block(m.fullHelp(), m.w, m.h-4)
	case m.bpOpen:
		body = block(m.bpView(), m.w, m.h-4)
	case m.wiOpen:
		body = block(m.wiView(), m.w, m.h-4)
	default:
		body = m.views[m.active].View()
		if m.teach {
			pane := m.pane(pw, ph)
			if side {
				body = joinSide(body, pane, bw, m.c.St.Border.Render("│"))
			} else {
				body += "\n" + pane
			}
		}
	}
	b.WriteString(body)
	b.WriteByte('\n')
	b.WriteString(m.statusLine())
	b.WriteByte('\n')
	b.WriteString(line(m.help.ShortHelpView(m.views[m.active].ShortHelp()), m.w))
	_ = bh
	return b.String()
}

func joinSide(left, right string, lw int, sep string) string {
	ls, rs := strings.Split(left, "\n"), strings.Split(right, "\n")
	var b strings.Builder
	for i := range ls {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(line(ls[i], lw))
		b.WriteString(sep)
		if i < len(rs) {
			b.WriteString(rs[i])
		}
	}
	return b.String()
}

// pane is the teaching pane: the active view's explanation of its
// selection.
func (m *Model) pane(w, h int) string {
	st := m.c.St
	title, body := m.views[m.active].Explain()
	lines := []string{st.PaneTitle.Render(fit("Explain: "+title, w))}
	for _, l := range body {
		lines = append(lines, wrap(l, w)...)
	}
	if len(lines) > h {
		lines = append(lines[:h-1], st.Dim.Render("… (widen the terminal for the side pane)"))
	}
	return block(strings.Join(lines, "\n"), w, h)
}

func (m *Model) fullHelp() string {
	st := m.c.St
	out := []string{st.Title.Render("schedtui — keys (any key closes)"), ""}
	out = append(out, strings.Split(m.help.FullHelpView(m.views[m.active].FullHelp()), "\n")...)
	out = append(out, "",
		"n runs the next attempt; s steps into it one phase at a time (views hide phases not yet reached).",
		"c continues to the next breakpoint (b edits them: pod=GLOB, node=NAME, unschedulable, preemption).",
		"e opens the teaching pane: it explains the selected cell with the numbers behind it.",
		"Mouse: wheel scrolls, click selects; click a tab to switch views.")
	return strings.Join(out, "\n")
}

func (m *Model) bpView() string {
	st := m.c.St
	out := []string{st.Title.Render("Breakpoints — continue (c) stops at the first attempt matching any of them"), ""}
	if len(m.bps) == 0 {
		out = append(out, st.Dim.Render("  none"))
	}
	for i, bp := range m.bps {
		s := fmt.Sprintf("  %d. %s", i+1, bpString(bp))
		if i == m.bpCursor {
			s = st.Sel.wrap(fit(s, m.w))
		}
		out = append(out, s)
	}
	out = append(out, "", m.bpInput.View(), "",
		st.Dim.Render("enter adds (or removes an identical one) · ↑/↓ select · delete/ctrl+d removes · esc closes"),
		st.Dim.Render("pod=GLOB matches namespace/name (path.Match; a bare name matches any namespace)"))
	return strings.Join(out, "\n")
}

func (m *Model) wiView() string {
	st := m.c.St
	a := m.c.focused()
	out := []string{st.Title.Render("What-if: " + a.Pod + fmt.Sprintf(" (attempt #%d)", a.Seq)), "",
		"Edit and press enter: the attempt is re-run on a copy of the cluster as it was; the engine is untouched.", ""}
	for i := range m.wiInputs {
		out = append(out, m.wiInputs[i].View())
	}
	out = append(out, "",
		st.Dim.Render("requests: name=quantity,... (the pod's totals; e.g. cpu=500m,memory=1Gi)"),
		st.Dim.Render("tolerations: key[=value][:Effect],... (no value: Exists; * tolerates every key)"),
		st.Dim.Render("nodeSelector: key=value,...   ·   tab/↑/↓ move · enter runs · esc cancels"))
	return strings.Join(out, "\n")
}
