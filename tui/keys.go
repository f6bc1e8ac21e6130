package tui

import "charm.land/bubbles/v2/key"

// KeyMap holds every binding. Debugger keys follow gdb (n next attempt, s
// step into the attempt's phases, c continue); navigation follows vim and
// k9s (j/k, g/G, h/l, / search, esc back, tab between views).
type KeyMap struct {
	Next, Step, Continue, Breakpoints, Rewind key.Binding
	Up, Down, Left, Right, Top, Bottom        key.Binding
	PageUp, PageDown, Enter, Back             key.Binding
	NextView, PrevView, Views                 key.Binding
	Search, Explain, Help, Quit               key.Binding
	// Member steps through a pod-group cycle's members: { back, } on.
	Member key.Binding
	// Compare mode: pick a second side; jump between divergences.
	CompareWith, NextDiverge, PrevDiverge key.Binding

	// View-specific.
	FullDiag, Sort, AllCols, Mode, WhatIf, ToggleBP key.Binding
	// WhatIfObject opens the object editor (what-if on any object).
	WhatIfObject key.Binding

	// Dialogs. They take text, so none of their keys is a printable
	// character.
	DialogHelp, Close           key.Binding
	BPAdd, BPUp, BPDown, BPDel  key.Binding
	FormNext, FormPrev, FormRun key.Binding
	SearchKeep, SearchClear     key.Binding
	CompareRun                  key.Binding
	// The object editor's.
	EditorField, EditorApply, EditorRemove, EditorClone key.Binding
}

// DefaultKeyMap returns the bindings.
func DefaultKeyMap() *KeyMap {
	b := func(help, desc string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	return &KeyMap{
		Next:         b("n", "next attempt", "n", "f10"),
		Step:         b("s", "step phase", "s", "f11"),
		Continue:     b("c", "continue to breakpoint", "c", "f5"),
		Breakpoints:  b("b", "breakpoints", "b"),
		Rewind:       b("u", "rewind the last attempt", "u"),
		Member:       b("{/}", "prev/next member of group", "{", "}"),
		Up:           b("↑/k", "up", "up", "k"),
		Down:         b("↓/j", "down", "down", "j"),
		Left:         b("←/h", "scroll left", "left", "h"),
		Right:        b("→/l", "scroll right", "right", "l"),
		Top:          b("g", "top", "g", "home"),
		Bottom:       b("G", "bottom", "G", "end"),
		PageUp:       b("pgup", "page up", "pgup", "ctrl+u"),
		PageDown:     b("pgdn", "page down", "pgdown", "ctrl+d"),
		Enter:        b("enter", "open", "enter"),
		Back:         b("esc", "back", "esc"),
		NextView:     b("tab", "next view", "tab"),
		PrevView:     b("shift+tab", "previous view", "shift+tab"),
		Views:        b("1-8", "go to view", "1", "2", "3", "4", "5", "6", "7", "8"),
		Search:       b("/", "search/filter", "/"),
		Explain:      b("e", "explain (teaching pane)", "e"),
		Help:         b("?", "help", "?", "f1"),
		Quit:         b("q", "quit", "q", "ctrl+c"),
		CompareWith:  b("C", "compare two configurations", "C"),
		NextDiverge:  b("]", "next diverging attempt", "]"),
		PrevDiverge:  b("[", "previous diverging attempt", "["),
		FullDiag:     b("f", "faithful / full diagnosis", "f"),
		Sort:         b("o", "sort order", "o"),
		AllCols:      b("a", "all / failing columns", "a"),
		Mode:         b("m", "raw / normalized / weighted", "m"),
		WhatIf:       b("w", "what-if: edit and re-run", "w"),
		ToggleBP:     b("B", "breakpoint on this pod", "B"),
		WhatIfObject: b("W", "what-if: edit any object's YAML", "W"),
		DialogHelp:   b("f1", "keys of this dialog", "f1"),
		Close:        b("esc", "close", "esc"),
		BPAdd:        b("enter", "add (or remove an identical one)", "enter"),
		BPUp:         b("↑", "select up", "up"),
		BPDown:       b("↓", "select down", "down"),
		BPDel:        b("delete/ctrl+d", "remove the selected one", "delete", "ctrl+d"),
		FormNext:     b("tab/↓", "next field", "tab", "down"),
		FormPrev:     b("shift+tab/↑", "previous field", "shift+tab", "up"),
		FormRun:      b("enter", "re-run the attempt", "enter"),
		SearchKeep:   b("enter", "keep the filter", "enter"),
		SearchClear:  b("esc", "clear the filter", "esc"),
		CompareRun:   b("enter", "compare with this side", "enter"),
		EditorField:  b("tab", "object name / YAML", "tab"),
		EditorApply:  b("ctrl+s", "re-run with the YAML's objects", "ctrl+s"),
		EditorRemove: b("ctrl+x", "re-run without the object named", "ctrl+x"),
		EditorClone:  b("ctrl+n", "a node like the one named (its group's)", "ctrl+n"),
	}
}

// global lists the bindings the root handles in every view, for the
// help; each view's FullHelp lists them after its own.
func (k *KeyMap) global() []key.Binding {
	return []key.Binding{k.Next, k.Step, k.Continue, k.Member, k.Breakpoints, k.Rewind, k.WhatIf, k.CompareWith, k.Explain, k.Help, k.Quit, k.NextView, k.PrevView, k.Views, k.Back}
}

// vertical is the navigation of a list; grid adds the column moves.
func (k *KeyMap) vertical(more ...key.Binding) []key.Binding {
	return append(more, k.Up, k.Down, k.Top, k.Bottom, k.PageUp, k.PageDown)
}

func (k *KeyMap) grid(more ...key.Binding) []key.Binding {
	return k.vertical(append(more, k.Left, k.Right)...)
}
