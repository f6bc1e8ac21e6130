package tui

import (
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
)

// dialog is an overlay that takes the keys while it is open: the
// breakpoints editor, the what-if form, the help and the search prompt.
// Dialogs are opened and closed by messages (openDialogMsg,
// closeDialogMsg, as crush's dialog stack); they stack and only the top one
// gets keys. Their keys are bindings, so that the help lists them (f1 in a
// dialog, where ? is text).
type dialog interface {
	component
	// Open prepares the dialog as it is pushed (focuses its input).
	Open() tea.Cmd
	// Title names the dialog in the help.
	Title() string
	// Inline: the dialog takes the status line rather than the body.
	Inline() bool
}

// dialogKey is msg as a key for dialog d to handle: ok is false for
// anything else, and for the help key (f1), which opens the help on top
// of d.
func dialogKey(c *Common, d dialog, msg tea.Msg) (k tea.KeyPressMsg, ok bool) {
	k, ok = msg.(tea.KeyPressMsg)
	if ok && key.Matches(k, c.Keys.DialogHelp) {
		c.post(openDialogMsg{newHelpDialog(c, d)})
		return k, false
	}
	return k, ok
}

// closeDialog closes the top dialog.
func closeDialog(c *Common) { c.post(closeDialogMsg{}) }

// inputs holds a dialog's text inputs and keeps them in the theme.
type inputs struct {
	c  *Common
	st *Styles // the theme the inputs have
	in []textinput.Model
}

func newInputs(c *Common, prompts ...[2]string) inputs {
	ins := inputs{c: c}
	for _, p := range prompts {
		ti := textinput.New()
		ti.Prompt, ti.Placeholder = p[0], p[1]
		ins.in = append(ins.in, ti)
	}
	ins.restyle()
	return ins
}

// restyle applies the theme when it changed.
func (ins *inputs) restyle() {
	if ins.st == ins.c.St {
		return
	}
	ins.st = ins.c.St
	s := textinput.DefaultStyles(ins.st.Dark)
	// A blinking cursor means a tick per half second, and a frame per
	// tick; a steady one costs nothing and keeps screens reproducible.
	s.Cursor.Blink = false
	for i := range ins.in {
		ins.in[i].SetStyles(s)
	}
}

func (ins *inputs) setWidth(w int) {
	for i := range ins.in {
		ins.in[i].SetWidth(w)
	}
}

// update passes a key to input i.
func (ins *inputs) update(i int, msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	ins.in[i], cmd = ins.in[i].Update(msg)
	return cmd
}
