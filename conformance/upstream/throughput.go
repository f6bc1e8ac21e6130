package upstream

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sync/atomic"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	configv1 "k8s.io/kube-scheduler/config/v1"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler"
	"k8s.io/kubernetes/pkg/scheduler/framework"

	"github.com/schedtui/schedtui/snapshot"
)

// Throughput is a real kube-scheduler v1.37.1 built over a cluster and
// ready to schedule its pending pods the way a running kube-scheduler does:
// Scheduler.Run's loop pops pods from the queue and binds them
// asynchronously through the API (the fake API server of client.go), at
// the configuration's parallelism (upstream's default is 16), with none of
// Run's per-attempt recording or barriers. It is the upstream side of the
// side-by-side throughput benchmark (BenchmarkVersusUpstream): building
// it (informer sync, cache fill) is the setup; Schedule is what is timed.
type Throughput struct {
	h *harness
	// pending are the UIDs of the pods without a node when the informers
	// synced; bound counts those the scheduler has bound so far.
	pending map[types.UID]bool
	bound   atomic.Int64
	// attempts counts the scheduling cycles (SchedulePod calls), failures
	// the attempts handed to FailureHandler (unschedulable, or a failed
	// binding): measures of the work that the machine's load does not move.
	attempts, failures atomic.Int64
	done               chan struct{}
	ran                bool
	runDone            chan struct{}
}

// NewThroughput builds the scheduler over c (nil cfg: upstream's defaults)
// and waits until its cache and queue hold every object of c: the pods
// without a node are in the scheduling queue, none popped yet.
func NewThroughput(ctx context.Context, c *snapshot.Cluster, cfg *configv1.KubeSchedulerConfiguration) (_ *Throughput, err error) {
	if c == nil {
		return nil, errors.New("upstream: nil cluster")
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("upstream: panic while building the upstream scheduler: %v\n%s", r, debug.Stack())
		}
	}()
	// Listing hundreds of thousands of pods into the informers and the
	// cache takes minutes on a loaded machine.
	h, err := start(ctx, c, cfg, nil, startOptions{wait: 15 * time.Minute})
	if err != nil {
		return nil, err
	}
	t := &Throughput{h: h, pending: map[types.UID]bool{}, done: make(chan struct{}), runDone: make(chan struct{})}
	pods, err := h.podLister.List(labels.Everything())
	if err != nil {
		h.stop()
		return nil, err
	}
	for _, p := range pods {
		if p.Spec.NodeName == "" {
			t.pending[p.UID] = true
		}
	}
	if len(t.pending) == 0 {
		close(t.done)
	}
	schedulePod, failureHandler := h.sched.SchedulePod, h.sched.FailureHandler
	h.sched.SchedulePod = func(ctx context.Context, f framework.Framework, state fwk.CycleState, pi *framework.QueuedPodInfo) (scheduler.ScheduleResult, error) {
		t.attempts.Add(1)
		return schedulePod(ctx, f, state, pi)
	}
	h.sched.FailureHandler = func(ctx context.Context, f framework.Framework, pi *framework.QueuedPodInfo, st *fwk.Status, ni *fwk.NominatingInfo, start time.Time) {
		t.failures.Add(1)
		failureHandler(ctx, f, pi, st, ni, start)
	}
	// The binding reaches the informer as a pod update that sets the node;
	// the handler runs on the informer's goroutine, after the scheduler's
	// own handlers have been handed the same update.
	_, err = h.factory.Core().V1().Pods().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		UpdateFunc: func(oldObj, newObj any) {
			o, ok1 := oldObj.(*v1.Pod)
			n, ok2 := newObj.(*v1.Pod)
			if !ok1 || !ok2 || o.Spec.NodeName != "" || n.Spec.NodeName == "" || !t.pending[n.UID] {
				return
			}
			if t.bound.Add(1) == int64(len(t.pending)) {
				close(t.done)
			}
		},
	})
	if err != nil {
		h.stop()
		return nil, fmt.Errorf("upstream: watching the bindings: %w", err)
	}
	return t, nil
}

// Pending is the number of pods without a node when the scheduler was built.
func (t *Throughput) Pending() int { return len(t.pending) }

// Attempts returns the scheduling attempts made so far and how many of
// them failed.
func (t *Throughput) Attempts() (attempts, failures int) {
	return int(t.attempts.Load()), int(t.failures.Load())
}

// Schedule runs the scheduler until every pending pod is bound, or until
// timeout, and returns how many were bound and how long it took from the
// start of Scheduler.Run to the informer's delivery of the last binding. It
// can be called once.
func (t *Throughput) Schedule(timeout time.Duration) (bound int, elapsed time.Duration, err error) {
	if t.ran {
		return 0, 0, errors.New("upstream: Throughput.Schedule called twice")
	}
	t.ran = true
	start := time.Now()
	go func() {
		defer close(t.runDone)
		t.h.sched.Run(t.h.ctx)
	}()
	select {
	case <-t.done:
	case <-time.After(timeout):
		err = fmt.Errorf("upstream: %d of %d pending pods bound after %v", t.bound.Load(), len(t.pending), timeout)
	}
	return int(t.bound.Load()), time.Since(start), err
}

// Close stops the scheduler and its informers.
func (t *Throughput) Close() {
	if !t.ran {
		t.h.stop()
		return
	}
	// Scheduler.Run closes the queue and the plugins itself once its
	// context is done (closing the queue twice panics).
	t.h.cancel()
	<-t.runDone
	t.h.factory.Shutdown()
}
