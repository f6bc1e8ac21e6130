package snapshot

import (
	"errors"
	"strings"
	"testing"
)

// TestOneLineListNamesItems: in a List on one line every problem names
// its item; where each item has its own line, the line does.
func TestOneLineListNamesItems(t *testing.T) {
	oneLine := `{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"Node","metadata":{"name":"a"}},{},` +
		`{"apiVersion":"v1","kind":"NodeList","items":[{"metadata":{"name":"b"}},{"metadata":{"name":"c"},"status":{"capacity":{"cpu":"-1"}}}]}]}`
	_, r := mustLoad(t, "one.json", oneLine)
	for _, want := range []string{
		"one.json:1: items[1]: kind: Required value: every object needs apiVersion and kind",
		"one.json:1: items[2].items[1]: Node c: status.capacity.cpu: Invalid value",
	} {
		if !strings.Contains(r.String(), want) {
			t.Errorf("missing %q in:\n%s", want, r)
		}
	}
	multiLine := strings.ReplaceAll(oneLine, "},{", "},\n{")
	_, r = mustLoad(t, "lines.json", multiLine)
	if !strings.Contains(r.String(), "lines.json:2: kind: Required value") {
		t.Errorf("a List whose items have their own lines:\n%s", r)
	}
}

// TestNothingLoaded: a snapshot from which no object loads is an error
// (the command exits non-zero), naming the first problems; one that
// holds no objects on purpose, an empty List, loads.
func TestNothingLoaded(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, tc := range []struct{ name, data, want string }{
		{"empty.yaml", "", "empty.yaml: no objects to load: it is empty, or holds nothing but comments"},
		{"comments.yaml", "# nothing\n---\n", "comments.yaml: no objects to load"},
		{"bad.json", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"x"},"spec":{}}`,
			"bad.json: nothing loaded:\n  bad.json:1: Pod default/x: spec.containers: Required value"},
		{"many.json", `{"apiVersion":"v1","kind":"List","items":[` + strings.Repeat("{},", 1500) + `{}]}`,
			"  many.json:1: items[9]: kind: Required value: every object needs apiVersion and kind\n  (and 1491 more errors)"},
	} {
		writeFile(t, tc.name, []byte(tc.data))
		_, err := Open(tc.name)
		var nl *NothingLoadedError
		if !errors.As(err, &nl) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Open(%s) = %v, want a NothingLoadedError with %q", tc.name, err, tc.want)
		}
	}
	writeFile(t, "none.json", []byte(`{"apiVersion":"v1","kind":"List","items":[]}`))
	if _, err := Open("none.json"); err != nil {
		t.Errorf("an empty List: %v", err)
	}
}
