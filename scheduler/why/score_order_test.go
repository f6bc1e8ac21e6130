package why

import (
	"fmt"
	"strings"
	"testing"

	"github.com/schedtui/schedtui/scheduler/record"
)

func TestScoreOrder(t *testing.T) {
	// Feasible in the order found: alpha, n0, n3 (node order n0, zeta,
	// alpha, n3), with totals 150, 300, 200.
	a := &record.Attempt{Nodes: record.NewNodeList([]string{"n0", "zeta", "alpha", "n3"}), Feasible: []int32{2, 0, 3}}
	totals := []int64{150, 300, 200}
	tests := []struct {
		by    ScoreSort
		match func(string) bool
		want  string
	}{
		{by: ScoreByTotal, want: "n0 n3 alpha"},
		{by: ScoreByNodeOrder, want: "n0 alpha n3"},
		{by: ScoreByName, want: "alpha n0 n3"},
		{by: ScoreByTotal, match: func(s string) bool { return strings.HasPrefix(s, "n") }, want: "n0 n3"},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprint(tc.by, tc.match != nil), func(t *testing.T) {
			var got []string
			for _, i := range ScoreOrder(a, totals, tc.by, tc.match, nil) {
				got = append(got, a.Nodes.Names[a.Feasible[i]])
			}
			if strings.Join(got, " ") != tc.want {
				t.Errorf("%s: got %v, want %s", tc.by, got, tc.want)
			}
		})
	}
}
