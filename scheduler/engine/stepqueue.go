package engine

import "github.com/schedtui/schedtui/scheduler/record"

// StepPhase reveals an attempt computed whole: by the time its first phase
// shows, the queue already holds the attempt's end (the pod requeued as
// unschedulable, pods moved by its binding or nomination, what its
// duration let happen). So the engine keeps the queue as that attempt
// popped its pod, for that attempt only: one snapshot, taken only when
// StepPhase starts an attempt (n, c and the CLI pay nothing).

type poppedQueue struct {
	// armed: the next pop starts the attempt StepPhase steps through.
	armed bool
	snap  *QueueSnapshot
	// attempt is the attempt snap is for; nil for none.
	attempt *record.Attempt
}

func (p *poppedQueue) arm() { *p = poppedQueue{armed: true} }

// made ends StepPhase's step: the snapshot taken at its pop, if any, is
// attempt a's.
func (p *poppedQueue) made(a *record.Attempt) {
	if p.snap != nil {
		p.attempt = a
	}
	p.armed = false
}

// onPop runs as the queue hands a pod over (the pod is in flight, in no
// list).
func (p *poppedQueue) onPop(e *Engine) {
	if !p.armed || e.replaying {
		return
	}
	p.armed = false
	q := e.Queue()
	p.snap = &q
}

// QueueAtPop is the queue as the cursor's attempt popped its pod (the pod
// in flight, in no list), while StepPhase has not revealed the attempt's
// last phase; ok is false otherwise, and Queue is the queue to show.
func (e *Engine) QueueAtPop() (QueueSnapshot, bool) {
	c, p := e.cursor, &e.popped
	if c.Attempt < 0 || c.Attempt >= e.hist.Len() || p.attempt == nil || e.hist.At(c.Attempt) != p.attempt ||
		c.Phase >= p.attempt.LastPhase() {
		return QueueSnapshot{}, false
	}
	return *p.snap, true
}
