package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/schedtui/schedtui/scheduler/engine"
	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/history"
	"github.com/schedtui/schedtui/scheduler/queue"
)

// queuesView lists the scheduling queue: activeQ in pop order, backoffQ
// with the backoff left, unschedulable pods with the plugins that rejected
// them, gated pods with their gate.
type queuesView struct {
	c      *Common
	w, h   int
	rows   []queueRow
	l      list
	filter matcher
}

type queueRow struct {
	section history.QueueName // set on section headings
	heading string
	pod     *engine.QueuedPod
	// group is a pod group, queued as one entry (GenericWorkload).
	group *engine.QueuedGroup
	pos   int
}

// groupsSection heads the pod groups: the queue's entries for the pods of
// a PodGroup, and the pods waiting for theirs to exist.
const groupsSection history.QueueName = "pod groups"

func newQueuesView(c *Common) *queuesView { return &queuesView{c: c} }

func (v *queuesView) Init() tea.Cmd { return nil }

func (v *queuesView) SetSize(w, h int) { v.w, v.h = w, h; v.l.h = h; v.l.clamp() }

func (v *queuesView) Refresh() {
	sel := ""
	if p := v.selected(); p != nil {
		sel = p.Pod
	} else if g := v.selectedGroup(); g != nil {
		sel = g.Group
	}
	v.rows = v.rows[:0]
	w := v.c.World
	if w == nil {
		v.l.set(0)
		return
	}
	q := &w.queue
	add := func(name history.QueueName, heading string, pods []engine.QueuedPod) {
		v.rows = append(v.rows, queueRow{section: name, heading: fmt.Sprintf("%s (%d) — %s", name, len(pods), heading)})
		n := 0
		for i := range pods {
			if !v.filter.match(pods[i].Pod) {
				continue
			}
			v.rows = append(v.rows, queueRow{pod: &pods[i], pos: i + 1})
			n++
		}
		if n == 0 {
			v.rows = append(v.rows, queueRow{heading: "  (empty)"})
		}
	}
	add(history.ActiveQ, "next to be scheduled, in pop order (priority, then time queued)", q.ActiveQ)
	add(history.BackoffQ, "failed recently; wait out the backoff before retrying", q.BackoffQ)
	add(history.Unschedulable, "wait for a cluster event one of their rejecting plugins cares about", q.Unschedulable)
	add(history.Gated, "held back by PreEnqueue (scheduling gates); never attempted", q.Gated)
	v.addGroups(q)
	v.l.set(len(v.rows))
	// The selection stays on its pod; when the search hides it, it
	// moves to the first pod shown, so that enter acts on a visible row.
	v.l.cursor = -1
	for i, r := range v.rows {
		if r.pod != nil && r.pod.Pod == sel || r.group != nil && r.group.Group == sel {
			v.l.cursor = i
		}
	}
	if v.l.cursor < 0 {
		v.step(1)
	}
	v.l.clamp()
}

// step moves to the next pod row in direction d.
func (v *queuesView) step(d int) {
	for i := v.l.cursor + d; i >= 0 && i < len(v.rows); i += d {
		if v.rows[i].entry() {
			v.l.cursor = i
			v.l.clamp()
			return
		}
	}
	v.l.clamp()
}

func (v *queuesView) move(dr, _ int) {
	switch {
	case dr == 1 || dr == -1:
		v.step(dr)
	default:
		v.l.move(dr, 0)
		if v.l.cursor < len(v.rows) && !v.rows[v.l.cursor].entry() {
			if dr < 0 {
				v.step(1)
			} else {
				v.step(-1)
			}
		}
	}
}

// entry: the row is a queue entry (a pod or a group), not a heading.
func (r queueRow) entry() bool { return r.pod != nil || r.group != nil }

func (v *queuesView) selected() *engine.QueuedPod {
	if v.l.cursor < len(v.rows) {
		return v.rows[v.l.cursor].pod
	}
	return nil
}

func (v *queuesView) selectedGroup() *engine.QueuedGroup {
	if v.l.cursor < len(v.rows) {
		return v.rows[v.l.cursor].group
	}
	return nil
}

// addGroups lists the queued pod groups under a heading of their own
// (their members are listed as pods where their group is); nothing
// without any (a cluster without workload-aware scheduling).
func (v *queuesView) addGroups(q *engine.QueueSnapshot) {
	if len(q.Groups) == 0 {
		return
	}
	v.rows = append(v.rows, queueRow{section: groupsSection, heading: fmt.Sprintf("%s (%d) — one queue entry per group, its members tried together in a group cycle", groupsSection, len(q.Groups))})
	for i := range q.Groups {
		g := &q.Groups[i]
		if !v.filter.match(g.Group) && !v.filter.match(strings.Join(g.Members, " ")) {
			continue
		}
		v.rows = append(v.rows, queueRow{group: g, pos: i + 1})
	}
}

// openGroup opens the group's last cycle (its first member's attempt), or
// runs until one of its members is attempted.
func openGroup(g *engine.QueuedGroup) tea.Cmd {
	if len(g.Members) == 0 {
		return nil
	}
	return emit(openPodMsg{pod: g.Members[0]})
}

func (v *queuesView) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case searchMsg:
		v.filter = newMatcher(msg.q)
		v.Refresh()
	case tea.KeyPressMsg:
		k := v.c.Keys
		switch {
		case navigate(k, msg, v.h, v.move):
		case searchKey(v.c, msg):
		case key.Matches(msg, k.Enter):
			if p := v.selected(); p != nil {
				return emit(openPodMsg{pod: p.Pod})
			}
			if g := v.selectedGroup(); g != nil {
				return openGroup(g)
			}
		case key.Matches(msg, k.ToggleBP):
			if p := v.selected(); p != nil {
				return emit(toggleBreakpointMsg{bp: engine.Breakpoint{PodPattern: p.Pod}})
			}
			if g := v.selectedGroup(); g != nil {
				return emit(toggleBreakpointMsg{bp: engine.Breakpoint{Group: g.Group}})
			}
		}
	case tea.MouseWheelMsg:
		wheel(msg, v.move)
	}
	return nil
}

func (v *queuesView) Click(_, y int) tea.Cmd {
	i := v.l.top + y
	if i < len(v.rows) && v.rows[i].entry() {
		if v.l.cursor == i && v.rows[i].group != nil {
			return openGroup(v.rows[i].group)
		}
		if v.l.cursor == i {
			return emit(openPodMsg{pod: v.rows[i].pod.Pod})
		}
		v.l.cursor = i
		v.l.clamp()
	}
	return nil
}

func (v *queuesView) View() string {
	st := v.c.St
	if v.c.World == nil {
		return block("loading…", v.w, v.h)
	}
	now := v.c.World.queue.Now
	var b strings.Builder
	for i := v.l.top; i < v.l.top+v.h; i++ {
		if i > v.l.top {
			b.WriteByte('\n')
		}
		if i >= len(v.rows) {
			continue
		}
		r := v.rows[i]
		if r.group != nil {
			s := fit(groupRow(r.group, now), v.w)
			if i == v.l.cursor {
				s = st.Sel.wrap(s)
			}
			b.WriteString(s)
			continue
		}
		if r.pod == nil {
			if r.section != "" {
				b.WriteString(st.Title.Render(fit(r.heading, v.w)))
			} else {
				b.WriteString(st.DimE.wrap(fit(r.heading, v.w)))
			}
			continue
		}
		p := r.pod
		var s string
		switch {
		case p.Queue == history.QueueName(queue.WaitingForPodGroup) && p.MissingGroup != "":
			// Its PodGroup exists, a CompositePodGroup above it not yet.
			s = fmt.Sprintf("  %-38s prio %-6d waiting for CompositePodGroup %s (above PodGroup %s) to exist", p.Pod, p.Priority, p.MissingGroup, podGroupOf(v.c.World, p.Pod))
		case p.Queue == history.QueueName(queue.WaitingForPodGroup):
			// Upstream's incomplete pod group pods: never attempted
			// until their group exists.
			s = fmt.Sprintf("  %-38s prio %-6d waiting for its PodGroup %s to exist", p.Pod, p.Priority, podGroupOf(v.c.World, p.Pod))
		case p.Queue == history.ActiveQ:
			s = fmt.Sprintf("  %3d %-34s prio %-6d age %-7s %s", r.pos, p.Pod, p.Priority, age(now.Sub(p.Timestamp)), nominatedTag(p.NominatedNode))
		case p.Queue == history.BackoffQ:
			s = fmt.Sprintf("  %-38s prio %-6d backoff left %-7s attempts %d", p.Pod, p.Priority, age(max(0, p.BackoffExpiration.Sub(now))), p.Attempts)
		case p.Queue == history.Unschedulable:
			s = fmt.Sprintf("  %-38s prio %-6d since %-7s rejected by %s %s", p.Pod, p.Priority, age(now.Sub(p.Timestamp)), orNone(strings.Join(p.UnschedulablePlugins, ",")), nominatedTag(p.NominatedNode))
		default:
			s = fmt.Sprintf("  %-38s prio %-6d %s: %s", p.Pod, p.Priority, p.GatingPlugin, p.GatingMessage)
		}
		s = fit(s, v.w)
		if i == v.l.cursor {
			s = st.Sel.wrap(s)
		}
		b.WriteString(s)
	}
	return block(b.String(), v.w, v.h)
}

func nominatedTag(n string) string {
	if n == "" {
		return ""
	}
	return "→ nominated " + n
}

func (v *queuesView) Explain() (string, []string) {
	if g := v.selectedGroup(); g != nil {
		return groupExplain(g, v.c.World)
	}
	p := v.selected()
	if p == nil {
		return "Queues", []string{"Pending pods wait in one of four places. Select one to see why it is there."}
	}
	out := []string{}
	switch p.Queue {
	case history.ActiveQ:
		out = append(out, fmt.Sprintf("%s is #%d in activeQ. PrioritySort pops the highest priority first (%d here), then the pod queued earliest.", p.Pod, indexIn(v.c.World.queue.ActiveQ, p.Pod)+1, p.Priority))
	case history.BackoffQ:
		out = append(out, p.Pod+" failed an attempt and waits out its backoff (1s doubling per attempt, up to 10s) before it may be retried.")
	case history.Unschedulable:
		out = append(out, p.Pod+" failed because of "+orNone(strings.Join(p.UnschedulablePlugins, ", "))+". It stays here until a cluster event one of those plugins registered for (a node added, a pod deleted, a taint removed…) could make it schedulable, or 5 minutes pass.")
		if p.NominatedNode != "" {
			out = append(out, "", "It is nominated to "+p.NominatedNode+": preemption freed room there and its victims are terminating. Other pods see the nomination and leave that room alone.")
		}
	case history.Gated:
		out = append(out, p.Pod+" is gated: "+p.GatingMessage+". Remove the gate (spec.schedulingGates) and it enters activeQ.")
	case history.QueueName(queue.WaitingForPodGroup):
		out = append(out, p.Pod+" names PodGroup "+podGroupOf(v.c.World, p.Pod)+" (spec.schedulingGroup), which does not exist: the scheduler never tries it until the PodGroup is created.")
	}
	if pg := v.c.World.pods[p.Pod]; pg != nil && framework.PodGroupNameOf(pg) != "" && p.Queue != history.QueueName(queue.WaitingForPodGroup) {
		out = append(out, "", "It is a member of pod group "+framework.PodGroupNameOf(pg)+": the queue holds the group as one entry (under pod groups) and tries its members together in a group cycle.")
	}
	out = append(out, "", "enter: open its attempt (or run the scheduler until it is attempted) · B: breakpoint on it")
	return "Queue: " + string(p.Queue), out
}

func indexIn(list []engine.QueuedPod, pod string) int {
	for i := range list {
		if list[i].Pod == pod {
			return i
		}
	}
	return -1
}

func (v *queuesView) ShortHelp() []key.Binding {
	k := v.c.Keys
	return []key.Binding{k.Next, k.Step, k.Continue, withHelp(k.Enter, "enter", "open / run to pod"), k.ToggleBP, k.NextView, k.Explain, k.Help, k.Quit}
}

func (v *queuesView) FullHelp() [][]key.Binding {
	k := v.c.Keys
	return [][]key.Binding{k.vertical(withHelp(k.Enter, "enter", "open / run to pod"), k.ToggleBP, k.Search), k.global()}
}
