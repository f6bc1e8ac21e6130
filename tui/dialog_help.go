package tui

import (
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
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

func (d *helpDialog) SetSize(w, _ int) { d.w = w; d.help.SetWidth(w) }

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

func (d *helpDialog) View() string {
	st := d.c.St
	d.help.Styles = st.Help
	title := "schedtui — keys (any key closes)"
	if d.title != "" {
		title = "schedtui — keys of the " + d.title + " (any key closes)"
	}
	out := []string{st.Title.Render(title), ""}
	out = append(out, strings.Split(d.help.FullHelpView(d.subject.FullHelp()), "\n")...)
	if d.title == "" {
		out = append(out, "",
			"n runs the next attempt; s steps into it one phase at a time (views hide phases not yet reached).",
			"c continues to the next breakpoint (b edits them: pod=GLOB, node=NAME, unschedulable, preemption).",
			"e opens the teaching pane: it explains the selected cell with the numbers behind it.",
			"Mouse: wheel scrolls, click selects; click a tab to switch views.")
	}
	return strings.Join(out, "\n")
}
