package tui

import (
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/schedtui/schedtui/scheduler/engine"
	"github.com/schedtui/schedtui/scheduler/history"
	"github.com/schedtui/schedtui/scheduler/why"
)

// Lesson is one step of schedtui learn's guided tour: a question about its
// own small scenario, answered by doing in the debugger. lessons.go holds
// the tour; cmd/schedtui loads the scenario and records progress.
type Lesson struct {
	// ID names the lesson in the progress file; it never changes.
	ID    string
	Title string
	// Scenario is the snapshot's file name under testdata/learn.
	Scenario string
	Question string
	// Keys tells the learner what to press.
	Keys string
	// Answers, when set, are the accepted values typed at the answer
	// prompt (A), compared without case or surrounding space; Reached
	// must hold too when both are set.
	Answers []string
	// Reached is the state the learner must reach (a view shown, a cell
	// selected, an attempt run); nil when only the answer counts.
	Reached func(*lessonState) bool
	// Hint is said to a wrong answer, or to A before the state is reached.
	Hint string
	// Plugin, when set, adds its purpose (why.Purpose) to the explanation.
	Plugin string
	// FeatureGates are the --feature-gates its scenario's scheduler runs
	// with ("" for the defaults).
	FeatureGates string
}

// lessonState is what a lesson's check looks at: the debugger's state and
// the teaching pane's selection.
type lessonState struct {
	c *Common
	// selected is the active view's teaching pane title: what is selected
	// ("TaintToleration on node-2", "Preemption").
	selected string
	// body is the teaching pane's text for the selection.
	body   []string
	answer string
}

// view reports whether the active view is v.
func (s *lessonState) view(v viewID) bool { return s.c.Active == v }

// pod is the focused attempt's pod ("namespace/name"), or "".
func (s *lessonState) pod() string {
	if a := s.c.focused(); a != nil {
		return a.Pod
	}
	return ""
}

// queued reports the queue pod waits in now ("activeQ", "backoffQ",
// "unschedulable", "gated"), or "".
func (s *lessonState) queued(pod string) string {
	if s.c.World == nil {
		return ""
	}
	q := s.c.World.queue
	for name, pods := range map[string][]string{"activeQ": queuedNames(q.ActiveQ), "backoffQ": queuedNames(q.BackoffQ), "unschedulable": queuedNames(q.Unschedulable), "gated": queuedNames(q.Gated)} {
		for _, p := range pods {
			if p == pod {
				return name
			}
		}
	}
	return ""
}

// movedOutOf is the event (its upstream label: "NodeAdd",
// "UnschedulableTimeout") that last moved pod out of queue from, or "".
func (s *lessonState) movedOutOf(pod string, from history.QueueName) string {
	if s.c.World == nil {
		return ""
	}
	evs := &s.c.World.events
	for i := evs.Len() - 1; i >= 0; i-- {
		if e := evs.At(i); e.Kind == history.EventQueueMove && e.Pod == pod && e.From == from {
			return e.Reason
		}
	}
	return ""
}

// LessonRun is a lesson opened in the debugger (Options.Lesson).
type LessonRun struct {
	Lesson Lesson
	// Number is the lesson's place in the tour (1-based) of Total.
	Number, Total int
	// Done is called once, when the learner passes the check (progress).
	Done func()
}

// lessonAnswer is the key that answers the lesson's question.
var lessonAnswer = key.NewBinding(key.WithKeys("A"), key.WithHelp("A", "answer the lesson"))

// lessonHelp is the help of what is under it (the active view) with the
// lesson's key added, for ? during a lesson.
type lessonHelp struct{ help.KeyMap }

func (h lessonHelp) FullHelp() [][]key.Binding {
	return append(h.KeyMap.FullHelp(), []key.Binding{lessonAnswer})
}

// lessonBanner is the lesson's pane above the view: the question, the
// keys, and then the hint or the explanation. While the learner types an
// answer it has the keys.
type lessonBanner struct {
	c   *Common
	run *LessonRun
	// prompting: the answer prompt is open; typed is its text so far.
	prompting bool
	typed     string
	answer    string
	hint      string
	passed    bool
	// explained is the teaching pane's text when the check passed.
	explained []string
}

// lessonHeight is the banner's lines.
const lessonHeight = 5

func newLessonBanner(c *Common, run *LessonRun) *lessonBanner {
	if run == nil {
		return nil
	}
	return &lessonBanner{c: c, run: run}
}

// key handles a key for the banner: A opens the prompt (or checks a
// lesson with nothing to type), and the prompt takes every key while
// open. It reports whether it took the key.
func (b *lessonBanner) key(msg tea.KeyPressMsg, check func() bool) bool {
	if b.prompting {
		switch msg.String() {
		case "enter":
			b.prompting = false
			b.answer = b.typed
			if !check() {
				// A wrong answer is forgotten: reaching the state later
				// must not pass it.
				b.answer = ""
				b.hint = "Not yet: " + b.run.Lesson.Hint
			}
		case "esc":
			b.prompting = false
		case "backspace":
			if r := []rune(b.typed); len(r) > 0 {
				b.typed = string(r[:len(r)-1])
			}
		default:
			if t := msg.Text; t != "" {
				b.typed += t
			}
		}
		return true
	}
	if !key.Matches(msg, lessonAnswer) || b.passed {
		return false
	}
	if len(b.run.Lesson.Answers) > 0 {
		b.prompting, b.typed = true, ""
		return true
	}
	if !check() {
		b.hint = "Not yet: " + b.run.Lesson.Hint
	}
	return true
}

// check runs the lesson's check on the state; on passing it keeps the
// teaching pane's explanation and calls Done once.
func (b *lessonBanner) check(title string, body []string) bool {
	if b.passed {
		return true
	}
	l := b.run.Lesson
	st := &lessonState{c: b.c, selected: title, body: body, answer: b.answer}
	if l.Reached != nil && !l.Reached(st) {
		return false
	}
	if len(l.Answers) > 0 && !answered(l.Answers, b.answer) {
		return false
	}
	b.passed, b.hint = true, ""
	b.explained = append([]string{title + ":"}, body...)
	if p := why.Purpose(l.Plugin); l.Plugin != "" && !slices.Contains(body, p) {
		b.explained = append(b.explained, p)
	}
	if b.run.Done != nil {
		b.run.Done()
	}
	return true
}

func answered(accepted []string, typed string) bool {
	typed = strings.ToLower(strings.TrimSpace(typed))
	for _, a := range accepted {
		if typed == strings.ToLower(a) {
			return true
		}
	}
	return false
}

// View draws the banner, lessonHeight lines of w cells: the title, then
// the hint, the question and the keys; once solved, the explanation.
func (b *lessonBanner) View(w int) string {
	st := b.c.St
	l := b.run.Lesson
	lines := []string{st.PaneTitle.Render(fit(fmt.Sprintf("Lesson %d/%d · %s", b.run.Number, b.run.Total, l.Title), w))}
	add := func(s string, style func(string) string) {
		for _, wl := range wrap(s, w) {
			lines = append(lines, style(wl))
		}
	}
	plain := func(s string) string { return s }
	switch {
	case b.passed:
		lines = []string{st.Good.Render(fit(fmt.Sprintf("✓ Lesson %d solved: %s. Next: schedtui learn (q quits).", b.run.Number, l.Title), w))}
		for _, e := range b.explained {
			add(e, plain)
		}
	default:
		if b.prompting {
			add("Your answer (enter checks, esc cancels): "+b.typed+"▏", func(s string) string { return st.Bold.Render(s) })
		} else if b.hint != "" {
			add(b.hint, func(s string) string { return st.Warn.Render(s) })
		}
		add(l.Question, plain)
		keys := "Keys: " + l.Keys
		if len(l.Answers) == 0 {
			// Solved as soon as it is reached; A says what is missing.
			keys += " (A: a hint)"
		}
		add(keys, func(s string) string { return st.Dim.Render(s) })
	}
	return block(strings.Join(lines, "\n"), w, lessonHeight)
}

// queuedNames is the pods' names.
func queuedNames(pods []engine.QueuedPod) []string {
	out := make([]string, len(pods))
	for i, p := range pods {
		out[i] = p.Pod
	}
	return out
}
