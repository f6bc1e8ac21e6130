package tui

import (
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	v1 "k8s.io/api/core/v1"

	"github.com/schedtui/schedtui/scheduler/engine"
	"github.com/schedtui/schedtui/scheduler/record"
)

// component is the contract of every part of the screen (soft-serve's): it
// renders exactly its rectangle, takes its size from the root, and lists
// its keys for the help. Components are pointers updated in place: they
// hold caches (formatted rows, sort orders) too large to copy per message.
type component interface {
	help.KeyMap
	Init() tea.Cmd
	Update(msg tea.Msg) tea.Cmd
	View() string
	SetSize(w, h int)
}

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

// view is a component shown in the body under a tab. It gets its data by
// messages (searchMsg, selectNodeMsg, ...) and from Common.
type view interface {
	component
	// Refresh recomputes what the view derives from Common's data. The
	// root calls it on the active view when the world, the focus or a
	// result changed, and on any other view when it becomes active.
	Refresh()
	// Explain is the teaching pane's text for the selection.
	Explain() (title string, body []string)
	// Click selects what is at (x, y) inside the view's rectangle.
	Click(x, y int) tea.Cmd
}

// Common is shared by the root and every component: styles, keys and the
// state they all read. Only the root and its session write it, in Update;
// components change it by messages.
type Common struct {
	St   *Styles
	Keys *KeyMap
	// World is the engine's state after the last operation.
	World *world
	// Right is compare mode's second side after the last operation
	// (compare.go); nil outside compare mode.
	Right *rightWorld
	// Focus indexes World.attempts: the attempt the views show. It follows
	// the cursor unless the user opened an older attempt.
	Focus int
	// Forks caches, per attempt, the cluster as the attempt saw it.
	Forks map[int]*forkResult
	// Diags caches the full diagnosis per attempt.
	Diags map[int]*diagResult
	// Hints caches the proven hints per attempt (see why.go).
	Hints map[int]*hintsResult
	// MemberStep: the focus is stepping member by member through a
	// pod-group cycle's recorded attempts (n, { and }); the header says
	// which member.
	MemberStep bool
	// Active is the view shown in the body.
	Active viewID
	// Bps are the breakpoints continue (c) stops at.
	Bps []engine.Breakpoint
	// Loc is where times show: UTC in virtual time (a snapshot's clock
	// means nothing locally), local on a live cluster, whose times are the
	// wall clock's.
	Loc *time.Location

	outbox []tea.Msg
}

// post hands msg to the root within the current Update, before the next
// message is read: for what must take effect before the next key (a
// dialog opening or closing, a view switch). emit delivers later, as a Cmd.
func (c *Common) post(msgs ...tea.Msg) { c.outbox = append(c.outbox, msgs...) }

// focused is the attempt in focus, or nil.
func (c *Common) focused() *record.Attempt {
	if c.World == nil || c.Focus < 0 || c.Focus >= c.World.attempts.Len() {
		return nil
	}
	return c.World.attempts.At(c.Focus)
}

// revealed reports whether phase p of the focused attempt may be shown:
// when stepping by phase, later phases stay hidden until stepped to.
func (c *Common) revealed(p record.Phase) bool {
	a := c.focused()
	if a == nil || c.Focus != c.World.cursor.Attempt {
		return true
	}
	// Fully revealed: phases the attempt never reached show as not run.
	return c.World.cursor.Phase >= p || c.World.cursor.Phase >= a.LastPhase()
}

// fork is the focused attempt's fork, or nil while it is computed.
func (c *Common) fork() *forkResult {
	if f := c.Forks[c.Focus]; f != nil && f.err == nil {
		return f
	}
	return nil
}

// cluster is the nodes as of the focused attempt: the engine's when the
// focus is the cursor's attempt, fully revealed; else as the attempt saw
// them (its fork: before its own decision), nil while that is computed.
func (c *Common) cluster() *cluster {
	if c.World == nil {
		return nil
	}
	if a := c.focused(); a == nil || c.Focus == c.World.cursor.Attempt && c.revealed(a.LastPhase()) {
		return &c.World.cluster
	}
	if f := c.fork(); f != nil {
		return &f.cluster
	}
	return nil
}

// pod is the focused attempt's pod as it was then (from the fork) or now.
func (c *Common) pod() *v1.Pod {
	if f := c.fork(); f != nil && f.pod != nil {
		return f.pod
	}
	if a := c.focused(); a != nil && c.World != nil {
		return c.World.pods[a.Pod]
	}
	return nil
}

// emit wraps a message as a Cmd: components talk to the root by messages
// (see also Common.post).
func emit(m tea.Msg) tea.Cmd { return func() tea.Msg { return m } }

// withHelp is b described otherwise for one view's help.
func withHelp(b key.Binding, k, desc string) key.Binding {
	b.SetHelp(k, desc)
	return b
}
