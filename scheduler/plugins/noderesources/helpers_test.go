package noderesources

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/schedtui/schedtui/scheduler/framework"
)

// Resource names used across the tests (the names upstream's tests use).
const (
	extendedA   v1.ResourceName = "example.com/aaa"
	extendedB   v1.ResourceName = "example.com/bbb"
	k8sIOA      v1.ResourceName = "kubernetes.io/something"
	k8sIOB      v1.ResourceName = "subdomain.kubernetes.io/something"
	hugePageA   v1.ResourceName = v1.ResourceHugePagesPrefix + "2Mi"
	extendedDRA v1.ResourceName = "extended.resource.dra.io/something"
	extendedRes v1.ResourceName = "abc.com/xyz"
)

var ctx = context.Background()

// req is a request in scheduler units: millicores, bytes, counts.
type req struct {
	cpu, mem, eph int64
	scalars       map[v1.ResourceName]int64
}

// list renders r with cpu, memory and ephemeral-storage always present
// (zero or not), as upstream's Filter test pods are built.
func (r req) list() v1.ResourceList {
	l := v1.ResourceList{
		v1.ResourceCPU:              *resource.NewMilliQuantity(r.cpu, resource.DecimalSI),
		v1.ResourceMemory:           *resource.NewQuantity(r.mem, resource.BinarySI),
		v1.ResourceEphemeralStorage: *resource.NewQuantity(r.eph, resource.BinarySI),
	}
	for n, q := range r.scalars {
		l[n] = *resource.NewQuantity(q, resource.DecimalSI)
	}
	return l
}

// rl parses name/quantity pairs: rl("cpu", "1", "memory", "2Gi").
func rl(kv ...string) v1.ResourceList {
	if len(kv)%2 != 0 {
		panic("rl needs pairs")
	}
	l := v1.ResourceList{}
	for i := 0; i < len(kv); i += 2 {
		l[v1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
	}
	return l
}

var podSeq int

// newPod has one container per request list (nil: a container without
// requests).
func newPod(containers ...v1.ResourceList) *v1.Pod {
	podSeq++
	p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{
		Name: fmt.Sprintf("p%d", podSeq), Namespace: "default", UID: types.UID(fmt.Sprintf("uid-%d", podSeq)),
	}}
	for i, c := range containers {
		p.Spec.Containers = append(p.Spec.Containers, v1.Container{
			Name: fmt.Sprintf("c%d", i), Resources: v1.ResourceRequirements{Requests: c},
		})
	}
	return p
}

// resPod is newPod over req values.
func resPod(reqs ...req) *v1.Pod {
	lists := make([]v1.ResourceList, len(reqs))
	for i, r := range reqs {
		lists[i] = r.list()
	}
	return newPod(lists...)
}

func withInit(p *v1.Pod, reqs ...req) *v1.Pod {
	for i, r := range reqs {
		p.Spec.InitContainers = append(p.Spec.InitContainers, v1.Container{
			Name: fmt.Sprintf("init%d", i), Resources: v1.ResourceRequirements{Requests: r.list()},
		})
	}
	return p
}

func withSidecar(p *v1.Pod, l v1.ResourceList) *v1.Pod {
	always := v1.ContainerRestartPolicyAlways
	p.Spec.InitContainers = append(p.Spec.InitContainers, v1.Container{
		Name:          fmt.Sprintf("sidecar%d", len(p.Spec.InitContainers)),
		RestartPolicy: &always,
		Resources:     v1.ResourceRequirements{Requests: l, Limits: l},
	})
	return p
}

func withPodLevel(p *v1.Pod, l v1.ResourceList) *v1.Pod {
	p.Spec.Resources = &v1.ResourceRequirements{Requests: l}
	return p
}

func withOverhead(p *v1.Pod, l v1.ResourceList) *v1.Pod {
	p.Spec.Overhead = l
	return p
}

func onNode(p *v1.Pod, node string) *v1.Pod {
	p.Spec.NodeName = node
	return p
}

// newNode has capacity = allocatable = alloc.
func newNode(name string, alloc v1.ResourceList) *v1.Node {
	return &v1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{v1.LabelHostname: name}},
		Status:     v1.NodeStatus{Capacity: alloc, Allocatable: alloc},
	}
}

// nodeWithPods32 is upstream's MakeNode().Capacity(...): a "pods: 32"
// entry is always added.
func nodeWithPods32(name string, kv ...string) *v1.Node {
	l := rl(kv...)
	l[v1.ResourcePods] = resource.MustParse("32")
	return newNode(name, l)
}

// scoreNode is upstream's makeNode for score tests: cpu in millicores,
// memory in bytes, extended resources as counts; no pods entry.
func scoreNode(name string, milliCPU, memory int64, extended map[v1.ResourceName]int64) *v1.Node {
	l := v1.ResourceList{
		v1.ResourceCPU:    *resource.NewMilliQuantity(milliCPU, resource.DecimalSI),
		v1.ResourceMemory: *resource.NewQuantity(memory, resource.BinarySI),
	}
	for n, q := range extended {
		l[n] = *resource.NewQuantity(q, resource.DecimalSI)
	}
	return newNode(name, l)
}

func nodeInfo(node *v1.Node, pods ...*v1.Pod) *framework.NodeInfo {
	ni := framework.NewNodeInfo(pods...)
	ni.SetNode(node)
	return ni
}

// checkStatus compares code and reasons (nil means success).
func checkStatus(t *testing.T, what string, got, want *framework.Status) {
	t.Helper()
	if got.Code() != want.Code() || !reflect.DeepEqual(got.Reasons(), want.Reasons()) {
		t.Errorf("%s: got %v %q, want %v %q", what, got.Code(), got.Reasons(), want.Code(), want.Reasons())
	}
}
