package record

import "encoding/binary"

// AppendScore appends a raw score to a column.
func (c *ScoreColumn) AppendScore(raw int64) {
	c.Raw = binary.AppendVarint(c.Raw, raw)
}

// SetRawScores sets a column's raw scores, in one allocation of the exact
// size.
func (c *ScoreColumn) SetRawScores(raw []int64) {
	n := 0
	for _, v := range raw {
		n += varintLen(v)
	}
	c.Raw = make([]byte, n)
	off := 0
	for _, v := range raw {
		// Most raw scores are below 64 and take one byte: written
		// directly, they cost a store (hundreds of nodes times the plugins,
		// every cycle).
		if ux := zigzag(v); ux < 0x80 {
			c.Raw[off] = byte(ux)
			off++
			continue
		}
		off += binary.PutVarint(c.Raw[off:], v)
	}
}

// zigzag is v as binary.PutVarint encodes it before the varint.
func zigzag(v int64) uint64 {
	ux := uint64(v) << 1
	if v < 0 {
		ux = ^ux
	}
	return ux
}

// varintLen is how many bytes binary.AppendVarint writes for v.
func varintLen(v int64) int {
	ux := zigzag(v)
	n := 1
	for ux >= 0x80 {
		ux >>= 7
		n++
	}
	return n
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
