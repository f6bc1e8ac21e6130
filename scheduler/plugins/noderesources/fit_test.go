package noderesources

import (
	"reflect"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/framework/frameworktest"
)

// filterNode is upstream's Filter test node: 10m cpu, 20 bytes memory, 32
// pods, 5 example.com/aaa, 20 bytes ephemeral storage, 5 hugepages-2Mi.
func filterNode() *v1.Node {
	return newNode("node", v1.ResourceList{
		v1.ResourceCPU:              *resource.NewMilliQuantity(10, resource.DecimalSI),
		v1.ResourceMemory:           *resource.NewQuantity(20, resource.BinarySI),
		v1.ResourcePods:             *resource.NewQuantity(32, resource.DecimalSI),
		extendedA:                   *resource.NewQuantity(5, resource.DecimalSI),
		v1.ResourceEphemeralStorage: *resource.NewQuantity(20, resource.BinarySI),
		hugePageA:                   *resource.NewQuantity(5, resource.BinarySI),
	})
}

func reason(n v1.ResourceName) string { return "Insufficient " + string(n) }

func unsched(reasons ...string) *framework.Status {
	return framework.NewStatus(framework.Unschedulable, reasons...)
}

func unresolvable(reasons ...string) *framework.Status {
	return framework.NewStatus(framework.UnschedulableAndUnresolvable, reasons...)
}

func scalars(kv ...any) map[v1.ResourceName]int64 {
	m := map[v1.ResourceName]int64{}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i].(v1.ResourceName)] = int64(kv[i+1].(int))
	}
	return m
}

func runFilter(t *testing.T, args *configv1.NodeResourcesFitArgs, pod *v1.Pod, ni *framework.NodeInfo) *framework.Status {
	t.Helper()
	p, err := NewFit(args, frameworktest.NewHandle(nil, nil)) // a nil *NodeResourcesFitArgs means defaults
	if err != nil {
		t.Fatalf("NewFit: %v", err)
	}
	fit := p.(*Fit)
	state := framework.NewCycleState()
	if _, s := fit.PreFilter(ctx, state, pod, nil); !s.IsSuccess() {
		t.Fatalf("PreFilter: %v", s)
	}
	return fit.Filter(ctx, state, pod, ni)
}

// Cases of upstream's TestEnoughRequests (node: filterNode).
func TestFilterEnoughRequests(t *testing.T) {
	tests := []struct {
		name     string
		pod      *v1.Pod
		existing *v1.Pod
		args     *configv1.NodeResourcesFitArgs
		want     *framework.Status
		wantIR   []InsufficientResource
	}{
		{name: "no resources requested always fits", pod: &v1.Pod{}, existing: resPod(req{cpu: 10, mem: 20})},
		{
			name: "too many resources fails", pod: resPod(req{cpu: 1, mem: 1}), existing: resPod(req{cpu: 10, mem: 20}),
			want: unsched(reason(v1.ResourceCPU), reason(v1.ResourceMemory)),
			wantIR: []InsufficientResource{
				{ResourceName: v1.ResourceCPU, Reason: reason(v1.ResourceCPU), Requested: 1, Used: 10, Capacity: 10},
				{ResourceName: v1.ResourceMemory, Reason: reason(v1.ResourceMemory), Requested: 1, Used: 20, Capacity: 20},
			},
		},
		{
			name: "too many resources fails due to init container cpu",
			pod:  withInit(resPod(req{cpu: 1, mem: 1}), req{cpu: 3, mem: 1}), existing: resPod(req{cpu: 8, mem: 19}),
			want:   unsched(reason(v1.ResourceCPU)),
			wantIR: []InsufficientResource{{ResourceName: v1.ResourceCPU, Reason: reason(v1.ResourceCPU), Requested: 3, Used: 8, Capacity: 10}},
		},
		{
			name: "too many resources fails due to highest init container cpu",
			pod:  withInit(resPod(req{cpu: 1, mem: 1}), req{cpu: 3, mem: 1}, req{cpu: 2, mem: 1}), existing: resPod(req{cpu: 8, mem: 19}),
			want: unsched(reason(v1.ResourceCPU)),
		},
		{
			name: "too many resources fails due to init container memory",
			pod:  withInit(resPod(req{cpu: 1, mem: 1}), req{cpu: 1, mem: 3}), existing: resPod(req{cpu: 9, mem: 19}),
			want:   unsched(reason(v1.ResourceMemory)),
			wantIR: []InsufficientResource{{ResourceName: v1.ResourceMemory, Reason: reason(v1.ResourceMemory), Requested: 3, Used: 19, Capacity: 20}},
		},
		{
			name: "too many resources fails due to highest init container memory",
			pod:  withInit(resPod(req{cpu: 1, mem: 1}), req{cpu: 1, mem: 3}, req{cpu: 1, mem: 2}), existing: resPod(req{cpu: 9, mem: 19}),
			want: unsched(reason(v1.ResourceMemory)),
		},
		{
			name: "init container fits because it's the max, not sum, of containers and init containers",
			pod:  withInit(resPod(req{cpu: 1, mem: 1}), req{cpu: 1, mem: 1}), existing: resPod(req{cpu: 9, mem: 19}),
		},
		{
			name: "multiple init containers fit because it's the max, not sum, of containers and init containers",
			pod:  withInit(resPod(req{cpu: 1, mem: 1}), req{cpu: 1, mem: 1}, req{cpu: 1, mem: 1}), existing: resPod(req{cpu: 9, mem: 19}),
		},
		{name: "both resources fit", pod: resPod(req{cpu: 1, mem: 1}), existing: resPod(req{cpu: 5, mem: 5})},
		{
			name: "one resource memory fits", pod: resPod(req{cpu: 2, mem: 1}), existing: resPod(req{cpu: 9, mem: 5}),
			want: unsched(reason(v1.ResourceCPU)),
		},
		{
			name: "one resource cpu fits", pod: resPod(req{cpu: 1, mem: 2}), existing: resPod(req{cpu: 5, mem: 19}),
			want: unsched(reason(v1.ResourceMemory)),
		},
		{name: "equal edge case", pod: resPod(req{cpu: 5, mem: 1}), existing: resPod(req{cpu: 5, mem: 19})},
		{
			name: "equal edge case for init container",
			pod:  withInit(resPod(req{cpu: 4, mem: 1}), req{cpu: 5, mem: 1}), existing: resPod(req{cpu: 5, mem: 19}),
		},
		{name: "extended resource fits", pod: resPod(req{scalars: scalars(extendedA, 1)}), existing: resPod(req{})},
		{name: "extended resource fits for init container", pod: withInit(resPod(req{}), req{scalars: scalars(extendedA, 1)}), existing: resPod(req{})},
		{
			name: "extended resource capacity enforced",
			pod:  resPod(req{cpu: 1, mem: 1, scalars: scalars(extendedA, 10)}), existing: resPod(req{scalars: scalars(extendedA, 0)}),
			want:   unresolvable(reason(extendedA)),
			wantIR: []InsufficientResource{{ResourceName: extendedA, Reason: reason(extendedA), Requested: 10, Used: 0, Capacity: 5, Unresolvable: true}},
		},
		{
			name: "extended resource capacity enforced for init container",
			pod:  withInit(resPod(req{}), req{cpu: 1, mem: 1, scalars: scalars(extendedA, 10)}), existing: resPod(req{scalars: scalars(extendedA, 0)}),
			want: unresolvable(reason(extendedA)),
		},
		{
			name: "extended resource allocatable enforced",
			pod:  resPod(req{cpu: 1, mem: 1, scalars: scalars(extendedA, 1)}), existing: resPod(req{scalars: scalars(extendedA, 5)}),
			want:   unsched(reason(extendedA)),
			wantIR: []InsufficientResource{{ResourceName: extendedA, Reason: reason(extendedA), Requested: 1, Used: 5, Capacity: 5}},
		},
		{
			name: "extended resource allocatable enforced for init container",
			pod:  withInit(resPod(req{}), req{cpu: 1, mem: 1, scalars: scalars(extendedA, 1)}), existing: resPod(req{scalars: scalars(extendedA, 5)}),
			want: unsched(reason(extendedA)),
		},
		{
			name:     "extended resource allocatable enforced for multiple containers",
			pod:      resPod(req{cpu: 1, mem: 1, scalars: scalars(extendedA, 3)}, req{cpu: 1, mem: 1, scalars: scalars(extendedA, 3)}),
			existing: resPod(req{scalars: scalars(extendedA, 2)}),
			want:     unresolvable(reason(extendedA)),
			wantIR:   []InsufficientResource{{ResourceName: extendedA, Reason: reason(extendedA), Requested: 6, Used: 2, Capacity: 5, Unresolvable: true}},
		},
		{
			name:     "extended resource allocatable admits multiple init containers",
			pod:      withInit(resPod(req{}), req{cpu: 1, mem: 1, scalars: scalars(extendedA, 3)}, req{cpu: 1, mem: 1, scalars: scalars(extendedA, 3)}),
			existing: resPod(req{scalars: scalars(extendedA, 2)}),
		},
		{
			name:     "extended resource allocatable enforced for multiple init containers",
			pod:      withInit(resPod(req{}), req{cpu: 1, mem: 1, scalars: scalars(extendedA, 6)}, req{cpu: 1, mem: 1, scalars: scalars(extendedA, 3)}),
			existing: resPod(req{scalars: scalars(extendedA, 2)}),
			want:     unresolvable(reason(extendedA)),
		},
		{
			name: "extended resource allocatable enforced for unknown resource",
			pod:  resPod(req{cpu: 1, mem: 1, scalars: scalars(extendedB, 1)}), existing: resPod(req{}),
			want:   unresolvable(reason(extendedB)),
			wantIR: []InsufficientResource{{ResourceName: extendedB, Reason: reason(extendedB), Requested: 1, Used: 0, Capacity: 0, Unresolvable: true}},
		},
		{
			name: "extended resource allocatable enforced for unknown resource for init container",
			pod:  withInit(resPod(req{}), req{cpu: 1, mem: 1, scalars: scalars(extendedB, 1)}), existing: resPod(req{}),
			want: unresolvable(reason(extendedB)),
		},
		{
			name: "kubernetes.io resource capacity enforced",
			pod:  resPod(req{cpu: 1, mem: 1, scalars: scalars(k8sIOA, 10)}), existing: resPod(req{}),
			want: unresolvable(reason(k8sIOA)),
		},
		{
			name: "kubernetes.io resource capacity enforced for init container",
			pod:  withInit(resPod(req{}), req{cpu: 1, mem: 1, scalars: scalars(k8sIOB, 10)}), existing: resPod(req{}),
			want: unresolvable(reason(k8sIOB)),
		},
		{
			name: "hugepages resource capacity enforced",
			pod:  resPod(req{cpu: 1, mem: 1, scalars: scalars(hugePageA, 10)}), existing: resPod(req{scalars: scalars(hugePageA, 0)}),
			want:   unresolvable(reason(hugePageA)),
			wantIR: []InsufficientResource{{ResourceName: hugePageA, Reason: reason(hugePageA), Requested: 10, Used: 0, Capacity: 5, Unresolvable: true}},
		},
		{
			name: "hugepages resource capacity enforced for init container",
			pod:  withInit(resPod(req{}), req{cpu: 1, mem: 1, scalars: scalars(hugePageA, 10)}), existing: resPod(req{scalars: scalars(hugePageA, 0)}),
			want: unresolvable(reason(hugePageA)),
		},
		{
			name:     "hugepages resource allocatable enforced for multiple containers",
			pod:      resPod(req{cpu: 1, mem: 1, scalars: scalars(hugePageA, 3)}, req{cpu: 1, mem: 1, scalars: scalars(hugePageA, 3)}),
			existing: resPod(req{scalars: scalars(hugePageA, 2)}),
			want:     unresolvable(reason(hugePageA)),
			wantIR:   []InsufficientResource{{ResourceName: hugePageA, Reason: reason(hugePageA), Requested: 6, Used: 2, Capacity: 5, Unresolvable: true}},
		},
		{
			name: "skip checking ignored extended resource",
			pod:  resPod(req{cpu: 1, mem: 1, scalars: scalars(extendedB, 1)}), existing: resPod(req{}),
			args: &configv1.NodeResourcesFitArgs{IgnoredResources: []string{"example.com/bbb"}},
		},
		{
			name: "resources + pod overhead fits",
			pod:  withOverhead(resPod(req{cpu: 1, mem: 1}), rl("cpu", "3m", "memory", "13")), existing: resPod(req{cpu: 5, mem: 5}),
		},
		{
			name: "requests + overhead does not fit for memory",
			pod:  withOverhead(resPod(req{cpu: 1, mem: 1}), rl("cpu", "1m", "memory", "15")), existing: resPod(req{cpu: 5, mem: 5}),
			want:   unsched(reason(v1.ResourceMemory)),
			wantIR: []InsufficientResource{{ResourceName: v1.ResourceMemory, Reason: reason(v1.ResourceMemory), Requested: 16, Used: 5, Capacity: 20}},
		},
		{
			name: "skip checking ignored extended resource via resource groups",
			pod:  resPod(req{cpu: 1, mem: 1, scalars: scalars(extendedB, 1, k8sIOA, 1)}), existing: resPod(req{}),
			args:   &configv1.NodeResourcesFitArgs{IgnoredResourceGroups: []string{"example.com"}},
			want:   unresolvable(reason(k8sIOA)),
			wantIR: []InsufficientResource{{ResourceName: k8sIOA, Reason: reason(k8sIOA), Requested: 1, Used: 0, Capacity: 0, Unresolvable: true}},
		},
		{
			name: "skip checking extended resource request with quantity zero via resource groups",
			pod:  resPod(req{cpu: 1, mem: 1, scalars: scalars(extendedA, 0)}), existing: resPod(req{scalars: scalars(extendedA, 6)}),
		},
		{
			name: "skip checking resource request with quantity zero",
			pod:  resPod(req{scalars: scalars(extendedA, 1)}), existing: resPod(req{cpu: 20, mem: 30, scalars: scalars(extendedA, 1)}),
		},
		{
			name:     "both pod-level and container-level resources fit",
			pod:      withPodLevel(resPod(req{cpu: 1, mem: 1}), rl("cpu", "1m", "memory", "2")),
			existing: resPod(req{cpu: 5, mem: 5}),
		},
		{
			name:     "pod-level cpu resource not fit",
			pod:      withPodLevel(resPod(req{cpu: 1, mem: 1}), rl("cpu", "7m", "memory", "2")),
			existing: resPod(req{cpu: 5, mem: 5}),
			want:     unsched(reason(v1.ResourceCPU)),
			wantIR:   []InsufficientResource{{ResourceName: v1.ResourceCPU, Reason: reason(v1.ResourceCPU), Requested: 7, Used: 5, Capacity: 10}},
		},
		{
			name:     "pod-level memory resource not fit",
			pod:      withPodLevel(resPod(req{cpu: 1, mem: 1}), rl("cpu", "3m", "memory", "2")),
			existing: resPod(req{cpu: 5, mem: 19}),
			want:     unsched(reason(v1.ResourceMemory)),
		},
		{
			name: "pod-level hugepages resource fit",
			pod:  withPodLevel(resPod(), rl("cpu", "3m", "memory", "2", string(hugePageA), "5")),
		},
		{
			name: "both pod-level and container-level hugepages resource fit",
			pod:  withPodLevel(resPod(req{cpu: 1, mem: 1, scalars: scalars(hugePageA, 3)}), rl("cpu", "3m", "memory", "2", string(hugePageA), "5")),
		},
		{
			name:   "pod-level hugepages resource not fit",
			pod:    withPodLevel(resPod(), rl("cpu", "3m", "memory", "2", string(hugePageA), "10")),
			want:   unresolvable(reason(hugePageA)),
			wantIR: []InsufficientResource{{ResourceName: hugePageA, Reason: reason(hugePageA), Requested: 10, Used: 0, Capacity: 5, Unresolvable: true}},
		},
		{
			name:     "one pod-level cpu resource fits and all init and non-init containers resources fit",
			pod:      withInit(withPodLevel(resPod(req{cpu: 1, mem: 1}), rl("cpu", "3m", "memory", "2")), req{cpu: 1, mem: 1}),
			existing: resPod(req{cpu: 5, mem: 19}),
			want:     unsched(reason(v1.ResourceMemory)),
			wantIR:   []InsufficientResource{{ResourceName: v1.ResourceMemory, Reason: reason(v1.ResourceMemory), Requested: 2, Used: 19, Capacity: 20}},
		},
		{
			name: "extended resource backed by device plugin", pod: resPod(req{scalars: scalars(extendedA, 1)}), existing: resPod(req{}),
		},
		{
			// Delegated to DynamicResources only when a DeviceClass names
			// the resource (TestHaveAnyRequestedResourcesIncreased, and the
			// differential suite's DRA extended-resource scenarios).
			name: "extended resource without node allocatable and without DeviceClass",
			pod:  resPod(req{cpu: 1, mem: 1, scalars: scalars(extendedDRA, 1)}), existing: resPod(req{}),
			want:   unresolvable(reason(extendedDRA)),
			wantIR: []InsufficientResource{{ResourceName: extendedDRA, Reason: reason(extendedDRA), Requested: 1, Unresolvable: true}},
		},
		{
			name: "extended resource was backed by Device Plugin (Allocatable: 0), global cache",
			pod:  resPod(req{scalars: scalars(extendedA, 1)}), existing: resPod(req{scalars: scalars(extendedA, 0)}),
		},
		// Beyond upstream's table.
		{
			// A resource the pod does not request is not checked, even
			// when the node is overcommitted on it.
			name: "overcommitted cpu does not reject a pod requesting only memory",
			pod:  newPod(rl("memory", "1")), existing: resPod(req{cpu: 50, mem: 1}),
		},
		{
			name:     "all four kinds insufficient: fixed order, scalars sorted by name",
			pod:      resPod(req{cpu: 6, mem: 6, eph: 6, scalars: scalars(k8sIOA, 1, hugePageA, 1, extendedA, 1, extendedB, 1)}),
			existing: resPod(req{cpu: 5, mem: 15, eph: 15, scalars: scalars(extendedA, 5, hugePageA, 5)}),
			want: unresolvable(reason(v1.ResourceCPU), reason(v1.ResourceMemory), reason(v1.ResourceEphemeralStorage),
				reason(extendedA), reason(extendedB), reason(hugePageA), reason(k8sIOA)),
		},
		{
			// ignoredResources only applies to extended resources.
			name: "hugepages cannot be ignored",
			pod:  resPod(req{scalars: scalars(hugePageA, 10)}), existing: resPod(req{}),
			args: &configv1.NodeResourcesFitArgs{IgnoredResources: []string{string(hugePageA)}},
			want: unresolvable(reason(hugePageA)),
		},
		{
			name: "resource names that are not scalar are not checked",
			pod:  newPod(rl("storage", "100", "pods", "100")), existing: resPod(req{}),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var pods []*v1.Pod
			if tc.existing != nil {
				pods = append(pods, tc.existing)
			}
			ni := nodeInfo(filterNode(), pods...)
			checkStatus(t, "Filter", runFilter(t, tc.args, tc.pod, ni), tc.want)
			if tc.wantIR != nil {
				var ignored, groups []string
				if tc.args != nil {
					ignored, groups = tc.args.IgnoredResources, tc.args.IgnoredResourceGroups
				}
				p, _ := NewFit(&configv1.NodeResourcesFitArgs{IgnoredResources: ignored, IgnoredResourceGroups: groups}, frameworktest.NewHandle(nil, nil))
				f := p.(*Fit)
				got := fitsRequest(computePodResourceRequest(tc.pod, true), ni, f.ignoredResources, f.ignoredResourceGroups, nil)
				if !reflect.DeepEqual(got, tc.wantIR) {
					t.Errorf("insufficient resources:\n got %+v\nwant %+v", got, tc.wantIR)
				}
			}
		})
	}
}

// Cases of upstream's TestNotEnoughRequests: the pod count is checked even
// when the pod requests nothing.
func TestFilterTooManyPods(t *testing.T) {
	node := newNode("node", v1.ResourceList{
		v1.ResourceCPU:    *resource.NewMilliQuantity(10, resource.DecimalSI),
		v1.ResourceMemory: *resource.NewQuantity(20, resource.BinarySI),
		v1.ResourcePods:   *resource.NewQuantity(1, resource.DecimalSI),
	})
	tests := []struct {
		name     string
		pod      *v1.Pod
		existing *v1.Pod
		want     *framework.Status
	}{
		{"even without specified resources, predicate fails when there's no space for additional pod", &v1.Pod{}, resPod(req{cpu: 10, mem: 20}), unsched("Too many pods")},
		{"even if both resources fit, predicate fails when there's no space for additional pod", resPod(req{cpu: 1, mem: 1}), resPod(req{cpu: 5, mem: 5}), unsched("Too many pods")},
		{"even for equal edge case, predicate fails when there's no space for additional pod", resPod(req{cpu: 5, mem: 1}), resPod(req{cpu: 5, mem: 19}), unsched("Too many pods")},
		{"even for equal edge case, predicate fails when there's no space for additional pod due to init container",
			withInit(resPod(req{cpu: 5, mem: 1}), req{cpu: 5, mem: 1}), resPod(req{cpu: 5, mem: 19}), unsched("Too many pods")},
		// Beyond upstream's table: "Too many pods" comes first and is never
		// unresolvable by itself; another resource can make it U&U.
		{"too many pods and too much cpu", resPod(req{cpu: 11}), resPod(req{}), unresolvable("Too many pods", reason(v1.ResourceCPU))},
		{"the only slot is free", resPod(req{cpu: 1}), nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var pods []*v1.Pod
			if tc.existing != nil {
				pods = append(pods, tc.existing)
			}
			checkStatus(t, "Filter", runFilter(t, nil, tc.pod, nodeInfo(node, pods...)), tc.want)
		})
	}
	t.Run("node without a pods entry admits nothing", func(t *testing.T) {
		ni := nodeInfo(newNode("n", rl("cpu", "1")))
		checkStatus(t, "Filter", runFilter(t, nil, &v1.Pod{}, ni), unsched("Too many pods"))
	})
}

// Cases of upstream's TestStorageRequests.
func TestFilterEphemeralStorage(t *testing.T) {
	tests := []struct {
		name     string
		pod      *v1.Pod
		existing *v1.Pod
		want     *framework.Status
	}{
		{"empty storage requested, and pod fits", resPod(req{cpu: 1, mem: 1}), resPod(req{cpu: 2, mem: 10}), nil},
		{"storage ephemeral local storage request exceeds allocatable", resPod(req{eph: 25}), resPod(req{cpu: 2, mem: 2}), unresolvable(reason(v1.ResourceEphemeralStorage))},
		{"ephemeral local storage is sufficient", withInit(resPod(req{eph: 5})), resPod(req{cpu: 2, mem: 2, eph: 10}), nil},
		{"pod fits", resPod(req{eph: 10}), resPod(req{cpu: 2, mem: 2}), nil},
		{"ephemeral storage used up", resPod(req{eph: 11}), resPod(req{eph: 10}), unsched(reason(v1.ResourceEphemeralStorage))},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkStatus(t, "Filter", runFilter(t, nil, tc.pod, nodeInfo(filterNode(), tc.existing)), tc.want)
		})
	}
}

// Cases of upstream's TestRestartableInitContainers: sidecars add to the
// regular containers.
func TestFilterSidecars(t *testing.T) {
	node := newNode("node", v1.ResourceList{
		v1.ResourceCPU:  *resource.NewMilliQuantity(2, resource.DecimalSI),
		v1.ResourcePods: *resource.NewQuantity(1, resource.DecimalSI),
	})
	milli := func(n int64) v1.ResourceList {
		return v1.ResourceList{v1.ResourceCPU: *resource.NewMilliQuantity(n, resource.DecimalSI)}
	}
	tests := []struct {
		name string
		pod  *v1.Pod
		want *framework.Status
	}{
		{"allow pod without restartable init containers", newPod(nil), nil},
		{"allow pod with restartable init containers", withSidecar(newPod(nil), nil), nil},
		{"allow pod if the total requested resources do not exceed the node's allocatable resources", withSidecar(newPod(milli(1)), milli(1)), nil},
		{"not allow pod if the total requested resources do exceed the node's allocatable resources",
			withSidecar(newPod(milli(1)), milli(2)), unresolvable(reason(v1.ResourceCPU))},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkStatus(t, "Filter", runFilter(t, nil, tc.pod, nodeInfo(node)), tc.want)
		})
	}
}

// Upstream's TestPreFilterDisabled: Filter without PreFilter state is an
// Error naming the missing key.
func TestFilterWithoutPreFilter(t *testing.T) {
	p, _ := NewFit(nil, frameworktest.NewHandle(nil, nil))
	s := p.(*Fit).Filter(ctx, framework.NewCycleState(), &v1.Pod{}, nodeInfo(newNode("n", nil)))
	if s.Code() != framework.Error || !strings.Contains(s.Message(), `error reading "PreFilterNodeResourcesFit" from cycleState: not found`) {
		t.Errorf("got %v %q", s.Code(), s.Message())
	}
	if s := p.(*Fit).Filter(ctx, framework.NewCycleState(), &v1.Pod{}, nil); s.Code() != framework.Error {
		t.Errorf("nil node: got %v", s.Code())
	}
}

func TestPreFilter(t *testing.T) {
	p, _ := NewFit(nil, frameworktest.NewHandle(nil, nil))
	f := p.(*Fit)
	if f.PreFilterExtensions() != nil {
		t.Error("PreFilterExtensions should be nil")
	}
	state := framework.NewCycleState()
	pod := withOverhead(withSidecar(withInit(resPod(req{cpu: 2000, mem: 1000}), req{cpu: 2000, mem: 3000}), rl("cpu", "1")), rl("memory", "10"))
	res, s := f.PreFilter(ctx, state, pod, nil)
	if res != nil || !s.IsSuccess() {
		t.Fatalf("PreFilter = %v, %v; want nil, success", res, s)
	}
	got, err := getPreFilterState(state)
	if err != nil {
		t.Fatal(err)
	}
	// containers 2000m + sidecar 1000m = 3000m; init 2000m + sidecar
	// declared after it 0 = 2000m; memory max(1000, 3000) + overhead 10.
	want := framework.Resource{MilliCPU: 3000, Memory: 3010, ScalarResources: nil}
	if !reflect.DeepEqual(got.Resource, want) {
		t.Errorf("request = %+v, want %+v", got.Resource, want)
	}
	// Clones share the immutable state.
	if c := state.Clone(); c == nil {
		t.Fatal("clone is nil")
	} else if s2, _ := getPreFilterState(c); s2 != got {
		t.Error("clone should share the state")
	}
}

func TestFits(t *testing.T) {
	ni := nodeInfo(filterNode(), resPod(req{cpu: 9}))
	got := Fits(resPod(req{cpu: 2, scalars: scalars(extendedB, 1)}), ni, true, nil)
	want := []InsufficientResource{
		{ResourceName: v1.ResourceCPU, Reason: "Insufficient cpu", Requested: 2, Used: 9, Capacity: 10},
		{ResourceName: extendedB, Reason: "Insufficient example.com/bbb", Requested: 1, Unresolvable: true},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Fits = %+v, want %+v", got, want)
	}
}
