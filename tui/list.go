package tui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// list is a cursor over n rows with a scroll window of h rows; views
// render rows[top:top+h] only.
type list struct {
	n, cursor, top, h int
}

func (l *list) clamp() {
	if l.n == 0 {
		l.cursor, l.top = 0, 0
		return
	}
	l.cursor = max(0, min(l.cursor, l.n-1))
	h := max(1, l.h)
	if l.cursor < l.top {
		l.top = l.cursor
	}
	if l.cursor >= l.top+h {
		l.top = l.cursor - h + 1
	}
	l.top = max(0, min(l.top, max(0, l.n-h)))
}

func (l *list) set(n int) { l.n = n; l.clamp() }

// searchKey opens the search prompt on /, for the views that filter; it
// reports whether msg was that key.
func searchKey(c *Common, msg tea.KeyPressMsg) bool {
	if !key.Matches(msg, c.Keys.Search) {
		return false
	}
	c.post(openSearchMsg{})
	return true
}

// move handles the navigation keys shared by every list and grid; dc is
// the horizontal move for grids. It reports whether the key was one.
func navigate(k *KeyMap, msg tea.KeyPressMsg, h int, move func(dr, dc int)) bool {
	switch {
	case key.Matches(msg, k.Up):
		move(-1, 0)
	case key.Matches(msg, k.Down):
		move(1, 0)
	case key.Matches(msg, k.Left):
		move(0, -1)
	case key.Matches(msg, k.Right):
		move(0, 1)
	case key.Matches(msg, k.Top):
		move(-1<<30, 0)
	case key.Matches(msg, k.Bottom):
		move(1<<30, 0)
	case key.Matches(msg, k.PageUp):
		move(-max(1, h-1), 0)
	case key.Matches(msg, k.PageDown):
		move(max(1, h-1), 0)
	default:
		return false
	}
	return true
}

func (l *list) move(dr, _ int) {
	l.cursor += dr
	l.clamp()
}

// wheel maps mouse wheel messages to moves.
func wheel(msg tea.MouseWheelMsg, move func(dr, dc int)) {
	switch msg.Mouse().Button {
	case tea.MouseWheelUp:
		move(-3, 0)
	case tea.MouseWheelDown:
		move(3, 0)
	case tea.MouseWheelLeft:
		move(0, -1)
	case tea.MouseWheelRight:
		move(0, 1)
	}
}
