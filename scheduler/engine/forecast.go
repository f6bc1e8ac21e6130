package engine

import (
	"errors"
	"fmt"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/schedtui/schedtui/scheduler"
	"github.com/schedtui/schedtui/scheduler/history"
	"github.com/schedtui/schedtui/scheduler/record"
)

// Forecasts. On a live cluster the engine is a mirror: it follows what the
// cluster reports, in real time, and its own scheduling attempts would
// pretend to decide what the cluster's scheduler decides. Stepping there
// is a forecast instead: Forecast forks the mirror as it is now into an
// engine of its own that runs in virtual time from the mirror's now (the
// fork keeps the mirror's Options without its Clock and without --bind's
// binder), and every attempt is made on the fork. The mirror is only read:
// its state, queue and timeline stay as they were, and live changes keep
// arriving into it. When the cluster then decides about a pod the forecast
// attempted (binds it, or marks it PodScheduled=False/Unschedulable: the
// mirror's observation), each forecast attempt for that pod is judged
// against the decision with the same rules as an observation (judge): hit,
// tie or miss.

// ForecastVerdict judges a forecast attempt against the cluster's decision.
type ForecastVerdict string

const (
	// ForecastHit: the cluster bound the pod where the forecast put it,
	// or both found no node.
	ForecastHit ForecastVerdict = "hit"
	// ForecastTie: the cluster chose another node tied at the forecast's
	// top total score (which of them kube-scheduler takes is not fixed: the order its parallel Filter returned them decides, or a random draw when an extender scored).
	ForecastTie ForecastVerdict = "tie"
	// ForecastMiss: anything else; Judgment.Message says why.
	ForecastMiss ForecastVerdict = "miss"
)

// ErrForecastStart refuses rewinding a forecast past its first attempt:
// before it is the mirror, which has moved on since.
var ErrForecastStart = errors.New("the forecast starts here: before it is the live cluster")

// Forecast is a fork of a real-time engine (the mirror) run in virtual
// time. Its Engine is an API like any other: Step, StepPhase, Continue,
// Rewind (never past the forecast's first attempt), Fork.
type Forecast struct {
	*Engine
	mirror *Engine
	// at is the mirror's now when forked; base and baseEvents are the
	// attempts and timeline events the fork started with (the mirror's),
	// mirrorEvents the mirror's timeline length then.
	at                             time.Time
	base, baseEvents, mirrorEvents int
	// droppedAtFork is the events the mirror's compaction had dropped then.
	droppedAtFork int
}

// Judgment is a forecast attempt judged against the cluster's decision.
type Judgment struct {
	// Attempt indexes the forecast's Attempts.
	Attempt int
	Pod     string
	// Time is when the cluster's decision arrived (the mirror's clock).
	Time time.Time
	// Node is where the cluster bound the pod; "" when its scheduler
	// reported it unschedulable. Predicted is the forecast's node ("" for
	// none).
	Node, Predicted string
	Verdict         ForecastVerdict
	// Message says why (as an observation's).
	Message string
}

// Forecast forks a real-time engine at its current state (after catching
// it up to its Clock, as a tick does) into a virtual-time engine. The
// engine itself is only read.
func (e *Engine) Forecast() (*Forecast, error) {
	if e.opts.Clock == nil {
		return nil, errors.New("forecasts are for a live cluster (an engine in real time)")
	}
	e.Tick()
	c, err := e.capture()
	if err != nil {
		return nil, fmt.Errorf("forking the live state: %w", err)
	}
	c.ops = 0
	// A forecast simulates, even when the mirror shadows the cluster's
	// scheduler.
	c.mode = forecastState(c.mode)
	opts := e.opts
	opts.Clock, opts.Bind, opts.Shadow = nil, nil, false
	// Nor does it hand out events, or apply the mirror's retention to the
	// attempts and timeline it shares with the mirror.
	opts.OnEvent, opts.Retention = nil, Retention{}
	n, m := e.hist.Len(), e.hist.Events()
	f := &Engine{opts: opts, nodes0: e.nodes0, pods0: e.pods0, objs0: e.objs0, profile: e.profile,
		start: e.start, ckptInterval: e.ckptInterval, hist: e.hist.Fork()}
	if err := f.restore(c); err != nil {
		return nil, fmt.Errorf("forking the live state: %w", err)
	}
	f.checkpoints = []*checkpoint{c}
	return &Forecast{Engine: f, mirror: e, at: e.now, base: n, baseEvents: m, mirrorEvents: m, droppedAtFork: e.hist.Dropped()}, nil
}

// At is the mirror's time when the forecast forked from it.
func (f *Forecast) At() time.Time { return f.at }

// Base is the number of attempts before the forecast's first (the
// mirror's); BaseEvents likewise for the timeline.
func (f *Forecast) Base() int       { return f.base }
func (f *Forecast) BaseEvents() int { return f.baseEvents }

// Made is the number of forecast attempts.
func (f *Forecast) Made() int { return f.hist.Len() - f.base }

// Rewind undoes forecast attempts, never past the first.
func (f *Forecast) Rewind(n int) error {
	if n > 0 && f.hist.Len()-n < f.base {
		return ErrForecastStart
	}
	return f.Engine.Rewind(n)
}

// Fork is the cluster as attempt i saw it: the mirror's for the attempts
// before the forecast.
func (f *Forecast) Fork(i int) (*scheduler.Scheduler, *v1.Pod, error) {
	if i < f.base {
		return f.mirror.Fork(i)
	}
	return f.Engine.Fork(i)
}

// LiveSince is the mirror's timeline since the forecast forked from it.
func (f *Forecast) LiveSince() []history.Event {
	// The mirror may have compacted its timeline since (retention.go).
	from := f.mirrorEvents - (f.mirror.hist.Dropped() - f.droppedAtFork)
	l := f.mirror.Timeline()
	return l.Slice(max(from, 0), l.Len())
}

// ChangesSince is the number of cluster changes the mirror applied since
// the forecast forked from it.
func (f *Forecast) ChangesSince() int {
	n := 0
	for _, ev := range f.LiveSince() {
		if ev.Kind == history.EventCluster && ev.Object != "" {
			n++
		}
	}
	return n
}

// Judgments judges every forecast attempt of a pod the cluster decided
// about since the fork, against its first decision then, in attempt
// order.
func (f *Forecast) Judgments() []Judgment {
	decided := map[string]history.Event{}
	for _, ev := range f.LiveSince() {
		if ev.Kind != history.EventObserved {
			continue
		}
		if _, ok := decided[ev.Pod]; !ok {
			decided[ev.Pod] = ev
		}
	}
	if len(decided) == 0 {
		return nil
	}
	var out []Judgment
	for i := f.base; i < f.hist.Len(); i++ {
		a := f.hist.At(i)
		ev, ok := decided[a.Pod]
		if !ok || a.Outcome == record.Skipped {
			continue
		}
		v, why := judge(a, ev.Node, f.clusterMessage(ev))
		out = append(out, Judgment{Attempt: i, Pod: a.Pod, Time: ev.Time, Node: ev.Node, Predicted: a.Node,
			Verdict: forecastVerdicts[v], Message: strings.ReplaceAll(why, "schedtui", "the forecast")})
	}
	return out
}

var forecastVerdicts = map[Verdict]ForecastVerdict{Agree: ForecastHit, Tie: ForecastTie, Disagree: ForecastMiss}

// clusterMessage is the unschedulable message of the cluster's scheduler
// behind an observation: the pod's PodScheduled condition in the mirror,
// or, once that moved on, what the observation quoted.
func (f *Forecast) clusterMessage(ev history.Event) string {
	if ev.Node != "" {
		return ""
	}
	if p := f.mirror.Pod(ev.Pod); p != nil && p.Spec.NodeName == "" {
		for _, c := range p.Status.Conditions {
			if c.Type == v1.PodScheduled && c.Reason == v1.PodReasonUnschedulable {
				return c.Message
			}
		}
	}
	if _, msg, ok := strings.Cut(ev.Message, "says: "); ok {
		return msg
	}
	return "unschedulable"
}
