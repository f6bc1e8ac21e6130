package framework

import (
	"fmt"
	"reflect"
	"runtime"
	"slices"
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

// TestSnapshotListsFollowPods checks that AddPod and RemovePod, which
// rebuild the lists only when they can have changed, leave them as a
// full rebuild would: the affinity lists in node order, and a claim in
// use while any pod on any node uses it.
func TestSnapshotListsFollowPods(t *testing.T) {
	node := func(name string) *v1.Node { return &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}} }
	pod := func(name, node, claim string, antiAffinity bool) *v1.Pod {
		p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", UID: k8stypes.UID(name)}, Spec: v1.PodSpec{NodeName: node}}
		if claim != "" {
			p.Spec.Volumes = []v1.Volume{{Name: "v", VolumeSource: v1.VolumeSource{PersistentVolumeClaim: &v1.PersistentVolumeClaimVolumeSource{ClaimName: claim}}}}
		}
		if antiAffinity {
			p.Spec.Affinity = &v1.Affinity{PodAntiAffinity: &v1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{TopologyKey: "k"}}}}
		}
		return p
	}
	s := NewSnapshot([]*v1.Node{node("a"), node("b"), node("c")}, nil)
	names := func(l []*NodeInfo) []string {
		var out []string
		for _, ni := range l {
			out = append(out, ni.Name())
		}
		return out
	}
	c1, a1, b1 := pod("c1", "c", "", true), pod("a1", "a", "", true), pod("b1", "b", "", false)
	for _, p := range []*v1.Pod{c1, a1, b1} {
		if err := s.AddPod(p); err != nil {
			t.Fatal(err)
		}
	}
	if got := names(s.HavePodsWithRequiredAntiAffinityList()); !slices.Equal(got, []string{"a", "c"}) {
		t.Errorf("anti-affinity list %v, want [a c]", got)
	}
	if got := names(s.HavePodsWithAffinityList()); !slices.Equal(got, []string{"a", "c"}) {
		t.Errorf("affinity list %v, want [a c]", got)
	}
	if err := s.RemovePod(a1); err != nil {
		t.Fatal(err)
	}
	if got := names(s.HavePodsWithRequiredAntiAffinityList()); !slices.Equal(got, []string{"c"}) {
		t.Errorf("after removing a1: anti-affinity list %v, want [c]", got)
	}

	onA, onB := pod("pa", "a", "claim", false), pod("pb", "b", "claim", false)
	for _, p := range []*v1.Pod{onA, onB} {
		if err := s.AddPod(p); err != nil {
			t.Fatal(err)
		}
	}
	if !s.IsPVCUsedByPods("ns/claim") {
		t.Fatal("claim not in use after AddPod")
	}
	if err := s.RemovePod(onA); err != nil {
		t.Fatal(err)
	}
	if !s.IsPVCUsedByPods("ns/claim") {
		t.Error("claim still used on b, reported unused")
	}
	if err := s.RemovePod(onB); err != nil {
		t.Fatal(err)
	}
	if s.IsPVCUsedByPods("ns/claim") {
		t.Error("claim used by no pod, reported in use")
	}
}

// TestAddPodKeepsListsInTreeOrder: AddPod puts a node joining the
// affinity lists at its place in node-tree order (zones interleaved) and
// marks the pod's claims in use, as a walk over every node would.
func TestAddPodKeepsListsInTreeOrder(t *testing.T) {
	var nodes []*v1.Node
	for i := range 30 {
		nodes = append(nodes, zoned(fmt.Sprintf("n%02d", i), "r", fmt.Sprintf("z%d", i%3)))
	}
	s := NewSnapshot(nodes, nil)
	walk := func(member func(*NodeInfo) bool) []*NodeInfo {
		var out []*NodeInfo
		for _, ni := range s.List() {
			if member(ni) {
				out = append(out, ni)
			}
		}
		return out
	}
	for i := range 60 {
		node := fmt.Sprintf("n%02d", (i*17)%30)
		p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("p%d", i), Namespace: "ns", UID: k8stypes.UID(fmt.Sprintf("p%d", i))}, Spec: v1.PodSpec{NodeName: node}}
		switch i % 3 {
		case 0:
			p.Spec.Affinity = &v1.Affinity{PodAntiAffinity: &v1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{TopologyKey: "k"}}}}
		case 1:
			p.Spec.Affinity = &v1.Affinity{PodAffinity: &v1.PodAffinity{}}
		}
		claim := fmt.Sprintf("claim-%d", i)
		p.Spec.Volumes = []v1.Volume{{Name: "v", VolumeSource: v1.VolumeSource{PersistentVolumeClaim: &v1.PersistentVolumeClaimVolumeSource{ClaimName: claim}}}}
		if err := s.AddPod(p); err != nil {
			t.Fatal(err)
		}
		if got, want := s.HavePodsWithAffinityList(), walk(func(ni *NodeInfo) bool { return len(ni.PodsWithAffinity) > 0 }); !slices.Equal(got, want) {
			t.Fatalf("after %s on %s: affinity list %v, want %v", p.Name, node, got, want)
		}
		if got, want := s.HavePodsWithRequiredAntiAffinityList(), walk(func(ni *NodeInfo) bool { return len(ni.PodsWithRequiredAntiAffinity) > 0 }); !slices.Equal(got, want) {
			t.Fatalf("after %s on %s: anti-affinity list %v, want %v", p.Name, node, got, want)
		}
		if !s.IsPVCUsedByPods("ns/" + claim) {
			t.Fatalf("after %s: its claim not in use", p.Name)
		}
	}
}

// TestNewSnapshotParallelPods: the pods' requests summed on several
// goroutines give the NodeInfos that adding the pods one by one gives, pods
// in the same order.
func TestNewSnapshotParallelPods(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	var nodes []*v1.Node
	for i := range 7 {
		nodes = append(nodes, zoned(fmt.Sprintf("n%d", i), "r", fmt.Sprintf("z%d", i%3)))
	}
	var pods []*v1.Pod
	for i := range 3000 {
		node := fmt.Sprintf("n%d", i%8) // n7 does not exist
		if i%11 == 0 {
			node = ""
		}
		p := pod(fmt.Sprintf("p%d", i), node, fmt.Sprintf("%dm", i%900), int32(1000+i%5))
		if i%13 == 0 {
			p.Spec.Volumes = []v1.Volume{{Name: "v", VolumeSource: v1.VolumeSource{PersistentVolumeClaim: &v1.PersistentVolumeClaimVolumeSource{ClaimName: fmt.Sprintf("c%d", i%4)}}}}
		}
		pods = append(pods, p)
	}
	got := NewSnapshot(nodes, pods)
	for _, n := range nodes {
		want := NewNodeInfo()
		want.SetNode(n)
		for _, p := range pods {
			if p.Spec.NodeName == n.Name {
				want.AddPod(p)
			}
		}
		ni, err := got.Get(n.Name)
		if err != nil {
			t.Fatal(err)
		}
		var gotPods, wantPods []string
		for _, pi := range ni.Pods {
			gotPods = append(gotPods, pi.Pod.Name)
		}
		for _, pi := range want.Pods {
			wantPods = append(wantPods, pi.Pod.Name)
		}
		if !slices.Equal(gotPods, wantPods) || !reflect.DeepEqual(ni.Requested, want.Requested) || !reflect.DeepEqual(ni.NonZeroRequested, want.NonZeroRequested) ||
			!reflect.DeepEqual(ni.UsedPorts, want.UsedPorts) || !reflect.DeepEqual(ni.PVCRefCounts, want.PVCRefCounts) {
			t.Errorf("%s: pods %d (want %d), requested %+v (want %+v), non-zero %+v (want %+v), ports %v (want %v), PVCs %v (want %v)", n.Name,
				len(gotPods), len(wantPods), ni.Requested, want.Requested, ni.NonZeroRequested, want.NonZeroRequested, ni.UsedPorts, want.UsedPorts, ni.PVCRefCounts, want.PVCRefCounts)
		}
	}
}

// TestImageSummaries: an image counts the nodes that report it, each once
// even when a node lists the name twice, with the size the first node
// reported.
func TestImageSummaries(t *testing.T) {
	withImages := func(name string, images ...v1.ContainerImage) *v1.Node {
		n := zoned(name, "", "")
		n.Status.Images = images
		return n
	}
	nodes := []*v1.Node{
		withImages("a", v1.ContainerImage{Names: []string{"app:1", "app@sha256:1"}, SizeBytes: 100}, v1.ContainerImage{Names: []string{"app:1"}, SizeBytes: 7}),
		withImages("b"),
		withImages("c", v1.ContainerImage{Names: []string{"app:1", "side:2"}, SizeBytes: 300}),
		withImages("d", v1.ContainerImage{Names: []string{"side:2"}, SizeBytes: 5}),
	}
	got := map[string]ImageStateSummary{}
	for name, s := range imageSummaries(nodes) {
		got[name] = *s
	}
	want := map[string]ImageStateSummary{"app:1": {Size: 100, NumNodes: 2}, "app@sha256:1": {Size: 100, NumNodes: 1}, "side:2": {Size: 300, NumNodes: 2}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("summaries %+v, want %+v", got, want)
	}
}

// TestImageSummariesInRanges: nodes counted in ranges on several
// goroutines give each image the size its first node reported and the
// number of nodes reporting it.
func TestImageSummariesInRanges(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	var nodes []*v1.Node
	wantSize, wantNodes := map[string]int64{}, map[string]int{}
	for i := range 2000 {
		n := zoned(fmt.Sprintf("n%d", i), "", "")
		for j := range 3 {
			// Image k first appears on node k*7 (k < 250), with that
			// node's size.
			k := (i/7 + j*31) % 300
			name := fmt.Sprintf("img-%d", k)
			n.Status.Images = append(n.Status.Images, v1.ContainerImage{Names: []string{name, name}, SizeBytes: int64(1000*i + j)})
			if _, ok := wantSize[name]; !ok {
				wantSize[name] = int64(1000*i + j)
			}
			if j == 0 || (i/7+j*31)%300 != (i/7+(j-1)*31)%300 {
				wantNodes[name]++
			}
		}
		nodes = append(nodes, n)
	}
	got := imageSummaries(nodes)
	if len(got) != len(wantSize) {
		t.Fatalf("%d images, want %d", len(got), len(wantSize))
	}
	for name, s := range got {
		if s.Size != wantSize[name] || s.NumNodes != wantNodes[name] {
			t.Errorf("%s: size %d on %d nodes, want %d on %d", name, s.Size, s.NumNodes, wantSize[name], wantNodes[name])
		}
	}
}

// TestSnapshotMutationSession: what a session adds and removes is undone
// at its end, each node's pods back in their order (a removal swaps the
// last pod in) and its requests as they were; sessions do not nest.
func TestSnapshotMutationSession(t *testing.T) {
	node := func(name string) *v1.Node {
		return &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: v1.NodeStatus{Allocatable: v1.ResourceList{
			v1.ResourceCPU: resource.MustParse("4"), v1.ResourcePods: resource.MustParse("10")}}}
	}
	pods := []*v1.Pod{pod("a1", "a", "1"), pod("a2", "a", "1"), pod("a3", "a", "1"), pod("b1", "b", "1")}
	s := NewSnapshot([]*v1.Node{node("a"), node("b")}, pods)
	names := func() []string {
		var out []string
		for _, ni := range s.List() {
			for _, pi := range ni.Pods {
				out = append(out, ni.Name()+"/"+pi.Pod.Name)
			}
			out = append(out, fmt.Sprintf("%s:%dm", ni.Name(), ni.Requested.MilliCPU))
		}
		return out
	}
	before := names()
	a, _ := s.Get("a")
	if err := s.StartMutations(); err != nil {
		t.Fatal(err)
	}
	if err := s.StartMutations(); err == nil {
		t.Error("a second session started inside the first")
	}
	if err := s.RemovePod(pods[0]); err != nil {
		t.Fatal(err)
	}
	if err := s.AddPod(pods[0]); err != nil {
		t.Fatal(err)
	}
	if err := s.AddPod(pod("new", "b", "2")); err != nil {
		t.Fatal(err)
	}
	if slices.Equal(names(), before) {
		t.Fatal("the session changed nothing")
	}
	if err := s.EndMutations(); err != nil {
		t.Fatal(err)
	}
	if got := names(); !slices.Equal(got, before) {
		t.Errorf("after the session %v, want %v", got, before)
	}
	if again, _ := s.Get("a"); again != a {
		t.Error("the node's NodeInfo was replaced, not restored in place")
	}
	if err := s.EndMutations(); err == nil {
		t.Error("a session ended twice")
	}
}
