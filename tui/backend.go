package tui

import (
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"

	"github.com/schedtui/schedtui/scheduler"
	"github.com/schedtui/schedtui/scheduler/change"
	"github.com/schedtui/schedtui/scheduler/engine"
	"github.com/schedtui/schedtui/scheduler/features"
	"github.com/schedtui/schedtui/snapshot"
)

// Backend is everything the TUI asks of the scheduling side. The engine
// drives time; State and Fork expose the cluster state the views and the
// teaching pane read. Every call may be slow at scale, so the model only
// makes them from tea.Cmds, serialised by Backend.mu.
type Backend struct {
	engine.API
	// Name labels the source in the header (file name, demo, context).
	Name string
	// Scheduler names the scheduler simulated and counts the feature
	// gates not at their defaults, for the header ("kube-scheduler 1.37",
	// "kube-scheduler 1.35 +2 gates").
	Scheduler string
	// State is the scheduler at the engine's cursor. Callers only read it,
	// and only while holding the lock (see Locked).
	State func() *scheduler.Scheduler
	// Fork returns a fresh scheduler holding the cluster exactly as attempt
	// i saw it, and the pod as attempt i popped it. The engine is not
	// touched: the what-if editor may schedule on the fork freely.
	Fork func(i int) (*scheduler.Scheduler, *v1.Pod, error)
	// Pod returns the current object of a pod ("namespace/name") or nil.
	Pod func(key string) *v1.Pod
	// Quiescent reports whether the engine has nothing left to do (nil:
	// never says so).
	Quiescent func() bool
	// Clock is set for a live cluster: the engine runs in real time and
	// the session ticks every second (Tick, then a redraw of the ages).
	// Snapshots and recordings run in virtual time: nil.
	Clock change.Clock
	// Tick advances the engine to the Clock's now and reports whether
	// anything besides the clock changed (nil without a Clock).
	Tick func() bool
	// DaemonSets are the cluster's: a node a hint adds runs their pods.
	DaemonSets []*appsv1.DaemonSet
	// ParseObjects reads the object editor's YAML (name labels its
	// errors) into typed objects, defaulted and validated as the loader
	// does a snapshot's (the command sets it; nil: the editor cannot
	// apply).
	ParseObjects func(name string, data []byte) ([]any, error)

	// engine is the engine the backend was built on (a live backend's
	// mirror): retention applies to it.
	engine *engine.Engine
	// retained reports what the engine shown keeps (retention.go).
	retained func() engine.Retained
	// pins are what the views ask the engine to keep whole.
	pins pins

	// fc is a live backend's mirror and forecast (forecast.go); nil for
	// snapshots and recordings.
	fc *forecaster

	// observed counts the observations captured (world.go).
	observed observedTally

	// captures counts captures (under mu): a world captured earlier never
	// replaces one captured later.
	captures uint64

	// mu serialises everything that runs scheduler code: the engine, forks
	// and diagnoses share process-wide counters (NodeInfo generations) and
	// the engine's state is not safe for concurrent use.
	mu sync.Mutex
}

// Locked runs f holding the backend lock.
func (b *Backend) Locked(f func()) {
	b.mu.Lock()
	defer b.mu.Unlock()
	f()
}

// Replay is a recording to replay (schedtui record): virtual time starts
// at Start, and each change is applied at its At. NotApplied, when set,
// hears of the changes the engine refused at once (those due at Start;
// later ones that fail show on the timeline).
type Replay struct {
	Start      time.Time
	Changes    []change.Change
	NotApplied func(change.Change, error)
	// Shadow runs the engine in shadow mode (engine.Options.Shadow): it
	// follows the cluster and judges its scheduler's decisions. A Replay
	// without changes sets it for a live cluster.
	Shadow bool
	// ExtenderAnswers, when set, makes the store of extender answers
	// each engine answers from (a recording's, preloaded: nothing is
	// called); one per engine, since a store takes the recorded answers
	// in turn.
	ExtenderAnswers func() *scheduler.ExtenderAnswers
	// Resume restarts the run where a state written by snapshot --at left
	// it (engine.Options.Resume): its pod is popped first, with the
	// scheduler's tie-breaking state; Start is then the state's time.
	Resume *engine.Resume
}

// NewBackend builds the queue engine over a loaded cluster, with the
// changes of a recording when one is given.
func NewBackend(name string, c *snapshot.Cluster, opts scheduler.Options, replay ...Replay) (*Backend, error) {
	return newBackend(name, c, engine.Options{Config: opts.Config, Registry: opts.Registry, Seed: opts.Seed, Features: opts.Features}, replay)
}

// NewLiveBackend builds the queue engine over a live cluster's state in
// real time: it starts at clock's now and follows it (engine.Options.Clock).
func NewLiveBackend(name string, c *snapshot.Cluster, opts scheduler.Options, clock change.Clock, replay ...Replay) (*Backend, error) {
	b, err := newBackend(name, c, engine.Options{Config: opts.Config, Registry: opts.Registry, Seed: opts.Seed, Clock: clock, Features: opts.Features}, replay)
	if err != nil {
		return nil, err
	}
	b.Clock, b.Tick = clock, b.engine.Tick
	b.fc = &forecaster{mirror: b.engine}
	return b, nil
}

// SetBind makes the engine bind the pods it schedules in the live cluster
// (--bind: engine.Options.Bind), before its first attempt.
func (b *Backend) SetBind(f engine.BindFunc) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.engine.SetBind(f)
}

// Apply applies a change of the live cluster to the engine the backend was
// built on (a live backend's mirror, never the forecast shown), under the
// backend lock.
func (b *Backend) Apply(c change.Change) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.engine.Apply(c)
}

func newBackend(name string, c *snapshot.Cluster, eo engine.Options, replay []Replay) (*Backend, error) {
	for _, r := range replay {
		if !r.Start.IsZero() {
			eo.Start = r.Start
		}
		eo.Shadow = eo.Shadow || r.Shadow
		if r.Resume != nil {
			eo.Resume = r.Resume
		}
		if r.ExtenderAnswers != nil {
			eo.ExtenderAnswers = r.ExtenderAnswers()
		}
	}
	e, err := engine.New(c.Nodes, c.Pods, c.SchedulerObjects(), eo)
	if err != nil {
		return nil, err
	}
	for _, r := range replay {
		for _, ch := range r.Changes {
			if err := e.Apply(ch); err != nil && r.NotApplied != nil {
				r.NotApplied(ch, err)
			}
		}
	}
	b := &Backend{Name: name, engine: e, Scheduler: features.Defaults().Short(), DaemonSets: c.DaemonSets}
	b.use(e)
	e.SetPinned(b.pins.pinned)
	return b, nil
}

// SourceStatus is a live source's state for the status line: connection,
// initial sync progress and the last cluster event seen.
type SourceStatus struct {
	Connected bool
	// Synced of Total objects listed so far (Total 0: unknown).
	Synced, Total int
	LastEvent     string
	Err           error
}

// Source is where the cluster comes from when it keeps changing (a live
// cluster through --kubeconfig). A static snapshot needs none. Updates is
// read from a tea.Cmd that batches what arrived within a frame; the TUI
// never blocks on it in Update.
type Source interface {
	// Name labels the source in the header ("kind-dev", a file name).
	Name() string
	// Updates delivers status changes; it is closed when the source stops.
	Updates() <-chan SourceStatus
}
