package snapshot

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/schedtui/schedtui/internal/docread"
)

// jsonItemsList is a JSON snapshot of the objects given as their JSON, each
// an item of one List.
func jsonItemsList(items ...[]byte) []byte {
	return append(append([]byte(`{"apiVersion":"v1","kind":"List","items":[`), bytes.Join(items, []byte(","))...), "]}"...)
}

// mustJSON is obj's JSON, with its apiVersion and kind.
func mustJSON(t *testing.T, obj runtime.Object) []byte {
	t.Helper()
	switch o := obj.(type) {
	case *v1.Pod:
		o.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}
	case *v1.Node:
		o.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Node"}
	}
	b, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// replaceOnce is b with the first old replaced by new, which must be in it.
func replaceOnce(t *testing.T, b []byte, old, new string) []byte {
	t.Helper()
	if !bytes.Contains(b, []byte(old)) {
		t.Fatalf("%s is not in %s", old, b)
	}
	return bytes.Replace(b, []byte(old), []byte(new), 1)
}

// loadJSONSharing loads data (a JSON snapshot) with the objects' parts
// shared, or not at all.
func loadJSONSharing(t *testing.T, data []byte, share bool) (*Cluster, *docread.Report, *sharedParts) {
	t.Helper()
	l := NewLoader()
	if !share {
		l.share = nil
	}
	table := l.share
	if err := l.LoadData("objects.json", data); err != nil {
		t.Fatal(err)
	}
	c, r := l.Finish()
	return c, r, table
}

// compareLoads fails t when the objects of got differ from want's, or
// the problems do.
func compareLoads(t *testing.T, got, want *Cluster, gotReport, wantReport *docread.Report) {
	t.Helper()
	if len(got.Pods) != len(want.Pods) || len(got.Nodes) != len(want.Nodes) {
		t.Fatalf("%d pods and %d nodes loaded, %d and %d without sharing", len(got.Pods), len(got.Nodes), len(want.Pods), len(want.Nodes))
	}
	for i := range want.Pods {
		if !reflect.DeepEqual(got.Pods[i], want.Pods[i]) {
			t.Errorf("pod %s differs from the same pod loaded without sharing:\n%+v\nwant\n%+v", want.Pods[i].Name, got.Pods[i], want.Pods[i])
		}
	}
	for i := range want.Nodes {
		if !reflect.DeepEqual(got.Nodes[i], want.Nodes[i]) {
			t.Errorf("node %s differs from the same node loaded without sharing:\n%+v\nwant\n%+v", want.Nodes[i].Name, got.Nodes[i], want.Nodes[i])
		}
	}
	if g, w := fmt.Sprint(gotReport.Problems), fmt.Sprint(wantReport.Problems); g != w {
		t.Errorf("problems differ from those without sharing:\n%s\nwant\n%s", g, w)
	}
}

// TestJSONSharesPodPartsByBytes loads pods whose parts are alike in every
// way share_json.go must tell apart, and checks that each pod is what it
// is loaded without any sharing, with the same problems, and that the
// parts that may be shared are, by their bytes.
func TestJSONSharesPodPartsByBytes(t *testing.T) {
	var pods [][]byte
	add := func(p *v1.Pod) []byte {
		b := mustJSON(t, p)
		pods = append(pods, b)
		return b
	}
	for _, p := range templatePodVariants() {
		add(p)
	}
	web := pods[0]
	// Defaults applied to a part: requests from limits, the pull policy
	// from the image's tag, the port's protocol; twice, so the second
	// is found.
	for i := range 2 {
		p := templatePod(fmt.Sprint("defaulted-", i))
		p.Spec.Containers[0].Image = "app:latest"
		add(p)
	}
	// The same part written with other white space: another key, the
	// same pod.
	spaced := mustJSON(t, templatePod("spaced"))
	spaced = replaceOnce(t, spaced, `"containers":[{"name":"c",`, `"containers": [ {"name": "c", `)
	pods = append(pods, spaced)
	// A part's member written with an escape: decoded as any other.
	pods = append(pods, replaceOnce(t, mustJSON(t, templatePod("escaped")), `"containers"`, `"cont\u0061iners"`))
	// An unknown field and a duplicate name in a container, twice each:
	// the strict decoder reads them, with the same warnings each time.
	for i := range 2 {
		pods = append(pods, replaceOnce(t, mustJSON(t, templatePod(fmt.Sprint("unknown-", i))), `"name":"c",`, `"name":"c","bogus":1,`))
		pods = append(pods, replaceOnce(t, mustJSON(t, templatePod(fmt.Sprint("duplicate-", i))), `"name":"c",`, `"name":"x","name":"c",`))
	}
	// An invalid container (a validation error: requests over limits),
	// twice: the second's is found by its bytes, and is as invalid.
	for i := range 2 {
		p := templatePod(fmt.Sprint("invalid-", i))
		p.Spec.Containers[0].Resources.Requests = v1.ResourceList{v1.ResourceCPU: resource.MustParse("1")}
		add(p)
	}
	// Parts found by their bytes in a pod the fast path then refuses:
	// an unknown field at the end, or in a part not met before.
	pods = append(pods, replaceOnce(t, mustJSON(t, templatePod("refused-late")), `"spec":{`, `"spec":{"bogus":true,`))
	refused := mustJSON(t, templatePod("refused-part"))
	pods = append(pods, replaceOnce(t, refused, `"tolerations":[{`, `"tolerations":[{"bogus":1,`))
	// A pod that does not decode, after the others' parts.
	pods = append(pods, replaceOnce(t, web, `"spec":{`, `"spec":{"priority":"high",`))

	data := jsonItemsList(pods...)
	got, gotReport, table := loadJSONSharing(t, data, true)
	want, wantReport, _ := loadJSONSharing(t, data, false)
	compareLoads(t, got, want, gotReport, wantReport)
	if problems := fmt.Sprint(gotReport.Problems); !strings.Contains(problems, "refused-part: spec.tolerations[0].bogus") ||
		!strings.Contains(problems, "invalid-1: spec.containers[0].resources.requests") || !strings.Contains(problems, "web-0: spec.priority") {
		t.Errorf("the pods refused or invalid are not reported: %v", gotReport.Problems)
	}

	byName := map[string]*v1.Pod{}
	for _, p := range got.Pods {
		byName[p.Name] = p
	}
	a, b := byName["web-0"], byName["web-1"]
	shared := templatePartsShared(a, b)
	for part, ok := range map[string]bool{
		"host-network containers": sameArray(byName["host-0"].Spec.Containers, byName["host-1"].Spec.Containers),
		"defaulted containers":    sameArray(byName["defaulted-0"].Spec.Containers, byName["defaulted-1"].Spec.Containers),
	} {
		shared[part] = ok
	}
	for part, ok := range shared {
		if !ok {
			t.Errorf("the pods' %s are not shared", part)
		}
	}
	if sameArray(a.Spec.Containers, byName["host-0"].Spec.Containers) {
		t.Errorf("a host-network pod shares the containers of a pod that is not")
	}
	if byName["new-0"].Spec.Affinity == byName["new-1"].Spec.Affinity {
		t.Errorf("created pods with other labels share their affinity")
	}
	if len(table.rawJSON[partContainers]) == 0 || table.hits[partContainers] < parallelMinItems || len(table.raw[partContainers]) > 0 {
		t.Errorf("the containers were not shared by their JSON bytes: %d remembered, %d found (%d protobuf)",
			len(table.rawJSON[partContainers]), table.hits[partContainers], len(table.raw[partContainers]))
	}
}

// TestJSONSharesNodePartsByBytes loads nodes alike but in what decides
// whether their capacity may be shared by its bytes (an allocatable
// absent or null is the capacity once defaulted; an empty one is not),
// and more nodes with labels and conditions of their own than
// unsharedNodeParts, and checks each node is what it is loaded without
// sharing. The nodes are decoded in order, on one goroutine: on several,
// a goroutine ahead can look every node's parts up before the first
// unsharedNodeParts are added, and no kind is then given up.
func TestJSONSharesNodePartsByBytes(t *testing.T) {
	defer func(n int) { parallelMinItems = n }(parallelMinItems)
	parallelMinItems = 1 << 30
	var nodes [][]byte
	for i := range unsharedNodeParts + 50 {
		n := templateNode(fmt.Sprint("n-", i))
		n.Status.Conditions[0].LastHeartbeatTime.Time = n.Status.Conditions[0].LastHeartbeatTime.Add(time.Duration(i) * time.Second)
		nodes = append(nodes, mustJSON(t, n))
	}
	full := mustJSON(t, templateNode("template"))
	allocatable, err := json.Marshal(templateNode("").Status.Allocatable)
	if err != nil {
		t.Fatal(err)
	}
	allocatable = append([]byte(`"allocatable":`), allocatable...)
	for _, c := range []struct{ name, allocatable string }{{"absent", ""}, {"null", `"allocatable":null`}, {"empty", `"allocatable":{}`}} {
		n := replaceOnce(t, full, `"name":"template"`, `"name":"`+c.name+`"`)
		if c.allocatable == "" {
			n = replaceOnce(t, n, string(allocatable)+",", "")
		} else {
			n = replaceOnce(t, n, string(allocatable), c.allocatable)
		}
		nodes = append(nodes, n)
	}
	// Memory of another machine type, allocatable absent: its capacity
	// is its own.
	other := templateNode("other")
	other.Status.Capacity[v1.ResourceMemory] = resource.MustParse("64Gi")
	nodes = append(nodes, replaceOnce(t, mustJSON(t, other), string(allocatable)+",", ""))

	data := jsonItemsList(nodes...)
	got, gotReport, table := loadJSONSharing(t, data, true)
	want, wantReport, _ := loadJSONSharing(t, data, false)
	compareLoads(t, got, want, gotReport, wantReport)
	if len(got.Nodes) != len(nodes) {
		t.Fatalf("%d of %d nodes loaded: %v", len(got.Nodes), len(nodes), gotReport.Problems)
	}

	byName := map[string]*v1.Node{}
	for _, n := range got.Nodes {
		byName[n.Name] = n
	}
	if !sameMap(byName["n-0"].Status.Capacity, byName["n-1"].Status.Capacity) || !sameMap(byName["n-0"].Status.Allocatable, byName["n-1"].Status.Allocatable) {
		t.Errorf("the nodes' capacity and allocatable are not shared")
	}
	if table.nodeFound[partCapacity] == 0 || len(table.rawJSON[partCapacity]) == 0 {
		t.Errorf("the capacity was not shared by its JSON bytes")
	}
	if unmet := partSet(table.nodeKindsUnmet.Load()); !unmet.has(partNodeLabels) || !unmet.has(partNodeConditions) || unmet.has(partCapacity) {
		t.Errorf("the kinds of node part no longer looked up are %b", unmet)
	}
}

// TestJSONPartBytesAreTheObjects checks that the parts' bytes JSON v2
// hands out are slices of the object's JSON (they are kept, as keys,
// until the object is defaulted), and that a part is recorded only where
// it is: not a value of the same type elsewhere (a node selector is a
// map of strings as labels are).
func TestJSONPartBytesAreTheObjects(t *testing.T) {
	p := templatePod("p")
	p.Spec.NodeSelector = map[string]string{"app": "web"}
	data := mustJSON(t, p)
	d := jsonPodParts.decoders.Get().(*jsonPartDecoder)
	defer d.release()
	if !d.decode(data, &v1.Pod{}, 0) {
		t.Fatal("the fast path refused the pod")
	}
	var met []string
	for _, m := range d.met {
		if !sliceOf(data, m.raw) {
			t.Errorf("the bytes of %s are not a slice of the pod's JSON", podParts[m.part].json.name)
		}
		met = append(met, podParts[m.part].json.name)
	}
	if want := []string{"labels", "annotations", "ownerReferences", "managedFields", "volumes", "initContainers", "containers",
		"resources", "affinity", "tolerations", "topologySpreadConstraints", "conditions", "hostIPs", "containerStatuses",
		"allocatedResources", "resources"}; !equalSets(met, want) {
		t.Errorf("parts met %v, want %v", met, want)
	}
}

// sliceOf reports whether part is a slice of data (not a copy).
func sliceOf(data, part []byte) bool {
	for off := 0; ; {
		i := bytes.Index(data[off:], part)
		if i < 0 {
			return false
		}
		if &data[off+i] == &part[0] {
			return true
		}
		off += i + 1
	}
}

// equalSets reports whether a and b hold the same strings as often.
func equalSets(a, b []string) bool {
	count := map[string]int{}
	for _, s := range a {
		count[s]++
	}
	for _, s := range b {
		count[s]--
	}
	for _, n := range count {
		if n != 0 {
			return false
		}
	}
	return true
}
