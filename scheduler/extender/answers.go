package extender

import (
	"crypto/sha256"
	"fmt"
	"sort"
	"strings"
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
	// recorded, when set (Preload), is a recording's answers: the only
	// ones given, nothing is called.
	recorded   map[recordedKey]*recorded
	onExchange func(Exchange)
	// epoch tags the answers stored from now on (SetEpoch).
	epoch uint64
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
	// epoch is the store's epoch when the answer was stored.
	epoch uint64
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
	v.epoch = a.epoch
	a.m[k] = v
	a.mu.Unlock()
}

// SetEpoch tags the answers stored from now on with epoch: the queue
// engine's attempt number, so that ForgetBefore can drop the answers only
// attempts out of reach asked for.
func (a *Answers) SetEpoch(epoch uint64) {
	a.mu.Lock()
	a.epoch = epoch
	a.mu.Unlock()
}

// ForgetBefore drops the answers stored under an epoch below epoch: a
// debugger left open on a live cluster with extenders would otherwise
// keep every answer it was ever given. An attempt made again asks for the
// answers it got only while it can be made again (within the rewind
// window); past it, an extender is asked anew.
func (a *Answers) ForgetBefore(epoch uint64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for k, v := range a.m {
		if v.epoch < epoch {
			delete(a.m, k)
		}
	}
}

// Len is how many answers the store holds.
func (a *Answers) Len() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.m)
}

// Exchange is one call to an extender as a recording keeps it (schedtui
// record): which extender (URL prefix) and verb, the request that
// identifies it (the pod and the node names sent; a preempt request
// names the candidate nodes, a bind request the chosen one), and the
// answer: an error before any answer, or the status and body.
type Exchange struct {
	Extender string
	Verb     string
	Pod      string // namespace/name
	PodUID   string
	Nodes    []string
	Status   int
	Body     []byte
	Error    string
	Latency  time.Duration
}

// recordedKey identifies a request across a recording and its replay:
// the request bodies need not be byte for byte the same (the objects were
// read from the cluster once and from the file once), the pod, the verb
// and the nodes asked about are.
type recordedKey struct {
	extender, verb, podUID, nodes string
}

func keyOf(x *Exchange) recordedKey {
	nodes := append([]string(nil), x.Nodes...)
	sort.Strings(nodes)
	return recordedKey{extender: x.Extender, verb: x.Verb, podUID: x.PodUID, nodes: strings.Join(nodes, "\x00")}
}

// recorded is the answers of one request in the order the recording got
// them; next is the one the next call takes (the last one repeats once
// all were taken).
type recorded struct {
	answers []answer
	next    int
}

// Preload fills the store with a recording's exchanges and makes it
// answer from them alone: no extender is called any more, and a request
// the recording has no answer for gets an unreachable extender's error
// naming it. Preloading nothing still stops every call.
func (a *Answers) Preload(xs []Exchange) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.recorded == nil {
		a.recorded = map[recordedKey]*recorded{}
	}
	for i := range xs {
		k := keyOf(&xs[i])
		r := a.recorded[k]
		if r == nil {
			r = &recorded{}
			a.recorded[k] = r
		}
		r.answers = append(r.answers, answer{err: xs[i].Error, status: xs[i].Status, body: xs[i].Body, latency: xs[i].Latency})
	}
}

// Offline reports whether the store answers from a recording alone.
func (a *Answers) Offline() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.recorded != nil
}

// OnExchange makes every call the extenders really make (not the ones
// answered from the store) reported to fn, as schedtui record keeps them.
func (a *Answers) OnExchange(fn func(Exchange)) {
	a.mu.Lock()
	a.onExchange = fn
	a.mu.Unlock()
}

// noRecordedAnswer starts the error of a request a recording did not see.
const noRecordedAnswer = "no recorded answer"

// fromRecording is the recorded answer to x's request, in turn, or the
// error an unreachable extender gives.
func (a *Answers) fromRecording(x *Exchange) answer {
	a.mu.Lock()
	defer a.mu.Unlock()
	r := a.recorded[keyOf(x)]
	if r == nil || len(r.answers) == 0 {
		return answer{err: fmt.Sprintf(noRecordedAnswer+" for %s of pod %s by extender %s (the recording has none for this request: "+
			"the pod, or the nodes sent, differ from when it was recorded); treated as an unreachable extender", x.Verb, x.Pod, x.Extender)}
	}
	ans := r.answers[r.next]
	if r.next < len(r.answers)-1 {
		r.next++
	}
	return ans
}

func (a *Answers) exchanged(x Exchange, ans answer) {
	a.mu.Lock()
	fn := a.onExchange
	a.mu.Unlock()
	if fn == nil {
		return
	}
	x.Status, x.Body, x.Error, x.Latency = ans.status, ans.body, ans.err, ans.latency
	fn(x)
}
