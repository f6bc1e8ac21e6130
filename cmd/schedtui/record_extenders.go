package main

import (
	"fmt"
	"io"
	"time"

	"github.com/schedtui/schedtui/scheduler"
	"github.com/schedtui/schedtui/scheduler/apis/config"
	"github.com/schedtui/schedtui/scheduler/change"
	"github.com/schedtui/schedtui/scheduler/engine"
	"github.com/schedtui/schedtui/scheduler/plugins"
	"github.com/schedtui/schedtui/snapshot"
)

// recordSeed is the seed a replay uses by default (--seed's default), so
// that the recorder's attempts are the replay's.
const recordSeed = 1

// extenderRecorder is schedtui's shadow engine run alongside `schedtui
// record` when the configuration has extenders: it judges each decision
// of the cluster's scheduler as a replay will, so the extenders are asked
// what a replay will ask them, and every exchange goes into the
// recording. The engine has no bind function and no cluster client: it
// only reads what the watch delivers, the recording stays read-only.
type extenderRecorder struct {
	e       *engine.Engine
	answers *scheduler.ExtenderAnswers
	started time.Time
	// err is the first failure to write an answer.
	err error
}

// newExtenderRecorder builds the shadow engine for a recording that
// starts at started over src's state, or returns nil when the
// configuration (cfgData, already validated) has no extenders or skip
// (--skip-extenders) says not to ask them, which it says on w.
func newExtenderRecorder(src *source, cfgFile string, cfgData []byte, started time.Time, skip bool, w io.Writer) (*extenderRecorder, error) {
	if cfgData == nil {
		return nil, nil
	}
	cfg, _, err := config.LoadData(cfgFile, cfgData, src.gates.Features)
	if err != nil {
		return nil, err
	}
	if len(cfg.Extenders) == 0 {
		return nil, nil
	}
	if skip {
		fmt.Fprintf(w, "%s: --skip-extenders: the extenders are not asked while recording; the recording keeps no answers "+
			"and its replays call the extenders (or leave them out with --skip-extenders)\n", src.name)
		return nil, nil
	}
	o := engine.Options{Config: cfg, Registry: plugins.NewInTreeRegistry(), Seed: recordSeed, Start: started, Shadow: true,
		Features: &src.gates.Features, ExtenderAnswers: scheduler.NewExtenderAnswers()}
	// Nothing is shown: keep only what judging the next decisions needs.
	o.Retention.Headless = true
	e, err := engine.New(src.cluster.Nodes, src.cluster.Pods, src.cluster.SchedulerObjects(), o)
	if err != nil {
		return nil, fmt.Errorf("building the scheduler that asks the extenders: %w", err)
	}
	return &extenderRecorder{e: e, answers: o.ExtenderAnswers, started: started}, nil
}

// writeTo makes every extender call go into rw, at the wall-clock time
// it was made.
func (r *extenderRecorder) writeTo(rw *snapshot.RecordingWriter) {
	r.answers.OnExchange(func(x scheduler.ExtenderExchange) {
		if r.err != nil {
			return
		}
		r.err = rw.AddExtenderAnswer(time.Now().UTC(), x)
	})
}

// change runs the engine up to the change's time, as a replay does
// before applying it, then applies it.
func (r *extenderRecorder) change(ch change.Change, w io.Writer) error {
	r.e.RunUntil(ch.At.Sub(r.started))
	if err := r.e.Apply(ch); err != nil {
		fmt.Fprintf(w, "warning: the scheduler asking the extenders did not take %s: %v\n", ch, err)
	}
	return r.err
}

// finish judges what is left to judge, as a replay does after the last
// change.
func (r *extenderRecorder) finish(end time.Time) error {
	r.e.RunUntil(end.Sub(r.started))
	return r.err
}
