package scheduler

import (
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/schedtui/schedtui/scheduler/framework"
)

func releasePod(name string, claims ...string) *v1.Pod {
	p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, UID: types.UID("uid-" + name)}}
	for _, c := range claims {
		n := c
		p.Spec.ResourceClaims = append(p.Spec.ResourceClaims, v1.PodResourceClaim{Name: c, ResourceClaimName: &n})
	}
	return p
}

func consumer(name string) resourcev1.ResourceClaimConsumerReference {
	return resourcev1.ResourceClaimConsumerReference{Resource: "pods", Name: name, UID: types.UID("uid-" + name)}
}

// allocatedClaim: claim name holding device gpu-0 (with a device status),
// delete-protected, reserved for the pods named.
func allocatedClaim(name string, reservedFor ...string) *resourcev1.ResourceClaim {
	c := &resourcev1.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, UID: types.UID("uid-" + name),
		Finalizers: []string{resourcev1.Finalizer}}}
	c.Status.Allocation = &resourcev1.AllocationResult{Devices: resourcev1.DeviceAllocationResult{Results: []resourcev1.DeviceRequestAllocationResult{
		{Request: "gpu", Driver: "gpu.example.com", Pool: "n1", Device: "gpu-0"}}}}
	c.Status.Devices = []resourcev1.AllocatedDeviceStatus{{Driver: "gpu.example.com", Pool: "n1", Device: "gpu-0"}}
	for _, r := range reservedFor {
		c.Status.ReservedFor = append(c.Status.ReservedFor, consumer(r))
	}
	return c
}

func generatedFor(c *resourcev1.ResourceClaim, pod string) *resourcev1.ResourceClaim {
	yes := true
	c.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: pod, UID: types.UID("uid-" + pod), Controller: &yes}}
	return c
}

// describeWrite summarizes a claim write: deleted, or what the scheduler
// reads of it.
func describeWrite(c *resourcev1.ResourceClaim) string {
	if framework.ClaimDeleted(c) {
		return c.Name + " deleted"
	}
	s := c.Name
	if c.DeletionTimestamp != nil {
		s += " deleting"
	}
	if c.Status.Allocation != nil {
		s += " allocated"
	}
	if len(c.Status.Devices) > 0 {
		s += " device-status"
	}
	for _, r := range c.Status.ReservedFor {
		s += " for:" + r.Name
	}
	for _, f := range c.Finalizers {
		s += " fin:" + f
	}
	return s
}

func TestReleaseClaims(t *testing.T) {
	now := Epoch.Add(time.Minute)
	const fin = " fin:" + resourcev1.Finalizer
	tests := []struct {
		name   string
		gone   *v1.Pod
		claims []*resourcev1.ResourceClaim
		pods   []*v1.Pod
		want   []string
	}{{
		name:   "reserved for others: only the reservation goes, stale ones too",
		gone:   releasePod("a", "shared"),
		claims: []*resourcev1.ResourceClaim{allocatedClaim("shared", "a", "b", "stale")},
		pods:   []*v1.Pod{releasePod("b")},
		want:   []string{"shared allocated device-status for:b" + fin},
	}, {
		name:   "last consumer of a claim nobody owns: deallocated, then unprotected, kept",
		gone:   releasePod("a", "mine"),
		claims: []*resourcev1.ResourceClaim{allocatedClaim("mine", "a")},
		want:   []string{"mine" + fin, "mine"},
	}, {
		name:   "generated claim: deallocated, unprotected, then deleted by the garbage collector",
		gone:   releasePod("a", "gen"),
		claims: []*resourcev1.ResourceClaim{generatedFor(allocatedClaim("gen", "a"), "a")},
		want:   []string{"gen" + fin, "gen", "gen deleted"},
	}, {
		name:   "generated claim never allocated: deleted",
		gone:   releasePod("a", "gen"),
		claims: []*resourcev1.ResourceClaim{generatedFor(&resourcev1.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "gen"}}, "a")},
		want:   []string{"gen deleted"},
	}, {
		name:   "generated claim allocated but reserved for nobody: marked, deallocated, unprotected and so removed",
		gone:   releasePod("a", "gen"),
		claims: []*resourcev1.ResourceClaim{generatedFor(allocatedClaim("gen"), "a")},
		want:   []string{"gen deleting allocated device-status" + fin, "gen deleting" + fin, "gen deleted"},
	}, {
		name:   "claim generated for another pod that still runs: deallocated, kept",
		gone:   releasePod("a", "other"),
		claims: []*resourcev1.ResourceClaim{generatedFor(allocatedClaim("other", "a"), "b")},
		pods:   []*v1.Pod{releasePod("b")},
		want:   []string{"other" + fin, "other"},
	}, {
		name:   "generated claim another pod still uses: marked for deletion by the garbage collector, kept allocated",
		gone:   releasePod("a", "gen"),
		claims: []*resourcev1.ResourceClaim{generatedFor(allocatedClaim("gen", "a", "b"), "a")},
		pods:   []*v1.Pod{releasePod("b")},
		want:   []string{"gen allocated device-status for:b" + fin, "gen deleting allocated device-status for:b" + fin},
	}, {
		name:   "claim not reserved for the pod and owned by nobody: untouched",
		gone:   releasePod("a", "idle"),
		claims: []*resourcev1.ResourceClaim{allocatedClaim("idle", "b")},
		pods:   []*v1.Pod{releasePod("b")},
		want:   nil,
	}, {
		name:   "a claim named twice and a missing one: released once",
		gone:   releasePod("a", "x", "x", "missing"),
		claims: []*resourcev1.ResourceClaim{allocatedClaim("x", "a", "b")},
		pods:   []*v1.Pod{releasePod("b")},
		want:   []string{"x allocated device-status for:b" + fin},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			objs := framework.NewObjectStore()
			for _, c := range tc.claims {
				objs.Add(c)
			}
			for _, p := range tc.pods {
				objs.Add(p)
			}
			var got []string
			for _, w := range ReleaseClaims(objs, tc.gone, now, true) {
				got = append(got, describeWrite(w))
				if w.DeletionTimestamp != nil && !w.DeletionTimestamp.Time.Equal(now) {
					t.Errorf("deletionTimestamp %v, want %v", w.DeletionTimestamp, now)
				}
			}
			if len(got) != len(tc.want) {
				t.Fatalf("writes\n  %q\nwant\n  %q", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Fatalf("writes\n  %q\nwant\n  %q", got, tc.want)
				}
			}
		})
	}
}

// A PodGroup deleted (DRAWorkloadResourceClaims): its claims drop its
// reservation, one reserved for nobody is deallocated and loses its
// finalizer, and the one generated for it is deleted by the garbage
// collector; a member's reservation of a shared claim stays, and a
// member's deletion leaves the group's reservation alone.
func TestReleasePodGroupClaims(t *testing.T) {
	const fin = " fin:" + resourcev1.Finalizer
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	group := resourcev1.ResourceClaimConsumerReference{APIGroup: "scheduling.k8s.io", Resource: "podgroups", Name: "train", UID: "uid-train"}
	pg := &schedulingv1beta1.PodGroup{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "train", UID: "uid-train"}}
	byName, fromTemplate, tmpl := "shared", "train-gpu-x7k2q", "one-gpu"
	pg.Spec.ResourceClaims = []schedulingv1beta1.PodGroupResourceClaim{
		{Name: "shared", ResourceClaimName: &byName},
		{Name: "gpu", ResourceClaimTemplateName: &tmpl},
	}
	pg.Status.ResourceClaimStatuses = []schedulingv1beta1.PodGroupResourceClaimStatus{{Name: "gpu", ResourceClaimName: &fromTemplate}}
	shared := allocatedClaim("shared", "w-0")
	shared.Status.ReservedFor = append(shared.Status.ReservedFor, group)
	generated := allocatedClaim(fromTemplate)
	generated.Status.ReservedFor = []resourcev1.ResourceClaimConsumerReference{group}
	yes := true
	generated.OwnerReferences = []metav1.OwnerReference{{APIVersion: "scheduling.k8s.io/v1beta1", Kind: "PodGroup", Name: "train", UID: "uid-train", Controller: &yes}}

	objs := framework.NewObjectStore()
	objs.Add(shared)
	objs.Add(generated)
	objs.Add(releasePod("w-0", "shared"))
	var got []string
	for _, w := range ReleasePodGroupClaims(objs, pg, now) {
		got = append(got, describeWrite(w))
	}
	want := []string{
		"shared allocated device-status for:w-0" + fin,
		fromTemplate + fin,
		fromTemplate,
		fromTemplate + " deleted",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("writes\n  %q\nwant\n  %q", got, want)
	}

	// A member leaving: the group, still stored, keeps its reservation.
	objs = framework.NewObjectStore()
	objs.Add(pg)
	objs.Add(generated)
	w0 := releasePod("w-0")
	w0.Spec.ResourceClaims = []v1.PodResourceClaim{{Name: "gpu", ResourceClaimTemplateName: &tmpl}}
	w0.Status.ResourceClaimStatuses = []v1.PodResourceClaimStatus{{Name: "gpu", ResourceClaimName: &fromTemplate}}
	if w := ReleaseClaims(objs, w0, now, true); len(w) != 0 {
		t.Errorf("member gone: writes %v, want none", w)
	}
}
