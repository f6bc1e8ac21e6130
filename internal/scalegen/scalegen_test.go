package scalegen

import (
	"crypto/sha256"
	"fmt"
	"testing"

	v1 "k8s.io/api/core/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
)

// TestBaseShapeUnchanged pins the bytes of a cluster no larger than
// baseNodes: the scale benchmarks' figures over time compare the same
// cluster (the 15,000-node, 300,000-pod snapshot's SHA-256 was checked
// equal before and after the large shape was added:
// 518d35f580ef97c660a541006590ccb9f01230316884dc650d39234efe65325c).
func TestBaseShapeUnchanged(t *testing.T) {
	h := sha256.New()
	if _, err := Write(h, 300, 2000, nil); err != nil {
		t.Fatal(err)
	}
	const want = "e4d3eca857657a6ecb2802f60b4be3328d22c04604c023dd78e205484f2605b0"
	if got := fmt.Sprintf("%x", h.Sum(nil)); got != want {
		t.Errorf("300 nodes, 2000 pods: SHA-256 %s, want %s: the base shape changed", got, want)
	}
}

// TestLargeShape checks what a cluster past baseNodes adds: node pools,
// teams, daemons, and fewer pending pods.
func TestLargeShape(t *testing.T) {
	g := newScaleGen(50000, 1000000)
	if got, want := len(g.pools), len(basePools)+4; got != want {
		t.Errorf("50,000 nodes: %d node pools, want %d", got, want)
	}
	if got, want := len(g.namespaces), 40+3; got != want {
		t.Errorf("50,000 nodes: %d namespaces, want %d", got, want)
	}
	if g.daemons != 5 || g.pendingEvery != 1000 {
		t.Errorf("50,000 nodes: %d daemons, one app pod in %d pending; want 5 and 1000", g.daemons, g.pendingEvery)
	}
	small := newScaleGen(baseNodes, 300000)
	if len(small.pools) != len(basePools) || len(small.namespaces) != 12+3 || small.daemons != 3 || small.pendingEvery != 50 {
		t.Errorf("15,000 nodes: %d pools, %d namespaces, %d daemons, one in %d pending: not the base shape",
			len(small.pools), len(small.namespaces), small.daemons, small.pendingEvery)
	}
	// The apps' pods fill what the daemons leave, and every pool's nodes
	// are made: the objects of 30 nodes of the large generator.
	pools := map[string]bool{}
	for i := 0; i < 30; i++ {
		pools[g.node(i).Labels["example.com/nodepool"]] = true
	}
	if len(pools) != len(g.pools) {
		t.Errorf("30 nodes cover %d node pools of %d", len(pools), len(g.pools))
	}
	if cidr := g.node(49999).Spec.PodCIDR; cidr != "100.159.79.0/24" {
		t.Errorf("node 49,999's pod CIDR is %s", cidr)
	}
	var pending, daemonPods int
	err := Objects(20000, 100000, func(o k8sruntime.Object) error {
		if p, ok := o.(*v1.Pod); ok {
			if p.Spec.NodeName == "" {
				pending++
			}
			if p.OwnerReferences[0].Kind == "DaemonSet" {
				daemonPods++
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if daemonPods != 100000 || pending != 0 {
		t.Errorf("20,000 nodes, 100,000 pods: %d daemon pods, %d pending; want every pod a daemon's (5 × 20,000)", daemonPods, pending)
	}
}
