// Package defaultbinder is upstream's DefaultBinder. Upstream POSTs a
// Binding to the API server; schedtui binds in memory and the engine does
// the actual bookkeeping, so the plugin only forwards the decision to an
// optional BindFunc the engine installs.
package defaultbinder

import (
	"context"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/plugins/names"
)

// Name is the plugin's name in profiles.
const Name = names.DefaultBinder

// BindFunc performs a binding. An error fails the bind (the framework then
// unreserves and requeues the pod), as an API error does upstream. It is
// an alias so that callers can install one without importing this
// package (see framework.BindFuncSetter).
type BindFunc = framework.BindFunc

// DefaultBinder binds pods through its BindFunc.
type DefaultBinder struct {
	bind BindFunc
}

var _ framework.BindFuncSetter = &DefaultBinder{}

// New is the plugin's factory; it takes no args and has no BindFunc, so
// Bind always succeeds until SetBindFunc is called.
func New(_ runtime.Object, _ framework.Handle) (framework.Plugin, error) {
	return &DefaultBinder{}, nil
}

// NewWithBindFunc returns a factory whose plugins call f.
func NewWithBindFunc(f BindFunc) framework.PluginFactory {
	return func(_ runtime.Object, _ framework.Handle) (framework.Plugin, error) {
		return &DefaultBinder{bind: f}, nil
	}
}

// SetBindFunc installs (or, with nil, removes) the function Bind calls.
func (b *DefaultBinder) SetBindFunc(f BindFunc) { b.bind = f }

// Name returns the plugin's name.
func (b *DefaultBinder) Name() string { return Name }

// Bind never returns Skip: DefaultBinder is the last binder and always
// handles the pod. Without a BindFunc it succeeds without side effects.
func (b *DefaultBinder) Bind(ctx context.Context, _ *framework.CycleState, pod *v1.Pod, nodeName string) *framework.Status {
	if b.bind == nil {
		return nil
	}
	return framework.AsStatus(b.bind(ctx, pod, nodeName))
}
