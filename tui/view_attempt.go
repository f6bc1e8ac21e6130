package tui

import (
	"fmt"
	"sort"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"

	"github.com/schedtui/schedtui/scheduler/record"
	"github.com/schedtui/schedtui/scheduler/why"
)

// attemptView is the pod of the focused attempt and its phase timeline,
// with the short "why" on top.
type attemptView struct {
	c     *Common
	w, h  int
	phase int // selected phase row
	// verdict is the short "why" of the focused attempt (Refresh computes
	// it), why the same wrapped to the view's width.
	verdict, why []string
	// summary is whySummary's answer for summaryOf: a live cluster
	// refreshes the active view on every capture, and the summary walks
	// the attempt's nodes (15,000 on a large cluster), so it is computed
	// again only when what it reads changed.
	summary   []string
	summaryOf summaryInputs
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
	if p := y - v.timelineTop(); p >= 0 && p < int(record.NumPhases) {
		v.phase = p
	}
	return nil
}

func (v *attemptView) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		k := v.c.Keys
		switch {
		case navigate(k, msg, v.h, func(dr, _ int) { v.phase = max(0, min(int(record.NumPhases)-1, v.phase+dr)) }):
		case key.Matches(msg, k.WhatIf):
			if a := v.c.focused(); a != nil {
				return emit(openWhatIfMsg{})
			}
		}
	case tea.MouseWheelMsg:
		wheel(msg, func(dr, _ int) { v.phase = max(0, min(int(record.NumPhases)-1, v.phase+dr)) })
	}
	return nil
}

// Refresh computes the verdict: why the attempt ended as it did, or,
// while stepping by phase, where the stepping stands.
func (v *attemptView) Refresh() {
	a := v.c.focused()
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
	v.verdict = append(forecastLine(v.c, v.c.Focus), v.summary...)
	v.wrapWhy()
}

// whyLines caps each verdict paragraph: a list of hundreds of nodes (a
// tie at the top score) must not push the pod and the timeline down.
const whyLines = 3

func (v *attemptView) wrapWhy() {
	v.why = v.why[:0]
	for _, l := range v.verdict {
		ls := wrap(l, v.w)
		if len(ls) > whyLines {
			// The start and the end of the sentence (the Scores view marks
			// each tied node with =).
			ls = append(ls[:whyLines-1:whyLines-1], fit("… "+ls[len(ls)-1], v.w))
		}
		v.why = append(v.why, ls...)
	}
}

// layout: why lines, blank, then pod (left) and phases (right).
func (v *attemptView) timelineTop() int {
	return min(len(v.why), max(0, v.h-14)) + 2
}

func (v *attemptView) View() string {
	st := v.c.St
	a := v.c.focused()
	if a == nil {
		return block(strings.Join(whySummary(nil, nil), "\n"), v.w, v.h)
	}
	why := v.why
	// Keep room for the timeline: at 80×24 the body is 19 lines.
	if n := max(0, v.h-14); len(why) > n {
		k := max(0, n-1)
		why = append(why[:k:k], "… (e explains, 3 opens the Filter map)")
	}
	var lines []string
	for i, l := range why {
		if i == 0 {
			lines = append(lines, st.Bold.Render(l))
		} else {
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
		if int(p) == v.phase {
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

func (v *attemptView) ShortHelp() []key.Binding {
	k := v.c.Keys
	return []key.Binding{k.Next, k.Step, k.Continue, k.WhatIf, k.NextView, k.Explain, k.Help, k.Quit}
}

func (v *attemptView) FullHelp() [][]key.Binding {
	k := v.c.Keys
	return [][]key.Binding{k.vertical(k.WhatIf), k.global()}
}
