package snapshot

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/schedtui/schedtui/internal/docread"
)

func fuzzSeeds(f *testing.F) {
	seeds := []string{
		"", "null", "[]", "{}", "---\n---\n", "- a\n- b\n", "kind: List\nitems: 3\n", "{\"kind\": \"List\", \"items\": [null, 1, {}]}",
		yamlMulti, yamlList, jsonTypedLists, jsonSingleList, jsonConcatenated, jsonArray, yamlFlow,
		pod("p", "    resources:\n      requests:\n        cpu: 5x\n"),
		pod("p", "  priorityClassName: gold\n  priority: 3\n  overhead: {cpu: 1e100000}\n"),
		pod("p", "  hostNetwork: true\n  containers: [{name: c, image: i, ports: [{containerPort: 99999}]}]\n"),
		pod("p", "  resources: {limits: {hugepages-2Mi: 2Mi, cpu: \"1\"}}\n  runtimeClassName: x\n"),
		pod("p", "  affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchFields: [{key: x, operator: Gt}]}]}}}\n"),
		"apiVersion: v1\nkind: PodList\nitems:\n- metadata: {name: a}\n  spec: {containers: [{name: c, image: i}]}\n",
		"apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: List\n  items:\n  - apiVersion: v1\n    kind: Node\n    metadata: {name: n}\n",
		"apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: a}\nvalue: 1\nglobalDefault: true\n---\napiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: b}\nvalue: 1\nglobalDefault: true\n",
		"apiVersion: v1\nkind: Node\nmetadata: {name: n, namespace: x}\nstatus: {capacity: {cpu: -1}}\n",
		"apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata: {name: x}\nhandler: h\noverhead: {podFixed: {cpu: 1}}\nscheduling: {tolerations: [{operator: Exists}]}\n",
		"a: .nan\n", "a: b: c\n", "{\"a\": 1,}", "{\"kind\": \"Pod\", \"metadata\": {\"generateName\": \"x-\"}}",
		"apiVersion: v1\nkind: Pod\nmetadata: {generateName: \"" + string(make([]byte, 70)) + "\"}\n",
		`{"KIND":"List","metadata":{"annotations":{"schedtui.dev/schedtui-snapshot":"v1"}},"items":[]}`,
		`{"kind":"List","KIND":null,"metadata":{"annotations":{"schedtui.dev/schedtui-snapshot":"v1"}},"Metadata":{"annotations":{"schedtui.dev/context":"c"}}}`,
		`{"\u212aind":"List","metadata":{"annotations":{"schedtui.dev/schedtui-snapshot":"v1","schedtui.dev/context":"c"}}}`,
		`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{"a":"b"}},"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"1x"}}}],"bogus":1,"priority":1,"priority":2}}`,
	}
	// Recordings (schedtui record): bad times, types, kinds, a change
	// after the end, a cut last line.
	seeds = append(seeds,
		"# schedtui-snapshot: v1\n# recording-started: \"2026-03-02T09:00:00Z\"\napiVersion: v1\nkind: List\nitems: []\n"+
			"---\napiVersion: schedtui.dev/v1\nkind: RecordedChange\ntime: 2026-03-02T09:10:00Z\ntype: ADDED\nobject: {apiVersion: v1, kind: Node, metadata: {name: n}}\n"+
			"---\napiVersion: schedtui.dev/v1\nkind: RecordedChange\ntime: 2026-03-02T08:10:00Z\ntype: MODIFIED\nobject: {apiVersion: v1, kind: Pod, metadata: {name: p}, spec: {priorityClassName: x}}\n"+
			"---\napiVersion: schedtui.dev/v1\nkind: RecordingEnd\ntime: x\n---\napiVersion: schedtui.dev/v1\nkind: RecordedChange\ntype: BOOKMARK\nobject: null\n",
		recordingJSONSeed, recordingJSONSeed[:len(recordingJSONSeed)-25],
		"# schedtui-snapshot: v1\n# recording-started: \"2026-03-02T09:00:00Z\"\n{}\n---\napiVersion: schedtui.dev/v1\nkind: RecordedChange\ntime: \"2026\n",
		// Extender answers: a good one, one with a bad latency, one cut.
		"# schedtui-snapshot: v1\n# recording-started: \"2026-03-02T09:00:00Z\"\n# extender-answers: recorded\napiVersion: v1\nkind: List\nitems: []\n"+
			"---\napiVersion: schedtui.dev/v1\nkind: ExtenderAnswer\ntime: 2026-03-02T09:10:00Z\nextender: http://e\nverb: filter\npod: a/b\nnodes: [n]\nstatus: 200\nbody: \"{}\"\nlatency: 1ms\n"+
			"---\napiVersion: schedtui.dev/v1\nkind: ExtenderAnswer\ntime: 2026-03-02T09:10:00Z\nextender: http://e\nverb: filter\npod: a/b\nerror: x\nlatency: 1y\n"+
			"---\napiVersion: schedtui.dev/v1\nkind: ExtenderAnswer\ntime: 2026-03-02T09:1",
	)
	// Real-world inputs: kubectl cluster-info dump's output with its
	// log sections (one left open), JSON then YAML, a broken YAML
	// document among good ones, a List on one line.
	seeds = append(seeds,
		"{\"kind\":\"NodeList\",\"apiVersion\":\"v1\",\"items\":[{\"metadata\":{\"name\":\"n\"}}]}\n"+
			"==== START logs for container c of pod a/b ====\n{\"x\":\n==== END logs for container c of pod a/b ====\n"+
			"{\"kind\":\"PodList\",\"apiVersion\":\"v1\",\"items\":[]}\n==== START logs for container d of pod a/b ====\n}}}\n",
		"{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"n1\"}}\n---\napiVersion: v1\nkind: Node\nmetadata: {name: n2}\n---\nkind: [\n",
		"[{\"kind\":\"Node\"}]\nkind: Node\n",
		"apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n---\nmetadata:\n  name: [n2\n---\napiVersion: v1\nkind: Node\nmetadata: {name: n3}\n",
		`{"apiVersion":"v1","kind":"List","items":[{},{"kind":"Node"},{"apiVersion":"v1","kind":"NodeList","items":[{"metadata":{"name":"a"}},{}]}]}`,
		"k8s\x00", "k8s\x00\x0a\x05\x0a\x02v1",
	)
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	// gzip: members one after the other, zeros after, garbage after.
	one := gz(f, yamlMulti)
	f.Add(append(append([]byte{}, one...), one...))
	f.Add(append(append([]byte{}, one...), 0, 0, 0, 0))
	f.Add(append(append([]byte{}, one...), "garbage"...))
	rg := gz(f, recordingJSONSeed)
	f.Add(rg[:len(rg)-6])
	f.Add(gz(f, yamlList))
	g := gz(f, jsonArray)
	f.Add(g[:len(g)-3])
	// A List long enough to be decoded on several goroutines.
	var items []string
	for i := 0; i < 70; i++ {
		items = append(items, fmt.Sprintf(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p%d"},"spec":{"containers":[{"name":"c","image":"i"}]}}`, i%60))
	}
	f.Add([]byte(`{"apiVersion":"v1","kind":"List","items":[` + strings.Join(items, ",\n") + `]}`))
	if demo, err := os.ReadFile("../testdata/demo.yaml"); err == nil {
		f.Add(demo)
		// The demo in protobuf, whole and cut in an item.
		if c, _, err := Load("demo.yaml", demo); err == nil {
			var b bytes.Buffer
			if _, err := Write(&b, c, Header{Context: "demo"}, OutputFormat{Protobuf: true}); err == nil {
				f.Add(b.Bytes())
				f.Add(b.Bytes()[:b.Len()/2])
				// Cut in the envelope's header, and just after it.
				f.Add(b.Bytes()[:12])
				f.Add(b.Bytes()[:40])
			}
		}
	}
}

// recordingJSONSeed is a JSON recording with a bad change and a cut last
// line.
const recordingJSONSeed = `{"apiVersion":"v1","kind":"List","metadata":{"annotations":{"schedtui.dev/schedtui-snapshot":"v1",` +
	`"schedtui.dev/recording-started":"2026-03-02T09:00:00Z"}},"items":[{"apiVersion":"v1","kind":"Node","metadata":{"name":"n"}}]}` + "\n" +
	`{"apiVersion":"schedtui.dev/v1","kind":"RecordedChange","time":"2026-03-02T09:10:00Z","type":"DELETED","object":{"apiVersion":"v1","kind":"Node","metadata":{"name":"n"}}}` + "\n" +
	`{"apiVersion":"schedtui.dev/v1","kind":"RecordedChange","time":"bad","type":"ADDED","object":{"apiVersion":"v1","kind":"Secret"}}` + "\n" +
	`{"apiVersion":"schedtui.dev/v1","kind":"RecordedChange","time":"2026-03-02T09:20:00Z","type":"ADDED","object":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"i"}]}}}` + "\n"

// FuzzLoad checks that no input makes Load panic, and that its results
// are consistent.
//
// For a document the fast JSON scanner takes, it also checks that what
// listHeader answers from the scanned members is what it answers from the
// whole document, and that decoding an object directly gives what the
// serializer gives.
func FuzzLoad(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		checkScannedDocument(t, data)
		c, r, err := Load("fuzz.yaml", data)
		if err != nil {
			var pe *docread.ParseError
			if !errors.As(err, &pe) || c != nil {
				t.Fatalf("error %T %v with cluster %v", err, err, c != nil)
			}
			return
		}
		if c == nil || r == nil {
			t.Fatal("nil cluster or report without an error")
		}
		for _, p := range c.Pods {
			if p.UID == "" || p.Namespace == "" || p.Spec.Priority == nil {
				t.Fatalf("pod %s/%s not normalized", p.Namespace, p.Name)
			}
		}
		for _, p := range r.Problems {
			_ = p.String()
		}
		// Decoding List items ahead on several goroutines changes nothing.
		defer func(n int) { parallelMinItems = n }(parallelMinItems)
		parallelMinItems = 1
		c2, r2, err := Load("fuzz.yaml", data)
		if err != nil {
			t.Fatalf("error %v only when decoding in parallel", err)
		}
		if r.String() != r2.String() || fmt.Sprint(podNames(c)) != fmt.Sprint(podNames(c2)) || len(c.Objects()) != len(c2.Objects()) {
			t.Fatalf("decoding in parallel changed the result:\n%s\npods %v\n--- parallel:\n%s\npods %v", r, podNames(c), r2, podNames(c2))
		}
	})
}

// checkScannedDocument is FuzzLoad's check of what the loader reads from
// the members the fast JSON scanner recorded.
func checkScannedDocument(t *testing.T, data []byte) {
	members, ok := docread.ScanMembers(data, true)
	if !ok {
		return
	}
	hf, okf := listHeader(data)
	var hs *Header
	oks := false
	if sub := listHeaderInput(data, members); sub != nil {
		hs, oks = listHeader(sub)
	}
	if okf != oks || !reflect.DeepEqual(hf, hs) {
		t.Fatalf("list header %v %+v, from the members: %v %+v", okf, hf, oks, hs)
	}
	// Decoding directly is what the serializer does.
	h := docread.HeaderFromMembers(data, members)
	if ki := supportedKinds[h.Kind]; ki != nil && h.APIVersion == ki.gv.String() && h.TypeMetaExact {
		o1, w1, e1 := decodeObjectChecked(ki, data, true)
		o2, w2, e2 := decodeObjectChecked(ki, data, false)
		if !reflect.DeepEqual(o1, o2) || !reflect.DeepEqual(w1, w2) || !reflect.DeepEqual(e1, e2) {
			t.Fatalf("direct decoding: %v %v %v; the serializer: %v %v %v", o1, w1, e1, o2, w2, e2)
		}
	}
}
