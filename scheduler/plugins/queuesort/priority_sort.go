// Package queuesort is upstream's PrioritySort: the order of activeQ.
package queuesort

import (
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/plugins/names"
)

// Name is the plugin's name in profiles.
const Name = names.PrioritySort

// PrioritySort orders pods by priority, then by queue timestamp.
type PrioritySort struct{}

var _ framework.QueueSortPlugin = &PrioritySort{}

// New is the plugin's factory; it takes no args.
func New(_ runtime.Object, _ framework.Handle) (framework.Plugin, error) {
	return &PrioritySort{}, nil
}

// Name returns the plugin's name.
func (pl *PrioritySort) Name() string { return Name }

// Less puts higher priority first and, between equals, the older Timestamp.
// Timestamp is refreshed on each failed attempt, so a retried pod queues
// behind equal-priority pods that have not failed since. Equal timestamps
// compare false both ways: the heap, not this function, decides then.
func (pl *PrioritySort) Less(a, b framework.QueuedEntity) bool {
	p1, p2 := a.Priority(), b.Priority()
	return p1 > p2 || (p1 == p2 && a.Params().Timestamp.Before(b.Params().Timestamp))
}
