package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/schedtui/schedtui/scheduler/engine"
)

// breakpointsDialog edits the breakpoints continue (c) stops at: a line
// to add one in the editor's syntax (see parseBreakpoint) and the list.
type breakpointsDialog struct {
	c *Common
	inputs
	w      int
	cursor int
}

func newBreakpointsDialog(c *Common) *breakpointsDialog {
	return &breakpointsDialog{c: c, inputs: newInputs(c, [2]string{"add: ", "pod=default/web-*  |  group=default/llm-*  |  unschedulable  |  preemption  |  node=NAME"})}
}

func (d *breakpointsDialog) Init() tea.Cmd    { return nil }
func (d *breakpointsDialog) Title() string    { return "breakpoints editor" }
func (d *breakpointsDialog) Inline() bool     { return false }
func (d *breakpointsDialog) SetSize(w, _ int) { d.w = w; d.setWidth(max(10, w-10)) }

func (d *breakpointsDialog) Open() tea.Cmd {
	d.restyle()
	return d.in[0].Focus()
}

// selected is the cursor within the list as it is now.
func (d *breakpointsDialog) selected() int {
	return max(0, min(d.cursor, len(d.c.Bps)-1))
}

func (d *breakpointsDialog) Update(msg tea.Msg) tea.Cmd {
	kmsg, ok := dialogKey(d.c, d, msg)
	if !ok {
		return nil
	}
	k := d.c.Keys
	switch {
	case key.Matches(kmsg, k.Close):
		d.in[0].Blur()
		closeDialog(d.c)
	case key.Matches(kmsg, k.BPAdd):
		if v := d.in[0].Value(); v != "" {
			bp, err := parseBreakpoint(v)
			if err != nil {
				d.c.post(errorStatus(err.Error()))
				return nil
			}
			d.c.post(toggleBreakpointMsg{bp})
			d.in[0].SetValue("")
		}
	case key.Matches(kmsg, k.BPUp):
		d.cursor = max(0, d.selected()-1)
	case key.Matches(kmsg, k.BPDown):
		d.cursor = min(len(d.c.Bps)-1, d.selected()+1)
	case key.Matches(kmsg, k.BPDel):
		if len(d.c.Bps) > 0 {
			d.c.post(removeBreakpointMsg{d.selected()})
		}
	default:
		return d.update(0, kmsg)
	}
	return nil
}

func (d *breakpointsDialog) View() string {
	d.restyle()
	st := d.c.St
	out := []string{st.Title.Render("Breakpoints — continue (c) stops at the first attempt matching any of them"), ""}
	if len(d.c.Bps) == 0 {
		out = append(out, st.Dim.Render("  none"))
	}
	for i, bp := range d.c.Bps {
		s := fmt.Sprintf("  %d. %s", i+1, bpString(bp))
		if i == d.selected() {
			s = st.Sel.wrap(fit(s, d.w))
		}
		out = append(out, s)
	}
	out = append(out, "", d.in[0].View(), "",
		st.Dim.Render("enter adds (or removes an identical one) · ↑/↓ select · delete/ctrl+d removes · esc closes"))
	for _, l := range d.syntax()[1:] {
		out = append(out, st.Dim.Render(l))
	}
	return strings.Join(out, "\n")
}

// syntax is the editor's syntax, for its help (f1) below its keys; the
// editor itself shows the lines after the first.
func (d *breakpointsDialog) syntax() []string {
	return []string{
		"Breakpoints: pod=GLOB, group=GLOB, node=NAME, unschedulable, preemption.",
		"pod=GLOB matches namespace/name (path.Match; a bare name matches any namespace)",
		"group=GLOB stops at the members of a matching PodGroup (its group cycle)",
	}
}

func (d *breakpointsDialog) ShortHelp() []key.Binding {
	k := d.c.Keys
	return []key.Binding{k.BPAdd, k.BPUp, k.BPDown, k.BPDel, k.Close, k.DialogHelp}
}

func (d *breakpointsDialog) FullHelp() [][]key.Binding { return [][]key.Binding{d.ShortHelp()} }

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
	if bp.Group != "" {
		s = append(s, "group="+bp.Group)
	}
	return strings.Join(s, " ")
}

// parseBreakpoint reads the breakpoint editor's syntax.
func parseBreakpoint(s string) (engine.Breakpoint, error) {
	s = strings.TrimSpace(s)
	k, v, _ := strings.Cut(s, "=")
	switch strings.ToLower(k) {
	case "pod", "group":
		if v == "" {
			return engine.Breakpoint{}, fmt.Errorf("%s= needs a pattern", strings.ToLower(k))
		}
		if !strings.Contains(v, "/") {
			// A bare name matches any namespace.
			v = "*/" + v
		}
		if strings.ToLower(k) == "group" {
			return engine.Breakpoint{Group: v}, nil
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
	return engine.Breakpoint{}, fmt.Errorf("%q: use pod=GLOB, group=GLOB, node=NAME, unschedulable or preemption", s)
}
