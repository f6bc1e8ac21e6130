package snapshot_test

import (
	"bytes"
	"slices"
	"testing"

	"github.com/schedtui/schedtui/internal/scenario"
	"github.com/schedtui/schedtui/snapshot"
)

// A JSON pod's or node's parts shared by their bytes (share_json.go) may
// never change what is loaded: the object, once defaulted and validated,
// and its problems are those of the object decoded and checked alone,
// nothing shared.

// TestJSONSharingDecodesAsUnshared decodes and checks every object the
// loader decodes from the repository's snapshot files, the demo and the
// generated scenarios (JSON and YAML; everyJSONObject), the fast path's
// edge cases and jsonSharingEdgePairs in one table,
// twice over, so that the second time every part the first remembered is
// found by its bytes, and each alone without sharing, and compares them.
func TestJSONSharingDecodesAsUnshared(t *testing.T) {
	objects, _ := everyJSONObject(t)
	for _, c := range fastJSONEdgeCases() {
		objects = append(objects, snapshot.JSONObject{Kind: c.kind, Data: []byte(c.data), Exact: true})
	}
	for _, p := range jsonSharingEdgePairs() {
		objects = append(objects, snapshot.JSONObject{Kind: p.kind, Data: []byte(p.a), Exact: true},
			snapshot.JSONObject{Kind: p.kind, Data: []byte(p.b), Exact: true})
	}
	found, diff := snapshot.CompareJSONSharing(objects)
	if diff != "" {
		t.Fatal(diff)
	}
	t.Logf("%d objects, %d parts found by their bytes", len(objects), found)
	if found < len(objects) {
		t.Fatalf("%d parts found by their bytes in twice %d objects: the sharing is not exercised", found, len(objects))
	}
}

// jsonSharingEdgePairs are pairs of objects whose parts have the same
// bytes, where the second's other fields change what the parts are once
// defaulted or created: a container's port under the host's network (a
// host port), pods created (no resourceVersion) with other labels (their
// affinity and spread constraints merge them), and a node whose
// allocatable is absent or null (it is the capacity) or empty (it is
// not).
func jsonSharingEdgePairs() []struct{ kind, a, b string } {
	pod := func(name, labels, spec string) string {
		return `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"` + name + `","namespace":"default","labels":` + labels + `},"spec":{` +
			`"containers":[{"name":"c","image":"i","ports":[{"containerPort":8080}]}],` +
			`"affinity":{"podAntiAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[{"labelSelector":{"matchLabels":{"app":"web"}},"topologyKey":"kubernetes.io/hostname","matchLabelKeys":["hash"]}]}},` +
			`"topologySpreadConstraints":[{"maxSkew":1,"topologyKey":"zone","whenUnsatisfiable":"DoNotSchedule","labelSelector":{"matchLabels":{"app":"web"}},"matchLabelKeys":["hash"]}]` +
			spec + `}}`
	}
	node := func(name, allocatable string) string {
		return `{"apiVersion":"v1","kind":"Node","metadata":{"name":"` + name + `"},"status":{"capacity":{"cpu":"4","memory":"1Gi","pods":"110"}` + allocatable + `}}`
	}
	return []struct{ kind, a, b string }{
		{"Pod", pod("a", `{"app":"web","hash":"1"}`, ""), pod("b", `{"app":"web","hash":"1"}`, `,"hostNetwork":true`)},
		{"Pod", pod("a", `{"app":"web","hash":"1"}`, ""), pod("b", `{"app":"web","hash":"2"}`, "")},
		{"Node", node("a", `,"allocatable":{"cpu":"3900m","memory":"1Gi","pods":"110"}`), node("b", "")},
		{"Node", node("a", `,"allocatable":{"cpu":"3900m","memory":"1Gi","pods":"110"}`), node("b", `,"allocatable":null`)},
		{"Node", node("a", `,"allocatable":{"cpu":"3900m","memory":"1Gi","pods":"110"}`), node("b", `,"allocatable":{}`)},
	}
}

// FuzzJSONSharing decodes and checks two objects of one kind in one
// table, twice over, and each alone (CompareJSONSharing): sharing parts
// by their bytes must never change either. Seeded with consecutive
// objects of a throughput workload (pods of one template, nodes of one
// machine type), each edge case of the fast path after the workload's
// first pod or node, the same pod on the host's network, and
// jsonSharingEdgePairs.
func FuzzJSONSharing(f *testing.F) {
	kinds := snapshot.FastJSONKinds()
	slices.Sort(kinds)
	kindIndex := func(kind string) uint8 { return uint8(slices.Index(kinds, kind)) }
	data := throughputJSON(f, scenario.WorkloadPodAffinity, scenario.ThroughputSize{Nodes: 3, InitPods: 2, MeasurePods: 2})
	var objects []snapshot.JSONObject
	stop := snapshot.ObserveJSONDecodes(func(o snapshot.JSONObject) { objects = append(objects, o) })
	snapshot.Load("throughput.json", data)
	stop()
	first := map[string][]byte{}
	for i, o := range objects {
		if first[o.Kind] == nil {
			first[o.Kind] = o.Data
		}
		if i > 0 && objects[i-1].Kind == o.Kind {
			f.Add(kindIndex(o.Kind), objects[i-1].Data, o.Data)
		}
	}
	if first["Pod"] == nil || first["Node"] == nil {
		f.Fatalf("no pod or node among the seeds")
	}
	for _, c := range fastJSONEdgeCases() {
		f.Add(kindIndex(c.kind), first[c.kind], []byte(c.data))
	}
	pod := first["Pod"]
	if at := bytes.Index(pod, []byte(`"spec": {`)); at >= 0 {
		at += len(`"spec": {`)
		f.Add(kindIndex("Pod"), pod, slices.Concat(pod[:at], []byte(`"hostNetwork": true,`), pod[at:]))
	} else {
		f.Fatalf("no spec in the seed pod:\n%s", pod)
	}
	for _, p := range jsonSharingEdgePairs() {
		f.Add(kindIndex(p.kind), []byte(p.a), []byte(p.b))
	}
	f.Fuzz(func(t *testing.T, kind uint8, a, b []byte) {
		k := kinds[int(kind)%len(kinds)]
		if _, diff := snapshot.CompareJSONSharing([]snapshot.JSONObject{{Kind: k, Data: a, Exact: true}, {Kind: k, Data: b, Exact: true}}); diff != "" {
			t.Fatal(diff)
		}
	})
}
