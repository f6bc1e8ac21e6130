package tui

import (
	"fmt"
	"path"
	"sync"

	"github.com/schedtui/schedtui/scheduler/engine"
	"github.com/schedtui/schedtui/scheduler/record"
)

// Retention. A debugger left open on a busy cluster makes attempts without
// end; the engine keeps the last few whole and summarizes the rest
// (engine.Retention), keeps whole what the views pin (the selected pod,
// the pods breakpoints name, pods still pending), and slides its rewind
// checkpoints. The status line says what is kept once anything was
// summarized.

// DefaultKeepDetail is the number of latest attempts the debugger keeps
// whole: more than a screen of Events, a few seconds of a busy cluster.
const DefaultKeepDetail = 500

// Under a detailed window the debugger keeps rewindCheckpoints checkpoints
// rewindInterval attempts apart: about 41,000 attempts of rewind, an hour
// of a cluster scheduling 10 pods a second, each rewind replaying at most
// 1024 attempts. BenchmarkLongReplay (scheduler/engine) measures this
// policy.
const (
	rewindCheckpoints = 40
	rewindInterval    = 1024
)

// Retain bounds what the engine keeps: the last keep attempts whole (0:
// every attempt whole, and every checkpoint kept, thinned, as before).
func (b *Backend) Retain(keep int) error {
	if keep < 0 {
		return fmt.Errorf("--keep-detail %d: want 0 (keep everything) or more", keep)
	}
	var err error
	b.Locked(func() {
		if keep == 0 {
			err = b.engine.SetRetention(engine.Retention{}, 0, 0)
			return
		}
		err = b.engine.SetRetention(engine.Retention{Detailed: keep, Sliding: true}, rewindInterval, rewindCheckpoints)
	})
	return err
}

// pins are the pods the views keep whole: the focused attempt's pod and
// the breakpoints' pod patterns. The model sets them from Update, the
// engine reads them under the backend lock: they have their own.
type pins struct {
	mu       sync.Mutex
	pod      string
	patterns []string
}

func (p *pins) set(pod string, bps []engine.Breakpoint) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.pod = pod
	p.patterns = p.patterns[:0]
	for _, bp := range bps {
		if bp.PodPattern != "" {
			p.patterns = append(p.patterns, bp.PodPattern)
		}
	}
}

// pinned is engine.SetPinned's callback.
func (p *pins) pinned(pod string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if pod == p.pod {
		return true
	}
	for _, pat := range p.patterns {
		if ok, _ := path.Match(pat, pod); ok {
			return true
		}
	}
	return false
}

// keptText is the status line's account of what is kept, once the engine
// summarized anything ("" before).
func keptText(r engine.Retained) string {
	if r.Summary == 0 {
		return ""
	}
	return fmt.Sprintf("kept: %s full · %s summary · %d checkpoints", thousands(r.Full), thousands(r.Summary), r.Checkpoints)
}

// thousands writes n with thousands separators: 12,345.
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// summaryOnly is what the attempt views say of an attempt retention
// summarized.
func summaryOnly(a *record.Attempt) string {
	return fmt.Sprintf("%s: only this attempt's summary line was kept (%s %s); u rewinds to it and re-runs it whole.", a.Pod, a.Outcome, a.Node)
}
