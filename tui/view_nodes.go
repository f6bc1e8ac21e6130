package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	v1 "k8s.io/api/core/v1"

	"github.com/schedtui/schedtui/scheduler/why"
)

// nodesView lists the nodes (with their nominations) and details the
// selected one: allocatable vs requested as bars, taints, labels, pods.
// It shows the cluster as of the focused attempt (Common.cluster).
type nodesView struct {
	c      *Common
	w, h   int
	l      list
	order  []int
	filter matcher
	cl     *cluster // nil while the focused attempt's fork is computed
}

func newNodesView(c *Common) *nodesView { return &nodesView{c: c} }

func (v *nodesView) Init() tea.Cmd    { return nil }
func (v *nodesView) SetSize(w, h int) { v.w, v.h = w, h; v.l.h = h - 1; v.l.clamp() }

func (v *nodesView) Refresh() {
	v.order = v.order[:0]
	v.cl = v.c.cluster()
	if v.cl == nil {
		v.l.set(0)
		return
	}
	for i, n := range v.cl.nodes {
		if v.filter.match(n.node.Name) {
			v.order = append(v.order, i)
		}
	}
	v.l.set(len(v.order))
}

func (v *nodesView) selected() *nodeView {
	if v.cl == nil || v.l.cursor >= len(v.order) {
		return nil
	}
	return &v.cl.nodes[v.order[v.l.cursor]]
}

func (v *nodesView) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case searchMsg:
		v.filter = newMatcher(msg.q)
		v.Refresh()
	case selectNodeMsg:
		// The node is shown whatever the search.
		v.filter = matcher{}
		v.Refresh()
		for i, n := range v.order {
			if v.cl.nodes[n].node.Name == msg.node {
				v.l.cursor = i
				v.l.clamp()
			}
		}
	case tea.KeyPressMsg:
		if !searchKey(v.c, msg) {
			navigate(v.c.Keys, msg, v.l.h, v.l.move)
		}
	case tea.MouseWheelMsg:
		wheel(msg, v.l.move)
	}
	return nil
}

func (v *nodesView) listWidth() int { return min(34, v.w/3+4) }

func (v *nodesView) Click(x, y int) tea.Cmd {
	if x < v.listWidth() && y >= 1 {
		v.l.cursor = v.l.top + y - 1
		v.l.clamp()
	}
	return nil
}

func (v *nodesView) View() string {
	st := v.c.St
	switch {
	case v.c.World == nil:
		return block("loading…", v.w, v.h)
	case v.cl == nil:
		if f := v.c.Forks[v.c.Focus]; f != nil && f.err != nil {
			return block(fmt.Sprintf("Replaying the cluster as attempt %d saw it failed: %v", v.c.Focus+1, f.err), v.w, v.h)
		}
		return block(fmt.Sprintf("Replaying the cluster as attempt %d saw it…", v.c.Focus+1), v.w, v.h)
	}
	lw := v.listWidth()
	left := []string{st.HeadingE.wrap(fit(fmt.Sprintf("%-18s %4s %4s", "NODE", "PODS", "NOM"), lw))}
	for i := v.l.top; i < v.l.top+v.l.h && i < len(v.order); i++ {
		n := &v.cl.nodes[v.order[i]]
		s := fit(fmt.Sprintf("%-18s %4d %4d", n.node.Name, len(n.pods), len(v.cl.nominated[n.node.Name])), lw)
		if i == v.l.cursor {
			s = st.Sel.wrap(s)
		}
		left = append(left, s)
	}
	right := v.detail(v.w - lw - 2)
	sep := " " + st.Border.Render("│")
	var b strings.Builder
	for i := 0; i < v.h; i++ {
		if i > 0 {
			b.WriteByte('\n')
		}
		l, r := "", ""
		if i < len(left) {
			l = left[i]
		}
		if i < len(right) {
			r = right[i]
		}
		b.WriteString(line(l, lw) + sep + line(r, v.w-lw-2))
	}
	return b.String()
}

func (v *nodesView) detail(w int) []string {
	st := v.c.St
	n := v.selected()
	if n == nil {
		return []string{"no node"}
	}
	title := n.node.Name
	if v.cl != &v.c.World.cluster {
		title += fmt.Sprintf(" · as attempt %d saw it (before its decision)", v.c.Focus+1)
	}
	out := []string{st.Title.Render(fit(title, w))}
	bw := max(10, w-40)
	res := func(name string, used, alloc int64) {
		out = append(out, fmt.Sprintf("%-8s %s %s / %s", name, bar(used, alloc, bw), why.Amount(name, used), why.Amount(name, alloc)))
	}
	res("cpu", n.requested.MilliCPU, n.allocatable.MilliCPU)
	res("memory", n.requested.Memory, n.allocatable.Memory)
	res("pods", int64(len(n.pods)), int64(n.allocatable.AllowedPodNumber))
	for _, k := range sortedKeys(scalarNames(n.allocatable.ScalarResources)) {
		res(k, n.requested.ScalarResources[v1.ResourceName(k)], n.allocatable.ScalarResources[v1.ResourceName(k)])
	}
	if n.node.Spec.Unschedulable {
		out = append(out, st.BadE.wrap("cordoned (spec.unschedulable)"))
	}
	var taints []string
	for _, t := range n.node.Spec.Taints {
		taints = append(taints, t.ToString())
	}
	out = append(out, "taints: "+orNone(strings.Join(taints, ", ")))
	var labels []string
	for _, k := range sortedKeys(n.node.Labels) {
		labels = append(labels, k+"="+n.node.Labels[k])
	}
	for i, l := range wrap("labels: "+strings.Join(labels, ", "), w) {
		if i < 4 {
			out = append(out, l)
		}
	}
	if noms := v.cl.nominated[n.node.Name]; len(noms) > 0 {
		var s []string
		for _, nm := range noms {
			s = append(s, fmt.Sprintf("%s (%d)", nm.pod, nm.priority))
		}
		out = append(out, st.WarnE.wrap("nominated here: "+strings.Join(s, ", ")))
	}
	// Devices come before pods: a node runs many more pods than it has
	// devices, and the view shows only its height.
	out = append(out, deviceLines(st, v.cl.dra.nodeDevices(n.node), w, max(4, v.h/2))...)
	out = append(out, st.HeadingE.wrap(fmt.Sprintf("pods (%d)", len(n.pods))))
	for _, p := range n.pods {
		r := podRequests(p).Resource
		out = append(out, fmt.Sprintf("  %-34s cpu %-6s mem %s", p.Namespace+"/"+p.Name, milli(r.MilliCPU), bytesQ(r.Memory)))
	}
	return out
}

func (v *nodesView) Explain() (string, []string) {
	n := v.selected()
	if n == nil {
		return "Nodes", nil
	}
	free := n.allocatable.MilliCPU - n.requested.MilliCPU
	out := []string{
		fmt.Sprintf("Allocatable is what the kubelet offers pods; requested is the sum of the requests of the pods the scheduler placed here (%d pods). NodeResourcesFit lets a pod in only if its request fits in the difference: %s cpu free now.", len(n.pods), milli(free)),
		"", "Nominated pods are not running here yet, but Filter reserves their room for pods of lower or equal priority.",
	}
	if devs := v.cl.dra.nodeDevices(n.node); len(devs) > 0 {
		out = append(out, "", explainDevices)
	}
	return n.node.Name, out
}

func (v *nodesView) ShortHelp() []key.Binding {
	k := v.c.Keys
	return []key.Binding{k.Up, k.Down, k.Search, k.Explain, k.Back, k.Next, k.Help}
}

func (v *nodesView) FullHelp() [][]key.Binding {
	k := v.c.Keys
	return [][]key.Binding{k.vertical(k.Search, withHelp(k.WhatIfObject, "W", "what-if: edit this node's YAML")), k.global()}
}
