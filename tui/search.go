package tui

import "strings"

// matcher is the `/` search as every view applies it: a case-insensitive
// substring match.
type matcher struct{ q string }

func newMatcher(q string) matcher { return matcher{q: strings.ToLower(q)} }

// match reports whether s contains the query whatever the case; the empty
// query matches everything.
func (m matcher) match(s string) bool {
	return m.q == "" || strings.Contains(strings.ToLower(s), m.q)
}
