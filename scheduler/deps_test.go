package scheduler

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
)

// forbiddenDeps are the import path trees the scheduler core must not
// depend on, directly or transitively: it runs over an in-memory cluster,
// without client-go, without kubernetes internals, and without the TUI.
var forbiddenDeps = []string{
	"k8s.io/client-go",
	"k8s.io/kubernetes",
	"github.com/schedtui/schedtui/tui",
}

func isForbiddenDep(path string) bool {
	for _, p := range forbiddenDeps {
		if path == p || strings.HasPrefix(path, p+"/") {
			return true
		}
	}
	return false
}

// goTool returns the go command, from PATH or else from this toolchain's
// GOROOT.
func goTool() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	p := filepath.Join(runtime.GOROOT(), "bin", "go")
	if runtime.GOOS == "windows" {
		p += ".exe"
	}
	if _, err := exec.LookPath(p); err == nil {
		return p
	}
	return ""
}

// TestSchedulerDependencies runs `go list -deps ./...` in this directory
// (./scheduler/... from the module root) and fails for every forbidden
// package found, showing one import chain that leads to it.
func TestSchedulerDependencies(t *testing.T) {
	goCmd := goTool()
	if goCmd == "" {
		t.Skip("go tool not found")
	}
	cmd := exec.Command(goCmd, "list", "-deps", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", "./...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps ./...: %v\n%s", err, stderr.String())
	}

	// imports maps each listed package to its direct imports; roots are
	// the scheduler's own packages, in listing order.
	imports := map[string][]string{}
	var roots []string
	const self = "github.com/schedtui/schedtui/scheduler"
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		pkg := fields[0]
		imports[pkg] = fields[1:]
		if pkg == self || strings.HasPrefix(pkg, self+"/") {
			roots = append(roots, pkg)
		}
	}
	if len(roots) == 0 {
		t.Fatalf("go list -deps listed no package under %s:\n%s", self, out)
	}

	var bad []string
	for pkg := range imports {
		if isForbiddenDep(pkg) {
			bad = append(bad, pkg)
		}
	}
	if len(bad) == 0 {
		return
	}
	sort.Strings(bad)

	// Breadth-first from the roots, to show the shortest chain reaching
	// each forbidden package through allowed ones.
	parent := map[string]string{}
	seen := map[string]bool{}
	queue := append([]string(nil), roots...)
	for _, r := range roots {
		seen[r] = true
	}
	for len(queue) > 0 {
		pkg := queue[0]
		queue = queue[1:]
		if isForbiddenDep(pkg) {
			continue
		}
		for _, imp := range imports[pkg] {
			if !seen[imp] {
				seen[imp] = true
				parent[imp] = pkg
				queue = append(queue, imp)
			}
		}
	}
	var report strings.Builder
	for _, pkg := range bad {
		from, ok := parent[pkg]
		if !ok || isForbiddenDep(from) {
			continue // reached only through another forbidden package
		}
		chain := []string{pkg}
		for p := pkg; parent[p] != ""; p = parent[p] {
			chain = append(chain, parent[p])
		}
		for i, j := 0, len(chain)-1; i < j; i, j = i+1, j-1 {
			chain[i], chain[j] = chain[j], chain[i]
		}
		report.WriteString("\n  " + strings.Join(chain, "\n    -> "))
	}
	t.Errorf("the scheduler depends on %d forbidden package(s) (%s):\n  %s\nentry points:%s",
		len(bad), strings.Join(forbiddenDeps, ", "), strings.Join(bad, "\n  "), report.String())
}
