package main

import (
	"fmt"
	"io"
	"time"

	"github.com/schedtui/schedtui/scheduler"
	"github.com/schedtui/schedtui/scheduler/change"
	"github.com/schedtui/schedtui/scheduler/engine"
	"github.com/schedtui/schedtui/scheduler/history"
	"github.com/schedtui/schedtui/snapshot"
	"github.com/schedtui/schedtui/tui"
)

// replay is a recording's changes (schedtui record), replayed in virtual
// time: the engine starts when the recording started and applies each
// change at the time it arrived.
type replay struct {
	start, until time.Time
	changes      []change.Change
	// where locates each change in the file, for messages.
	where []string
	// offline: the recording holds its extenders' answers (answers), and
	// every engine answers from them, never calling an extender.
	offline bool
	answers []scheduler.ExtenderExchange
}

// useExtenderAnswers makes the replay answer the extenders from the
// recording's answers, when the recorder kept them (its header says so);
// with skip (--skip-extenders) nothing is replayed.
func (r *replay) useExtenderAnswers(o *snapshot.Opened, skip bool, w io.Writer) {
	if r == nil || o.Header == nil || o.Header.ExtenderAnswers != snapshot.ExtenderAnswersRecorded || skip {
		return
	}
	r.offline = true
	for _, a := range o.ExtenderAnswers {
		r.answers = append(r.answers, a.Exchange)
	}
	fmt.Fprintf(w, "the recording holds %d extender answers: the extenders are answered from them and never called "+
		"(a request it has no answer for is an unreachable extender's error)\n", len(r.answers))
}

// extenderAnswers is a store preloaded with the recording's extender
// answers for one engine, or nil when they are not replayed.
func (r *replay) extenderAnswers() *scheduler.ExtenderAnswers {
	if r == nil || !r.offline {
		return nil
	}
	a := scheduler.NewExtenderAnswers()
	a.Preload(r.answers)
	return a
}

// replayOf converts the changes of an opened recording; nil for a
// snapshot, or when the source is only converted (schedtui snapshot).
// Changes the engine cannot take are reported to w.
func replayOf(o *snapshot.Opened, w io.Writer, convertOnly bool) *replay {
	if o == nil || !o.Header.IsRecording() || convertOnly {
		return nil
	}
	r := &replay{start: o.Header.RecordingStarted, until: o.RecordedUntil}
	for _, rc := range o.Changes {
		where := fmt.Sprintf("%s:%d", rc.File, rc.Line)
		c, err := change.For(rc.Type, rc.Object)
		if err != nil {
			fmt.Fprintf(w, "%s: warning: %v; the change is not replayed\n", where, err)
			continue
		}
		c.At = rc.Time
		r.changes = append(r.changes, c)
		r.where = append(r.where, where)
	}
	end := "cut short"
	if !r.until.IsZero() {
		end = "until " + r.until.Format(time.RFC3339)
	}
	fmt.Fprintf(w, "a recording: %d changes from %s (%s); run, explain and the debugger replay them in virtual time\n",
		len(r.changes), r.start.Format(time.RFC3339), end)
	return r
}

// recordingAsSnapshot is the header of a recording converted to a
// snapshot (schedtui snapshot --snapshot REC): its initial state only.
func recordingAsSnapshot(o *snapshot.Opened, w io.Writer) *snapshot.Header {
	h := *o.Header
	// The extenders' answers are a recording's: a snapshot has none.
	h.RecordingStarted, h.ExtenderAnswers = time.Time{}, ""
	fmt.Fprintf(w, "note: %d changes of the recording are left out: a snapshot holds its initial state (%s)\n",
		len(o.Changes), o.Header.RecordingStarted.Format(time.RFC3339))
	return &h
}

// startTime is virtual time zero: the recording's start, or zero (the
// engine's default) without a recording.
func (r *replay) startTime() time.Time {
	if r == nil {
		return time.Time{}
	}
	return r.start
}

// apply hands every change to the engine, each at its time; those it
// refuses at once are reported to w (later ones that fail are "not
// applied" events on the timeline).
func (r *replay) apply(e *engine.Engine, w io.Writer) {
	if r == nil {
		return
	}
	for i, c := range r.changes {
		if err := e.Apply(c); err != nil {
			r.notApplied(w, i, err)
		}
	}
}

func (r *replay) notApplied(w io.Writer, i int, err error) {
	fmt.Fprintf(w, "%s: warning: %s not applied: %v\n", r.where[i], r.changes[i], err)
}

// forTUI is the replay for tui.NewBackend (none without a recording);
// whether it shadows is the mode's to say.
func (r *replay) forTUI(w io.Writer) []tui.Replay {
	if r == nil {
		return nil
	}
	tr := tui.Replay{Start: r.start, Changes: r.changes}
	if r.offline {
		tr.ExtenderAnswers = r.extenderAnswers
	}
	tr.NotApplied = func(c change.Change, err error) {
		_, obj := c.WatchEvent()
		for i, rc := range r.changes {
			if _, o := rc.WatchEvent(); o == obj && rc.Kind == c.Kind {
				r.notApplied(w, i, err)
				return
			}
		}
		fmt.Fprintf(w, "warning: %s not applied: %v\n", c, err)
	}
	return []tui.Replay{tr}
}

// span is how many changes the replay holds and over how long, for the
// debugger's status line: "6 changes over 45m0s".
func (r *replay) span() string {
	if len(r.changes) == 0 {
		return "0 changes"
	}
	return fmt.Sprintf("%d changes over %s", len(r.changes), r.changes[len(r.changes)-1].At.Sub(r.start))
}

// printCluster prints a cluster change line of `run -o text`.
func printCluster(w io.Writer, at string, ev history.Event) {
	j, ok := engine.EventJSON(ev)
	c, isChange := j.(engine.ClusterJSON)
	if !ok || !isChange {
		return
	}
	line := fmt.Sprintf("%-8s   cluster: %s %s", at, c.Change, c.Object)
	if c.Pod != "" && c.Node != "" && c.Change != string(change.PodDelete) {
		line += " on " + c.Node
	}
	if c.Message != "" {
		line += " (" + c.Message + ")"
	}
	fmt.Fprintln(w, line)
}
