package snapshot

import (
	"strings"
	"testing"
)

// TestClusterInfoDumpToStdout: `kubectl cluster-info dump > file` puts
// the containers' logs between its Lists; they are skipped, with a note,
// and the objects after them keep their lines.
func TestClusterInfoDumpToStdout(t *testing.T) {
	dump := `{
    "kind": "NodeList",
    "apiVersion": "v1",
    "metadata": {},
    "items": [
        {"metadata": {"name": "n1"}, "status": {"capacity": {"cpu": "4"}}}
    ]
}
{
    "kind": "PodList",
    "apiVersion": "v1",
    "metadata": {},
    "items": [
        {"metadata": {"name": "web", "namespace": "shop"}, "spec": {"nodeName": "n1", "containers": [{"name": "c", "image": "i"}]}}
    ]
}
==== START logs for container c of pod shop/web ====
{"level":"info","msg":"listening"}
==== END logs for container c of pod shop/web ====
==== START logs for container c of pod shop/api ====
Request log error: the server rejected our request
==== END logs for container c of pod shop/api ====
{
    "kind": "PodList",
    "apiVersion": "v1",
    "metadata": {},
    "items": [
        {"metadata": {"name": "api", "namespace": "shop"}, "spec": {"containers": [{"name": "c", "image": "i", "resources": {"requests": {"cpu": "lots"}}}]}}
    ]
}
`
	c, r := mustLoad(t, "dump.json", dump)
	if got := podNames(c); len(got) != 1 || got[0] != "shop/web" || len(c.Nodes) != 1 {
		t.Errorf("pods %v, %d nodes", got, len(c.Nodes))
	}
	for _, want := range []string{
		"dump.json: warning: kubectl cluster-info dump output: the logs of 2 containers between its Lists are skipped",
		"dump.json:28: Pod shop/api: spec.containers[0].resources.requests.cpu",
	} {
		if !strings.Contains(r.String(), want) {
			t.Errorf("missing %q in:\n%s", want, r)
		}
	}
}

// TestYAMLSyntaxErrorCostsItsDocument: in a multi-document YAML file a
// syntax error costs its document only, named by its lines, with the line
// of the error.
func TestYAMLSyntaxErrorCostsItsDocument(t *testing.T) {
	data := "apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n---\napiVersion: v1\nkind: Node\nmetadata:\n  name: [n2\n---\n" +
		"apiVersion: v1\nkind: Node\nmetadata:\n  name: n3\n"
	c, r := mustLoad(t, "three.yaml", data)
	if got := nodeNames(c); strings.Join(got, ",") != "n1,n3" {
		t.Errorf("nodes %v, want n1 and n3", got)
	}
	want := "three.yaml:9: YAML syntax error: did not find expected ',' or ']'; the document of lines 6-9 is skipped"
	if len(r.Errors()) != 1 || r.Errors()[0].String() != want {
		t.Errorf("problems:\n%s\nwant %s", r, want)
	}
}

// TestJSONThenYAML: JSON documents followed by "---" and YAML ones are one
// stream, as kubectl reads it; the YAML keeps the file's lines.
func TestJSONThenYAML(t *testing.T) {
	data := `{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1"}}
{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"Node","metadata":{"name":"n2"}}]}
---
apiVersion: v1
kind: Node
metadata:
  name: n3
---
apiVersion: v1
kind: Node
metadata:
  name: n4
  labels: {a: [}
`
	c, r := mustLoad(t, "mixed.json", data)
	if got := nodeNames(c); strings.Join(got, ",") != "n1,n2,n3" {
		t.Errorf("nodes %v, want n1, n2 and n3", got)
	}
	if !strings.Contains(r.String(), "mixed.json:12: YAML syntax error: did not find expected node content; the document of lines 9-13 is skipped") {
		t.Errorf("problems:\n%s", r)
	}
	// Broken JSON is still a JSON error, not read as YAML.
	if _, _, err := Load("broken.json", []byte(`{"apiVersion":"v1","kind":"Node",}`+"\n---\nkind: Node\n")); err == nil || !strings.Contains(err.Error(), "JSON syntax error") {
		t.Errorf("broken JSON then YAML: %v", err)
	}
}
