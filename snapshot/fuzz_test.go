package snapshot

import (
	"errors"
	"os"
	"testing"
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
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Add(gz(f, yamlList))
	g := gz(f, jsonArray)
	f.Add(g[:len(g)-3])
	if demo, err := os.ReadFile("../testdata/demo.yaml"); err == nil {
		f.Add(demo)
	}
}

// FuzzLoad checks that no input makes Load panic, and that its results
// are consistent.
func FuzzLoad(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		c, r, err := Load("fuzz.yaml", data)
		if err != nil {
			var pe *ParseError
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
	})
}

// FuzzLoadConfig does the same for scheduler configurations.
func FuzzLoadConfig(f *testing.F) {
	for _, s := range []string{
		"", cfgHeader, cfgHeader + "profiles:\n- pluginConfig:\n  - name: NodeResourcesFit\n    args: {scoringStrategy: {type: RequestedToCapacityRatio}}\n",
		cfgHeader + "profiles:\n- pluginConfig:\n  - name: NodeAffinity\n    args: {addedAffinity: {preferredDuringSchedulingIgnoredDuringExecution: [{weight: 1, preference: {matchExpressions: [{key: a, operator: Lt, values: [x]}]}}]}}\n",
		cfgHeader + "profiles:\n- pluginConfig:\n  - name: VolumeBinding\n    args: {shape: []}\n  - {name: DynamicResources, args: {filterTimeout: -1s}}\n",
		cfgHeader + "extenders: [{urlPrefix: x, prioritizeVerb: p, bindVerb: b, managedResources: [{name: cpu}]}, {bindVerb: c}]\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, r, err := LoadConfigData("fuzz.yaml", data)
		if r == nil {
			t.Fatal("nil report")
		}
		if err == nil && cfg == nil {
			t.Fatal("nil configuration without an error")
		}
	})
}
