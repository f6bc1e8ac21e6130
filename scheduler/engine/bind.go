package engine

import (
	"context"
	"errors"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/schedtui/schedtui/scheduler"
	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/plugins/names"
)

// BindFunc binds a pod in a real cluster (schedtui --bind).
type BindFunc = framework.BindFunc

// ErrRewindAfterBind refuses a rewind over bindings made in the cluster.
var ErrRewindAfterBind = errors.New("cannot rewind: with --bind the pods were bound in the cluster, and a binding cannot be undone")

// NotCarriedOut is the message of a preemption decided under --bind.
const NotCarriedOut = "not carried out: schedtui --bind binds pods but never deletes any; the victims keep running"

// installBinder points every profile's DefaultBinder at the engine's
// bindForReal, or, with none configured, leaves the in-memory binding.
func (e *Engine) installBinder(s *scheduler.Scheduler) {
	if e.opts.Bind == nil {
		return
	}
	setBinder(s, e.bindForReal)
	// A bind extender binds for real too, except when a replay
	// reproduces a binding already made.
	s.SetExtenderBinding(func() bool { return !e.replaying }, e.boundForReal)
}

// detachBinder makes a scheduler handed out of the engine (a fork the
// what-if editor schedules on) bind in memory only.
func detachBinder(s *scheduler.Scheduler) {
	setBinder(s, nil)
	s.SetExtenderBinding(nil, nil)
}

func setBinder(s *scheduler.Scheduler, f framework.BindFunc) {
	for _, fwk := range s.Profiles() {
		if b, ok := fwk.Plugin(names.DefaultBinder).(framework.BindFuncSetter); ok {
			b.SetBindFunc(f)
		}
	}
}

// bindForReal performs a binding the engine decided. A replay (rewind,
// fork) only reproduces a decision already carried out, so it never
// calls the cluster. An error fails the Bind phase: the pod is forgotten
// and requeued, as upstream does when the binding API call fails.
func (e *Engine) bindForReal(ctx context.Context, pod *v1.Pod, node string) error {
	if e.replaying {
		return nil
	}
	if err := e.opts.Bind(ctx, pod, node); err != nil {
		return err
	}
	e.boundForReal(pod, node)
	return nil
}

// boundForReal notes a binding made in the cluster (by the Bind plugin
// or a bind extender): no rewind may undo it.
func (e *Engine) boundForReal(pod *v1.Pod, node string) {
	if e.boundInCluster == nil {
		e.boundInCluster = map[types.UID]string{}
	}
	e.boundInCluster[pod.UID] = node
	e.boundAny = true
}

// Binds reports whether the engine binds pods in a real cluster.
func (e *Engine) Binds() bool { return e.opts.Bind != nil }

// SetBind turns on binding in a real cluster (see Options.Bind) for an
// engine built without it, before its first attempt.
func (e *Engine) SetBind(f BindFunc) error {
	if e.hist.Len() > 0 {
		return errors.New("--bind must be set before the first attempt")
	}
	if err := e.mode.bindRefused(); err != nil {
		return err
	}
	e.opts.Bind = f
	e.installBinder(e.sched)
	return nil
}
