package tui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// searchDialog is the `/` prompt on the status line. Each key sends the
// text to the active view (searchMsg); enter keeps the filter, esc clears
// it. Each view has its own search: the prompt opens on the active one's.
type searchDialog struct {
	c *Common
	inputs
	w      int
	byView [numViews]string
}

func newSearchDialog(c *Common) *searchDialog {
	return &searchDialog{c: c, inputs: newInputs(c, [2]string{"/", "filter rows…"})}
}

func (d *searchDialog) Init() tea.Cmd    { return nil }
func (d *searchDialog) Title() string    { return "search" }
func (d *searchDialog) Inline() bool     { return true }
func (d *searchDialog) SetSize(w, _ int) { d.w = w; d.setWidth(max(10, w-10)) }

func (d *searchDialog) Open() tea.Cmd {
	d.restyle()
	d.in[0].SetValue(d.byView[d.c.Active])
	d.in[0].CursorEnd()
	return d.in[0].Focus()
}

// query is the active view's search text, kept when the prompt closes
// with enter.
func (d *searchDialog) query() string { return d.byView[d.c.Active] }

func (d *searchDialog) Update(msg tea.Msg) tea.Cmd {
	if sm, ok := msg.(searchMsg); ok {
		d.byView[sm.view] = sm.q
		return nil
	}
	kmsg, ok := dialogKey(d.c, d, msg)
	if !ok {
		return nil
	}
	k := d.c.Keys
	switch {
	case key.Matches(kmsg, k.SearchKeep):
		d.in[0].Blur()
		closeDialog(d.c)
		return nil
	case key.Matches(kmsg, k.SearchClear):
		d.in[0].Blur()
		d.in[0].SetValue("")
		d.c.post(searchMsg{view: d.c.Active}, closeDialogMsg{})
		return nil
	}
	cmd := d.update(0, kmsg)
	d.c.post(searchMsg{d.c.Active, d.in[0].Value()})
	return cmd
}

func (d *searchDialog) View() string {
	d.restyle()
	return line(d.in[0].View(), d.w)
}

func (d *searchDialog) ShortHelp() []key.Binding {
	k := d.c.Keys
	return []key.Binding{k.SearchKeep, k.SearchClear, k.DialogHelp}
}

func (d *searchDialog) FullHelp() [][]key.Binding { return [][]key.Binding{d.ShortHelp()} }

// matcher is the search as every view applies it: a case-insensitive
// substring match.
type matcher struct{ q string }

func newMatcher(q string) matcher { return matcher{q: strings.ToLower(q)} }

// match reports whether s contains the query whatever the case; the empty
// query matches everything.
func (m matcher) match(s string) bool {
	return m.q == "" || strings.Contains(strings.ToLower(s), m.q)
}
