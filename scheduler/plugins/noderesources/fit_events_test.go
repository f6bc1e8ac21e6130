package noderesources

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/framework/frameworktest"
)

func newFit(t *testing.T) *Fit {
	t.Helper()
	p, err := New(nil, frameworktest.NewHandle(nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	return p.(*Fit)
}

// Upstream's TestEventsToRegister with 1.37's default gates
// (InPlacePodVerticalScaling and DRAExtendedResource on).
func TestEventsToRegister(t *testing.T) {
	got, err := newFit(t).EventsToRegister(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []framework.ClusterEvent{
		{Resource: framework.AssignedPod, ActionType: framework.Delete},
		{Resource: framework.Node, ActionType: framework.Add | framework.UpdateNodeAllocatable},
		{Resource: framework.DeviceClass, ActionType: framework.Add | framework.Update},
		{Resource: framework.AssignedPod, ActionType: framework.UpdatePodScaleDown},
		{Resource: framework.TargetPod, ActionType: framework.UpdatePodScaleDown},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d events, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i].Event != want[i] {
			t.Errorf("event %d = %+v, want %+v", i, got[i].Event, want[i])
		}
		if got[i].QueueingHintFn == nil {
			t.Errorf("event %d has no hint", i)
		}
	}
}

func nominated(p *v1.Pod, node string) *v1.Pod {
	p.Status.NominatedNodeName = node
	return p
}

// Upstream's Test_isSchedulableAfterAssignedPodDelete (the deferred-resize
// cases belong to an alpha gate that is off).
func TestHintAssignedPodDelete(t *testing.T) {
	cpu1 := func() *v1.Pod { return newPod(rl("cpu", "1")) }
	frameworktest.RunHints(t, newFit(t).isSchedulableAfterAssignedPodDelete, nil, []frameworktest.HintCase{
		{Name: "backoff-wrong-old-object", Pod: &v1.Pod{}, OldObj: "not-a-pod", Want: framework.Queue, WantErr: true},
		{Name: "queue-on-other-pod-deleted", Pod: cpu1(), OldObj: onNode(cpu1(), "fake"), Want: framework.Queue},
		{Name: "skip-queue-on-unscheduled-pod-deleted", Pod: &v1.Pod{}, OldObj: &v1.Pod{}, Want: framework.QueueSkip},
		{Name: "queue-on-nominated-pod-deleted", Pod: cpu1(), OldObj: nominated(newPod(rl("cpu", "2")), "fake"), Want: framework.Queue},
		{Name: "missing pod", Pod: cpu1(), Want: framework.Queue, WantErr: true},
	})
}

func TestHintTargetPodScaleDown(t *testing.T) {
	frameworktest.RunHints(t, newFit(t).isSchedulableAfterTargetPodScaleDown, nil, []frameworktest.HintCase{
		{Name: "queue-on-target-pod-some-resource-scale-down", Pod: newPod(rl("cpu", "1")), Want: framework.Queue},
		{Name: "queue-on-target-pod-some-pod-level-resource-scale-down", Pod: withPodLevel(newPod(), rl("cpu", "1")), Want: framework.Queue},
	})
}

// Upstream's Test_isSchedulableAfterAssignedPodScaleDown.
func TestHintAssignedPodScaleDown(t *testing.T) {
	podLevel := func(kv ...string) *v1.Pod { return withPodLevel(newPod(), rl(kv...)) }
	frameworktest.RunHints(t, newFit(t).isSchedulableAfterAssignedPodScaleDown, nil, []frameworktest.HintCase{
		{Name: "backoff-wrong-old-object", Pod: &v1.Pod{}, OldObj: "not-a-pod", Want: framework.Queue, WantErr: true},
		{Name: "backoff-wrong-new-object", Pod: &v1.Pod{}, NewObj: "not-a-pod", Want: framework.Queue, WantErr: true},
		{Name: "skip-queue-on-other-unscheduled-pod", Pod: newPod(rl("cpu", "1")),
			OldObj: newPod(rl("cpu", "2")), NewObj: newPod(rl("cpu", "1")), Want: framework.QueueSkip},
		{Name: "skip-queue-on-other-pod-unrelated-resource-scaled-down", Pod: newPod(rl("cpu", "1")),
			OldObj: onNode(newPod(rl("memory", "2")), "fake"), NewObj: onNode(newPod(rl("memory", "1")), "fake"), Want: framework.QueueSkip},
		{Name: "skip-queue-on-other-pod-unrelated-pod-level-resource-scaled-down", Pod: podLevel("cpu", "1"),
			OldObj: onNode(podLevel("memory", "2"), "fake"), NewObj: onNode(podLevel("memory", "1"), "fake"), Want: framework.QueueSkip},
		{Name: "queue-on-other-pod-some-resource-scale-down", Pod: newPod(rl("cpu", "1")),
			OldObj: onNode(newPod(rl("cpu", "2")), "fake"), NewObj: onNode(newPod(rl("cpu", "1")), "fake"), Want: framework.Queue},
		{Name: "queue-on-other-pod-some-pod-level-resource-scale-down", Pod: podLevel("cpu", "1"),
			OldObj: onNode(podLevel("cpu", "2"), "fake"), NewObj: onNode(podLevel("cpu", "1"), "fake"), Want: framework.Queue},
		// Beyond upstream's table.
		{Name: "queue-on-scalar-scale-down", Pod: newPod(rl(string(extendedA), "1")),
			OldObj: onNode(newPod(rl(string(extendedA), "2")), "fake"), NewObj: onNode(newPod(rl(string(extendedA), "1")), "fake"), Want: framework.Queue},
		{Name: "queue-on-ephemeral-storage-scale-down", Pod: newPod(rl("ephemeral-storage", "1")),
			OldObj: onNode(newPod(rl("ephemeral-storage", "2")), "fake"), NewObj: onNode(newPod(rl("ephemeral-storage", "1")), "fake"), Want: framework.Queue},
		{Name: "queue-on-memory-scale-down", Pod: newPod(rl("memory", "1")),
			OldObj: onNode(newPod(rl("memory", "2")), "fake"), NewObj: onNode(newPod(rl("memory", "1")), "fake"), Want: framework.Queue},
		{Name: "skip-on-scale-up", Pod: newPod(rl("cpu", "1")),
			OldObj: onNode(newPod(rl("cpu", "1")), "fake"), NewObj: onNode(newPod(rl("cpu", "2")), "fake"), Want: framework.QueueSkip},
		{Name: "skip-when-target-requests-zero", Pod: newPod(rl("cpu", "0")),
			OldObj: onNode(newPod(rl("cpu", "2")), "fake"), NewObj: onNode(newPod(rl("cpu", "1")), "fake"), Want: framework.QueueSkip},
		{Name: "missing pods", Pod: newPod(rl("cpu", "1")), Want: framework.Queue, WantErr: true},
	})
}

// Upstream's Test_isSchedulableAfterNodeChange.
func TestHintNodeChange(t *testing.T) {
	pod := func() *v1.Pod { return newPod(rl("memory", "2", string(extendedA), "1")) }
	frameworktest.RunHints(t, newFit(t).isSchedulableAfterNodeChange, nil, []frameworktest.HintCase{
		{Name: "backoff-wrong-new-object", Pod: &v1.Pod{}, NewObj: "not-a-node", Want: framework.Queue, WantErr: true},
		{Name: "backoff-wrong-old-object", Pod: &v1.Pod{}, OldObj: "not-a-node", NewObj: &v1.Node{}, Want: framework.Queue, WantErr: true},
		{Name: "skip-queue-on-node-add-without-sufficient-resources", Pod: newPod(rl("memory", "2")),
			NewObj: nodeWithPods32("n", "memory", "1"), Want: framework.QueueSkip},
		{Name: "skip-queue-on-node-add-without-required-resource-type", Pod: newPod(rl(string(extendedA), "1")),
			NewObj: nodeWithPods32("n", string(extendedB), "1"), Want: framework.QueueSkip},
		{Name: "queue-on-node-add-with-sufficient-resources", Pod: pod(),
			NewObj: nodeWithPods32("n", "memory", "4", string(extendedA), "2"), Want: framework.Queue},
		{Name: "skip-queue-on-node-unrelated-changes", Pod: pod(),
			OldObj: nodeWithPods32("n", "memory", "2", string(extendedA), "2"),
			NewObj: nodeWithPods32("n", "memory", "2", string(extendedA), "1", string(extendedB), "2"), Want: framework.QueueSkip},
		{Name: "queue-on-pod-requested-resources-increase", Pod: pod(),
			OldObj: nodeWithPods32("n", "memory", "2", string(extendedA), "1"),
			NewObj: nodeWithPods32("n", "memory", "2", string(extendedA), "2"), Want: framework.Queue},
		{Name: "skip-queue-on-node-changes-from-suitable-to-unsuitable", Pod: pod(),
			OldObj: nodeWithPods32("n", "memory", "4", string(extendedA), "2"),
			NewObj: nodeWithPods32("n", "memory", "1", string(extendedA), "2"), Want: framework.QueueSkip},
		{Name: "queue-on-node-changes-from-unsuitable-to-suitable", Pod: pod(),
			OldObj: nodeWithPods32("n", "memory", "1", string(extendedA), "2"),
			NewObj: nodeWithPods32("n", "memory", "4", string(extendedA), "2"), Want: framework.Queue},
		// Beyond upstream's table.
		{Name: "skip-node-add-without-pod-slots", Pod: &v1.Pod{}, NewObj: newNode("n", rl("cpu", "1")), Want: framework.QueueSkip},
		{Name: "queue-node-add-requestless-pod", Pod: &v1.Pod{}, NewObj: nodeWithPods32("n"), Want: framework.Queue},
		{Name: "nil new node", Pod: &v1.Pod{}, Want: framework.QueueSkip},
	})
}

// Upstream's TestIsFit.
func TestIsFit(t *testing.T) {
	tests := []struct {
		name string
		pod  *v1.Pod
		node *v1.Node
		want bool
	}{
		{"nil node", &v1.Pod{}, nil, false},
		{"insufficient resource", newPod(rl("cpu", "2")), nodeWithPods32("n", "cpu", "1"), false},
		{"sufficient resource", newPod(rl("cpu", "1")), nodeWithPods32("n", "cpu", "2"), true},
		{"insufficient pod-level resource", withPodLevel(newPod(), rl("cpu", "2")), nodeWithPods32("n", "cpu", "1"), false},
		{"sufficient pod-level resource", withPodLevel(newPod(), rl("cpu", "2")), nodeWithPods32("n", "cpu", "2"), true},
		{"sufficient pod-level resource hugepages", withPodLevel(newPod(), rl(string(hugePageA), "2Mi")), nodeWithPods32("n", string(hugePageA), "2Mi"), true},
		{"insufficient pod-level resource hugepages", withPodLevel(newPod(), rl(string(hugePageA), "4Mi")), nodeWithPods32("n", string(hugePageA), "2Mi"), false},
	}
	for _, tc := range tests {
		if got := isFit(tc.pod, tc.node, true, nil); got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}

// Upstream's TestHaveAnyRequestedResourcesIncreased (without DRA classes).
func TestHaveAnyRequestedResourcesIncreased(t *testing.T) {
	all := func(pods, cpu, mem, eph, a string) *v1.Node {
		return newNode("n", rl("pods", pods, "cpu", cpu, "memory", mem, "ephemeral-storage", eph, string(extendedA), a))
	}
	full := func() *v1.Pod {
		return newPod(rl("cpu", "2m", "memory", "2", "ephemeral-storage", "2", string(extendedA), "2"))
	}
	noA := func(cpu, mem, eph string) *v1.Node {
		return newNode("n", rl("cpu", cpu, "memory", mem, "ephemeral-storage", eph))
	}
	tests := []struct {
		name          string
		pod           *v1.Pod
		original, mod *v1.Node
		want          bool
	}{
		{"no-requested-resources", resPod(req{}), all("1", "1", "1", "1", "1"), all("1", "2", "2", "2", "2"), false},
		{"no-requested-resources-pods-increased", resPod(req{}), all("1", "1", "1", "1", "1"), all("2", "1", "1", "1", "1"), true},
		// Without a DeviceClass, a resource the node lacks is not "increased".
		{"scalar-resources-not-in-node",
			newPod(rl("cpu", "2m", "memory", "2", "ephemeral-storage", "2", string(extendedDRA), "2")),
			noA("1", "2", "3"), noA("1", "2", "1"), false},
		{"scalar-resources-not-in-node (example.com)", full(), noA("1", "2", "3"), noA("1", "2", "1"), false},
		{"requested-resources-decreased", full(), all("32", "1", "2", "3", "4"), all("32", "1", "2", "1", "1"), false},
		{"requested-resources-increased", full(), all("32", "1", "2", "3", "4"), all("32", "3", "4", "3", "4"), true},
		{"non-requested-resources-decreased", newPod(rl("cpu", "2m", "memory", "2")), all("32", "1", "2", "3", "4"), all("32", "1", "2", "1", "1"), false},
		{"non-requested-resources-increased", newPod(rl("cpu", "2m", "memory", "2")), all("32", "1", "2", "3", "4"), all("32", "1", "2", "5", "6"), false},
		// Beyond upstream's table: each kind on its own.
		{"scalar-increased", full(), all("32", "1", "2", "3", "4"), all("32", "1", "2", "3", "5"), true},
		{"ephemeral-increased", full(), all("32", "1", "2", "3", "4"), all("32", "1", "2", "4", "4"), true},
	}
	for _, tc := range tests {
		if got := haveAnyRequestedResourcesIncreased(tc.pod, tc.original, tc.mod, true, nil); got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
	// With a DeviceClass backing the resource, a node without it leaves it
	// to DynamicResources, which upstream counts as an increase.
	objs := framework.NewObjectStore()
	name := string(extendedDRA)
	objs.Add(deviceClass("gpu", &name))
	pod := newPod(rl("cpu", "2m", "memory", "2", "ephemeral-storage", "2", string(extendedDRA), "2"))
	if !haveAnyRequestedResourcesIncreased(pod, noA("1", "2", "3"), noA("1", "2", "1"), true, objs) {
		t.Error("DRA-backed resource missing from the node: got false, want true")
	}
	roomy := newNode("n", rl("pods", "10", "cpu", "1", "memory", "2", "ephemeral-storage", "3"))
	if !isFit(pod, roomy, true, objs) {
		t.Error("isFit with the DRA-backed resource delegated: got false, want true")
	}
	if isFit(pod, roomy, true, nil) {
		t.Error("isFit without the DeviceClass mapping: got true, want false")
	}
}

func deviceClass(name string, ern *string) *resourceapi.DeviceClass {
	return &resourceapi.DeviceClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: resourceapi.DeviceClassSpec{ExtendedResourceName: ern}}
}

func strPtr(s string) *string { return &s }

// Upstream's Test_isSchedulableAfterDeviceClassChange.
func TestHintDeviceClass(t *testing.T) {
	gpuPod := func() *v1.Pod { return newPod(rl("example.com/gpu", "1")) }
	implicitPod := func() *v1.Pod { return newPod(rl("deviceclass.resource.kubernetes.io/gpuclass", "1")) }
	frameworktest.RunHints(t, newFit(t).isSchedulableAfterDeviceClassEvent, nil, []frameworktest.HintCase{
		{Name: "backoff-wrong-new-object", Pod: &v1.Pod{}, NewObj: "not-a-class", Want: framework.Queue, WantErr: true},
		{Name: "backoff-wrong-old-object", Pod: &v1.Pod{}, OldObj: "not-a-class", NewObj: &resourceapi.DeviceClass{}, Want: framework.Queue, WantErr: true},
		{Name: "skip-queue-on-class-nil-extended-resource-name-pointer", Pod: newPod(rl("memory", "2")),
			OldObj: deviceClass("", nil), NewObj: deviceClass("", nil), Want: framework.QueueSkip},
		{Name: "skip-queue-on-class-same-extended-resource-name", Pod: newPod(rl("memory", "2")),
			OldObj: deviceClass("", strPtr("example.com/gpu")), NewObj: deviceClass("", strPtr("example.com/gpu")), Want: framework.QueueSkip},
		{Name: "queue-on-class-add-with-implicit-extended-resource-name", Pod: implicitPod(),
			NewObj: deviceClass("gpuclass", strPtr("example.com/gpu")), Want: framework.Queue},
		{Name: "queue-on-class-add-with-explicit-extended-resource-name", Pod: gpuPod(),
			NewObj: deviceClass("gpuclass", strPtr("example.com/gpu")), Want: framework.Queue},
		{Name: "skip-queue-on-class-add-without-matching-names", Pod: newPod(rl("example.com/other", "1")),
			NewObj: deviceClass("gpuclass", strPtr("example.com/gpu")), Want: framework.QueueSkip},
		{Name: "queue-on-class-update-to-matching-extended-resource-name", Pod: gpuPod(),
			OldObj: deviceClass("gpuclass", nil), NewObj: deviceClass("gpuclass", strPtr("example.com/gpu")), Want: framework.Queue},
		{Name: "skip-queue-on-class-update-implicit-name-only", Pod: implicitPod(),
			OldObj: deviceClass("gpuclass", nil), NewObj: deviceClass("gpuclass", strPtr("example.com/gpu")), Want: framework.QueueSkip},
		{Name: "skip-queue-on-class-update-to-nil", Pod: gpuPod(),
			OldObj: deviceClass("gpuclass", strPtr("example.com/gpu")), NewObj: deviceClass("gpuclass", nil), Want: framework.QueueSkip},
		{Name: "skip-on-class-add-with-implicit-extended-resource-name-not-matching", Pod: implicitPod(),
			NewObj: deviceClass("myclass", strPtr("example.com/gpu")), Want: framework.QueueSkip},
		{Name: "queue-on-class-update-with-extended-resource-name", Pod: gpuPod(),
			OldObj: deviceClass("", strPtr("example.com/gpu1")), NewObj: deviceClass("", strPtr("example.com/gpu")), Want: framework.Queue},
		{Name: "missing class", Pod: gpuPod(), Want: framework.Queue, WantErr: true},
	})
}
