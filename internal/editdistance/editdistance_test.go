package editdistance

import "testing"

func TestLevenshtein(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{{"", "", 0}, {"abc", "", 3}, {"", "ab", 2}, {"kitten", "sitting", 3}, {"reports", "report", 1}, {"db-0", "db-1", 1}} {
		if got := Levenshtein(c.a, c.b); got != c.want {
			t.Errorf("Levenshtein(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
	if !Near("reports", "reprots") || Near("db", "web") || !Near("db", "dc") {
		t.Error("Near")
	}
}
