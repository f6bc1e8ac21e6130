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

// TestReportListsAtMost checks that problems past MaxListedProblems are
// counted in one last problem, which stays last when sorted.
func TestReportListsAtMost(t *testing.T) {
	var r Report
	for i := range MaxListedProblems + 500 {
		if i%2 == 0 {
			r.Errorf("b.json", MaxListedProblems+500-i, "", "", "bad %d", i)
		} else {
			r.Warnf("a.json", i, "", "", "odd %d", i)
		}
	}
	r.Sort()
	if n := len(r.Problems); n != MaxListedProblems+1 {
		t.Fatalf("%d problems listed, want %d", n, MaxListedProblems+1)
	}
	last := r.Problems[MaxListedProblems]
	want := "error: 500 more problems (250 errors, 250 warnings) are not listed: only the first 1000 are"
	if !last.CountsOmitted() || last.Severity.String()+": "+last.Message != want {
		t.Errorf("last problem %+v, want %q", last, want)
	}
	if errs, warns := r.Omitted(); errs != 250 || warns != 250 || !r.HasErrors() {
		t.Errorf("Omitted() = %d, %d", errs, warns)
	}
	var s Report
	s.SetItem("items[7]")
	s.Errorf("c.json", 1, "Pod default/p", "spec", "bad")
	if got := s.Problems[0].String(); got != "c.json:1: items[7]: Pod default/p: spec: bad" {
		t.Errorf("a problem with an item: %s", got)
	}
}

// TestBigJSONListItemsNotRecorded: in a big JSON stream the List's scan
// records its items' spans, not their members (each item is scanned again
// as it is decoded); the header and the items' lines are those of a small
// one.
func TestBigJSONListItemsNotRecorded(t *testing.T) {
	data := []byte("{\"kind\": \"List\", \"apiVersion\": \"v1\",\n \"items\": [\n  {\"kind\": \"Pod\", \"metadata\": {\"name\": \"a\"}},\n\n  {\"kind\": \"Pod\"}]}\n")
	read := func(maxFile int) (ObjectHeader, []int) {
		defer func(m int) { ItemMembersMaxFile = m }(ItemMembersMaxFile)
		ItemMembersMaxFile = maxFile
		docs, err := ReadDocuments("f.json", data)
		if err != nil || len(docs) != 1 {
			t.Fatalf("ReadDocuments: %v, %d documents", err, len(docs))
		}
		h := HeaderFromMembers(docs[0].JSON, docs[0].Members())
		lines, ok := docs[0].LinesAt(h.ItemOffs)
		if !ok {
			t.Fatal("no lines")
		}
		return h, lines
	}
	small, smallLines := read(len(data) + 1)
	big, bigLines := read(len(data))
	if len(small.ItemMembers) != 2 || big.ItemMembers != nil {
		t.Errorf("item members recorded: %d in a small stream, %d in a big one; want 2 and none", len(small.ItemMembers), len(big.ItemMembers))
	}
	if len(big.Items) != 2 || string(big.Items[0]) != string(small.Items[0]) || string(big.Items[1]) != string(small.Items[1]) {
		t.Errorf("items %q, want %q", big.Items, small.Items)
	}
	if len(bigLines) != 2 || bigLines[0] != 3 || bigLines[1] != 5 || smallLines[1] != 5 {
		t.Errorf("item lines %v (small %v), want [3 5]", bigLines, smallLines)
	}
}
