package tui

import (
	"strings"
)

// gridCol is one column of a grid.
type gridCol struct {
	title string
	width int
	right bool
}

// grid is a virtualised table: only the visible rows × columns are
// formatted, the frozen columns stay on the left while the others scroll
// horizontally. A 5000×10 matrix costs what its visible window costs.
type grid struct {
	frozen []gridCol
	cols   []gridCol
	rows   int
	// cell returns the text and escapes of row r, column c (frozen columns
	// first, then scrollable ones); a view marks a whole row (winner, tie)
	// through the escapes of its frozen cells.
	cell      func(r, c int) (string, esc)
	row, col  int // cursor: row, scrollable column (-1: row selection only)
	top, left int
	w, h      int // h counts the header line
}

func (g *grid) setSize(w, h int) { g.w, g.h = w, h; g.clamp() }

// bodyRows is how many data rows fit.
func (g *grid) bodyRows() int { return max(1, g.h-1) }

func (g *grid) clamp() {
	if g.rows == 0 {
		g.row, g.top = 0, 0
	} else {
		g.row = max(0, min(g.row, g.rows-1))
	}
	if len(g.cols) == 0 {
		g.col = -1
	} else if g.col >= len(g.cols) {
		g.col = len(g.cols) - 1
	} else if g.col < 0 {
		g.col = 0
	}
	n := g.bodyRows()
	if g.row < g.top {
		g.top = g.row
	}
	if g.row >= g.top+n {
		g.top = g.row - n + 1
	}
	g.top = max(0, min(g.top, max(0, g.rows-n)))
	if g.col >= 0 {
		if g.col < g.left {
			g.left = g.col
		}
		for g.left < g.col && !g.visible(g.col) {
			g.left++
		}
	}
	g.left = max(0, min(g.left, max(0, len(g.cols)-1)))
}

func (g *grid) frozenWidth() int {
	w := 0
	for _, c := range g.frozen {
		w += c.width + 1
	}
	return w
}

// visible reports whether scrollable column c is fully on screen.
func (g *grid) visible(c int) bool {
	x := g.frozenWidth()
	for i := g.left; i <= c && i < len(g.cols); i++ {
		x += g.cols[i].width + 1
	}
	return x-1 <= g.w
}

func (g *grid) move(dr, dc int) {
	g.row += dr
	if g.col >= 0 {
		g.col += dc
	}
	g.clamp()
}

// colAt maps an x offset to a scrollable column, or -1.
func (g *grid) colAt(x int) int {
	cx := g.frozenWidth()
	if x < cx {
		return -1
	}
	for i := g.left; i < len(g.cols); i++ {
		if x < cx+g.cols[i].width+1 {
			return i
		}
		cx += g.cols[i].width + 1
	}
	return -1
}

// view renders the grid into b as exactly g.h lines of g.w cells.
func (g *grid) view(st *Styles, b *strings.Builder) {
	// The visible scrollable columns.
	x := g.frozenWidth()
	last := g.left
	for last < len(g.cols) && x+g.cols[last].width <= g.w {
		x += g.cols[last].width + 1
		last++
	}
	more := last < len(g.cols)
	// Header.
	var hdr strings.Builder
	for _, c := range g.frozen {
		hdr.WriteString(pad(c, c.title))
		hdr.WriteByte(' ')
	}
	for i := g.left; i < last; i++ {
		hdr.WriteString(pad(g.cols[i], g.cols[i].title))
		hdr.WriteByte(' ')
	}
	// The last column may end at the right edge, without its space.
	h := strings.TrimRight(hdr.String(), " ")
	if g.left > 0 {
		h = replaceAt(h, g.frozenWidth()-1, "‹")
	}
	if more {
		h += " ›"
	}
	b.WriteString(st.HeadingE.wrap(fit(h, g.w)))
	n := g.bodyRows()
	for r := g.top; r < g.top+n; r++ {
		b.WriteByte('\n')
		if r >= g.rows {
			b.WriteString(strings.Repeat(" ", g.w))
			continue
		}
		used := 0
		for c, col := range g.frozen {
			text, e := g.cell(r, c)
			if r == g.row {
				e = st.Sel
			}
			b.WriteString(e.wrap(pad(col, text)))
			b.WriteByte(' ')
			used += col.width + 1
		}
		for i := g.left; i < last; i++ {
			text, e := g.cell(r, len(g.frozen)+i)
			if r == g.row && i == g.col {
				e = st.Sel
			}
			b.WriteString(e.wrap(pad(g.cols[i], text)))
			used += g.cols[i].width
			if used < g.w {
				b.WriteByte(' ')
				used++
			}
		}
		if used < g.w {
			b.WriteString(strings.Repeat(" ", g.w-used))
		}
	}
}

func pad(c gridCol, s string) string {
	if c.right {
		return fitR(s, c.width)
	}
	return fit(s, c.width)
}

// replaceAt replaces the rune at cell i of an ASCII-prefixed line.
func replaceAt(s string, i int, r string) string {
	if i < 0 || i >= len(s) {
		return s
	}
	return s[:i] + r + s[i+1:]
}
