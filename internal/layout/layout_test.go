// Package layout holds one test: the Layout table of ARCHITECTURE.md is the
// map of the tree, and the tree keeps to it.
package layout

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/schedtui/schedtui"

// row is one line of the Layout table: a package path (or a subtree,
// "x/..."), and the module packages it may import.
type row struct {
	path    string
	mayUse  []string
	nested  bool // a nested module, outside `go list ./...`
	matched bool
}

var codeSpan = regexp.MustCompile("`([^`]+)`")

// layoutDoc is the file whose "## Layout" section holds the table.
const layoutDoc = "ARCHITECTURE.md"

// readLayout parses the table under "## Layout" in layoutDoc.
func readLayout(t *testing.T, doc []byte) []*row {
	t.Helper()
	var rows []*row
	in := false
	sc := bufio.NewScanner(bytes.NewReader(doc))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "## ") {
			in = line == "## Layout"
			continue
		}
		if !in || !strings.HasPrefix(line, "| `") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if len(cells) != 3 {
			t.Fatalf("%s: Layout row has %d cells, want 3 (path, holds, may import): %s", layoutDoc, len(cells), line)
		}
		path := strings.Trim(strings.TrimSpace(cells[0]), "`")
		r := &row{path: strings.TrimSuffix(path, "/"), nested: strings.HasSuffix(path, "/") && !strings.HasSuffix(path, "/...")}
		for _, m := range codeSpan.FindAllStringSubmatch(cells[2], -1) {
			r.mayUse = append(r.mayUse, m[1])
		}
		rows = append(rows, r)
	}
	if len(rows) == 0 {
		t.Fatalf("%s has no Layout table (a \"## Layout\" section with rows \"| `path` | ...\")", layoutDoc)
	}
	return rows
}

// covers reports whether pattern ("x" or "x/...") names pkg.
func covers(pattern, pkg string) bool {
	if base, ok := strings.CutSuffix(pattern, "/..."); ok {
		return pkg == base || strings.HasPrefix(pkg, base+"/")
	}
	return pattern == pkg
}

// rowFor is the most specific row naming pkg: its exact path, else the
// longest subtree that holds it.
func rowFor(rows []*row, pkg string) *row {
	var best *row
	for _, r := range rows {
		if r.nested || !covers(r.path, pkg) {
			continue
		}
		if r.path == pkg {
			return r
		}
		if best == nil || len(r.path) > len(best.path) {
			best = r
		}
	}
	return best
}

// TestLayoutMatchesTree checks ARCHITECTURE.md's Layout table against `go list
// ./...`: every package has a row, every row names a package (or a nested
// module that exists), and every import of a module package is one its
// row allows.
func TestLayoutMatchesTree(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join(root, layoutDoc))
	if err != nil {
		t.Fatal(err)
	}
	rows := readLayout(t, doc)

	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", "./...")
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list ./...: %v\n%s", err, stderr.String())
	}
	var problems []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(strings.TrimPrefix(fields[0], module), "/")
		r := rowFor(rows, pkg)
		if r == nil {
			problems = append(problems, fmt.Sprintf("package %s has no row in %s's Layout table", pkg, layoutDoc))
			continue
		}
		r.matched = true
		for _, imp := range fields[1:] {
			if !strings.HasPrefix(imp, module+"/") {
				continue
			}
			dep := strings.TrimPrefix(imp, module+"/")
			// ./... leaves out directories named testdata; the embedded
			// demo's package is known by its importers.
			if d := rowFor(rows, dep); d != nil {
				d.matched = true
			}
			allowed := false
			for _, m := range r.mayUse {
				allowed = allowed || covers(m, dep)
			}
			if !allowed {
				problems = append(problems, fmt.Sprintf("%s imports %s, which its Layout row (%s) does not allow", pkg, dep, r.path))
			}
		}
	}
	for _, r := range rows {
		if r.nested {
			if _, err := os.Stat(filepath.Join(root, r.path, "go.mod")); err != nil {
				problems = append(problems, fmt.Sprintf("Layout row %s/ names a nested module that is not there", r.path))
			}
			continue
		}
		if !r.matched {
			problems = append(problems, fmt.Sprintf("Layout row %s names no package of the tree", r.path))
		}
	}
	sort.Strings(problems)
	for _, p := range problems {
		t.Error(p)
	}
}

// TestLayoutRules checks the matching the test above relies on.
func TestLayoutRules(t *testing.T) {
	rows := []*row{{path: "scheduler/plugins/..."}, {path: "scheduler/plugins/names"}, {path: "scheduler"}, {path: "e2e", nested: true}}
	for pkg, want := range map[string]string{
		"scheduler/plugins/noderesources": "scheduler/plugins/...",
		"scheduler/plugins":               "scheduler/plugins/...",
		"scheduler/plugins/names":         "scheduler/plugins/names",
		"scheduler":                       "scheduler",
		"scheduler/queue":                 "",
		"e2e":                             "",
	} {
		got := ""
		if r := rowFor(rows, pkg); r != nil {
			got = r.path
		}
		if got != want {
			t.Errorf("rowFor(%s) = %q, want %q", pkg, got, want)
		}
	}
	if covers("scheduler/plugins/...", "scheduler/pluginsx") {
		t.Error("a subtree pattern must not match a sibling with the same prefix")
	}
}

// TestArchitecturePaths checks that every file or package ARCHITECTURE.md's
// prose names (a code span with a "/" or ending in ".go", outside the
// Layout section) is in the tree, read from the repository root or, for
// the core's own files, from scheduler/.
func TestArchitecturePaths(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join(root, "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	// Code spans pair within a line; fenced blocks are a drawing. The
	// Layout section names package patterns (x/...), nested modules (x/)
	// and other modules' packages: TestLayoutMatchesTree checks its paths.
	var prose strings.Builder
	fenced, layout := false, false
	for _, line := range strings.Split(string(doc), "\n") {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
			continue
		}
		if strings.HasPrefix(line, "## ") {
			layout = line == "## Layout"
		}
		if !fenced && !layout {
			prose.WriteString(line + "\n")
		}
	}
	named := 0
	for _, m := range codeSpan.FindAllStringSubmatch(prose.String(), -1) {
		p := m[1]
		if strings.ContainsAny(p, " :") || !(strings.Contains(p, "/") || strings.HasSuffix(p, ".go")) {
			continue
		}
		named++
		found := false
		for _, dir := range []string{root, filepath.Join(root, "scheduler")} {
			if _, err := os.Stat(filepath.Join(dir, p)); err == nil {
				found = true
			}
		}
		if !found {
			t.Errorf("ARCHITECTURE.md names %s, which is not in the tree", p)
		}
	}
	if named < 20 {
		t.Errorf("ARCHITECTURE.md names only %d paths; the check reads it wrong", named)
	}
}
