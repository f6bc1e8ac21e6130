package scheduler

import (
	"fmt"
	"math/rand/v2"

	v1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/klog/v2"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/framework/runtime"
	"github.com/schedtui/schedtui/scheduler/record"
)

// The hooks the queue engine (scheduler/engine) installs into a Scheduler,
// and its random source. A Scheduler used without an engine (a ScheduleOne
// loop) keeps the zero hooks: preemption deletes the victims at once and
// nothing observes bindings.

// engineHooks are installed by the engine; the zero value is standalone
// behaviour.
type engineHooks struct {
	// preempt receives a preemption decision instead of the immediate
	// deletion of the victims.
	preempt func(preemptor Preemptor, p *record.Preemption)
	// bound is told of every successful binding, with the cycle state
	// (VolumeBinding leaves its decision there).
	bound func(state *framework.CycleState, pod *v1.Pod, node string)
	// cacheError receives the cache mutations that failed (see
	// cacheFailed); nil logs them.
	cacheError func(pod *v1.Pod, err error)
	// claimWritten receives every claim a plugin wrote (see
	// storeClaimWrites); nil stores it directly.
	claimWritten func(claim *resourcev1.ResourceClaim)
	// pcg is the random source behind s.rand, kept to checkpoint it.
	pcg *rand.PCG
	// extenderBinding, when set and true, lets a bind extender bind the
	// pod (--bind); nil or false binds through the Bind plugins only.
	// extenderBound is told of each pod an extender bound.
	extenderBinding func() bool
	extenderBound   func(pod *v1.Pod, node string)
	// extenderReplay, when set and true, answers extender requests
	// already answered from the store (Options.ExtenderAnswers).
	extenderReplay func() bool
}

// cacheFailed reports a cache mutation that failed and carries on, as
// upstream logs "scheduler cache AddPod failed" (ForgetPod, RemovePod,
// UpdatePod) and goes on: to the engine's reporter when one is installed
// (SetCacheErrorReporter), else to klog as upstream.
func (s *Scheduler) cacheFailed(op string, pod *v1.Pod, err error) {
	err = fmt.Errorf("scheduler cache %s failed: %w", op, err)
	if s.hooks.cacheError != nil {
		s.hooks.cacheError(pod, err)
		return
	}
	klog.Background().Error(err, "Scheduler cache mutation failed", "pod", klog.KObj(pod))
}

// SetCacheErrorReporter installs fn, told of every cache mutation that
// failed (the scheduler carries on, as upstream does after logging it).
// nil restores logging to klog, the default.
func (s *Scheduler) SetCacheErrorReporter(fn func(pod *v1.Pod, err error)) {
	s.hooks.cacheError = fn
}

func (s *Scheduler) afterBind(state *framework.CycleState, pod *v1.Pod, node string) {
	if s.hooks.bound != nil {
		s.hooks.bound(state, pod, node)
	}
}

// SetPreemptionActuator selects engine-driven preemption: a chosen
// candidate is handed to fn (the engine marks the victims, lets them
// terminate in virtual time and clears nominations) instead of being
// deleted at once. nil restores immediate deletion, the default.
func (s *Scheduler) SetPreemptionActuator(fn func(preemptor Preemptor, p *record.Preemption)) {
	s.hooks.preempt = fn
}

// SetBindObserver installs fn, called after every successful binding with
// the attempt's cycle state.
func (s *Scheduler) SetBindObserver(fn func(state *framework.CycleState, pod *v1.Pod, node string)) {
	s.hooks.bound = fn
}

// SetExtenderBinding lets the configuration's bind extender bind pods
// whenever fn returns true, telling bound of each binding it made: the
// engine installs it with --bind (and says false while it replays
// bindings already made). nil, the default, never calls a bind extender.
func (s *Scheduler) SetExtenderBinding(fn func() bool, bound func(pod *v1.Pod, node string)) {
	s.hooks.extenderBinding, s.hooks.extenderBound = fn, bound
}

// SetExtenderReplay makes the extenders answer a request they already
// answered with the same answer, without calling out, whenever fn returns
// true: the engine installs it to say when it replays attempts (a rewind,
// a fork). nil, the default, always calls out.
func (s *Scheduler) SetExtenderReplay(fn func() bool) { s.hooks.extenderReplay = fn }

// storeClaimWrites stores the claims the profile's plugins wrote at the
// extension point that just ran, as upstream's writes reach the API server
// (and, through the claim informer, the queue) before the cycle goes on.
func (s *Scheduler) storeClaimWrites(fwk *runtime.Framework, state *framework.CycleState) {
	for _, c := range fwk.TakeClaimWrites(state) {
		s.storeClaimWrite(c)
	}
}

// storeClaimWrite stores one claim write (framework.ClaimDeleted: removes
// the claim), through the engine's observer when one is installed.
func (s *Scheduler) storeClaimWrite(c *resourcev1.ResourceClaim) {
	switch {
	case s.hooks.claimWritten != nil:
		s.hooks.claimWritten(c)
	case framework.ClaimDeleted(c):
		s.objects.Delete(c)
	default:
		s.objects.Add(c)
	}
}

// SetClaimWriteObserver installs fn, given every ResourceClaim a plugin
// wrote to store it and report the update (instead of storing it
// silently, the default).
func (s *Scheduler) SetClaimWriteObserver(fn func(claim *resourcev1.ResourceClaim)) {
	s.hooks.claimWritten = fn
}

// NewPCG is the random source New seeds from opts.Seed.
func NewPCG(seed uint64) *rand.PCG { return rand.NewPCG(seed, seed^0x9e3779b97f4a7c15) }

// UsePCG makes p the scheduler's random source, in place, so that the
// plugins holding s.rand draw from it; the engine keeps p to checkpoint it.
func (s *Scheduler) UsePCG(p *rand.PCG) {
	*s.rand = *rand.New(p)
	s.hooks.pcg = p
}
