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
			whole, wholeErr := ReadDocuments("f.yaml", []byte(c.text))
			saved, savedPart := listInPartsMinBytes, listPartBytes
			listInPartsMinBytes, listPartBytes = 0, 1
			defer func() { listInPartsMinBytes, listPartBytes = saved, savedPart }()
			_, inParts := convertListInParts([]byte(c.text), nil)
			if inParts != c.inParts {
				t.Errorf("converted in parts: %v, want %v", inParts, c.inParts)
			}
			var reports []int
			parts, partsErr := ReadDocumentsReporting("f.yaml", []byte(c.text), func(done, total int) {
				if total != len(c.text) {
					t.Errorf("total %d, want %d", total, len(c.text))
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
			if len(reports) == 0 || reports[len(reports)-1] != len(c.text) {
				t.Errorf("reports %v, want the last at %d", reports, len(c.text))
			}
			for i := 1; i < len(reports); i++ {
				if reports[i] < reports[i-1] {
					t.Errorf("reports go back: %v", reports)
				}
			}
			if entries := strings.Count(c.text, "\n- "); c.inParts && len(reports) < entries {
				t.Errorf("%d reports for %d entries converted one at a time: %v", len(reports), entries, reports)
			}
		})
	}
}
