package tui

import (
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
)

// helpDialog lists the keys of what is under it: the active view (with
// the debugger's basics) or a dialog. Any key closes it.
type helpDialog struct {
	c       *Common
	subject help.KeyMap
	title   string // the dialog's, "" for a view
	help    help.Model
	w       int
}

func newHelpDialog(c *Common, subject help.KeyMap) *helpDialog {
	d := &helpDialog{c: c, subject: subject, help: help.New()}
	if sd, ok := subject.(dialog); ok {
		d.title = sd.Title()
	}
	return d
}

func (d *helpDialog) Init() tea.Cmd { return nil }
func (d *helpDialog) Open() tea.Cmd { return nil }
func (d *helpDialog) Title() string { return "help" }
func (d *helpDialog) Inline() bool  { return false }

func (d *helpDialog) SetSize(w, _ int) { d.w = w }

// The help's own keys are those of its subject: the key line under it
// stays the subject's.
func (d *helpDialog) ShortHelp() []key.Binding  { return d.subject.ShortHelp() }
func (d *helpDialog) FullHelp() [][]key.Binding { return d.subject.FullHelp() }

func (d *helpDialog) Update(msg tea.Msg) tea.Cmd {
	if _, ok := msg.(tea.KeyPressMsg); ok {
		closeDialog(d.c)
	}
	return nil
}

// groups renders the subject's key groups side by side while they fit
// the width, then on further rows (help.Model, given a width, drops the
// groups that do not fit: it is given none).
func (d *helpDialog) groups() []string {
	var out, row []string
	used := 0
	for _, g := range d.subject.FullHelp() {
		col := d.help.FullHelpView([][]key.Binding{g})
		w := lipgloss.Width(col)
		if len(row) > 0 && used+4+w > d.w {
			out = append(out, strings.Split(lipgloss.JoinHorizontal(lipgloss.Top, row...), "\n")...)
			out = append(out, "")
			row, used = nil, 0
		}
		if len(row) > 0 {
			row, used = append(row, "    "), used+4
		}
		row, used = append(row, col), used+w
	}
	if len(row) > 0 {
		out = append(out, strings.Split(lipgloss.JoinHorizontal(lipgloss.Top, row...), "\n")...)
	}
	return out
}

func (d *helpDialog) View() string {
	st := d.c.St
	d.help.Styles = st.Help
	title := "schedtui — keys (any key closes)"
	if d.title != "" {
		title = "schedtui — keys of the " + d.title + " (any key closes)"
	}
	out := []string{st.Title.Render(title), ""}
	out = append(out, d.groups()...)
	if s, ok := d.subject.(interface{ syntax() []string }); ok {
		out = append(out, "")
		out = append(out, s.syntax()...)
	}
	if d.title == "" {
		out = append(out, "",
			"n runs the next attempt; s steps into it one phase at a time (views hide phases not yet reached).",
			"c continues to the next breakpoint (b edits them: pod=GLOB, group=GLOB, node=NAME, unschedulable, preemption).",
			"e opens the teaching pane: it explains the selected cell with the numbers behind it.",
			"Mouse: wheel scrolls, click selects; click a tab to switch views.")
	}
	return strings.Join(out, "\n")
}
