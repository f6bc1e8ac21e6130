package record

import "encoding/binary"

// AppendScore appends a raw score to a column.
func (c *ScoreColumn) AppendScore(raw int64) {
	c.Raw = binary.AppendVarint(c.Raw, raw)
}

// RawScores decodes the raw scores.
func (c *ScoreColumn) RawScores() []int64 {
	out := make([]int64, 0, len(c.Raw))
	for b := c.Raw; len(b) > 0; {
		v, n := binary.Varint(b)
		if n <= 0 {
			break
		}
		out = append(out, v)
		b = b[n:]
	}
	return out
}

// NormalizedScores returns the normalized scores (raw when the plugin
// does not normalize).
func (c *ScoreColumn) NormalizedScores() []int64 {
	if c.Normalized == nil {
		return c.RawScores()
	}
	out := make([]int64, len(c.Normalized))
	for i, v := range c.Normalized {
		out[i] = int64(v)
	}
	return out
}
