package engine

import (
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/schedtui/schedtui/scheduler/change"
)

// churn is generated cluster churn, as a live cluster's watch delivers it
// to the debugger: every second, rate pods arrive (evenly spread over the
// second), each deleted lifetime after it arrived; one pod in
// stuckEvery asks for a label no node has, and waits until it is deleted.
type churn struct {
	rate     int
	lifetime time.Duration
	// stuckEvery: every stuckEvery-th pod fits nowhere.
	stuckEvery int
}

func (c churn) pod(i int) *v1.Pod {
	name := fmt.Sprintf("churn-%07d", i)
	p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID("uid-" + name),
		Labels: map[string]string{"app": fmt.Sprintf("app-%d", i%20)}}}
	p.Spec.SchedulerName = v1.DefaultSchedulerName
	prio := int32(10)
	p.Spec.Priority = &prio
	policy := v1.PreemptLowerPriority
	p.Spec.PreemptionPolicy = &policy
	p.Spec.Containers = []v1.Container{{Name: "c", Image: "img", Resources: v1.ResourceRequirements{Requests: v1.ResourceList{
		v1.ResourceCPU: resource.MustParse("100m"), v1.ResourceMemory: resource.MustParse("64Mi")}}}}
	if c.stuckEvery > 0 && i%c.stuckEvery == c.stuckEvery-1 {
		p.Spec.NodeSelector = map[string]string{"disk": "none"}
	}
	return p
}

// second feeds second s of the churn to e (as scheduled changes) and runs
// the engine to its end; it returns the number of changes fed.
func (c churn) second(e *Engine, s int) (int, error) {
	base := e.Start().Add(time.Duration(s) * time.Second)
	step := time.Second / time.Duration(c.rate)
	n := 0
	for j := 0; j < c.rate; j++ {
		at := base.Add(time.Duration(j) * step)
		i := s*c.rate + j
		p := c.pod(i)
		p.CreationTimestamp = metav1.NewTime(at)
		if err := e.Apply(change.Change{Kind: change.PodAdd, Pod: p, At: at}); err != nil {
			return n, err
		}
		n++
		// The pod that arrived lifetime ago at this instant leaves.
		if gone := i - int(c.lifetime/time.Second)*c.rate; gone >= 0 {
			old := c.pod(gone)
			if err := e.Apply(change.Change{Kind: change.PodDelete, Pod: old, At: at}); err != nil {
				return n, err
			}
			n++
		}
	}
	e.RunUntil(time.Duration(s+1) * time.Second)
	return n, nil
}
