package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/schedtui/schedtui/scheduler"
	"github.com/schedtui/schedtui/scheduler/record"
	"github.com/schedtui/schedtui/scheduler/why"
)

// whatIfEdit is the user's change to a pod, as the form's text.
type whatIfEdit struct {
	Requests, Tolerations, NodeSelector string
}

// editOf renders a pod's current values in the form's syntax.
func editOf(p *v1.Pod) whatIfEdit {
	var e whatIfEdit
	r := podRequests(p).Resource
	reqs := []string{"cpu=" + milli(r.MilliCPU), "memory=" + bytesQ(r.Memory)}
	if r.EphemeralStorage > 0 {
		reqs = append(reqs, "ephemeral-storage="+bytesQ(r.EphemeralStorage))
	}
	for _, k := range sortedKeys(scalarNames(r.ScalarResources)) {
		reqs = append(reqs, fmt.Sprintf("%s=%d", k, r.ScalarResources[v1.ResourceName(k)]))
	}
	e.Requests = strings.Join(reqs, ",")
	var tols []string
	for _, t := range p.Spec.Tolerations {
		tols = append(tols, tolerationSyntax(t))
	}
	e.Tolerations = strings.Join(tols, ",")
	var sel []string
	for _, k := range sortedKeys(p.Spec.NodeSelector) {
		sel = append(sel, k+"="+p.Spec.NodeSelector[k])
	}
	e.NodeSelector = strings.Join(sel, ",")
	return e
}

// tolerationSyntax is key[=value][:Effect]; a key without value means
// operator Exists, "*" tolerates everything.
func tolerationSyntax(t v1.Toleration) string {
	s := t.Key
	if s == "" {
		s = "*"
	}
	if t.Operator != v1.TolerationOpExists {
		s += "=" + t.Value
	}
	if t.Effect != "" {
		s += ":" + string(t.Effect)
	}
	return s
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// applyEdit returns a copy of p with the edit applied. The requests are
// the pod's totals: they go on the first container and the other
// containers' requests for those resources are dropped, so the sum is what
// the user typed.
func applyEdit(p *v1.Pod, e whatIfEdit) (*v1.Pod, error) {
	out := p.DeepCopy()
	if len(out.Spec.Containers) == 0 {
		return nil, fmt.Errorf("pod has no containers")
	}
	reqs := v1.ResourceList{}
	for _, f := range splitList(e.Requests) {
		k, val, ok := strings.Cut(f, "=")
		if !ok {
			return nil, fmt.Errorf("requests: %q is not name=quantity", f)
		}
		q, err := resource.ParseQuantity(strings.TrimSpace(val))
		if err != nil {
			return nil, fmt.Errorf("requests: %s: %v", k, err)
		}
		reqs[v1.ResourceName(strings.TrimSpace(k))] = q
	}
	for i := range out.Spec.Containers {
		c := &out.Spec.Containers[i]
		for name := range reqs {
			delete(c.Resources.Requests, name)
			// A limit below the new request would be rejected by the API
			// server; the what-if is about the request, so drop it.
			if l, ok := c.Resources.Limits[name]; ok && i == 0 && l.Cmp(reqs[name]) < 0 {
				delete(c.Resources.Limits, name)
			}
		}
	}
	c := &out.Spec.Containers[0]
	if c.Resources.Requests == nil {
		c.Resources.Requests = v1.ResourceList{}
	}
	for name, q := range reqs {
		c.Resources.Requests[name] = q
	}
	out.Spec.Resources = nil // pod-level requests would override the containers'
	out.Spec.Tolerations = nil
	for _, f := range splitList(e.Tolerations) {
		t := v1.Toleration{Operator: v1.TolerationOpExists}
		kv, effect, _ := strings.Cut(f, ":")
		if effect != "" {
			switch v1.TaintEffect(effect) {
			case v1.TaintEffectNoSchedule, v1.TaintEffectPreferNoSchedule, v1.TaintEffectNoExecute:
				t.Effect = v1.TaintEffect(effect)
			default:
				return nil, fmt.Errorf("tolerations: effect %q is not NoSchedule, PreferNoSchedule or NoExecute", effect)
			}
		}
		k, val, hasVal := strings.Cut(kv, "=")
		if k != "*" {
			t.Key = k
		}
		if hasVal {
			t.Operator, t.Value = v1.TolerationOpEqual, val
		}
		out.Spec.Tolerations = append(out.Spec.Tolerations, t)
	}
	out.Spec.NodeSelector = nil
	for _, f := range splitList(e.NodeSelector) {
		k, val, ok := strings.Cut(f, "=")
		if !ok {
			return nil, fmt.Errorf("nodeSelector: %q is not key=value", f)
		}
		if out.Spec.NodeSelector == nil {
			out.Spec.NodeSelector = map[string]string{}
		}
		out.Spec.NodeSelector[strings.TrimSpace(k)] = strings.TrimSpace(val)
	}
	return out, nil
}

// whatIfResult compares the attempt of the edited pod with the original.
type whatIfResult struct {
	attempt int
	pod     string
	edit    whatIfEdit
	// objects: the object editor's what-if, whose edits are with (each
	// object added or replaced) and without (each removed).
	objects       bool
	with, without []string
	orig, alt     *record.Attempt
	rows          []diffRow
	changed       int
	err           error
}

// diffRow is one node's verdict before and after the what-if.
type diffRow = why.NodeDiff

// runWhatIf re-runs attempt i with the edited pod on a fork: the engine is
// never touched.
func runWhatIf(b *Backend, i int, orig *record.Attempt, e whatIfEdit) tea.Cmd {
	res := &whatIfResult{attempt: i, pod: orig.Pod, edit: e, orig: orig}
	return reRun(b, res, func(_ *scheduler.Scheduler, pod *v1.Pod) (why.Edits, error) {
		edited, err := applyEdit(pod, e)
		// The edit is the pod as the forked cluster now stores it: the cycle
		// schedules a pod's stored version, as the queue hands over the latest.
		return why.Edits{Objects: []any{edited}}, err
	})
}

// runWhatIfObjects re-runs attempt i with objects added, replaced or
// removed (the object editor's edits).
func runWhatIfObjects(b *Backend, i int, orig *record.Attempt, edits why.Edits) tea.Cmd {
	res := &whatIfResult{attempt: i, pod: orig.Pod, objects: true, orig: orig}
	return reRun(b, res, func(sched *scheduler.Scheduler, _ *v1.Pod) (why.Edits, error) {
		res.with, res.without = edits.Describe(sched)
		return edits, nil
	})
}

// reRun re-runs res's attempt on a fork with the edits editsOf makes
// (why.Apply), and diffs the attempts node by node.
func reRun(b *Backend, res *whatIfResult, editsOf func(*scheduler.Scheduler, *v1.Pod) (why.Edits, error)) tea.Cmd {
	i, orig := res.attempt, res.orig
	return func() tea.Msg {
		b.Locked(func() {
			if !(attemptRef{i, orig}).in(b.Attempts()) {
				res.err = errReplaced
				return
			}
			sched, pod, err := b.Fork(i)
			if err != nil {
				res.err = err
				return
			}
			edits, err := editsOf(sched, pod)
			if err != nil {
				res.err = err
				return
			}
			cur, _, err := why.Apply(sched, pod, edits)
			if err != nil {
				res.err = err
				return
			}
			res.alt = sched.ScheduleOne(cur)
		})
		if res.alt != nil {
			res.rows, res.changed = why.DiffAttempts(orig, res.alt)
		}
		return routed{to: viewWhatIf, msg: whatIfMsg{res: res}}
	}
}

// whatIfView shows the last what-if: the edit, the outcome before and
// after, and the per-node diff of the Filter map and the scores.
type whatIfView struct {
	c    *Common
	w, h int
	res  *whatIfResult
	busy bool
	l    list
	only bool // only changed rows
	rows []diffRow
}

func newWhatIfView(c *Common) *whatIfView { return &whatIfView{c: c, only: true} }

func (v *whatIfView) Init() tea.Cmd    { return nil }
func (v *whatIfView) SetSize(w, h int) { v.w, v.h = w, h; v.l.h = max(1, h-5); v.l.clamp() }
func (v *whatIfView) Refresh() {
	v.rows = v.rows[:0]
	if v.res != nil {
		for _, r := range v.res.rows {
			if !v.only || r.Changed {
				v.rows = append(v.rows, r)
			}
		}
	}
	v.l.set(len(v.rows))
}

func (v *whatIfView) Click(_, y int) tea.Cmd {
	v.l.cursor = v.l.top + y - 5
	v.l.clamp()
	return nil
}

func (v *whatIfView) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case whatIfStartedMsg:
		v.busy = true
	case whatIfMsg:
		v.res, v.busy = msg.res, false
		v.Refresh()
	case tea.KeyPressMsg:
		k := v.c.Keys
		switch {
		case navigate(k, msg, v.l.h, v.l.move):
		case key.Matches(msg, k.AllCols):
			v.only = !v.only
			v.Refresh()
		}
	case tea.MouseWheelMsg:
		wheel(msg, v.l.move)
	}
	return nil
}

func (v *whatIfView) View() string {
	st := v.c.St
	switch {
	case v.busy:
		return block("re-running the attempt on a copy of the cluster…", v.w, v.h)
	case v.res == nil:
		return block("No what-if yet. In the Pod view (2) press w, change requests, tolerations or the nodeSelector, and press enter; or press W to edit any object's YAML (the pod, a node, a claim, another pod: delete it, move it, or add a node like one): the attempt is re-run on a copy of the cluster as it was, and every node's verdict is compared here.", v.w, v.h)
	case v.res.err != nil:
		return block("what-if failed: "+v.res.err.Error(), v.w, v.h)
	}
	r := v.res
	outcome := func(a *record.Attempt) string {
		s := a.Outcome.String()
		if a.Node != "" {
			s += " on " + a.Node
		}
		if a.Nominated != "" && a.Outcome != record.Scheduled {
			s += ", nominated " + a.Nominated
		}
		return s
	}
	lines := []string{
		st.Title.Render(fit("What-if for "+r.pod+fmt.Sprintf(" (attempt #%d)", r.attempt+1), v.w)),
		fit(r.edits(), v.w),
		fit(fmt.Sprintf("before: %s", outcome(r.orig)), v.w),
		st.Bold.Render(fit(fmt.Sprintf("after:  %s   (%d of %d nodes changed; a: %s)", outcome(r.alt), r.changed, len(r.rows), map[bool]string{true: "show all", false: "only changed"}[v.only]), v.w)),
	}
	cw := (v.w - 22) / 2
	lines = append(lines, st.HeadingE.wrap(fit(fmt.Sprintf("%-20s %s %s", "NODE", fit("BEFORE", cw), "AFTER"), v.w)))
	for i := v.l.top; i < v.l.top+v.l.h && i < len(v.rows); i++ {
		d := v.rows[i]
		s := fit(fmt.Sprintf("%-20s %s %s", d.Node, fit(d.Before, cw), d.After), v.w)
		switch {
		case i == v.l.cursor:
			s = st.Sel.wrap(s)
		case d.Changed:
			s = st.WarnE.wrap(s)
		}
		lines = append(lines, s)
	}
	if len(v.rows) == 0 {
		lines = append(lines, "no node's verdict changed")
	}
	return block(strings.Join(lines, "\n"), v.w, v.h)
}

// edits is the what-if's edits as one line.
func (r *whatIfResult) edits() string {
	if !r.objects {
		return fmt.Sprintf("requests %s · tolerations %s · nodeSelector %s", orNone(r.edit.Requests), orNone(r.edit.Tolerations), orNone(r.edit.NodeSelector))
	}
	var parts []string
	if len(r.with) > 0 {
		parts = append(parts, "with "+strings.Join(r.with, ", "))
	}
	if len(r.without) > 0 {
		parts = append(parts, "without "+strings.Join(r.without, ", "))
	}
	return strings.Join(parts, " · ")
}

func (v *whatIfView) Explain() (string, []string) {
	if v.l.cursor < len(v.rows) {
		d := v.rows[v.l.cursor]
		return "What-if on " + d.Node, []string{"before: " + d.Before, "after:  " + d.After}
	}
	return "What-if", []string{"The what-if runs the same attempt on a fresh scheduler holding the cluster as the attempt saw it; the engine's state is untouched."}
}

func (v *whatIfView) ShortHelp() []key.Binding {
	k := v.c.Keys
	return []key.Binding{k.WhatIf, withHelp(k.AllCols, "a", "all / changed"), k.Up, k.Down, k.Explain, k.Help}
}

func (v *whatIfView) FullHelp() [][]key.Binding {
	k := v.c.Keys
	return [][]key.Binding{k.vertical(withHelp(k.AllCols, "a", "all / changed"), k.WhatIfObject), k.global()}
}
