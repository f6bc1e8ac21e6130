package engine

// StepPhase reveals an attempt computed whole: by the time its first phase
// shows, the queue already holds the attempt's end (the pod requeued as
// unschedulable, pods moved by its binding or nomination, what its
// duration let happen). So the engine keeps the queue as that attempt
// popped its pod, for that attempt only: one snapshot, taken only when
// StepPhase starts an attempt (n, c and the CLI pay nothing).

type poppedQueue struct {
	// armed: the next pop starts the attempt StepPhase steps through.
	armed bool
	// attempt indexes the attempt snap is for; -1 for none.
	attempt int
	snap    QueueSnapshot
}

func (p *poppedQueue) arm()    { p.armed, p.attempt = true, -1 }
func (p *poppedQueue) disarm() { p.armed = false }

// onPop runs as the queue hands a pod over (the pod is in flight, in no
// list): the attempt about to be made gets the next index.
func (p *poppedQueue) onPop(e *Engine) {
	if !p.armed || e.replaying {
		return
	}
	p.armed = false
	p.attempt, p.snap = len(e.attempts), e.Queue()
}

// QueueAtPop is the queue as the cursor's attempt popped its pod (the pod
// in flight, in no list), while StepPhase has not revealed the attempt's
// last phase; ok is false otherwise, and Queue is the queue to show.
func (e *Engine) QueueAtPop() (QueueSnapshot, bool) {
	c := e.cursor
	if c.Attempt < 0 || c.Attempt != e.popped.attempt || c.Attempt >= len(e.attempts) ||
		c.Phase >= e.attempts[c.Attempt].LastPhase() {
		return QueueSnapshot{}, false
	}
	return e.popped.snap, true
}
