package snapshot_test

import (
	"bytes"
	"io/fs"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/schedtui/schedtui/internal/scalegen"
	"github.com/schedtui/schedtui/internal/scenario"
	"github.com/schedtui/schedtui/snapshot"
	"github.com/schedtui/schedtui/testdata"
)

// The fast path of decoding JSON (decode_fast.go) may only succeed where
// the strict decoder would, with no warning and a deeply equal object.
// These tests decode objects both ways and hold it to that.

// checkFastJSON decodes data, an object of kind, both ways and fails t
// when the fast path took an object the strict decoder refuses or warns
// about, or decoded it to another value. It says whether the fast path
// took it.
func checkFastJSON(t *testing.T, kind string, data []byte) bool {
	t.Helper()
	fast, strict, warnings, errs := snapshot.DecodeJSONBothWays(kind, data)
	if fast == nil {
		return false
	}
	if len(errs) > 0 || len(warnings) > 0 {
		t.Errorf("the fast path decoded a %s the strict decoder refuses or warns about (errors %v, warnings %v):\n%s", kind, errs, warnings, data)
		return true
	}
	if !reflect.DeepEqual(fast, strict) {
		t.Errorf("the fast path decoded a %s unlike the strict decoder:\nfast   %#v\nstrict %#v\n%s", kind, fast, strict, data)
	}
	return true
}

// fastJSONEdgeCases are objects where a JSON decoder is most likely to
// part from the strict one: nulls, names in another case, duplicate
// names, unknown fields, numbers that are not integers, big numbers,
// escapes, invalid UTF-8, and the API types that decode themselves
// (Quantity, Time, IntOrString, RawExtension, FieldsV1).
func fastJSONEdgeCases() []struct{ kind, data string } {
	pod := func(spec string) string {
		return `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"default","creationTimestamp":"2025-03-03T09:00:01Z","labels":{"a":"b"}},"spec":{` + spec + `}}`
	}
	ctr := func(c string) string {
		return pod(`"containers":[{"name":"c","image":"i"` + c + `}]`)
	}
	node := func(s string) string {
		return `{"apiVersion":"v1","kind":"Node","metadata":{"name":"n"},` + s + `}`
	}
	var cases []struct{ kind, data string }
	add := func(kind string, data ...string) {
		for _, d := range data {
			cases = append(cases, struct{ kind, data string }{kind, d})
		}
	}
	add("Pod",
		pod(`"containers":[{"name":"c","image":"i","resources":{"requests":{"cpu":"100m","memory":"500Mi"}}}]`),
		// nulls and empties
		pod(`"containers":null`), pod(`"nodeSelector":null,"tolerations":null`), pod(`"nodeSelector":{},"tolerations":[]`),
		pod(`"tolerations":[null]`), pod(`"priority":null,"nodeName":null,"hostNetwork":null`), pod(`"affinity":null`), pod(`"affinity":{}`),
		`{"apiVersion":"v1","kind":"Pod","metadata":null,"spec":null,"status":null}`,
		`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":null,"annotations":{},"creationTimestamp":null,"deletionTimestamp":null}}`,
		ctr(`,"resources":{"requests":{"cpu":null}}`), ctr(`,"resources":null`), ctr(`,"ports":[{"containerPort":null}]`),
		// names in another case
		`{"apiVersion":"v1","kind":"Pod","Metadata":{"name":"p"}}`, pod(`"NodeName":"n"`), pod(`"nodename":"n"`),
		`{"apiVersion":"v1","KIND":"Pod","kind":"Pod","metadata":{"name":"p"}}`, `{"apiVersion":"v1","kind":"Pod","metadata":{"\u212aame":"p"}}`,
		ctr(`,"Resources":{"requests":{"cpu":"1"}}`),
		// duplicate names
		`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a","name":"b"}}`, pod(`"priority":1,"priority":2`),
		`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"nodeName":"a"},"spec":{"priority":1}}`,
		pod(`"nodeSelector":{"a":"1","a":"2"}`), `{"apiVersion":"v1","apiVersion":"v1","kind":"Pod","metadata":{"name":"p"}}`,
		`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a","n\u0061me":"b"}}`,
		// unknown fields
		`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"bogus":1}`, pod(`"bogus":{"a":[1]}`), ctr(`,"bogus":null`),
		`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","bogus":"x"}}`,
		// numbers
		pod(`"priority":1.0`), pod(`"priority":1e3`), pod(`"priority":-0`), pod(`"priority":0.0`), pod(`"priority":99999999999`),
		pod(`"priority":"1"`), pod(`"priority":true`), pod(`"terminationGracePeriodSeconds":9223372036854775807`),
		pod(`"terminationGracePeriodSeconds":9223372036854775808`), pod(`"activeDeadlineSeconds":-1`), pod(`"priority":-2147483649`),
		pod(`"affinity":{"nodeAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":1.5,"preference":{}}]}}`),
		pod(`"affinity":{"nodeAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":1E0,"preference":{}}]}}`),
		pod(`"hostNetwork":"true"`), pod(`"hostNetwork":1`),
		// quantities
		ctr(`,"resources":{"requests":{"cpu":"1.0","memory":"1Gi"}}`), ctr(`,"resources":{"requests":{"cpu":1,"memory":1e3}}`),
		ctr(`,"resources":{"requests":{"cpu":"1e3","memory":"0.5Gi"}}`), ctr(`,"resources":{"requests":{"cpu":"1x"}}`),
		ctr(`,"resources":{"requests":{"cpu":"\u0031"}}`), ctr(`,"resources":{"limits":{"cpu":"100m"},"requests":{"cpu":0.1}}`),
		ctr(`,"resources":{"requests":{"cpu":true}}`), ctr(`,"resources":{"requests":{"cpu":{}}}`),
		// times
		`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","creationTimestamp":"2025-03-03T09:00:01+01:00"}}`,
		`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","creationTimestamp":"2025-03-03T09:00:01.5Z"}}`,
		`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","creationTimestamp":""}}`,
		`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","creationTimestamp":"x"}}`,
		`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","creationTimestamp":1}}`,
		`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","creationTimestamp":"2025-03-03T09:00:01\u005a"}}`,
		`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","managedFields":[{"manager":"m","time":"2025-03-03T09:00:01Z","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:a":{}}}}]}}`,
		`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","managedFields":[{"fieldsV1":null},{"fieldsV1":"x"}]}}`,
		// IntOrString
		ctr(`,"readinessProbe":{"httpGet":{"port":"http"}}`), ctr(`,"readinessProbe":{"httpGet":{"port":8080}}`),
		ctr(`,"readinessProbe":{"httpGet":{"port":8080.5}}`), ctr(`,"readinessProbe":{"httpGet":{"port":null}}`),
		ctr(`,"readinessProbe":{"httpGet":{"port":{}}}`),
		// escapes and UTF-8
		`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p\u0041","labels":{"a\"b":"c\n","\u00e9":"\ud83d\ude00"}}}`,
		`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{"a":"\ud800"}}}`,
		`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{"a":"\udc00\ud800"}}}`,
		"{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\",\"labels\":{\"a\":\"\xff\"}}}",
		"{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\",\"labels\":{\"\xc3\":\"b\"}}}",
		"{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\xed\xa0\x80\"}}",
		// not an object, trailing bytes, whitespace
		`[]`, `null`, `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"}} x`, `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"}}{}`,
		"\t{ \"apiVersion\" : \"v1\" ,\n\"kind\":\"Pod\" , \"metadata\" : { \"name\" : \"p\" } }\n", `{}`,
	)
	add("Node",
		node(`"status":{"capacity":{"cpu":"4","memory":"32Gi","pods":"110"},"allocatable":{"cpu":"4","memory":"32Gi","pods":"110"}}`),
		node(`"spec":{"taints":[{"key":"k","effect":"NoSchedule","timeAdded":"2025-03-03T09:00:01Z"}],"unschedulable":true}`),
		node(`"spec":{"unschedulable":"true"}`), node(`"spec":{"taints":[{"key":"k","effect":"NoSchedule","timeAdded":null}]}`),
		node(`"status":{"images":[{"names":["a","b"],"sizeBytes":1e6}]}`), node(`"status":{"images":[{"names":["a"],"sizeBytes":1000000}]}`),
		node(`"status":{"conditions":[{"type":"Ready","status":"True","lastHeartbeatTime":"2025-03-03T09:00:01Z"}]}`),
	)
	add("PodDisruptionBudget",
		`{"apiVersion":"policy/v1","kind":"PodDisruptionBudget","metadata":{"name":"b","namespace":"default"},"spec":{"minAvailable":"50%"}}`,
		`{"apiVersion":"policy/v1","kind":"PodDisruptionBudget","metadata":{"name":"b","namespace":"default"},"spec":{"minAvailable":1}}`,
		`{"apiVersion":"policy/v1","kind":"PodDisruptionBudget","metadata":{"name":"b","namespace":"default"},"spec":{"maxUnavailable":1.5}}`,
		`{"apiVersion":"policy/v1","kind":"PodDisruptionBudget","metadata":{"name":"b","namespace":"default"},"spec":{"maxUnavailable":null}}`,
	)
	add("ResourceClaim",
		`{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":{"name":"c","namespace":"default"},"spec":{"devices":{"config":[{"opaque":{"driver":"d","parameters":{"a":1,"b":[1.5,"x",null]}}}]}}}`,
		`{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":{"name":"c","namespace":"default"},"spec":{"devices":{"config":[{"opaque":{"driver":"d","parameters":null}}]}}}`,
		`{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":{"name":"c","namespace":"default"},"spec":{"devices":{"config":[{"opaque":{"driver":"d","parameters":{"a":1,"a":2}}}]}}}`,
	)
	return cases
}

// everyJSONObject is every object the loader decodes from JSON in the
// repository's snapshot files and the demo (the first fromFiles), and in
// the generated scenarios (random, curated, DRA, gangs, the throughput
// workloads, scalegen's cluster) written as JSON and as YAML.
func everyJSONObject(t *testing.T) (objects []snapshot.JSONObject, fromFiles int) {
	stop := snapshot.ObserveJSONDecodes(func(o snapshot.JSONObject) { objects = append(objects, o) })
	defer stop()

	loadRepositorySnapshots(t)
	fromFiles = len(objects)

	// The generated scenarios, written as JSON and as YAML.
	var scenarios []*scenario.Scenario
	scenarios = append(scenarios, scenario.Curated()...)
	scenarios = append(scenarios, scenario.CuratedDRA()...)
	scenarios = append(scenarios, scenario.CuratedDRAExtended()...)
	for seed := int64(1); seed <= 2; seed++ {
		scenarios = append(scenarios, scenario.Generate(seed, scenario.Options{}),
			scenario.Generate(seed, scenario.Options{Preemption: true}), scenario.Generate(seed, scenario.Options{ResourceShapes: true}),
			scenario.GenerateDRA(seed), scenario.GenerateDRAExtended(seed), scenario.GenerateDRAPreemption(seed),
			scenario.GenerateGangs(seed), scenario.GenerateGroupClaimGangs(seed), scenario.GenerateCompositeGangs(seed))
	}
	for _, w := range scenario.ThroughputWorkloads {
		sc, err := scenario.Throughput(w, scenario.ThroughputSize{Nodes: 20, InitPods: 10, MeasurePods: 10})
		if err != nil {
			t.Fatal(err)
		}
		scenarios = append(scenarios, sc)
	}
	for _, sc := range scenarios {
		for _, f := range []snapshot.OutputFormat{{}, {YAML: true}} {
			var buf bytes.Buffer
			if _, err := snapshot.Write(&buf, sc.Cluster, snapshot.Header{}, f); err != nil {
				t.Fatalf("%s: %v", sc.Name, err)
			}
			snapshot.Load(sc.Name+map[bool]string{false: ".json", true: ".yaml"}[f.YAML], buf.Bytes())
		}
	}
	sg, err := scalegen.Generate(20, 300, nil)
	if err != nil {
		t.Fatal(err)
	}
	snapshot.Load("scalegen.json", sg.Data)
	return objects, fromFiles
}

// TestFastJSONDecodesAsStrict decodes, both ways, every object the
// loader decodes from the repository's snapshot files, the demo, the
// generated scenarios (random, curated, DRA, gangs, the throughput
// workloads, scalegen's cluster) written as JSON and as YAML, and the
// edge cases above. The generated objects, written by schedtui itself,
// must all take the fast path: else it would be no faster.
func TestFastJSONDecodesAsStrict(t *testing.T) {
	if !slices.Contains(snapshot.FastJSONKinds(), "Pod") || !slices.Contains(snapshot.FastJSONKinds(), "Node") {
		t.Fatalf("pods and nodes do not take the fast path: %v", snapshot.FastJSONKinds())
	}
	objects, fromFiles := everyJSONObject(t)

	fast := 0
	for i, o := range objects {
		if !o.Exact {
			continue
		}
		took := checkFastJSON(t, o.Kind, o.Data)
		if took {
			fast++
		} else if i >= fromFiles {
			t.Errorf("the fast path refused a generated %s:\n%s", o.Kind, o.Data)
		}
	}
	edge := 0
	for _, c := range fastJSONEdgeCases() {
		if checkFastJSON(t, c.kind, []byte(c.data)) {
			edge++
		}
	}
	t.Logf("%d objects from the files and the demo, %d generated: %d decoded by the fast path; %d of %d edge cases", fromFiles, len(objects)-fromFiles, fast, edge, len(fastJSONEdgeCases()))
	if len(objects)-fromFiles < 1000 || fromFiles < 100 {
		t.Fatalf("too few objects decoded: %d from files, %d generated", fromFiles, len(objects)-fromFiles)
	}
}

// FuzzFastJSONDecode decodes arbitrary bytes as an object of each kind
// both ways: whenever the fast path succeeds, the strict decoder must
// too, with no warning and a deeply equal object. Seeded with the edge
// cases, the objects of a throughput workload and those of the
// repository's snapshot files and the demo.
func FuzzFastJSONDecode(f *testing.F) {
	kinds := snapshot.FastJSONKinds()
	slices.Sort(kinds)
	kindIndex := func(kind string) uint8 { return uint8(slices.Index(kinds, kind)) }
	for _, c := range fastJSONEdgeCases() {
		f.Add(kindIndex(c.kind), []byte(c.data))
	}
	data := throughputJSON(f, scenario.WorkloadPodAffinity, scenario.ThroughputSize{Nodes: 2, InitPods: 1, MeasurePods: 1})
	var seeded []string
	stop := snapshot.ObserveJSONDecodes(func(o snapshot.JSONObject) {
		f.Add(kindIndex(o.Kind), o.Data)
		seeded = append(seeded, o.Kind)
	})
	snapshot.Load("throughput.json", data)
	loadRepositorySnapshots(f)
	stop()
	if !slices.Contains(seeded, "Pod") || !slices.Contains(seeded, "Node") {
		f.Fatalf("no pod or node among the seeds: %v", seeded)
	}
	f.Fuzz(func(t *testing.T, kind uint8, data []byte) {
		checkFastJSON(t, kinds[int(kind)%len(kinds)], data)
	})
}

// throughputJSON is the throughput workload's cluster at size s, written
// as JSON.
func throughputJSON(tb testing.TB, workload string, s scenario.ThroughputSize) []byte {
	sc, err := scenario.Throughput(workload, s)
	if err != nil {
		tb.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := snapshot.Write(&buf, sc.Cluster, snapshot.Header{}, snapshot.OutputFormat{}); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// loadRepositorySnapshots loads each of the repository's snapshot files
// alone, and the demo, for the objects they hold (ObserveJSONDecodes).
func loadRepositorySnapshots(tb testing.TB) {
	for _, dir := range []string{"../testdata", "testdata", "../cmd/schedtui/testdata"} {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !snapshot.IsSnapshotFileName(d.Name()) {
				return err
			}
			_, _, _ = snapshot.LoadFile(path)
			return nil
		})
		if err != nil {
			tb.Fatal(err)
		}
	}
	snapshot.Load(testdata.DemoName, testdata.Demo)
}
