package tui

import (
	"fmt"
	"sort"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"

	"github.com/schedtui/schedtui/scheduler/record"
	"github.com/schedtui/schedtui/scheduler/why"
)

// attemptView is the pod of the focused attempt and its phase timeline,
// under the short "why" (the verdict and its hints): the part a newcomer
// reads first comes first. The view is one document that scrolls: the
// selection (j/k) runs through the verdict's paragraphs, then the phases,
// and e explains whichever is selected.
type attemptView struct {
	c    *Common
	w, h int
	// para is the selected verdict paragraph, or -1 when a phase is.
	para  int
	phase int // selected phase row
	top   int // first document line shown
	// verdict is the short "why" of the focused attempt (Refresh computes
	// it), why the same wrapped to the view's width, paraAt the line of
	// why where each paragraph starts.
	verdict, why []string
	paraAt       []int
	// summary is whySummary's answer for summaryOf: a live cluster
	// refreshes the active view on every capture, and the summary walks
	// the attempt's nodes (15,000 on a large cluster), so it is computed
	// again only when what it reads changed.
	summary   []string
	summaryOf summaryInputs
	// shown is the attempt the selection was made on: another attempt
	// starts again at its verdict.
	shown *record.Attempt
}

// summaryInputs is what whySummary reads of the focused attempt: the
// attempt (which retention may summarize in place), and its fork, full
// diagnosis and hints, each replaced as a whole when it arrives.
type summaryInputs struct {
	valid      bool
	a          *record.Attempt
	summarized bool
	fork       *forkResult
	diag       *diagResult
	hints      *hintsResult
}

func (v *attemptView) summaryInputs(a *record.Attempt) summaryInputs {
	in := summaryInputs{valid: true, a: a}
	if a != nil {
		in.summarized = a.Summarized
		in.fork, in.diag, in.hints = v.c.Forks[v.c.Focus], v.c.Diags[v.c.Focus], v.c.Hints[v.c.Focus]
	}
	return in
}

func newAttemptView(c *Common) *attemptView {
	return &attemptView{c: c, phase: int(record.PhaseFilter)}
}

func (v *attemptView) Init() tea.Cmd    { return nil }
func (v *attemptView) SetSize(w, h int) { v.w, v.h = w, h; v.wrapWhy() }
func (v *attemptView) Click(_, y int) tea.Cmd {
	y += v.top
	if p := y - v.timelineTop(); p >= 0 && p < int(record.NumPhases) {
		v.para, v.phase = -1, p
		return nil
	}
	for i := len(v.paraAt) - 1; i >= 0; i-- {
		if y >= v.paraAt[i] && y < len(v.why) {
			v.para = i
			break
		}
	}
	return nil
}

// selected is the selection's index among the verdict's paragraphs, then
// the phases.
func (v *attemptView) selected() int {
	if v.para >= 0 {
		return v.para
	}
	return len(v.verdict) + v.phase
}

// move moves the selection by dr items and scrolls it into view.
func (v *attemptView) move(dr, _ int) {
	i := max(0, min(len(v.verdict)+int(record.NumPhases)-1, v.selected()+dr))
	if i < len(v.verdict) {
		v.para = i
	} else {
		v.para, v.phase = -1, i-len(v.verdict)
	}
	v.scroll()
}

// scroll moves the window so that the selected item's lines show, as
// many as fit.
func (v *attemptView) scroll() {
	first, last := v.timelineTop()+v.phase, v.timelineTop()+v.phase
	if v.para >= 0 {
		first, last = v.paraAt[v.para], len(v.why)-1
		if v.para+1 < len(v.paraAt) {
			last = v.paraAt[v.para+1] - 1
		}
		if v.para == 0 {
			first = 0
		}
	}
	h := v.h
	if v.docLines() > v.h {
		h-- // the last line may say what is below
	}
	if last >= v.top+h {
		v.top = last - h + 1
	}
	if first < v.top {
		v.top = first
	}
	v.top = max(0, min(v.top, v.docLines()-v.h))
}

func (v *attemptView) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		k := v.c.Keys
		switch {
		case navigate(k, msg, v.h, v.move):
		}
	case tea.MouseWheelMsg:
		wheel(msg, v.move)
	}
	return nil
}

// Refresh computes the verdict: why the attempt ended as it did, or,
// while stepping by phase, where the stepping stands.
func (v *attemptView) Refresh() {
	a := v.c.focused()
	if a != v.shown {
		v.shown, v.para, v.top = a, 0, 0
	}
	if a != nil && !v.c.revealed(a.LastPhase()) {
		// Stepping by phase: the verdict would give the ending away.
		p := v.c.World.cursor.Phase
		v.verdict = []string{fmt.Sprintf("Stepping through %s: at %s. s reveals the next phase, n finishes the attempt.", a.Pod, p), phasePurpose[p]}
		v.wrapWhy()
		return
	}
	if in := v.summaryInputs(a); in != v.summaryOf {
		v.summary, v.summaryOf = whySummary(a, v.c), in
	}
	// The forecast's line counts the live changes since it was made: it
	// changes with every capture, and costs nothing.
	v.verdict = forecastLine(v.c, v.c.Focus)
	if g := v.c.World.groupOf(v.c.Focus); g != nil {
		// A member's attempt was made in its group's cycle: the group's
		// verdict comes first, then the member's own.
		v.verdict = append(v.verdict, groupLines(v.c, g, v.w)...)
	}
	v.verdict = append(v.verdict, v.summary...)
	v.wrapWhy()
}

// whyLines caps each verdict paragraph: a list of hundreds of nodes (a
// tie at the top score) must not push the pod and the timeline down; e
// shows the paragraph whole.
const whyLines = 3

func (v *attemptView) wrapWhy() {
	v.why, v.paraAt = v.why[:0], v.paraAt[:0]
	for _, l := range v.verdict {
		v.paraAt = append(v.paraAt, len(v.why))
		ls := []string{l}
		if ansi.StringWidth(l) > v.w {
			// Wrapped only when too long: a line that fits keeps its
			// spacing (the members × nodes matrix's columns).
			ls = wrap(l, v.w)
		}
		if len(ls) > whyLines {
			// The start and the end of the sentence (the Scores view marks
			// each tied node with =).
			ls = append(ls[:whyLines-1:whyLines-1], fit("… "+ls[len(ls)-1], v.w))
		}
		v.why = append(v.why, ls...)
	}
	if v.para >= len(v.verdict) {
		v.para = len(v.verdict) - 1
	}
	v.scroll()
}

// layout: why lines, blank, then pod (left) and phases (right), the
// first line of the phases the attempt's title.
func (v *attemptView) timelineTop() int {
	top := len(v.why) + 2
	if a := v.c.focused(); a != nil && a.Summarized {
		top++
	}
	return top
}

// docLines is the document's length: the verdict, a blank line, and the
// longer of the pod's lines and the timeline.
func (v *attemptView) docLines() int {
	a := v.c.focused()
	if a == nil {
		return 0
	}
	return len(v.why) + 1 + max(len(v.podLines(max(1, min(v.w/2+4, 56)))), v.timelineTop()-len(v.why)-1+int(record.NumPhases))
}

func (v *attemptView) View() string {
	st := v.c.St
	a := v.c.focused()
	if a == nil {
		return block(strings.Join(whySummary(nil, nil), "\n"), v.w, v.h)
	}
	var lines []string
	for i, l := range v.why {
		switch {
		case v.para >= 0 && i >= v.paraAt[v.para] && (v.para+1 == len(v.paraAt) || i < v.paraAt[v.para+1]):
			lines = append(lines, st.Sel.wrap(line(l, v.w)))
		case i == 0:
			lines = append(lines, st.Bold.Render(l))
		default:
			lines = append(lines, l)
		}
	}
	lines = append(lines, "")
	leftW := min(v.w/2+4, 56)
	rightW := v.w - leftW - 1
	left := v.podLines(leftW)
	right := v.phaseLines(a, rightW)
	n := max(len(left), len(right))
	for i := 0; i < n; i++ {
		l, r := "", ""
		if i < len(left) {
			l = left[i]
		}
		if i < len(right) {
			r = right[i]
		}
		lines = append(lines, line(l, leftW)+" "+r)
	}
	top := max(0, min(v.top, len(lines)-v.h))
	lines = lines[top:]
	if len(lines) > v.h {
		// More below: say how to reach it.
		lines = append(lines[:v.h-1], st.Dim.Render(fit(fmt.Sprintf("↓ %d more lines (j/k select and scroll, e explains the selection)", len(lines)-v.h+1), v.w)))
	}
	return block(strings.Join(lines, "\n"), v.w, v.h)
}

func (v *attemptView) podLines(w int) []string {
	st := v.c.St
	a := v.c.focused()
	p := v.c.pod()
	out := []string{st.Title.Render(fit(fmt.Sprintf("Pod %s", a.Pod), w))}
	if p == nil {
		return append(out, "(pod object not available)")
	}
	kv := func(k, val string) {
		for i, l := range wrap(val, w-14) {
			if i == 0 {
				out = append(out, st.Dim.Render(fit(k, 13))+" "+l)
			} else {
				out = append(out, strings.Repeat(" ", 14)+l)
			}
		}
	}
	prio := fmt.Sprint(corev1helpers.PodPriority(p))
	if p.Spec.PriorityClassName != "" {
		prio += " (" + p.Spec.PriorityClassName + ")"
	}
	kv("priority", prio)
	r := podRequests(p).Resource
	reqs := []string{"cpu " + milli(r.MilliCPU), "memory " + bytesQ(r.Memory)}
	if r.EphemeralStorage > 0 {
		reqs = append(reqs, "ephemeral "+bytesQ(r.EphemeralStorage))
	}
	for _, k := range sortedKeys(scalarNames(r.ScalarResources)) {
		reqs = append(reqs, fmt.Sprintf("%s %d", k, r.ScalarResources[v1.ResourceName(k)]))
	}
	kv("requests", strings.Join(reqs, ", "))
	if len(p.Spec.NodeSelector) > 0 {
		var s []string
		for _, k := range sortedKeys(p.Spec.NodeSelector) {
			s = append(s, k+"="+p.Spec.NodeSelector[k])
		}
		kv("nodeSelector", strings.Join(s, ", "))
	}
	if aff := affinitySummary(p); aff != "" {
		kv("affinity", aff)
	}
	if len(p.Spec.Tolerations) > 0 {
		var s []string
		for _, t := range p.Spec.Tolerations {
			s = append(s, tolerationString(t))
		}
		kv("tolerations", strings.Join(s, ", "))
	}
	for _, c := range p.Spec.TopologySpreadConstraints {
		kv("spread", fmt.Sprintf("%s maxSkew %d %s", c.TopologyKey, c.MaxSkew, c.WhenUnsatisfiable))
	}
	var ports []string
	for _, c := range p.Spec.Containers {
		for _, port := range c.Ports {
			if port.HostPort != 0 {
				ports = append(ports, fmt.Sprintf("%d/%s", port.HostPort, port.Protocol))
			}
		}
	}
	if len(ports) > 0 {
		kv("hostPorts", strings.Join(ports, ", "))
	}
	if len(p.Spec.SchedulingGates) > 0 {
		kv("gates", fmt.Sprint(len(p.Spec.SchedulingGates)))
	}
	for _, c := range v.claimLines(p, a) {
		kv("claim", c)
	}
	if a.Nominated != "" && v.c.revealed(record.PhasePostFilter) {
		kv("nominated", a.Nominated)
	}
	out = append(out, "", st.Dim.Render("w: what-if (edit requests, tolerations, nodeSelector)"))
	return out
}

func scalarNames(m map[v1.ResourceName]int64) map[string]bool {
	out := map[string]bool{}
	for k := range m {
		out[string(k)] = true
	}
	return out
}

func tolerationString(t v1.Toleration) string {
	s := t.Key
	if t.Operator == v1.TolerationOpExists {
		if s == "" {
			s = "*"
		}
		s += " Exists"
	} else if t.Value != "" {
		s += "=" + t.Value
	}
	if t.Effect != "" {
		s += ":" + string(t.Effect)
	}
	return s
}

func affinitySummary(p *v1.Pod) string {
	a := p.Spec.Affinity
	if a == nil {
		return ""
	}
	var s []string
	if na := a.NodeAffinity; na != nil {
		if r := na.RequiredDuringSchedulingIgnoredDuringExecution; r != nil {
			for _, t := range r.NodeSelectorTerms {
				s = append(s, "node: "+why.NodeSelectorTermString(t))
			}
		}
		if n := len(na.PreferredDuringSchedulingIgnoredDuringExecution); n > 0 {
			s = append(s, fmt.Sprintf("node preferred: %d terms", n))
		}
	}
	terms := func(kind string, ts []v1.PodAffinityTerm) {
		for _, t := range ts {
			sel, _ := metav1.LabelSelectorAsSelector(t.LabelSelector)
			s = append(s, fmt.Sprintf("%s %s per %s", kind, sel, t.TopologyKey))
		}
	}
	if pa := a.PodAffinity; pa != nil {
		terms("with", pa.RequiredDuringSchedulingIgnoredDuringExecution)
	}
	if pa := a.PodAntiAffinity; pa != nil {
		terms("away from", pa.RequiredDuringSchedulingIgnoredDuringExecution)
	}
	sort.Strings(s)
	return strings.Join(s, "; ")
}

func (v *attemptView) phaseLines(a *record.Attempt, w int) []string {
	st := v.c.St
	title := fmt.Sprintf("Attempt #%d · %s", a.Seq, outcomeText(a, v.c))
	if v.c.World != nil && v.c.World.profiles > 1 {
		// Several profiles: which one scheduled the pod (its schedulerName).
		title += " · profile " + a.Profile
	}
	out := []string{st.Title.Render(fit(title, w))}
	if a.Summarized {
		// Retention kept this attempt's line only (retention.go).
		out = append(out, st.Dim.Render(fit(" "+summaryOnly(a), w)))
	}
	for p := record.Phase(0); p < record.NumPhases; p++ {
		ps := a.Phases[p]
		mark, text, e := "·", ps.Code.String(), st.DimE
		switch {
		case !v.c.revealed(p):
			mark, text = "…", "not yet stepped"
		case p == record.PhasePreEnqueue:
			mark, text, e = "✓", "passed (entered activeQ)", st.GoodE
		case ps.Code == record.CodeNotRun:
			mark, text = "–", "not run"
		case ps.Code == record.CodeSuccess:
			mark, text, e = "✓", "Success", st.GoodE
		default:
			mark, e = "✗", st.BadE
			if ps.Plugin != "" {
				text += " (" + ps.Plugin + ")"
			}
			if ps.Message != "" && p != record.PhaseFilter {
				text += ": " + ps.Message
			}
		}
		s := fit(fmt.Sprintf(" %s %-15s %s", mark, p, text), w)
		if v.para < 0 && int(p) == v.phase {
			s = st.Sel.wrap(s)
		} else {
			s = e.wrap(s)
		}
		out = append(out, s)
	}
	return out
}

func outcomeText(a *record.Attempt, c *Common) string {
	if !c.revealed(a.LastPhase()) {
		return "in progress"
	}
	s := a.Outcome.String()
	if a.Node != "" {
		s += " → " + a.Node
	}
	if a.Nominated != "" && a.Outcome != record.Scheduled {
		s += " (nominated " + a.Nominated + ")"
	}
	return s
}

func (v *attemptView) Explain() (string, []string) {
	if v.para >= 0 && v.para < len(v.verdict) {
		return explainVerdict(v.para, v.verdict[v.para])
	}
	p := record.Phase(v.phase)
	out := []string{phasePurpose[p]}
	if a := v.c.focused(); a != nil && v.c.revealed(p) {
		ps := a.Phases[p]
		if ps.Code != record.CodeNotRun && ps.Code != record.CodeSuccess {
			out = append(out, "", fmt.Sprintf("Here: %s %s", ps.Code, ps.Plugin))
			out = append(out, wrap(ps.Message, 200)...)
		}
		if p == record.PhaseFilter && a.NodesToFind > 0 && int(a.NodesToFind) < len(a.Nodes.Names) {
			out = append(out, "", fmt.Sprintf("The search stopped after %d feasible nodes (percentageOfNodesToScore), starting at node #%d.", a.NodesToFind, a.StartIndex))
		}
	}
	return "Phase " + p.String(), out
}

// explainVerdict is the teaching pane's text for verdict paragraph i: the
// paragraph whole (the view caps each at whyLines) and what kind of
// statement it is.
func explainVerdict(i int, para string) (string, []string) {
	var title, about string
	switch {
	case strings.HasPrefix(para, "Hint:"):
		title, about = "hint", "A hint is a change schedtui tried on a copy of the cluster as this attempt saw it, re-running the attempt with it: \"proven\" means the pod then fits. Nothing is changed in the cluster. w opens the what-if form to try your own change."
	case strings.HasPrefix(para, "Hints:"):
		title, about = "hints", "Hints are changes to the pod or the nodes, each proven by re-running the attempt on a copy of the cluster."
	case strings.HasPrefix(para, "•"):
		title, about = "a reason nodes were rejected", "Each bullet is one Filter rejection: how many nodes gave it, the plugin that did, and what the pod asks against what the nodes have. 3 opens the Filter map: a row per node, a column per plugin; e there explains one cell."
	case strings.HasPrefix(para, "Preemption"):
		title, about = "preemption", "When no node fits, PostFilter (DefaultPreemption) looks for a node where evicting lower-priority pods would make room. 5 opens the Preempt view: the candidates, their victims and why one was chosen."
	case i == 0:
		title, about = "the verdict", "How the attempt ended, in one line; the lines under it say why and what would change it. j/k select a line, e explains it."
	default:
		title = "the verdict"
	}
	body := []string{para}
	if about != "" {
		body = append(body, "", about)
	}
	return "Verdict: " + title, body
}

func (v *attemptView) ShortHelp() []key.Binding {
	k := v.c.Keys
	return []key.Binding{k.Next, k.Step, k.Continue, k.WhatIf, k.NextView, k.Explain, k.Help, k.Quit}
}

func (v *attemptView) FullHelp() [][]key.Binding {
	k := v.c.Keys
	return [][]key.Binding{k.vertical(withHelp(k.WhatIfObject, "W", "what-if: edit this pod's YAML")), k.global()}
}
