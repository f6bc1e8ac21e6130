package docread

import "testing"

func TestYAMLItemLines(t *testing.T) {
	c := yamlChunk{text: []byte("apiVersion: v1\nkind: List\nmetadata: {}\nitems:\n# comment\n- a: 1\n  b:\n  - x\n- c: 2\n\n-   d: 3\nother: x\n"), firstLine: 10}
	got := yamlSeqItemLines(c, "items")
	want := []int{15, 18, 20}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
	indented := yamlChunk{text: []byte("items:\n  - a: 1\n  - b: 2\n"), firstLine: 1}
	if got := yamlSeqItemLines(indented, "items"); len(got) != 2 || got[0] != 2 || got[1] != 3 {
		t.Errorf("indented: %v", got)
	}
	if got := yamlSeqItemLines(yamlChunk{text: []byte("items: []\n"), firstLine: 1}, "items"); got != nil {
		t.Errorf("flow: %v", got)
	}
}
