package docread

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// TestYAMLListInParts reads documents converted in parts and whole and
// checks that they read the same: the same JSON, lines, warnings and
// errors; and that the well-formed Lists were indeed converted in parts.
func TestYAMLListInParts(t *testing.T) {
	const list = "apiVersion: v1\nkind: List\nmetadata:\n  resourceVersion: \"\"\nitems:\n"
	for _, c := range []struct {
		name, text string
		inParts    bool
	}{
		{"list", list + "- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: a\n- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: b\n    labels: {x: \"<&>\"}\n", true},
		{"items first, keys after", "items:\n# comment\n- a: 1\n  b:\n  - x\n\n-   c: |\n      text\n      - not an entry\n- null\n-\n  d: 2.50\nkind: List\napiVersion: v1\n", true},
		{"indented entries", "kind: List\nitems:\n  - a: 1\n  - b: [1, 2]\n# end\nz: true\n", true},
		{"CRLF", "kind: List\r\nitems:\r\n- a: 1\r\n- b: 2\r\n", true},
		{"anchor used by a later entry", list + "- &p {a: 1}\n- *p\n", false},
		{"anchor of the mapping used by an entry", "metadata: &m {a: 1}\nitems:\n- *m\n", false},
		{"alias in the mapping after the entries", "metadata: &a {x: 1}\nitems:\n- &a {y: 2}\nkind: *a\n", false},
		{"anchor within one entry", list + "- a: &x 1\n  b: *x\n- c: 2\n", true},
		{"duplicate key in an entry", list + "- a: 1\n  a: 2\n- b: 1\n", false},
		{"duplicate items", list + "- a: 1\nitems:\n- b: 1\n", false},
		{"syntax error in an entry", list + "- a: 1\n- b: [1\n- c: 1\n", false},
		{"no JSON for an entry", list + "- a: .nan\n", false},
		{"flow items", "kind: List\nitems: [{a: 1}]\n", false},
		{"no items", "kind: Pod\nmetadata: {name: a}\n", false},
		{"quoted string over the sequence", "a: \"x\nitems:\n- y\"\n", false},
		{"tab-indented entry content", list + "- a: 1\n\tb: 2\n", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			inParts, reports := readInParts(t, c.text)
			if inParts != c.inParts {
				t.Errorf("converted in parts: %v, want %v", inParts, c.inParts)
			}
			if len(reports) == 0 || reports[len(reports)-1] != len(c.text) {
				t.Errorf("reports %v, want the last at %d", reports, len(c.text))
			}
			if entries := strings.Count(c.text, "\n- "); c.inParts && len(reports) < entries {
				t.Errorf("%d reports for %d entries converted one at a time: %v", len(reports), entries, reports)
			}
		})
	}
}

// FuzzYAMLListInParts checks that a YAML stream reads the same converted in
// parts of one entry as whole (see readInParts).
func FuzzYAMLListInParts(f *testing.F) {
	for _, s := range []string{
		"kind: List\nitems:\n- a: 1\n- b: [1, 2]\n",
		"items:\n  - &a {x: 1}\n  - *a\nz: *a\n",
		"a: |\n  items:\n  - x\nitems:\n- \"q\n- r\"\n---\nitems:\n-\n - 1\n",
		"metadata: &a {x: 1}\nitems:\n- &a {y: 2}\nkind: *a\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) { readInParts(t, text) })
}

// readInParts reads text with every long List converted in parts of one
// entry, and whole, and checks that both read the same: the same
// documents (JSON, lines, warnings, errors) or the same error; and that
// the reports of the conversion never go back nor past text's length.
// inParts is whether convertListInParts takes text as one document.
func readInParts(t *testing.T, text string) (inParts bool, reports []int) {
	t.Helper()
	whole, wholeErr := ReadDocuments("f.yaml", []byte(text))
	saved, savedPart := listInPartsMinBytes, listPartBytes
	listInPartsMinBytes, listPartBytes = 0, 1
	defer func() { listInPartsMinBytes, listPartBytes = saved, savedPart }()
	_, inParts = convertListInParts([]byte(text), nil)
	parts, partsErr := ReadDocumentsReporting("f.yaml", []byte(text), func(done, total int) {
		if total != len(text) {
			t.Errorf("total %d, want %d", total, len(text))
		}
		reports = append(reports, done)
	})
	if fmt.Sprint(wholeErr) != fmt.Sprint(partsErr) {
		t.Fatalf("whole: %v; in parts: %v", wholeErr, partsErr)
	}
	if len(whole) != len(parts) {
		t.Fatalf("%d documents whole, %d in parts", len(whole), len(parts))
	}
	for i := range whole {
		w, p := whole[i], parts[i]
		if string(w.JSON) != string(p.JSON) || w.Line != p.Line || fmt.Sprint(w.Err) != fmt.Sprint(p.Err) || !reflect.DeepEqual(w.Warnings, p.Warnings) {
			t.Errorf("document %d whole: %s line %d %v %v\nin parts: %s line %d %v %v", i, w.JSON, w.Line, w.Err, w.Warnings, p.JSON, p.Line, p.Err, p.Warnings)
		}
	}
	for i, r := range reports {
		if i > 0 && r < reports[i-1] || r > len(text) {
			t.Errorf("reports go back or past the end (%d): %v", len(text), reports)
		}
	}
	return inParts, reports
}
