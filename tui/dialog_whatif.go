package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// whatIfDialog is the what-if form: the focused attempt's pod's requests,
// tolerations and nodeSelector to edit; enter re-runs the attempt with
// them on a fork (runWhatIfMsg).
type whatIfDialog struct {
	c *Common
	inputs
	focus int
}

func newWhatIfDialog(c *Common) *whatIfDialog {
	return &whatIfDialog{c: c, inputs: newInputs(c,
		[2]string{"requests:     ", ""}, [2]string{"tolerations:  ", ""}, [2]string{"nodeSelector: ", ""})}
}

func (d *whatIfDialog) Init() tea.Cmd    { return nil }
func (d *whatIfDialog) Title() string    { return "what-if form" }
func (d *whatIfDialog) Inline() bool     { return false }
func (d *whatIfDialog) SetSize(w, _ int) { d.setWidth(max(10, w-20)) }

// Open fills the form from the focused attempt's pod; with no attempt it
// says so and closes.
func (d *whatIfDialog) Open() tea.Cmd {
	p := d.c.pod()
	if d.c.focused() == nil || p == nil {
		d.c.post(errorStatus("no attempt to re-run"), closeDialogMsg{})
		return nil
	}
	d.restyle()
	e := editOf(p)
	d.in[0].SetValue(e.Requests)
	d.in[1].SetValue(e.Tolerations)
	d.in[2].SetValue(e.NodeSelector)
	d.focus = 0
	for i := range d.in {
		d.in[i].Blur()
	}
	return d.in[0].Focus()
}

func (d *whatIfDialog) move(by int) tea.Cmd {
	d.in[d.focus].Blur()
	d.focus = (d.focus + len(d.in) + by) % len(d.in)
	return d.in[d.focus].Focus()
}

func (d *whatIfDialog) Update(msg tea.Msg) tea.Cmd {
	kmsg, ok := dialogKey(d.c, d, msg)
	if !ok {
		return nil
	}
	k := d.c.Keys
	switch {
	case key.Matches(kmsg, k.Close):
		closeDialog(d.c)
	case key.Matches(kmsg, k.FormNext):
		return d.move(1)
	case key.Matches(kmsg, k.FormPrev):
		return d.move(-1)
	case key.Matches(kmsg, k.FormRun):
		e := whatIfEdit{Requests: d.in[0].Value(), Tolerations: d.in[1].Value(), NodeSelector: d.in[2].Value()}
		if p := d.c.pod(); p != nil && d.c.focused() != nil {
			if _, err := applyEdit(p, e); err != nil {
				// The form stays open to fix the edit.
				d.c.post(errorStatus("what-if: " + err.Error()))
				return nil
			}
		}
		d.c.post(closeDialogMsg{}, runWhatIfMsg{e})
	default:
		return d.update(d.focus, kmsg)
	}
	return nil
}

// attemptTitle is a what-if dialog's title for the attempt in view, or
// false when none is.
func attemptTitle(c *Common, what string) (string, bool) {
	a := c.focused()
	if a == nil {
		return "", false
	}
	return c.St.Title.Render(what + ": " + a.Pod + fmt.Sprintf(" (attempt #%d)", a.Seq)), true
}

func (d *whatIfDialog) View() string {
	d.restyle()
	st := d.c.St
	title, ok := attemptTitle(d.c, "What-if")
	if !ok {
		return ""
	}
	out := []string{title, "",
		"Edit and press enter: the attempt is re-run on a copy of the cluster as it was; the engine is untouched.", ""}
	for i := range d.in {
		out = append(out, d.in[i].View())
	}
	out = append(out, "",
		st.Dim.Render("requests: name=quantity,... (the pod's totals; e.g. cpu=500m,memory=1Gi)"),
		st.Dim.Render("tolerations: key[=value][:Effect],... (no value: Exists; * tolerates every key)"),
		st.Dim.Render("nodeSelector: key=value,...   ·   tab/↑/↓ move · enter runs · esc cancels"))
	return strings.Join(out, "\n")
}

func (d *whatIfDialog) ShortHelp() []key.Binding {
	k := d.c.Keys
	return []key.Binding{k.FormNext, k.FormPrev, k.FormRun, withHelp(k.Close, "esc", "cancel"), k.DialogHelp}
}

func (d *whatIfDialog) FullHelp() [][]key.Binding { return [][]key.Binding{d.ShortHelp()} }
