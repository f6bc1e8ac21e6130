package change

import "time"

// Clock tells the time of a source that runs in real time (a live
// cluster): the engine follows it (engine.Options.Clock), and the source
// stamps the changes it delivers with it.
type Clock interface {
	Now() time.Time
}

// WallClock is the real clock, in UTC (without the monotonic reading,
// like every time the engine keeps).
type WallClock struct{}

// Now is the wall time.
func (WallClock) Now() time.Time { return time.Now().UTC() }
