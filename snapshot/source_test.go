package snapshot

import (
	"bytes"
	"compress/gzip"
	"errors"
	"strings"
	"testing"

	"github.com/schedtui/schedtui/internal/docread"
)

func gz(t testing.TB, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	if _, err := w.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func mustLoad(t *testing.T, name, data string) (*Cluster, *docread.Report) {
	t.Helper()
	c, r, err := Load(name, []byte(data))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return c, r
}

func podNames(c *Cluster) []string {
	var out []string
	for _, p := range c.Pods {
		out = append(out, p.Namespace+"/"+p.Name)
	}
	return out
}

func nodeNames(c *Cluster) []string {
	var out []string
	for _, n := range c.Nodes {
		out = append(out, n.Name)
	}
	return out
}

// findProblem returns the first problem whose String() contains all parts.
func findProblem(r *docread.Report, parts ...string) *docread.Problem {
	for i := range r.Problems {
		s := r.Problems[i].String()
		ok := true
		for _, p := range parts {
			if !strings.Contains(s, p) {
				ok = false
				break
			}
		}
		if ok {
			return &r.Problems[i]
		}
	}
	return nil
}

const yamlMulti = `# two nodes and a pod
apiVersion: v1
kind: Node
metadata:
  name: n1
---
apiVersion: v1
kind: Node
metadata:
  name: n2
--- # a pod
apiVersion: v1
kind: Pod
metadata:
  name: p1
  namespace: ns
spec:
  containers:
  - name: c
    image: img
`

const yamlList = `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata:
    name: n1
- apiVersion: v1
  kind: Node
  metadata:
    name: n2
- apiVersion: v1
  kind: Pod
  metadata:
    name: p1
    namespace: ns
  spec:
    containers:
    - name: c
      image: img
`

const jsonTypedLists = `{
  "apiVersion": "v1",
  "kind": "NodeList",
  "items": [
    {"metadata": {"name": "n1"}},
    {"metadata": {"name": "n2"}}
  ]
}
{"apiVersion": "v1", "kind": "PodList", "items": [
  {"metadata": {"name": "p1", "namespace": "ns"},
   "spec": {"containers": [{"name": "c", "image": "img"}]}}
]}
`

const jsonSingleList = `{"apiVersion": "v1", "kind": "List", "items": [
 {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}},
 {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n2"}},
 {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p1", "namespace": "ns"},
  "spec": {"containers": [{"name": "c", "image": "img"}]}}
]}`

const jsonConcatenated = `{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}}
{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n2"}}{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p1", "namespace": "ns"},
  "spec": {"containers": [{"name": "c", "image": "img"}]}}`

const jsonArray = `[
 {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}},
 {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n2"}},
 {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p1", "namespace": "ns"},
  "spec": {"containers": [{"name": "c", "image": "img"}]}}
]`

const yamlFlow = `{kind: Node, apiVersion: v1, metadata: {name: n1}}
---
{kind: Node, apiVersion: v1, metadata: {name: n2}}
---
{"kind": "Pod", "apiVersion": "v1", "metadata": {"name": "p1", "namespace": "ns"}, "spec": {"containers": [{"name": "c", "image": "img"}]}}
`

func TestFormats(t *testing.T) {
	cases := []struct {
		name, data string
	}{
		{"multi.yaml", yamlMulti},
		{"list.yaml", yamlList},
		{"typed-lists.json", jsonTypedLists},
		{"list.json", jsonSingleList},
		{"concatenated.json", jsonConcatenated},
		{"array.json", jsonArray},
		{"flow.yaml", yamlFlow},
		{"crlf.yaml", strings.ReplaceAll(yamlMulti, "\n", "\r\n")},
		{"bom.yaml", "\xef\xbb\xbf" + yamlList},
	}
	for _, tc := range cases {
		for _, compressed := range []bool{false, true} {
			name := tc.name
			data := []byte(tc.data)
			if compressed {
				name += ".gz"
				data = gz(t, tc.data)
			}
			t.Run(name, func(t *testing.T) {
				c, r, err := Load(name, data)
				if err != nil {
					t.Fatalf("Load: %v", err)
				}
				if len(r.Problems) != 0 {
					t.Errorf("unexpected problems:\n%s", r)
				}
				if got := strings.Join(nodeNames(c), ","); got != "n1,n2" {
					t.Errorf("nodes = %q", got)
				}
				if got := strings.Join(podNames(c), ","); got != "ns/p1" {
					t.Errorf("pods = %q", got)
				}
			})
		}
	}
}

func TestDocumentLines(t *testing.T) {
	cases := []struct {
		name, data string
		want       map[string]int // object -> line
	}{
		{"multi.yaml", yamlMulti + "---\napiVersion: v1\nkind: Node\nmetadata:\n  name: bad_name\n", map[string]int{"Node bad_name": 22}},
		{"list.yaml", strings.Replace(yamlList, "name: n2", "name: n_2", 1), map[string]int{"Node n_2": 8}},
		{"list.json", strings.Replace(jsonSingleList, `"n2"`, `"n_2"`, 1), map[string]int{"Node n_2": 3}},
		{"typed.json", strings.Replace(jsonTypedLists, `"n2"`, `"n_2"`, 1), map[string]int{"Node n_2": 6}},
		{"concat.json", strings.Replace(jsonConcatenated, `"n2"`, `"n_2"`, 1), map[string]int{"Node n_2": 2}},
		{"array.json", strings.Replace(jsonArray, `"n2"`, `"n_2"`, 1), map[string]int{"Node n_2": 3}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, r := mustLoad(t, tc.name, tc.data)
			for obj, line := range tc.want {
				p := findProblem(r, obj)
				if p == nil {
					t.Fatalf("no problem for %s in\n%s", obj, r)
				}
				if p.Line != line {
					t.Errorf("%s: line %d, want %d (%s)", obj, p.Line, line, p)
				}
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	good := gz(t, yamlList)
	badCRC := append([]byte{}, good...)
	badCRC[len(badCRC)-6] ^= 0xff // inside the CRC-32 trailer
	cases := []struct {
		name string
		data []byte
		want string // substring of the error
		line int
	}{
		// Every document broken (a broken one costs only itself, see
		// TestYAMLSyntaxErrorCostsItsDocument).
		{"bad.yaml", []byte("# nothing\n---\napiVersion: v1\nkind: Node\nmetadata:\n  name: [n2\n"),
			"YAML syntax error", 6},
		{"nokeyline.yaml", []byte("# nothing\n---\napiVersion: v1\nkind: Node\nmetadata:\n  name: n2\n   bad: x\n"),
			"mapping values are not allowed", 7},
		{"indent.yaml", []byte("a:\n  - x\n - y\n"), "did not find expected key", 2},
		{"separator.yaml", []byte("apiVersion: v1\n--- kind: Node\n"), "invalid document separator", 2},
		{"bad.json", []byte("{\"apiVersion\": \"v1\",\n \"kind\": \"Node\",\n \"metadata\": {\"name\": \"n1\",}}\n"), "JSON syntax error", 3},
		{"second.json", []byte("{\"kind\": \"Node\"}\n{\"kind\": \"Node\",\n\n \"x\" 1}"), "JSON syntax error", 4},
		{"truncated.json", []byte("{\"apiVersion\": \"v1\",\n \"kind\": \"Node\",\n \"metadata\": {"), "unexpected end of input", 1},
		{"truncated.gz", good[:len(good)/2], "truncated gzip data", 0},
		{"checksum.gz", badCRC, "corrupt gzip data", 0},
		{"header.gz", []byte{0x1f, 0x8b, 0x00, 0x00, 0x01}, "gzip", 0},
		{"garbage.gz", append([]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff}, bytes.Repeat([]byte{0xff}, 40)...), "gzip data", 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, r, err := Load(tc.name, tc.data)
			if err == nil {
				t.Fatalf("no error; problems:\n%s", r)
			}
			if c != nil {
				t.Errorf("cluster returned with an error")
			}
			var pe *docread.ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %T is not a *ParseError: %v", err, err)
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), tc.name+":") {
				t.Errorf("error %q: want file name and %q", err, tc.want)
			}
			if pe.Line != tc.line {
				t.Errorf("line %d, want %d (%v)", pe.Line, tc.line, err)
			}
		})
	}
}

func TestLoadFileMissing(t *testing.T) {
	_, _, err := LoadFile("/nonexistent/snap.yaml")
	if err == nil || !strings.Contains(err.Error(), "/nonexistent/snap.yaml: cannot read file") {
		t.Fatalf("err = %v", err)
	}
}

func TestEmptyInputs(t *testing.T) {
	for _, data := range []string{"", "\n\n", "# only a comment\n", "---\n---\n", "null\n"} {
		c, r := mustLoad(t, "empty.yaml", data)
		if len(c.Nodes)+len(c.Pods) != 0 {
			t.Errorf("%q: objects loaded", data)
		}
		if r.HasErrors() {
			t.Errorf("%q: errors: %s", data, r)
		}
		if len(c.PriorityClasses) != 2 {
			t.Errorf("%q: built-in priority classes missing", data)
		}
	}
}
