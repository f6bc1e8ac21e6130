package tui

import (
	"errors"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/schedtui/schedtui/snapshot"
)

// parseForTest reads the editor's YAML as the command's parser does
// (snapshot loading: defaulting, validation), less the built-in priority
// classes every load adds.
func parseForTest(name string, data []byte) ([]any, error) {
	c, r, err := snapshot.Load(name, data)
	if err != nil {
		return nil, err
	}
	if errs := r.Errors(); len(errs) > 0 {
		return nil, errors.New(errs[0].String())
	}
	var out []any
	for _, o := range c.Objects() {
		switch o.(type) {
		case *v1.Node, *v1.Pod:
			out = append(out, o)
		}
	}
	return out, nil
}

func objectHarness(t *testing.T) *harness {
	hs := newHarness(t, 100, 30)
	hs.m.s.b.ParseObjects = parseForTest
	return hs
}

func (hs *harness) objectDialog() *objectDialog {
	hs.t.Helper()
	d, ok := hs.m.top().(*objectDialog)
	if !ok {
		hs.t.Fatalf("the object editor is not open: %T", hs.m.top())
	}
	return d
}

// TestWhatIfObjectEditNode: W on the Nodes view opens the selected node's
// YAML; without its taint, gpu-train fits there.
func TestWhatIfObjectEditNode(t *testing.T) {
	hs := objectHarness(t)
	hs.keys("n", "n", "n", "n", "n", "n", "6", "/")
	hs.typeText("node-a2")
	hs.keys("<enter>", "W")
	d := hs.objectDialog()
	hs.contains("object: Node/node-a2", "name: node-a2")
	var n v1.Node
	if err := yaml.Unmarshal([]byte(d.yaml.Value()), &n); err != nil || n.Name != "node-a2" || len(n.Spec.Taints) != 1 {
		t.Fatalf("the editor holds %q (%v)", d.yaml.Value(), err)
	}
	n.Spec.Taints = nil
	b, _ := yaml.Marshal(&n)
	d.yaml.SetValue(string(b))
	hs.keys("<ctrl+s>")
	hs.contains("What-if for default/gpu-train", "with Node/node-a2 (replaced)", "before: Unschedulable", "after:  Scheduled on node-a2")
	hs.golden(100, 30)
}

// TestWhatIfObjectRemovePod: ctrl+x re-runs without the object named:
// without web-0, web-3's anti-affinity lets it on node-a1.
func TestWhatIfObjectRemovePod(t *testing.T) {
	hs := objectHarness(t)
	hs.keys("b")
	hs.typeText("pod=web-3")
	hs.keys("<enter>", "<esc>", "c", "2", "W")
	hs.contains("object: Pod/default/web-3", "name: web-3")
	hs.keys("<tab>", "<ctrl+u>")
	hs.typeText("pod/default/web-0")
	hs.keys("<enter>")
	hs.contains("name: web-0")
	hs.keys("<ctrl+x>")
	hs.contains("without Pod/default/web-0", "before: Unschedulable", "after:  Scheduled on node-a1")
	hs.golden(100, 30)
}

// TestWhatIfObjectCloneNode: ctrl+n fills the editor with a node like the
// one named, and its DaemonSet pods; the pod fits on it.
func TestWhatIfObjectCloneNode(t *testing.T) {
	hs := objectHarness(t)
	hs.keys("n", "6", "/")
	hs.typeText("node-b1")
	hs.keys("<enter>", "W", "<ctrl+n>")
	d := hs.objectDialog()
	if v := d.yaml.Value(); !strings.Contains(v, "name: node-b1-new") || !strings.Contains(v, "nodeName: node-b1-new") {
		t.Fatalf("the clone: %s", v)
	}
	hs.keys("<ctrl+s>")
	hs.contains("with Node/node-b1-new (added), Pod/", "after:  Scheduled on node-b1-new")
	hs.golden(100, 30)
}

// TestWhatIfObjectParseError: a refused object is said in the dialog,
// which keeps the text; esc cancels.
func TestWhatIfObjectParseError(t *testing.T) {
	hs := objectHarness(t)
	hs.keys("n", "W")
	d := hs.objectDialog()
	const bad = "apiVersion: v1\nkind: Node\nmetadata: {name: x}\nstatus: {allocatable: {cpu: lots}}\n"
	d.yaml.SetValue(bad)
	hs.keys("<ctrl+s>")
	if hs.objectDialog().yaml.Value() != bad {
		t.Errorf("the text changed: %q", d.yaml.Value())
	}
	hs.contains("error: editor:1: Node x: status.allocatable.cpu")
	hs.keys("<tab>", "<ctrl+u>")
	hs.typeText("Node/nope")
	hs.keys("<enter>")
	hs.contains("error: Node/nope: no such object")
	hs.keys("<esc>")
	if _, open := hs.m.top().(*objectDialog); open {
		t.Error("esc left the editor open")
	}
}
