package main

import (
	"sort"
	"strings"
	"testing"
)

// TestExplainHintsJSON: explain -o json gives the hints of package why in
// the agreed shape, {summary, objects, remove, fitsOn}, each changed object
// whole with apiVersion and kind (an added node's hint also has its
// nodeGroup, and the node first among its objects); the text explanation
// prints the same hints.
func TestExplainHintsJSON(t *testing.T) {
	var x map[string]any
	explainJSON(t, &x, "--demo", "default/critical-api", "--attempt", "1")
	hints, _ := x["hints"].([]any)
	if len(hints) == 0 {
		t.Fatalf("no hints: %v", x["hints"])
	}
	text, _, err := runCmd(t, newExplainCommand, "--demo", "default/critical-api", "--attempt", "1")
	if err != nil {
		t.Fatal(err)
	}
	nodeHints := 0
	for _, h := range hints {
		m := h.(map[string]any)
		var keys []string
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		_, addsNode := m["nodeGroup"]
		if want := "fitsOn,objects,remove,summary"; addsNode && strings.Join(keys, ",") != "fitsOn,nodeGroup,objects,remove,summary" || !addsNode && strings.Join(keys, ",") != want {
			t.Errorf("hint keys %v", keys)
		}
		objs, _ := m["objects"].([]any)
		fits, _ := m["fitsOn"].([]any)
		if _, ok := m["remove"].([]any); !ok || len(fits) == 0 || len(objs) == 0 {
			t.Errorf("hint %v", m)
			continue
		}
		o := objs[0].(map[string]any)
		meta, _ := o["metadata"].(map[string]any)
		if addsNode {
			g := m["nodeGroup"].(map[string]any)
			if o["kind"] != "Node" || o["apiVersion"] != "v1" || meta["name"] != g["like"].(string)+"-new" || o["status"] == nil {
				t.Errorf("added node %v of group %v", o, g)
			}
			nodeHints++
		} else if o["kind"] != "Pod" || o["apiVersion"] != "v1" || meta["name"] != "critical-api" || o["spec"] == nil {
			t.Errorf("object %v", o)
		}
		if s := m["summary"].(string); !strings.Contains(text, "Hint: "+s+" → fits on ") {
			t.Errorf("text explanation lacks hint %q:\n%s", s, text)
		}
	}
	if nodeHints != 1 {
		t.Errorf("%d hints add a node, want 1 (a capacity problem)", nodeHints)
	}
}
