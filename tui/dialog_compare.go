package tui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// compareDialog is C's prompt on the status line: the second side to
// compare with, in compare's side syntax (a configuration file, a shipped
// configuration's name, defaults, or kube-scheduler flags). enter builds
// it (compareWithMsg), esc closes.
type compareDialog struct {
	c *Common
	inputs
	w int
}

func newCompareDialog(c *Common) *compareDialog {
	return &compareDialog{c: c, inputs: newInputs(c, [2]string{"compare with: ", "FILE, demo-packing, defaults, or \"--emulated-version=1.35 --feature-gates=A=false\""})}
}

func (d *compareDialog) Init() tea.Cmd    { return nil }
func (d *compareDialog) Title() string    { return "compare with" }
func (d *compareDialog) Inline() bool     { return true }
func (d *compareDialog) SetSize(w, _ int) { d.w = w; d.setWidth(max(10, w-16)) }

func (d *compareDialog) Open() tea.Cmd {
	d.restyle()
	if d.c.Right != nil {
		d.in[0].SetValue(d.c.Right.label)
		d.in[0].CursorEnd()
	}
	return d.in[0].Focus()
}

func (d *compareDialog) Update(msg tea.Msg) tea.Cmd {
	kmsg, ok := dialogKey(d.c, d, msg)
	if !ok {
		return nil
	}
	k := d.c.Keys
	switch {
	case key.Matches(kmsg, k.CompareRun):
		d.in[0].Blur()
		closeDialog(d.c)
		return emit(compareWithMsg{strings.TrimSpace(d.in[0].Value())})
	case key.Matches(kmsg, k.Close):
		d.in[0].Blur()
		closeDialog(d.c)
		return nil
	}
	return d.update(0, kmsg)
}

func (d *compareDialog) View() string {
	d.restyle()
	return line(d.in[0].View(), d.w)
}

func (d *compareDialog) ShortHelp() []key.Binding {
	k := d.c.Keys
	return []key.Binding{k.CompareRun, k.Close, k.DialogHelp}
}

func (d *compareDialog) FullHelp() [][]key.Binding { return [][]key.Binding{d.ShortHelp()} }
