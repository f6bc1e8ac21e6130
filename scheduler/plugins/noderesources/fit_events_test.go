package noderesources

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/schedtui/schedtui/scheduler/framework"
)

func newFit(t *testing.T) *Fit {
	t.Helper()
	p, err := New(nil, nil)
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

type hintCase struct {
	name           string
	pod            *v1.Pod
	oldObj, newObj any
	want           framework.QueueingHint
	wantErr        bool
}

func runHints(t *testing.T, fn framework.QueueingHintFn, tests []hintCase) {
	t.Helper()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := fn(tc.pod, tc.oldObj, tc.newObj)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tc.wantErr)
			}
			if got != tc.want {
				t.Errorf("hint = %v, want %v", got, tc.want)
			}
		})
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
	runHints(t, newFit(t).isSchedulableAfterAssignedPodDelete, []hintCase{
		{name: "backoff-wrong-old-object", pod: &v1.Pod{}, oldObj: "not-a-pod", want: framework.Queue, wantErr: true},
		{name: "queue-on-other-pod-deleted", pod: cpu1(), oldObj: onNode(cpu1(), "fake"), want: framework.Queue},
		{name: "skip-queue-on-unscheduled-pod-deleted", pod: &v1.Pod{}, oldObj: &v1.Pod{}, want: framework.QueueSkip},
		{name: "queue-on-nominated-pod-deleted", pod: cpu1(), oldObj: nominated(newPod(rl("cpu", "2")), "fake"), want: framework.Queue},
		{name: "missing pod", pod: cpu1(), want: framework.Queue, wantErr: true},
	})
}

func TestHintTargetPodScaleDown(t *testing.T) {
	runHints(t, newFit(t).isSchedulableAfterTargetPodScaleDown, []hintCase{
		{name: "queue-on-target-pod-some-resource-scale-down", pod: newPod(rl("cpu", "1")), want: framework.Queue},
		{name: "queue-on-target-pod-some-pod-level-resource-scale-down", pod: withPodLevel(newPod(), rl("cpu", "1")), want: framework.Queue},
	})
}

// Upstream's Test_isSchedulableAfterAssignedPodScaleDown.
func TestHintAssignedPodScaleDown(t *testing.T) {
	podLevel := func(kv ...string) *v1.Pod { return withPodLevel(newPod(), rl(kv...)) }
	runHints(t, newFit(t).isSchedulableAfterAssignedPodScaleDown, []hintCase{
		{name: "backoff-wrong-old-object", pod: &v1.Pod{}, oldObj: "not-a-pod", want: framework.Queue, wantErr: true},
		{name: "backoff-wrong-new-object", pod: &v1.Pod{}, newObj: "not-a-pod", want: framework.Queue, wantErr: true},
		{name: "skip-queue-on-other-unscheduled-pod", pod: newPod(rl("cpu", "1")),
			oldObj: newPod(rl("cpu", "2")), newObj: newPod(rl("cpu", "1")), want: framework.QueueSkip},
		{name: "skip-queue-on-other-pod-unrelated-resource-scaled-down", pod: newPod(rl("cpu", "1")),
			oldObj: onNode(newPod(rl("memory", "2")), "fake"), newObj: onNode(newPod(rl("memory", "1")), "fake"), want: framework.QueueSkip},
		{name: "skip-queue-on-other-pod-unrelated-pod-level-resource-scaled-down", pod: podLevel("cpu", "1"),
			oldObj: onNode(podLevel("memory", "2"), "fake"), newObj: onNode(podLevel("memory", "1"), "fake"), want: framework.QueueSkip},
		{name: "queue-on-other-pod-some-resource-scale-down", pod: newPod(rl("cpu", "1")),
			oldObj: onNode(newPod(rl("cpu", "2")), "fake"), newObj: onNode(newPod(rl("cpu", "1")), "fake"), want: framework.Queue},
		{name: "queue-on-other-pod-some-pod-level-resource-scale-down", pod: podLevel("cpu", "1"),
			oldObj: onNode(podLevel("cpu", "2"), "fake"), newObj: onNode(podLevel("cpu", "1"), "fake"), want: framework.Queue},
		// Beyond upstream's table.
		{name: "queue-on-scalar-scale-down", pod: newPod(rl(string(extendedA), "1")),
			oldObj: onNode(newPod(rl(string(extendedA), "2")), "fake"), newObj: onNode(newPod(rl(string(extendedA), "1")), "fake"), want: framework.Queue},
		{name: "queue-on-ephemeral-storage-scale-down", pod: newPod(rl("ephemeral-storage", "1")),
			oldObj: onNode(newPod(rl("ephemeral-storage", "2")), "fake"), newObj: onNode(newPod(rl("ephemeral-storage", "1")), "fake"), want: framework.Queue},
		{name: "queue-on-memory-scale-down", pod: newPod(rl("memory", "1")),
			oldObj: onNode(newPod(rl("memory", "2")), "fake"), newObj: onNode(newPod(rl("memory", "1")), "fake"), want: framework.Queue},
		{name: "skip-on-scale-up", pod: newPod(rl("cpu", "1")),
			oldObj: onNode(newPod(rl("cpu", "1")), "fake"), newObj: onNode(newPod(rl("cpu", "2")), "fake"), want: framework.QueueSkip},
		{name: "skip-when-target-requests-zero", pod: newPod(rl("cpu", "0")),
			oldObj: onNode(newPod(rl("cpu", "2")), "fake"), newObj: onNode(newPod(rl("cpu", "1")), "fake"), want: framework.QueueSkip},
		{name: "missing pods", pod: newPod(rl("cpu", "1")), want: framework.Queue, wantErr: true},
	})
}

// Upstream's Test_isSchedulableAfterNodeChange.
func TestHintNodeChange(t *testing.T) {
	pod := func() *v1.Pod { return newPod(rl("memory", "2", string(extendedA), "1")) }
	runHints(t, newFit(t).isSchedulableAfterNodeChange, []hintCase{
		{name: "backoff-wrong-new-object", pod: &v1.Pod{}, newObj: "not-a-node", want: framework.Queue, wantErr: true},
		{name: "backoff-wrong-old-object", pod: &v1.Pod{}, oldObj: "not-a-node", newObj: &v1.Node{}, want: framework.Queue, wantErr: true},
		{name: "skip-queue-on-node-add-without-sufficient-resources", pod: newPod(rl("memory", "2")),
			newObj: nodeWithPods32("n", "memory", "1"), want: framework.QueueSkip},
		{name: "skip-queue-on-node-add-without-required-resource-type", pod: newPod(rl(string(extendedA), "1")),
			newObj: nodeWithPods32("n", string(extendedB), "1"), want: framework.QueueSkip},
		{name: "queue-on-node-add-with-sufficient-resources", pod: pod(),
			newObj: nodeWithPods32("n", "memory", "4", string(extendedA), "2"), want: framework.Queue},
		{name: "skip-queue-on-node-unrelated-changes", pod: pod(),
			oldObj: nodeWithPods32("n", "memory", "2", string(extendedA), "2"),
			newObj: nodeWithPods32("n", "memory", "2", string(extendedA), "1", string(extendedB), "2"), want: framework.QueueSkip},
		{name: "queue-on-pod-requested-resources-increase", pod: pod(),
			oldObj: nodeWithPods32("n", "memory", "2", string(extendedA), "1"),
			newObj: nodeWithPods32("n", "memory", "2", string(extendedA), "2"), want: framework.Queue},
		{name: "skip-queue-on-node-changes-from-suitable-to-unsuitable", pod: pod(),
			oldObj: nodeWithPods32("n", "memory", "4", string(extendedA), "2"),
			newObj: nodeWithPods32("n", "memory", "1", string(extendedA), "2"), want: framework.QueueSkip},
		{name: "queue-on-node-changes-from-unsuitable-to-suitable", pod: pod(),
			oldObj: nodeWithPods32("n", "memory", "1", string(extendedA), "2"),
			newObj: nodeWithPods32("n", "memory", "4", string(extendedA), "2"), want: framework.Queue},
		// Beyond upstream's table.
		{name: "skip-node-add-without-pod-slots", pod: &v1.Pod{}, newObj: newNode("n", rl("cpu", "1")), want: framework.QueueSkip},
		{name: "queue-node-add-requestless-pod", pod: &v1.Pod{}, newObj: nodeWithPods32("n"), want: framework.Queue},
		{name: "nil new node", pod: &v1.Pod{}, want: framework.QueueSkip},
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
		if got := isFit(tc.pod, tc.node); got != tc.want {
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
		if got := haveAnyRequestedResourcesIncreased(tc.pod, tc.original, tc.mod); got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
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
	runHints(t, newFit(t).isSchedulableAfterDeviceClassEvent, []hintCase{
		{name: "backoff-wrong-new-object", pod: &v1.Pod{}, newObj: "not-a-class", want: framework.Queue, wantErr: true},
		{name: "backoff-wrong-old-object", pod: &v1.Pod{}, oldObj: "not-a-class", newObj: &resourceapi.DeviceClass{}, want: framework.Queue, wantErr: true},
		{name: "skip-queue-on-class-nil-extended-resource-name-pointer", pod: newPod(rl("memory", "2")),
			oldObj: deviceClass("", nil), newObj: deviceClass("", nil), want: framework.QueueSkip},
		{name: "skip-queue-on-class-same-extended-resource-name", pod: newPod(rl("memory", "2")),
			oldObj: deviceClass("", strPtr("example.com/gpu")), newObj: deviceClass("", strPtr("example.com/gpu")), want: framework.QueueSkip},
		{name: "queue-on-class-add-with-implicit-extended-resource-name", pod: implicitPod(),
			newObj: deviceClass("gpuclass", strPtr("example.com/gpu")), want: framework.Queue},
		{name: "queue-on-class-add-with-explicit-extended-resource-name", pod: gpuPod(),
			newObj: deviceClass("gpuclass", strPtr("example.com/gpu")), want: framework.Queue},
		{name: "skip-queue-on-class-add-without-matching-names", pod: newPod(rl("example.com/other", "1")),
			newObj: deviceClass("gpuclass", strPtr("example.com/gpu")), want: framework.QueueSkip},
		{name: "queue-on-class-update-to-matching-extended-resource-name", pod: gpuPod(),
			oldObj: deviceClass("gpuclass", nil), newObj: deviceClass("gpuclass", strPtr("example.com/gpu")), want: framework.Queue},
		{name: "skip-queue-on-class-update-implicit-name-only", pod: implicitPod(),
			oldObj: deviceClass("gpuclass", nil), newObj: deviceClass("gpuclass", strPtr("example.com/gpu")), want: framework.QueueSkip},
		{name: "skip-queue-on-class-update-to-nil", pod: gpuPod(),
			oldObj: deviceClass("gpuclass", strPtr("example.com/gpu")), newObj: deviceClass("gpuclass", nil), want: framework.QueueSkip},
		{name: "skip-on-class-add-with-implicit-extended-resource-name-not-matching", pod: implicitPod(),
			newObj: deviceClass("myclass", strPtr("example.com/gpu")), want: framework.QueueSkip},
		{name: "queue-on-class-update-with-extended-resource-name", pod: gpuPod(),
			oldObj: deviceClass("", strPtr("example.com/gpu1")), newObj: deviceClass("", strPtr("example.com/gpu")), want: framework.Queue},
		{name: "missing class", pod: gpuPod(), want: framework.Queue, wantErr: true},
	})
}
