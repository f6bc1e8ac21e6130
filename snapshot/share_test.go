package snapshot

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	v1 "k8s.io/api/core/v1"
)

// sharedPodsList is a List of n pods of one template (as a Deployment's),
// the last one with another image, and a node.
func sharedPodsList(n int) string {
	items := []string{`{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1"},"status":{"allocatable":{"cpu":"4","pods":"110"},"capacity":{"cpu":"4","pods":"110"}}}`}
	for i := range n {
		image := "registry.k8s.io/pause:3.10"
		if i == n-1 {
			image = "registry.k8s.io/pause:3.9"
		}
		items = append(items, fmt.Sprintf(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p-%d","namespace":"team","labels":{"app":"web"}},`+
			`"spec":{"nodeName":"n1","tolerations":[{"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute","tolerationSeconds":300},{"key":"node.kubernetes.io/unreachable","operator":"Exists","effect":"NoExecute","tolerationSeconds":300}],"containers":[{"name":"c","image":%q,"resources":{"requests":{"cpu":"100m","memory":"500Mi"}}}]},`+
			`"status":{"phase":"Running","conditions":[{"type":"Ready","status":"True","lastTransitionTime":"2025-03-03T09:00:00Z"}]}}`, i, image))
	}
	return `{"apiVersion":"v1","kind":"List","items":[` + strings.Join(items, ",\n") + `]}`
}

// sameArray reports whether two non-empty slices share their first element.
func sameArray[E any](a, b []E) bool {
	return len(a) > 0 && len(b) > 0 && &a[0] == &b[0]
}

func sameMap[K comparable, V any](a, b map[K]V) bool {
	return *(*unsafe.Pointer)(unsafe.Pointer(&a)) == *(*unsafe.Pointer)(unsafe.Pointer(&b))
}

func TestLoadSharesPodParts(t *testing.T) {
	// Decoded ahead on several goroutines, and one by one.
	for _, n := range []int{3, parallelMinItems * 3} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			data := sharedPodsList(n)
			c, r, err := Load("pods.json", []byte(data))
			if err != nil || r.HasErrors() {
				t.Fatalf("load: %v %v", err, r)
			}
			if len(c.Pods) != n {
				t.Fatalf("%d pods loaded, want %d", len(c.Pods), n)
			}
			a, b, other := c.Pods[0], c.Pods[1], c.Pods[n-1]
			for part, shared := range map[string]bool{
				"containers": sameArray(a.Spec.Containers, b.Spec.Containers), "conditions": sameArray(a.Status.Conditions, b.Status.Conditions),
				"tolerations": sameArray(a.Spec.Tolerations, b.Spec.Tolerations), "labels": sameMap(a.Labels, b.Labels),
			} {
				if !shared {
					t.Errorf("pods of one template do not share their %s", part)
				}
			}
			if sameArray(a.Spec.Containers, other.Spec.Containers) || other.Spec.Containers[0].Image != "registry.k8s.io/pause:3.9" {
				t.Errorf("a pod with another image shares the template's containers: %q", other.Spec.Containers[0].Image)
			}
			if !sameArray(a.Status.Conditions, other.Status.Conditions) {
				t.Errorf("the pod with another image does not share the equal conditions")
			}
			if cap(a.Spec.Containers) != len(a.Spec.Containers) || cap(a.Spec.Tolerations) != len(a.Spec.Tolerations) {
				t.Errorf("a shared slice has spare capacity: an append would write into another pod's")
			}
			if unsafe.StringData(a.Namespace) != unsafe.StringData(b.Namespace) {
				t.Errorf("the pods' namespace is not one string")
			}
			// Nothing read changed: each pod is what it decodes to alone.
			var list struct{ Items []json.RawMessage }
			if err := json.Unmarshal([]byte(data), &list); err != nil {
				t.Fatal(err)
			}
			for i, raw := range list.Items[1:] {
				alone, _, err := Load("pod.json", raw)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(alone.Pods[0], c.Pods[i]) {
					t.Fatalf("pod %d differs from the same pod loaded alone", i)
				}
			}
		})
	}
}

func TestLoadSharesNodeParts(t *testing.T) {
	data := `{"apiVersion":"v1","kind":"List","items":[` +
		`{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1"},"status":{"allocatable":{"cpu":"4"},"capacity":{"cpu":"4"}}},` +
		`{"apiVersion":"v1","kind":"Node","metadata":{"name":"n2"},"status":{"allocatable":{"cpu":"4"},"capacity":{"cpu":"8"}}}]}`
	c, _, err := Load("nodes.json", []byte(data))
	if err != nil || len(c.Nodes) != 2 {
		t.Fatalf("load: %v, %d nodes", err, len(c.Nodes))
	}
	n1, n2 := c.Nodes[0], c.Nodes[1]
	if !sameMap(n1.Status.Allocatable, n2.Status.Allocatable) {
		t.Errorf("equal allocatable resources are not shared")
	}
	if sameMap(n1.Status.Capacity, n2.Status.Capacity) {
		t.Errorf("different capacities are shared")
	}
	if q := n2.Status.Capacity[v1.ResourceCPU]; q.String() != "8" {
		t.Errorf("n2's capacity is %s, want 8", q.String())
	}
}

func TestAdmissionSharesDefaultTolerations(t *testing.T) {
	c, r, err := Load("pods.yaml", []byte(pod("a", "")+"---\n"+pod("b", "")+"---\n"+pod("c", `  tolerations:
  - {key: dedicated, operator: Exists}
`)))
	if err != nil || r.HasErrors() {
		t.Fatalf("load: %v %v", err, r)
	}
	a, b, other := c.Pods[0], c.Pods[1], c.Pods[2]
	if len(a.Spec.Tolerations) != 2 || !sameArray(a.Spec.Tolerations, b.Spec.Tolerations) {
		t.Errorf("the default tolerations admission gave two pods are not one list: %v", a.Spec.Tolerations)
	}
	if len(other.Spec.Tolerations) != 3 || other.Spec.Tolerations[0].Key != "dedicated" {
		t.Errorf("a pod with its own toleration has %v", other.Spec.Tolerations)
	}
}

func TestShareTableBoundedPerKind(t *testing.T) {
	s := newSharedParts()
	for i := range maxSharedParts + 10 {
		shareStrings(sharing{sharedParts: s}, partNodeLabels, map[string]string{"kubernetes.io/hostname": fmt.Sprint("n", i)})
	}
	if s.kept[partNodeLabels] != maxSharedParts || len(s.parts) != maxSharedParts {
		t.Errorf("%d node label sets remembered, want %d", len(s.parts), maxSharedParts)
	}
	// The nodes' distinct labels leave room for the pods' containers.
	c := []v1.Container{{Name: "c", Image: "img"}}
	d := []v1.Container{{Name: "c", Image: "img"}}
	shareSlice(sharing{sharedParts: s}, partContainers, c)
	if got := shareSlice(sharing{sharedParts: s}, partContainers, d); !sameArray(got, c) {
		t.Errorf("containers are not shared once the node labels filled their part of the table")
	}
}

// TestLoadSharesStatusResources: running pods' container statuses are
// their own (container IDs), but the resources the kubelet writes in them
// and in the pod's status are shared.
func TestLoadSharesStatusResources(t *testing.T) {
	var items []string
	for i := range 3 {
		items = append(items, fmt.Sprintf(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p-%d","namespace":"team"},`+
			`"spec":{"nodeName":"n1","containers":[{"name":"c","image":"registry.k8s.io/pause:3.10","resources":{"requests":{"cpu":"100m"}}}]},`+
			`"status":{"phase":"Running","allocatedResources":{"cpu":"100m"},"resources":{"requests":{"cpu":"100m"}},`+
			`"containerStatuses":[{"name":"c","image":"registry.k8s.io/pause:3.10","imageID":"","containerID":"containerd://%d","ready":true,"restartCount":0,`+
			`"allocatedResources":{"cpu":"100m"},"resources":{"requests":{"cpu":"100m"}},"volumeMounts":[{"name":"v","mountPath":"/v"}]}]}}`, i, i))
	}
	data := `{"apiVersion":"v1","kind":"List","items":[` + strings.Join(items, ",\n") + `]}`
	c, r, err := Load("pods.json", []byte(data))
	if err != nil || r.HasErrors() {
		t.Fatalf("load: %v %v", err, r)
	}
	a, b := c.Pods[0].Status, c.Pods[1].Status
	if sameArray(a.ContainerStatuses, b.ContainerStatuses) {
		t.Fatalf("pods with other container IDs share their container statuses")
	}
	ca, cb := a.ContainerStatuses[0], b.ContainerStatuses[0]
	for part, shared := range map[string]bool{
		"allocated resources": sameMap(a.AllocatedResources, b.AllocatedResources), "resources": a.Resources == b.Resources,
		"container's allocated resources": sameMap(ca.AllocatedResources, cb.AllocatedResources), "container's resources": ca.Resources == cb.Resources,
		"container's volume mounts": sameArray(ca.VolumeMounts, cb.VolumeMounts),
	} {
		if !shared {
			t.Errorf("the pods' status do not share their %s", part)
		}
	}
	if sameMap(a.AllocatedResources, ca.AllocatedResources) || a.Resources == ca.Resources {
		t.Errorf("the pod's status resources are one with its container's")
	}
	alone, _, err := Load("pod.json", []byte(items[1]))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(alone.Pods[0], c.Pods[1]) {
		t.Errorf("a pod differs from the same pod loaded alone")
	}
}

// TestLoadKeepsNilAndEmptyApart: JSON tells an empty list from an absent
// one, which the key (the part encoded in protobuf) does not: two pods
// whose containers differ only there do not share them.
func TestLoadKeepsNilAndEmptyApart(t *testing.T) {
	pod := func(name, command string) string {
		return `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"` + name + `","namespace":"team"},` +
			`"spec":{"containers":[{"name":"c","image":"registry.k8s.io/pause:3.10"` + command + `}]}}`
	}
	data := `{"apiVersion":"v1","kind":"List","items":[` + pod("absent", "") + "," + pod("empty", `,"command":[]`) + "," + pod("absent-too", "") + `]}`
	c, r, err := Load("pods.json", []byte(data))
	if err != nil || r.HasErrors() || len(c.Pods) != 3 {
		t.Fatalf("load: %v %v", err, r)
	}
	absent, empty, absentToo := c.Pods[0].Spec.Containers, c.Pods[1].Spec.Containers, c.Pods[2].Spec.Containers
	if absent[0].Command != nil || empty[0].Command == nil {
		t.Errorf("an absent command is %#v, an empty one %#v", absent[0].Command, empty[0].Command)
	}
	if sameArray(absent, empty) {
		t.Errorf("containers with an empty command share those without")
	}
	if !sameArray(absent, absentToo) {
		t.Errorf("equal containers are not shared")
	}
}

// TestRawTableGrowsWithItsHits: parts met by their bytes are remembered
// past maxSharedParts only while the table has given as many of their
// kind as it holds.
func TestRawTableGrowsWithItsHits(t *testing.T) {
	s := newSharedParts()
	learn := func(i int) {
		s.remember(&s.raw, partContainers, fmt.Appendf(nil, "containers %d", i), []v1.Container{{Name: fmt.Sprint(i)}}, 1)
	}
	for i := range maxSharedParts + 10 {
		learn(i)
	}
	if s.kept[partContainers] != maxSharedParts {
		t.Fatalf("%d container lists remembered without a hit, want %d", s.kept[partContainers], maxSharedParts)
	}
	s.hits[partContainers] = maxSharedParts + 5
	for i := maxSharedParts; i < maxSharedParts+10; i++ {
		learn(i)
	}
	if s.kept[partContainers] != maxSharedParts+5 {
		t.Errorf("%d container lists remembered after %d hits, want %d", s.kept[partContainers], s.hits[partContainers], maxSharedParts+5)
	}
}
