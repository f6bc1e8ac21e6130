package framework

import (
	"reflect"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8stypes "k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
)

func setOf(s ...string) sets.Set[string] { return sets.New(s...) }

func zoned(name, region, zone string) *v1.Node {
	l := map[string]string{}
	if zone != "" {
		l[v1.LabelTopologyZone] = zone
	}
	if region != "" {
		l[v1.LabelTopologyRegion] = region
	}
	return &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: l}}
}

func TestNodeTreeOrderInterleavesZones(t *testing.T) {
	nodes := []*v1.Node{
		zoned("a1", "r", "a"), zoned("a2", "r", "a"), zoned("a3", "r", "a"),
		zoned("b1", "r", "b"), zoned("none", "", ""), zoned("b2", "r", "b"),
	}
	// The beta label wins over topology.kubernetes.io.
	beta := zoned("x1", "r", "a")
	beta.Labels["failure-domain.beta.kubernetes.io/zone"] = "b"
	nodes = append(nodes, beta)
	var got []string
	for _, n := range NodeTreeOrder(nodes) {
		got = append(got, n.Name)
	}
	want := []string{"a1", "b1", "none", "a2", "b2", "a3", "x1"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func pod(name, node string, cpu string, ports ...int32) *v1.Pod {
	p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", UID: k8stypes.UID("uid-" + name)}, Spec: v1.PodSpec{NodeName: node}}
	c := v1.Container{Name: "c"}
	if cpu != "" {
		c.Resources.Requests = v1.ResourceList{v1.ResourceCPU: resource.MustParse(cpu)}
	}
	for _, hp := range ports {
		c.Ports = append(c.Ports, v1.ContainerPort{HostPort: hp, ContainerPort: hp})
	}
	p.Spec.Containers = []v1.Container{c}
	return p
}

func TestNodeInfoAccounting(t *testing.T) {
	n := zoned("n", "", "")
	n.Status.Allocatable = v1.ResourceList{v1.ResourceCPU: resource.MustParse("4"), v1.ResourcePods: resource.MustParse("10")}
	s := NewSnapshot([]*v1.Node{n}, []*v1.Pod{pod("p1", "n", "500m", 8080), pod("p2", "n", ""), pod("elsewhere", "missing", "1")})
	ni, err := s.Get("n")
	if err != nil {
		t.Fatal(err)
	}
	if ni.Requested.MilliCPU != 500 || ni.NonZeroRequested.MilliCPU != 600 || ni.NonZeroRequested.Memory != 2*DefaultMemoryRequest {
		t.Errorf("requested %d, non-zero cpu %d mem %d", ni.Requested.MilliCPU, ni.NonZeroRequested.MilliCPU, ni.NonZeroRequested.Memory)
	}
	if !ni.UsedPorts.CheckConflict("", "TCP", 8080) || ni.UsedPorts.CheckConflict("", "UDP", 8080) {
		t.Error("host port accounting wrong")
	}
	if ni.Allocatable.AllowedPodNumber != 10 || len(ni.Pods) != 2 {
		t.Errorf("allocatable pods %d, pods %d", ni.Allocatable.AllowedPodNumber, len(ni.Pods))
	}
	if err := s.RemovePod(pod("p1", "n", "500m", 8080)); err != nil {
		t.Fatal(err)
	}
	if ni.Requested.MilliCPU != 0 || ni.UsedPorts.CheckConflict("", "TCP", 8080) {
		t.Error("removal did not release resources")
	}
}

func TestHostPortConflicts(t *testing.T) {
	h := HostPortInfo{}
	h.Add("127.0.0.1", "TCP", 80)
	h.Add("", "UDP", 53)
	cases := []struct {
		ip, proto string
		port      int32
		want      bool
	}{
		{"0.0.0.0", "TCP", 80, true},   // all addresses conflicts with any
		{"127.0.0.1", "TCP", 80, true}, // same address
		{"10.0.0.1", "TCP", 80, false}, // other address
		{"10.0.0.1", "UDP", 53, true},  // 0.0.0.0 taken
		{"", "", 80, true},             // defaults: 0.0.0.0/TCP
		{"10.0.0.1", "TCP", 0, false},  // port 0 never conflicts
	}
	for _, c := range cases {
		if got := h.CheckConflict(c.ip, c.proto, c.port); got != c.want {
			t.Errorf("CheckConflict(%q,%q,%d) = %v", c.ip, c.proto, c.port, got)
		}
	}
}
