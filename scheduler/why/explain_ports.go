package why

import (
	"fmt"
	"strings"

	v1 "k8s.io/api/core/v1"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/record"
)

// NodePorts: the host ports the pod wants against those the node's pods
// hold.

var nodePortsExplainer = explainer{
	purpose: "rejects nodes where a hostPort the pod wants is already taken.",
	filter: func(in Input, _ record.Status, ni *framework.NodeInfo) []string {
		var want []string
		for _, p := range framework.HostPorts(in.Pod) {
			want = append(want, fmt.Sprintf("%s/%d", p.Protocol, p.HostPort))
		}
		return []string{"pod host ports: " + orNone(strings.Join(want, ", ")), fmt.Sprintf("ports in use on the node: %d", ni.UsedPorts.Len())}
	},
	detail: portsDetail,
	fixes:  portFixes,
}

// portHolders lists, per wanted host port, the pods on node holding it.
func portHolders(in Input, node string) map[string][]*v1.Pod {
	ni := in.nodeInfo(node)
	if ni == nil {
		return nil
	}
	out := map[string][]*v1.Pod{}
	for _, want := range framework.HostPorts(in.Pod) {
		for _, pi := range ni.Pods {
			for _, have := range framework.HostPorts(pi.Pod) {
				if portsConflict(want, have) {
					k := fmt.Sprintf("%s/%d", orTCP(want.Protocol), want.HostPort)
					out[k] = append(out[k], pi.Pod)
					break
				}
			}
		}
	}
	return out
}

func orTCP(p v1.Protocol) v1.Protocol {
	if p == "" {
		return v1.ProtocolTCP
	}
	return p
}

func portsConflict(a, b v1.ContainerPort) bool {
	if a.HostPort != b.HostPort || orTCP(a.Protocol) != orTCP(b.Protocol) {
		return false
	}
	wild := func(ip string) bool { return ip == "" || ip == "0.0.0.0" }
	return wild(a.HostIP) || wild(b.HostIP) || a.HostIP == b.HostIP
}

func portsDetail(in Input, g group) string {
	var b byValue
	for _, n := range g.nodes {
		h := portHolders(in, n)
		for _, port := range sortedKeys(h) {
			var who []string
			for _, p := range h[port] {
				who = append(who, podRef(p))
			}
			b.add(fmt.Sprintf("%s on %s held by %s", port, n, strings.Join(who, ", ")), "")
		}
	}
	if len(b.order) == 0 {
		return ""
	}
	return "host port " + b.String() + "."
}

// portFixes removes the pods holding the ports the pod wants.
func portFixes(in Input, _ record.Status, ni *framework.NodeInfo) [][]change {
	node := ni.Name()
	var alt []change
	h := portHolders(in, node)
	seen := map[string]bool{}
	for _, port := range sortedKeys(h) {
		for _, p := range h[port] {
			if !seen[key(p)] {
				seen[key(p)] = true
				alt = append(alt, removal(p))
			}
		}
	}
	if len(alt) == 0 {
		return nil
	}
	return [][]change{alt}
}
