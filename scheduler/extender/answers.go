package extender

import (
	"crypto/sha256"
	"sync"
	"time"
)

// Answers keeps every answer the extenders gave, by extender, verb and
// request, so that an attempt made again (a rewind, a fork replaying to
// an attempt, a hint proven on it) gets the answers the attempt got
// instead of asking again: the replay is then what happened, not what the
// extender would say now, and costs no call. One store is shared by an
// engine and its forks (scheduler.Options.ExtenderAnswers).
type Answers struct {
	mu sync.Mutex
	m  map[answerKey]answer
}

type answerKey struct {
	url, action string
	request     [sha256.Size]byte
}

// answer is one HTTP exchange as it ended: an error before any answer
// (transport, timeout), or the status code and body.
type answer struct {
	err     string
	status  int
	body    []byte
	latency time.Duration
}

// NewAnswers is an empty store.
func NewAnswers() *Answers { return &Answers{m: map[answerKey]answer{}} }

func (a *Answers) get(k answerKey) (answer, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	v, ok := a.m[k]
	return v, ok
}

func (a *Answers) put(k answerKey, v answer) {
	a.mu.Lock()
	a.m[k] = v
	a.mu.Unlock()
}

// Len is how many answers the store holds.
func (a *Answers) Len() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.m)
}
