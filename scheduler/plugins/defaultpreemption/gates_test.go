package defaultpreemption

import (
	"context"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/schedtui/schedtui/scheduler/framework/frameworktest"
)

// Only with SchedulerAsyncPreemption does PreEnqueue gate a preemptor in
// progress and the plugin register the victims' deletion.
func TestAsyncPreemptionGate(t *testing.T) {
	pod := &v1.Pod{}
	pod.UID = "p"
	for _, on := range []bool{true, false} {
		h := frameworktest.NewHandle(nil, nil)
		h.Gates.EnableAsyncPreemption = on
		p, err := New(nil, h)
		if err != nil {
			t.Fatal(err)
		}
		pl := p.(*DefaultPreemption)
		pl.SetPreempting("p", true)
		if gated := !pl.PreEnqueue(context.Background(), pod).IsSuccess(); gated != on {
			t.Errorf("SchedulerAsyncPreemption=%v: gated = %v", on, gated)
		}
		events, _ := pl.EventsToRegister(context.Background())
		if (len(events) == 1) != on {
			t.Errorf("SchedulerAsyncPreemption=%v: events %v", on, events)
		}
	}
}
