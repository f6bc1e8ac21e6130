package tui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/schedtui/schedtui/scheduler/engine"
	"github.com/schedtui/schedtui/scheduler/history"
	"github.com/schedtui/schedtui/scheduler/record"
	"github.com/schedtui/schedtui/scheduler/why"
)

// eventsView is the timeline: queue moves, attempts, preemptions,
// evictions and cluster events, newest last.
type eventsView struct {
	c    *Common
	w, h int
	l    list
	// order lists the events shown when a filter is set; without one
	// every event up to shown is, and count is their number: a long
	// session's timeline is never copied nor walked whole.
	order  []int
	count  int
	filter matcher
	follow bool // keep the cursor on the newest event
}

func newEventsView(c *Common) *eventsView { return &eventsView{c: c, follow: true} }

func (v *eventsView) Init() tea.Cmd    { return nil }
func (v *eventsView) SetSize(w, h int) { v.w, v.h = w, h; v.l.h = h; v.l.clamp() }

func (v *eventsView) Refresh() {
	v.order, v.count = v.order[:0], 0
	if v.c.World == nil {
		v.l.set(0)
		return
	}
	if v.filter.q == "" {
		v.count = v.shown()
	} else {
		for i := range v.shown() {
			if v.filter.match(eventText(v.c.World.events.At(i))) {
				v.order = append(v.order, i)
			}
		}
		v.count = len(v.order)
	}
	v.l.set(v.count)
	if v.follow {
		v.l.cursor = v.count - 1
		v.l.clamp()
	}
}

// shown is how many events may show: while the cursor's attempt is
// stepped by phase, its end (outcome, queue move, preemption, evictions)
// stays hidden until stepped to, with what came after it.
func (v *eventsView) shown() int {
	w := v.c.World
	evs := &w.events
	c := w.cursor
	if c.Attempt < 0 || c.Attempt >= w.attempts.Len() || c.Phase >= w.attempts.At(c.Attempt).LastPhase() {
		return evs.Len()
	}
	// The attempt stepped by phase is the newest: look from the end.
	for i := evs.Len() - 1; i >= 0; i-- {
		if ev := evs.At(i); ev.Kind == history.EventAttempt && ev.Attempt == c.Attempt {
			return i
		}
	}
	return evs.Len()
}

// row is the index in the timeline of the view's row i.
func (v *eventsView) row(i int) int {
	if v.filter.q == "" {
		return i
	}
	return v.order[i]
}

func (v *eventsView) move(dr, dc int) {
	v.l.move(dr, dc)
	v.follow = v.l.cursor == v.count-1
}

func (v *eventsView) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case searchMsg:
		v.filter = newMatcher(msg.q)
		v.Refresh()
	case tea.KeyPressMsg:
		k := v.c.Keys
		switch {
		case navigate(k, msg, v.h, v.move):
		case searchKey(v.c, msg):
		case key.Matches(msg, k.NextDiverge):
			v.jumpDivergence(1)
		case key.Matches(msg, k.PrevDiverge):
			v.jumpDivergence(-1)
		case key.Matches(msg, k.Enter):
			if e := v.selected(); e != nil && e.Kind == history.EventObserved && e.Reason != string(engine.Agree) && e.Attempt >= 0 {
				// A disagreement (or tie) opens side by side, on its attempt.
				v.c.post(openDialogMsg{newObservedDialog(v.c, *e)})
				return emit(focusAttemptMsg{attempt: e.Attempt, view: viewEvents})
			} else if e != nil && e.Attempt >= 0 {
				return emit(focusAttemptMsg{attempt: e.Attempt, view: viewAttempt})
			} else if e != nil && e.Pod != "" {
				return emit(openPodMsg{pod: e.Pod})
			}
		}
	case tea.MouseWheelMsg:
		wheel(msg, v.move)
	}
	return nil
}

func (v *eventsView) selected() *history.Event {
	if v.c.World == nil || v.l.cursor >= v.count {
		return nil
	}
	return v.c.World.events.At(v.row(v.l.cursor))
}

func (v *eventsView) Click(_, y int) tea.Cmd {
	i := v.l.top + y
	if i < v.count {
		v.l.cursor = i
		v.follow = false
	}
	return nil
}

func eventText(e *history.Event) string {
	switch e.Kind {
	case history.EventQueueMove:
		from := string(e.From)
		if from == "" {
			from = "∅"
		}
		return fmt.Sprintf("%-10s %s: %s → %s (%s)", e.Kind, e.Pod, from, e.To, e.Reason)
	case history.EventAttempt:
		s := fmt.Sprintf("%-10s #%d %s: %s", e.Kind, e.Attempt+1, e.Pod, e.Reason)
		if e.Node != "" {
			s += " on " + e.Node
		}
		return s
	case history.EventBinding:
		s := fmt.Sprintf("%-10s #%d %s: %s after waiting on %s", e.Kind, e.Attempt+1, e.Pod, e.Reason, e.Node)
		if e.Message != "" {
			s += ": " + e.Message
		}
		return s
	case history.EventPreemption:
		return fmt.Sprintf("%-10s %s nominated to %s, evicting %s (%s)", e.Kind, e.Pod, e.Node, strings.Join(e.Victims, ", "), e.Reason)
	case history.EventEviction:
		return fmt.Sprintf("%-10s %s left %s: %s", e.Kind, e.Pod, e.Node, e.Reason)
	case history.EventCluster:
		s := fmt.Sprintf("%-10s %s", e.Kind, e.Reason)
		switch {
		case e.Object != "":
			s += " " + e.Object
		case e.Pod != "":
			s += " " + e.Pod
		}
		if e.Node != "" && e.Object != "Node "+e.Node {
			s += " on " + e.Node
		}
		if e.Message != "" {
			s += ": " + e.Message
		}
		return s
	case eventForecast:
		return forecastEventText(e)
	case history.EventObserved:
		predicted := e.Predicted
		if predicted == "" {
			predicted = "no node"
		}
		verdict := e.Reason
		if e.Uncertain != "" {
			verdict += ", uncertain"
		}
		if engine.IsPodGroupRef(e.Pod) {
			return fmt.Sprintf("%-10s %s: the cluster's scheduler writes %s; schedtui: %s (%s)", e.Kind, e.Pod, conditionHead(e.ClusterMessage), conditionHead(e.Predicted), verdict)
		}
		if e.Node == "" {
			return fmt.Sprintf("%-10s %s: the cluster's scheduler finds no node; schedtui: %s (%s)", e.Kind, e.Pod, predicted, verdict)
		}
		return fmt.Sprintf("%-10s %s: the cluster bound it to %s; schedtui: %s (%s)", e.Kind, e.Pod, e.Node, predicted, verdict)
	}
	return fmt.Sprintf("%-10s %s %s %s", e.Kind, e.Pod, e.Node, e.Message)
}

func (v *eventsView) View() string {
	st := v.c.St
	if v.c.World == nil || v.count == 0 {
		return block("No events.", v.w, v.h)
	}
	var b strings.Builder
	for i := v.l.top; i < v.l.top+v.h && i < v.count; i++ {
		if i > v.l.top {
			b.WriteByte('\n')
		}
		e := v.c.World.events.At(v.row(i))
		s := fit(fmt.Sprintf("%4d %s %s%s%s%s", e.Seq, e.Time.In(v.c.Loc).Format("15:04:05"), compareMark(v.c, e), v.c.World.eventMark(e), eventText(e), v.extenderCalls(e)), v.w)
		switch {
		case i == v.l.cursor:
			s = st.Sel.wrap(s)
		case e.Kind == history.EventPreemption || e.Kind == history.EventEviction:
			s = st.WarnE.wrap(s)
		case e.Kind == history.EventObserved && e.Reason == string(engine.Disagree):
			s = st.BadE.wrap(s)
		case e.Kind == eventForecast && e.Reason == string(engine.ForecastMiss):
			s = st.BadE.wrap(s)
		case e.Kind == eventForecast && e.Reason == string(engine.ForecastHit):
			s = st.GoodE.wrap(s)
		case e.Kind == history.EventObserved && e.Reason == string(engine.Agree):
			s = st.GoodE.wrap(s)
		case (e.Kind == history.EventAttempt || e.Kind == history.EventBinding) && e.Reason == "Scheduled":
			s = st.GoodE.wrap(s)
		case e.Kind == history.EventAttempt:
			s = st.BadE.wrap(s)
		case e.Kind == history.EventQueueMove:
			s = st.DimE.wrap(s)
		}
		b.WriteString(s)
	}
	return block(b.String(), v.w, v.h)
}

func (v *eventsView) Explain() (string, []string) {
	e := v.selected()
	if e == nil {
		return "Events", nil
	}
	out := []string{eventText(e)}
	if e.Message != "" {
		out = append(out, "", e.Message)
	}
	switch e.Kind {
	case history.EventQueueMove:
		out = append(out, "", queueMoveText(e))
	case history.EventAttempt:
		if a := v.attemptOf(e); a != nil {
			for i := range a.ExtenderCalls {
				out = append(out, why.ExtenderCallLines(&a.ExtenderCalls[i])...)
			}
		}
		out = append(out, "", "enter opens this attempt in every view.")
	case history.EventBinding:
		out = append(out, "", "This pod's binding cycle waited in PreBind, the pod assumed on its node, for its devices' binding conditions "+
			"(DynamicResources polls the claim every 5s until bindingTimeout). This is how the wait ended; enter opens the attempt that started it.")
	case eventForecast:
		out = append(out, "", forecastExplain)
	case history.EventObserved:
		if engine.IsPodGroupRef(e.Pod) {
			out = append(out, "", "The cluster's own scheduler wrote this PodGroup's PodGroupInitiallyScheduled condition after a pod-group cycle. "+
				"schedtui made its own pod-group cycle for the group's queued members on the state before the cycle's first decision arrived: "+
				"agree when it writes the same condition (status, reason and message), else disagree.",
				"", "The cluster's: "+e.ClusterMessage, "schedtui's: "+orNone(e.Predicted))
			break
		}
		out = append(out, "", "The cluster's own scheduler decided about this pod. schedtui puts its prediction next to it: "+
			"agree (same node, or the same unschedulable message), tie (another node tied at the top score: which one kube-scheduler takes is not fixed) or disagree.")
		if e.Judged != nil {
			out = append(out, "", fmt.Sprintf("Shadow mode judged it on the cluster as its scheduler had it: %d pod(s) bound; in flight (assumed, not bound yet): %s.",
				e.Judged.Bound, orNone(strings.Join(e.Judged.InFlight, ", "))))
		}
		if e.Uncertain != "" {
			out = append(out, "", "Uncertain: "+e.Uncertain)
		}
		if e.Attempt >= 0 && e.Reason != string(engine.Agree) {
			out = append(out, "", "enter opens it side by side: the cluster's choice against schedtui's verdict, plugin by plugin.")
		} else if e.Attempt >= 0 {
			out = append(out, "", "enter opens the attempt that made the prediction.")
		} else {
			out = append(out, "", "schedtui had not tried the pod yet: the prediction was made against the cluster as it was just before the binding.")
		}
	}
	return "Event " + fmt.Sprint(e.Seq), out
}

func (v *eventsView) ShortHelp() []key.Binding {
	k := v.c.Keys
	if v.c.Right != nil {
		return []key.Binding{k.Up, k.Down, withHelp(k.Enter, "enter", "open attempt"), k.NextDiverge, k.PrevDiverge, k.Next, k.Help}
	}
	return []key.Binding{k.Up, k.Down, withHelp(k.Enter, "enter", "open attempt"), k.Search, k.Explain, k.Next, k.Help}
}

func (v *eventsView) FullHelp() [][]key.Binding {
	k := v.c.Keys
	if v.c.Right != nil {
		return [][]key.Binding{k.vertical(withHelp(k.Enter, "enter", "open attempt"), k.Search, k.NextDiverge, k.PrevDiverge), k.global()}
	}
	return [][]key.Binding{k.vertical(withHelp(k.Enter, "enter", "open attempt"), k.Search), k.global()}
}

func (v *eventsView) attemptOf(e *history.Event) *record.Attempt {
	if e.Kind != history.EventAttempt || e.Attempt < 0 || e.Attempt >= v.c.World.attempts.Len() {
		return nil
	}
	return v.c.World.attempts.At(e.Attempt)
}

// extenderCalls sums up an attempt's calls to extenders: verb and latency
// each ("" without extenders).
func (v *eventsView) extenderCalls(e *history.Event) string {
	a := v.attemptOf(e)
	if a == nil || len(a.ExtenderCalls) == 0 {
		return ""
	}
	parts := make([]string, len(a.ExtenderCalls))
	for i, c := range a.ExtenderCalls {
		parts[i] = fmt.Sprintf("%s %v", c.Verb, c.Latency.Round(time.Millisecond/10))
		if c.Error != "" {
			parts[i] += " failed"
		}
		if c.Replayed {
			parts[i] += " replayed"
		}
	}
	return " · extenders: " + strings.Join(parts, ", ")
}

// jumpDivergence moves to the next (dir 1) or previous (-1) attempt that
// diverges from compare mode's second side.
func (v *eventsView) jumpDivergence(dir int) {
	for i := v.l.cursor + dir; i >= 0 && i < v.count; i += dir {
		e := v.c.World.events.At(v.row(i))
		if e.Kind == history.EventAttempt && v.c.diverges(e.Attempt) {
			v.move(i-v.l.cursor, 0)
			return
		}
	}
	v.c.post(statusMsg{text: "no diverging attempt further " + map[int]string{1: "down", -1: "up"}[dir] + " (the second side is synced as you step)", attempt: -1})
}

// queueMoveText is the teaching pane's text for a queue move: why the
// pod moved, by the move's upstream label.
func queueMoveText(e *history.Event) string {
	const backoff = "The backoff is 1s after the first failed attempt, doubling with each one up to 10s (podInitialBackoffSeconds, podMaxBackoffSeconds)."
	switch e.Reason {
	case "UnscheduledPodAdd":
		return "A new pending pod enters the queue: activeQ, unless a PreEnqueue plugin gates it."
	case "Pop":
		return "activeQ popped the pod (PrioritySort: the highest priority, then the earliest queued): its attempt starts."
	case "ScheduleAttemptFailure":
		if e.To == history.Unschedulable {
			return "The attempt failed. The pod waits with the unschedulable pods until a cluster event that a plugin which rejected it registered for arrives " +
				"and that plugin's queueing hint says Queue, or until 5 minutes pass (the periodic flush, UnschedulableTimeout)."
		}
		return "The attempt failed, but an event that may help arrived while it ran (or it failed with an error): the pod waits out its backoff and is retried. " + backoff
	case "BackoffComplete":
		return "The pod's backoff ended: it moves to activeQ. " + backoff
	case "PopFromBackoffQ":
		return "activeQ was empty, so the scheduler popped the pod from backoffQ before its backoff ended (SchedulerPopFromBackoffQ) rather than stay idle."
	case "UnschedulableTimeout":
		return "The pod had waited 5 minutes with the unschedulable pods and no event moved it: the periodic flush (podMaxInUnschedulablePodsDuration) sends it to be tried again."
	case "ForceActivate":
		return "A plugin asked for the pod to be activated (PodsToActivate): it moves to activeQ at once."
	}
	if e.From == history.Unschedulable {
		to := "its backoff was over, so it goes to activeQ."
		if e.To == history.BackoffQ {
			to = "its backoff was not over yet, so it waits in backoffQ. " + backoff
		}
		return e.Reason + " is a cluster event that a plugin which rejected the pod registered for (EventsToRegister), and that plugin's queueing hint " +
			"looked at the change and said Queue (a change that cannot help, it skips: QueueSkip). The pod left the unschedulable pods; " + to
	}
	return "Pods move between activeQ, backoffQ and the unschedulable pool on attempts and on cluster events their rejecting plugins registered for."
}

// conditionHead is a PodGroup condition as shadow mode quotes it
// (engine.GroupConditionText) without its message: "Type=Status (Reason)";
// "no condition" for none.
func conditionHead(text string) string {
	if text == "" {
		return "no condition"
	}
	head, _, _ := strings.Cut(text, "): ")
	if !strings.HasSuffix(head, ")") {
		head += ")"
	}
	return head
}
