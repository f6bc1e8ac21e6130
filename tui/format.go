package tui

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"
	"k8s.io/apimachinery/pkg/api/resource"
)

// width is ansi.StringWidth with a fast path for plain ASCII: grapheme
// segmentation costs microseconds per line, and a frame has a hundred.
func width(s string) int {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 0x80 || c < 0x20 {
			return ansi.StringWidth(s)
		}
	}
	return len(s)
}

// fit pads or truncates plain text (no escapes) to exactly w cells.
func fit(s string, w int) string {
	if w <= 0 {
		return ""
	}
	sw := width(s)
	switch {
	case sw == w:
		return s
	case sw < w:
		return s + strings.Repeat(" ", w-sw)
	}
	return ansi.Truncate(s, w, "…")
}

// fitR right-aligns plain text in w cells.
func fitR(s string, w int) string {
	sw := width(s)
	if sw >= w {
		return fit(s, w)
	}
	return strings.Repeat(" ", w-sw) + s
}

// line pads or truncates a styled line to exactly w cells.
func line(s string, w int) string {
	sw := width(s)
	if sw > w {
		return ansi.Truncate(s, w, "…")
	}
	return s + strings.Repeat(" ", w-sw)
}

// block makes text exactly h lines of w cells: views must fill their
// rectangle so that the frame never shifts.
func block(s string, w, h int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > h {
		lines = lines[:h]
	}
	var b strings.Builder
	for i := 0; i < h; i++ {
		if i > 0 {
			b.WriteByte('\n')
		}
		if i < len(lines) {
			b.WriteString(line(lines[i], w))
		} else {
			b.WriteString(strings.Repeat(" ", w))
		}
	}
	return b.String()
}

// joinSide puts right beside left (lw cells wide), sep between them.
func joinSide(left, right string, lw int, sep string) string {
	ls, rs := strings.Split(left, "\n"), strings.Split(right, "\n")
	var b strings.Builder
	for i := range ls {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(line(ls[i], lw))
		b.WriteString(sep)
		if i < len(rs) {
			b.WriteString(rs[i])
		}
	}
	return b.String()
}

// wrap breaks plain text at spaces to lines of at most w cells.
func wrap(s string, w int) []string {
	if w < 8 {
		w = 8
	}
	var out []string
	for _, para := range strings.Split(s, "\n") {
		words := strings.Fields(para)
		if len(words) == 0 {
			out = append(out, "")
			continue
		}
		cur := ""
		for _, word := range words {
			switch {
			case cur == "":
				cur = word
			case ansi.StringWidth(cur)+1+ansi.StringWidth(word) <= w:
				cur += " " + word
			default:
				out = append(out, cur)
				cur = word
			}
			for ansi.StringWidth(cur) > w {
				out = append(out, ansi.Truncate(cur, w, ""))
				cur = ansi.TruncateLeft(cur, w, "")
			}
		}
		out = append(out, cur)
	}
	return out
}

// age renders a duration as kubectl does: 5s, 3m, 2h, 4d.
func age(d time.Duration) string {
	switch {
	case d < 0:
		return "-" + age(-d)
	case d < time.Minute:
		return strconv.Itoa(int(d/time.Second)) + "s"
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d/time.Minute), int(d%time.Minute/time.Second))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh%02dm", int(d/time.Hour), int(d%time.Hour/time.Minute))
	}
	return strconv.Itoa(int(d/(24*time.Hour))) + "d"
}

// milli renders millicores always in m ("500m", "2000m", "3500m"): mixed
// units in one sentence of arithmetic are harder to follow.
func milli(v int64) string {
	if v == 0 {
		return "0"
	}
	return strconv.FormatInt(v, 10) + "m"
}

// bytesQ renders a byte count in binary units ("2Gi", "512Mi").
func bytesQ(v int64) string {
	return resource.NewQuantity(v, resource.BinarySI).String()
}

// bar draws used/total as a w-cell bar.
func bar(used, total int64, w int) string {
	if w <= 0 {
		return ""
	}
	filled := 0
	if total > 0 {
		filled = int(min(used, total) * int64(w) / total)
	}
	if used > 0 && filled == 0 {
		filled = 1
	}
	return strings.Repeat("█", filled) + strings.Repeat("░", w-filled)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// sortedKeys returns a map's keys sorted.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
