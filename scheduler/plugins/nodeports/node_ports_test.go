package nodeports

import (
	"context"
	"strconv"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/schedtui/schedtui/scheduler/framework"
)

// newPod builds a pod on host with one container exposing "PROTO/IP/PORT"
// host ports.
func newPod(host string, hostPortInfos ...string) *v1.Pod {
	var ports []v1.ContainerPort
	for _, info := range hostPortInfos {
		parts := strings.Split(info, "/")
		port, _ := strconv.Atoi(parts[2])
		ports = append(ports, v1.ContainerPort{HostIP: parts[1], HostPort: int32(port), Protocol: v1.Protocol(parts[0])})
	}
	p := &v1.Pod{Spec: v1.PodSpec{NodeName: host, Containers: []v1.Container{{Ports: ports}}}}
	p.UID = types.UID("uid-" + host + strings.Join(hostPortInfos, ","))
	return p
}

func initPod(sidecar bool, ports ...v1.ContainerPort) *v1.Pod {
	c := v1.Container{Ports: ports}
	if sidecar {
		always := v1.ContainerRestartPolicyAlways
		c.RestartPolicy = &always
	}
	return &v1.Pod{Spec: v1.PodSpec{InitContainers: []v1.Container{c}, Containers: []v1.Container{{}}}}
}

type want struct {
	code framework.Code
	msg  string
}

var (
	skip     = want{framework.Skip, ""}
	conflict = want{framework.Unschedulable, ErrReason}
)

func TestPreFilterAndFilter(t *testing.T) {
	tcp8001 := v1.ContainerPort{ContainerPort: 8001, HostPort: 8001, Protocol: v1.ProtocolTCP}
	tests := []struct {
		name          string
		pod           *v1.Pod
		nodeInfo      *framework.NodeInfo
		wantPreFilter want
		wantFilter    want
	}{
		{name: "skip filter", pod: &v1.Pod{}, nodeInfo: framework.NewNodeInfo(), wantPreFilter: skip},
		{name: "container port without host port skips", pod: &v1.Pod{Spec: v1.PodSpec{Containers: []v1.Container{{Ports: []v1.ContainerPort{{ContainerPort: 80}}}}}}, nodeInfo: framework.NewNodeInfo(), wantPreFilter: skip},
		{name: "other port", pod: newPod("m1", "UDP/127.0.0.1/8080"), nodeInfo: framework.NewNodeInfo(newPod("m1", "UDP/127.0.0.1/9090"))},
		{name: "same udp port", pod: newPod("m1", "UDP/127.0.0.1/8080"), nodeInfo: framework.NewNodeInfo(newPod("m1", "UDP/127.0.0.1/8080")), wantFilter: conflict},
		{name: "same tcp port", pod: newPod("m1", "TCP/127.0.0.1/8080"), nodeInfo: framework.NewNodeInfo(newPod("m1", "TCP/127.0.0.1/8080")), wantFilter: conflict},
		{name: "different host ip", pod: newPod("m1", "TCP/127.0.0.1/8080"), nodeInfo: framework.NewNodeInfo(newPod("m1", "TCP/127.0.0.2/8080"))},
		{name: "different protocol", pod: newPod("m1", "UDP/127.0.0.1/8080"), nodeInfo: framework.NewNodeInfo(newPod("m1", "TCP/127.0.0.1/8080"))},
		{name: "second udp port conflict", pod: newPod("m1", "UDP/127.0.0.1/8000", "UDP/127.0.0.1/8080"), nodeInfo: framework.NewNodeInfo(newPod("m1", "UDP/127.0.0.1/8080")), wantFilter: conflict},
		{name: "first tcp port conflict", pod: newPod("m1", "TCP/127.0.0.1/8001", "UDP/127.0.0.1/8080"), nodeInfo: framework.NewNodeInfo(newPod("m1", "TCP/127.0.0.1/8001", "UDP/127.0.0.1/8081")), wantFilter: conflict},
		{name: "first tcp port conflict due to 0.0.0.0 hostIP", pod: newPod("m1", "TCP/0.0.0.0/8001"), nodeInfo: framework.NewNodeInfo(newPod("m1", "TCP/127.0.0.1/8001")), wantFilter: conflict},
		{name: "TCP hostPort conflict due to 0.0.0.0 hostIP", pod: newPod("m1", "TCP/10.0.10.10/8001", "TCP/0.0.0.0/8001"), nodeInfo: framework.NewNodeInfo(newPod("m1", "TCP/127.0.0.1/8001")), wantFilter: conflict},
		{name: "second tcp port conflict to 0.0.0.0 hostIP", pod: newPod("m1", "TCP/127.0.0.1/8001"), nodeInfo: framework.NewNodeInfo(newPod("m1", "TCP/0.0.0.0/8001")), wantFilter: conflict},
		{name: "second different protocol", pod: newPod("m1", "UDP/127.0.0.1/8001"), nodeInfo: framework.NewNodeInfo(newPod("m1", "TCP/0.0.0.0/8001"))},
		{name: "UDP hostPort conflict due to 0.0.0.0 hostIP", pod: newPod("m1", "UDP/127.0.0.1/8001"), nodeInfo: framework.NewNodeInfo(newPod("m1", "TCP/0.0.0.0/8001", "UDP/0.0.0.0/8001")), wantFilter: conflict},
		{name: "empty protocol and IP default to TCP and 0.0.0.0", pod: newPod("m1", "//8001"), nodeInfo: framework.NewNodeInfo(newPod("m1", "TCP/127.0.0.1/8001")), wantFilter: conflict},
		{name: "non-sidecar initContainer using hostPort", pod: initPod(false, tcp8001), nodeInfo: framework.NewNodeInfo(newPod("m1", "TCP/0.0.0.0/8001")), wantPreFilter: skip},
		{name: "TCP hostPort conflict from sidecar initContainer", pod: initPod(true, tcp8001), nodeInfo: framework.NewNodeInfo(newPod("m1", "TCP/0.0.0.0/8001")), wantFilter: conflict},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			p, _ := New(nil, nil)
			pl := p.(*NodePorts)
			cs := framework.NewCycleState()
			r, s := pl.PreFilter(ctx, cs, tt.pod, nil)
			if r != nil || s.Code() != tt.wantPreFilter.code || s.Message() != tt.wantPreFilter.msg {
				t.Fatalf("PreFilter = (%v, %v), want (nil, %v)", r, s, tt.wantPreFilter)
			}
			if s.IsSkip() {
				return
			}
			got := pl.Filter(ctx, cs, tt.pod, tt.nodeInfo)
			if got.Code() != tt.wantFilter.code || got.Message() != tt.wantFilter.msg {
				t.Errorf("Filter = (%v, %q), want %v", got.Code(), got.Message(), tt.wantFilter)
			}
		})
	}
}

func TestFilterWithoutPreFilter(t *testing.T) {
	ni := framework.NewNodeInfo()
	ni.SetNode(&v1.Node{})
	got := (&NodePorts{}).Filter(context.Background(), framework.NewCycleState(), &v1.Pod{}, ni)
	wantMsg := `reading "PreFilterNodePorts" from cycleState: not found`
	if got.Code() != framework.Error || got.Message() != wantMsg {
		t.Errorf("got (%v, %q), want (Error, %q)", got.Code(), got.Message(), wantMsg)
	}
}

func TestFits(t *testing.T) {
	existing := func(infos ...string) *framework.NodeInfo { return framework.NewNodeInfo(newPod("p1", infos...)) }
	tests := []struct {
		name     string
		pod      *v1.Pod
		existing *framework.NodeInfo
		want     bool
	}{
		{"non-conflicting ports", newPod("p", "TCP/127.0.0.1/80"), existing("TCP/127.0.0.1/9090"), true},
		{
			"multiple non-conflicting ports",
			newPod("p", "TCP/127.0.0.1/80", "TCP/127.0.1.1/80", "TCP/127.0.1.1/90", "TCP/127.0.1.1/100"),
			existing("TCP/127.0.0.1/9090", "TCP/127.0.0.1/9191", "TCP/127.0.1.1/8080"), true,
		},
		{"same ports on different protocols", newPod("m1", "TCP/127.0.0.1/80"), existing("UDP/127.0.0.1/80"), true},
		{"conflicting ports", newPod("m1", "TCP/127.0.0.1/80"), existing("TCP/127.0.0.1/80"), false},
		{
			"multiple ports, some conflicting",
			newPod("p", "TCP/127.0.0.1/80", "TCP/127.0.1.1/80", "TCP/127.0.1.1/90", "TCP/127.0.1.1/100"),
			existing("TCP/127.0.0.1/9090", "TCP/127.0.1.1/90", "TCP/127.0.1.1/8080"), false,
		},
		{"nil pod fits", nil, existing("TCP/127.0.0.1/80"), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Fits(tt.pod, tt.existing); got != tt.want {
				t.Errorf("Fits = %v, want %v", got, tt.want)
			}
		})
	}
}
