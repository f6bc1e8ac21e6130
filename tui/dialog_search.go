package tui

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// searchDialog is the `/` prompt on the status line. Each key sends the
// text to the active view (searchMsg); enter keeps the filter, esc clears
// it. Each view has its own search: the prompt opens on the active one's,
// selected: typing starts a new query, an arrow or backspace edits the old.
type searchDialog struct {
	c *Common
	inputs
	w      int
	byView [numViews]string
	// selected: the prompt shows the previous query, which the first
	// character typed replaces.
	selected bool
}

func newSearchDialog(c *Common) *searchDialog {
	return &searchDialog{c: c, inputs: newInputs(c, [2]string{"/", `filter rows… ("word" in quotes: whole words only)`})}
}

func (d *searchDialog) Init() tea.Cmd    { return nil }
func (d *searchDialog) Title() string    { return "search" }
func (d *searchDialog) Inline() bool     { return true }
func (d *searchDialog) SetSize(w, _ int) { d.w = w; d.setWidth(max(10, w-10)) }

func (d *searchDialog) Open() tea.Cmd {
	d.restyle()
	d.in[0].SetValue(d.byView[d.c.Active])
	d.in[0].CursorEnd()
	d.selected = d.in[0].Value() != ""
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
	if d.selected && kmsg.Text != "" && kmsg.Mod&^tea.ModShift == 0 {
		// Typing replaces the selected previous query.
		d.in[0].SetValue("")
	}
	d.selected = false
	cmd := d.update(0, kmsg)
	d.c.post(searchMsg{d.c.Active, d.in[0].Value()})
	return cmd
}

func (d *searchDialog) View() string {
	d.restyle()
	if d.selected {
		st := d.c.St
		return line(d.in[0].Prompt+st.Sel.wrap(d.in[0].Value())+st.Dim.Render("  (type to replace, ←/→ or backspace to edit)"), d.w)
	}
	return line(d.in[0].View(), d.w)
}

func (d *searchDialog) ShortHelp() []key.Binding {
	k := d.c.Keys
	return []key.Binding{k.SearchKeep, k.SearchClear, k.DialogHelp}
}

func (d *searchDialog) FullHelp() [][]key.Binding { return [][]key.Binding{d.ShortHelp()} }

// matcher is the search as every view applies it: a case-insensitive
// substring match, or, for a query in double quotes, a whole-word match
// ("Scheduled" does not match UnscheduledPodAdd; "web" matches
// default/web-3).
type matcher struct {
	q    string
	word bool
}

func newMatcher(q string) matcher {
	q = strings.ToLower(q)
	if len(q) >= 2 && strings.HasPrefix(q, `"`) && strings.HasSuffix(q, `"`) {
		return matcher{q: q[1 : len(q)-1], word: true}
	}
	return matcher{q: q}
}

// match reports whether s contains the query whatever the case; the empty
// query matches everything.
func (m matcher) match(s string) bool {
	if m.q == "" {
		return true
	}
	s = strings.ToLower(s)
	if !m.word {
		return strings.Contains(s, m.q)
	}
	for from := 0; ; {
		i := strings.Index(s[from:], m.q)
		if i < 0 {
			return false
		}
		i += from
		end := i + len(m.q)
		before, _ := utf8.DecodeLastRuneInString(s[:i])
		after, _ := utf8.DecodeRuneInString(s[end:])
		if !wordRune(before) && !wordRune(after) {
			return true
		}
		from = i + 1
	}
}

// wordRune reports whether r is part of a word (utf8.RuneError: the
// string's edge, which is not).
func wordRune(r rune) bool {
	return r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r))
}
