// Package editdistance measures how far apart two names are, for the
// "did you mean" suggestions: a pod named on the command line, a claim a
// pod's volume names.
package editdistance

// Levenshtein is the Levenshtein distance of a and b (bytes: names are
// ASCII).
func Levenshtein(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// Near reports whether a typo could turn one name into the other: at most
// two edits apart, one for names of four bytes or fewer.
func Near(a, b string) bool {
	limit := 2
	if len(a) <= 4 {
		limit = 1
	}
	return Levenshtein(a, b) <= limit
}
