package dynamicresources

import (
	"context"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/framework/frameworktest"
)

// allocatedAt is claim c allocated gpu-0 on node a, a device with binding
// conditions, at t, reserved for nobody; conds are the device's status.
func allocatedAt(t time.Time, conds ...metav1.Condition) *resourcev1.ResourceClaim {
	c := claim("c", "gpu", 1)
	ts := metav1.NewTime(t)
	c.Status.Allocation = &resourcev1.AllocationResult{AllocationTimestamp: &ts, Devices: resourcev1.DeviceAllocationResult{
		Results: []resourcev1.DeviceRequestAllocationResult{{Request: "gpu", Driver: driver, Pool: "a", Device: "gpu-0",
			BindingConditions: []string{"attached"}, BindingFailureConditions: []string{"failed"}}}}}
	if conds != nil {
		c.Status.Devices = []resourcev1.AllocatedDeviceStatus{{Driver: driver, Pool: "a", Device: "gpu-0", Conditions: conds}}
	}
	return c
}

var (
	attached = metav1.Condition{Type: "attached", Status: metav1.ConditionTrue}
	failed   = metav1.Condition{Type: "failed", Status: metav1.ConditionTrue, Reason: "NoFabric", Message: "fabric down"}
)

// bindingPlugin is the plugin over node a and claim c, its clock at now,
// with args (nil for none), after PreFilter for pod p.
func bindingPlugin(t *testing.T, c *resourcev1.ResourceClaim, now time.Time, args *configv1.DynamicResourcesArgs) (*DynamicResources, *frameworktest.Handle, *framework.CycleState) {
	t.Helper()
	h := frameworktest.NewHandle([]*v1.Node{node("a")}, nil, class("gpu", ""), slice("a", "a100"), c)
	h.Clock = now
	var pl framework.Plugin
	var err error
	if args != nil {
		pl, err = New(args, h)
	} else {
		pl, err = New(nil, h)
	}
	if err != nil {
		t.Fatal(err)
	}
	cs := framework.NewCycleState()
	if _, s := pl.(*DynamicResources).PreFilter(context.Background(), cs, pod("p", "c"), nil); !s.IsSuccess() {
		t.Fatalf("PreFilter = %v", s)
	}
	return pl.(*DynamicResources), h, cs
}

// Filter: a claim not ready whose allocation is older than bindingTimeout
// (600s by default, strictly) is unusable and PostFilter deallocates it;
// a ready one is not, however old.
func TestFilterBindingTimeout(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ten := &configv1.DynamicResourcesArgs{BindingTimeout: &metav1.Duration{Duration: 10 * time.Second}}
	for _, tc := range []struct {
		name        string
		claim       *resourcev1.ResourceClaim
		now         time.Time
		args        *configv1.DynamicResourcesArgs
		unavailable bool
	}{
		{"timed out", allocatedAt(t0), t0.Add(601 * time.Second), nil, true},
		{"at the timeout", allocatedAt(t0), t0.Add(600 * time.Second), nil, false},
		{"ready", allocatedAt(t0, attached), t0.Add(time.Hour), nil, false},
		{"configured timeout", allocatedAt(t0), t0.Add(11 * time.Second), ten, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pl, _, cs := bindingPlugin(t, tc.claim, tc.now, tc.args)
			ctx := context.Background()
			s := pl.Filter(ctx, cs, pod("p", "c"), nodeInfo(node("a")))
			if !tc.unavailable {
				if !s.IsSuccess() {
					t.Errorf("Filter = %v, want success", s)
				}
				return
			}
			if s.Code() != framework.UnschedulableAndUnresolvable || s.Message() != "resourceclaim not available on the node" {
				t.Fatalf("Filter = %v", s)
			}
			if _, s := pl.PostFilter(ctx, cs, pod("p", "c"), nil); s.Message() != "deallocation of ResourceClaim completed" {
				t.Errorf("PostFilter = %v", s)
			}
		})
	}
}

// PreBind writes the reservation and checks once: ready goes on, a
// failure fails with upstream's error, else it waits; polls read the
// stored claim and end with upstream's errors.
func TestPreBindBindingConditions(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ctx := context.Background()
	p := pod("p", "c")
	preBind := func(t *testing.T, c *resourcev1.ResourceClaim, now time.Time) (*DynamicResources, *frameworktest.Handle, *framework.CycleState, *framework.Status) {
		// Already allocated: PreBind only reserves it (no Filter, which
		// would reject the failed one).
		pl, h, cs := bindingPlugin(t, c, now, nil)
		s := pl.PreBind(ctx, cs, p, "a")
		for _, w := range pl.TakeClaimWrites(cs) {
			h.Store.Add(w)
		}
		return pl, h, cs, s
	}
	if _, _, _, s := preBind(t, allocatedAt(t0, attached), t0); !s.IsSuccess() {
		t.Errorf("ready: PreBind = %v", s)
	}
	if _, _, _, s := preBind(t, allocatedAt(t0, metav1.Condition{Type: "attached", Status: metav1.ConditionFalse}, failed), t0); s.Code() != framework.Error ||
		s.Message() != `device binding failed: claim=c, reason=NoFabric, message="fabric down"` {
		t.Errorf("failed: PreBind = %v", s)
	}

	pl, h, cs, s := preBind(t, allocatedAt(t0), t0)
	if s.Code() != framework.Wait || s.Message() != "waiting for binding conditions for device on node a" {
		t.Fatalf("waiting: PreBind = %v", s)
	}
	if done, s := pl.PollBindingWait(ctx, cs, p, false); done || s != nil {
		t.Fatalf("poll while waiting = %v, %v", done, s)
	}
	h.Clock = t0.Add(601 * time.Second)
	if done, s := pl.PollBindingWait(ctx, cs, p, false); !done || s.Message() != "device binding timeout: claim=c" {
		t.Errorf("poll past the claim's timeout = %v, %v", done, s)
	}
	if done, s := pl.PollBindingWait(ctx, cs, p, true); !done || s.Message() != "device binding timeout: context deadline exceeded" {
		t.Errorf("poll at the deadline = %v, %v", done, s)
	}
	h.Clock = t0.Add(5 * time.Second)
	c, _ := h.Store.ResourceClaim("default", "c")
	ready := c.DeepCopy()
	ready.Status.Devices = []resourcev1.AllocatedDeviceStatus{{Driver: driver, Pool: "a", Device: "gpu-0", Conditions: []metav1.Condition{attached}}}
	h.Store.Add(ready)
	if done, s := pl.PollBindingWait(ctx, cs, p, false); !done || s != nil {
		t.Errorf("poll once attached = %v, %v", done, s)
	}
	if interval, timeout := pl.BindingWait(); interval != 5*time.Second || timeout != 600*time.Second {
		t.Errorf("BindingWait = %v, %v", interval, timeout)
	}
}
