package record

import (
	"bytes"
	"math"
	"testing"
)

// TestSetRawScores checks that the exact-size encoding writes the same
// bytes as appending score by score, with no spare capacity, across the
// varint length boundaries and for negative scores.
func TestSetRawScores(t *testing.T) {
	raw := []int64{0, 1, -1, 63, -64, 64, -65, 100, 8191, -8192, 8192, math.MaxInt64, math.MinInt64}
	var want ScoreColumn
	for _, v := range raw {
		want.AppendScore(v)
	}
	var got ScoreColumn
	got.SetRawScores(raw)
	if !bytes.Equal(got.Raw, want.Raw) {
		t.Fatalf("SetRawScores wrote %x, AppendScore %x", got.Raw, want.Raw)
	}
	if cap(got.Raw) != len(got.Raw) {
		t.Errorf("capacity %d for %d bytes", cap(got.Raw), len(got.Raw))
	}
	if d := got.RawScores(); len(d) != len(raw) || d[len(d)-1] != math.MinInt64 {
		t.Errorf("decoded %v", d)
	}
}
