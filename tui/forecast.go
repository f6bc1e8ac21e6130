package tui

import (
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/schedtui/schedtui/scheduler"
	"github.com/schedtui/schedtui/scheduler/engine"
	"github.com/schedtui/schedtui/scheduler/history"
)

// Forecasts. On a live cluster the engine mirrors the cluster, and an
// attempt schedtui made there would pretend to be the cluster's decision.
// So n, s, c (and enter on a queued pod) run on a forecast instead: a fork
// of the mirror as it is at that moment, in virtual time from then
// (engine.Forecast). The backend points at the fork while it is shown, so
// every view shows the forecast, marked as one; the mirror keeps taking
// live changes (the status line counts them) and judges the forecast's
// attempts when the cluster decides about their pods. u steps back within
// the forecast and, from its first attempt, drops it: the views follow
// the live mirror again. With --bind, n binds for real on the mirror: no
// forecast. Snapshots and recordings have none either.

// forecaster is a live backend's mirror and the forecast shown, if any.
// Its fields are read and written under the backend lock.
type forecaster struct {
	mirror *engine.Engine
	cur    *engine.Forecast
}

// stepper is what the backend drives: the mirror or a forecast.
type stepper interface {
	engine.API
	Scheduler() *scheduler.Scheduler
	Fork(i int) (*scheduler.Scheduler, *v1.Pod, error)
	Pod(key string) *v1.Pod
	Quiescent() bool
	Retained() engine.Retained
}

// use points the backend's engine calls at e.
func (b *Backend) use(e stepper) {
	b.API, b.State, b.Fork, b.Pod, b.Quiescent = e, e.Scheduler, e.Fork, e.Pod, e.Quiescent
	b.retained = e.Retained
}

// forecasts reports whether attempts run on a forecast (a live cluster
// without --bind). Under the lock.
func (b *Backend) forecasts() bool { return b.fc != nil && !b.fc.mirror.Binds() }

// inForecast is the forecast shown, or nil. Under the lock.
func (b *Backend) inForecast() *engine.Forecast {
	if b.fc == nil {
		return nil
	}
	return b.fc.cur
}

// beginForecast forks the mirror unless a forecast is shown already.
func (b *Backend) beginForecast() error {
	if b.fc.cur != nil {
		return nil
	}
	f, err := b.fc.mirror.Forecast()
	if err != nil {
		return err
	}
	b.fc.cur = f
	b.use(f)
	return nil
}

// endForecast drops the forecast: back to the live mirror.
func (b *Backend) endForecast() {
	b.fc.cur = nil
	b.use(b.fc.mirror)
}

// forecast wraps an operation that makes attempts: on a live cluster it
// runs on the forecast (forked first when none is shown); a fresh
// forecast that made no attempt is dropped again.
func (s *session) forecast(op func() note) func() note {
	b := s.b
	if b.fc == nil {
		return op
	}
	return func() note {
		if !b.forecasts() {
			return op()
		}
		fresh := b.fc.cur == nil
		if err := b.beginForecast(); err != nil {
			return note{text: "forecast: " + err.Error()}
		}
		n := op()
		if fresh && b.fc.cur.Made() == 0 {
			b.endForecast()
			return note{text: "nothing to forecast now: no pod is waiting to be scheduled"}
		}
		n.text = "forecast: " + n.text
		return n
	}
}

// rewindForecast wraps the rewind: within a forecast it steps back one
// forecast attempt, and from its first drops it (back to live).
func (s *session) rewindForecast(op func() note) func() note {
	b := s.b
	if b.fc == nil {
		return op
	}
	return func() note {
		f := b.inForecast()
		if f == nil {
			return op()
		}
		if f.Made() <= 1 {
			b.endForecast()
			return note{text: "forecast dropped: back to the live cluster"}
		}
		if err := f.Rewind(1); err != nil {
			return note{text: "rewind: " + err.Error()}
		}
		return note{text: "forecast: rewound one attempt"}
	}
}

// eventForecast is the Events view's line for a forecast attempt judged
// against the cluster's decision (not an engine event: the judgment is
// made afresh at each capture).
const eventForecast history.EventKind = "forecast"

// forecastInfo is the forecast shown, as captured with the world.
type forecastInfo struct {
	at time.Time
	// base and baseEvents: the attempts and events before the forecast;
	// the world's events from liveFrom on are the live cluster's since
	// then, with the judgments.
	base, baseEvents, liveFrom int
	// changes arrived into the mirror since the fork.
	changes   int
	judgments map[int]engine.Judgment
	counts    map[engine.ForecastVerdict]int
}

// captureForecast reads the forecast shown into w, and appends to w's
// events the live cluster's since the fork, each judgment right after the
// observation it comes from. Under the lock.
func captureForecast(b *Backend, w *world) {
	f := b.inForecast()
	if f == nil {
		return
	}
	fi := &forecastInfo{at: f.At(), base: f.Base(), baseEvents: f.BaseEvents(), liveFrom: w.events.Len(), changes: f.ChangesSince(),
		judgments: map[int]engine.Judgment{}, counts: map[engine.ForecastVerdict]int{}}
	byPod := map[string][]engine.Judgment{}
	for _, j := range f.Judgments() {
		fi.judgments[j.Attempt] = j
		fi.counts[j.Verdict]++
		byPod[j.Pod] = append(byPod[j.Pod], j)
	}
	for _, ev := range f.LiveSince() {
		w.events.add(ev)
		if ev.Kind != history.EventObserved {
			continue
		}
		w.observed.add(ev.Reason)
		for _, j := range byPod[ev.Pod] {
			w.events.add(history.Event{Time: j.Time, Kind: eventForecast, Pod: j.Pod,
				Attempt: j.Attempt, Node: j.Node, Predicted: j.Predicted, Reason: string(j.Verdict), Message: j.Message})
		}
		delete(byPod, ev.Pod)
	}
	w.forecast = fi
}

// forecastAttempt reports whether attempt i of the world shown is a
// forecast's.
func (w *world) forecastAttempt(i int) bool {
	return w != nil && w.forecast != nil && i >= w.forecast.base
}

// eventMark marks, while a forecast is shown, the events of its attempts
// ("[forecast] ") and the live cluster's since the fork ("[live] ").
func (w *world) eventMark(e *history.Event) string {
	switch {
	case w == nil || w.forecast == nil || e.Seq <= w.forecast.baseEvents || e.Kind == eventForecast:
		return ""
	case e.Seq > w.forecast.liveFrom:
		return "[live] "
	}
	return "[forecast] "
}

// forecastBadge marks the header while a forecast is shown.
func forecastBadge(c *Common) string {
	if c.World == nil || c.World.forecast == nil {
		return ""
	}
	return " " + c.St.Warn.Render("[forecast]")
}

// forecastStatus puts the status line's account of the forecast shown
// (the state it is based on, the changes since, the judgments so far)
// before the source's state, right.
func forecastStatus(c *Common, right string) string {
	w := c.World
	if w == nil || w.forecast == nil {
		return right
	}
	fi := w.forecast
	s := fmt.Sprintf("forecast from %s · %d change(s) since", fi.at.In(c.Loc).Format("15:04:05"), fi.changes)
	if len(fi.judgments) > 0 {
		s += fmt.Sprintf(" · %d hit · %d tie · %d miss", fi.counts[engine.ForecastHit], fi.counts[engine.ForecastTie], fi.counts[engine.ForecastMiss])
	}
	if right == "" {
		return s
	}
	return s + " · " + right
}

// forecastLine is the Pod view's first line for a forecast attempt: what
// it is based on, and the judgment once the cluster decided.
func forecastLine(c *Common, i int) []string {
	w := c.World
	if !w.forecastAttempt(i) {
		return nil
	}
	fi := w.forecast
	s := fmt.Sprintf("Forecast on the cluster as it was at %s (%d change(s) since), not a decision of the cluster's scheduler.",
		fi.at.In(c.Loc).Format("15:04:05"), fi.changes)
	if j, ok := fi.judgments[i]; ok {
		s += " Judged: " + string(j.Verdict) + ": " + j.Message
	}
	return []string{s}
}

// forecastEventText is a judgment's line in the Events view.
func forecastEventText(e *history.Event) string {
	predicted := e.Predicted
	if predicted == "" {
		predicted = "no node"
	}
	actual := "the cluster's scheduler finds no node"
	if e.Node != "" {
		actual = "the cluster bound it to " + e.Node
	}
	return fmt.Sprintf("%-10s %s: %s; forecast: %s (%s)", e.Kind, e.Pod, actual, predicted, e.Reason)
}

// forecastPrefix marks the header's attempt while it is a forecast's.
func forecastPrefix(c *Common) string {
	if c.World.forecastAttempt(c.Focus) {
		return "forecast "
	}
	return ""
}

// forecastExplain is the teaching pane's text for a judgment.
const forecastExplain = "The cluster's own scheduler decided about a pod the forecast attempted. The forecast ran on the cluster " +
	"as it was when it was made: hit (the same node, or no node for either), tie (another node tied at the forecast's top " +
	"score: which one kube-scheduler takes is not fixed) or miss, with why. enter opens the forecast attempt."
