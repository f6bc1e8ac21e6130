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
	checkDeps(t, listDeps(t, "./..."), isForbiddenDep, strings.Join(forbiddenDeps, ", "))
}

// corePackages are the scheduling core: the cycle, the engine, the queue,
// the framework and the attempt record. They reach plugins only through
// the registry that Options.Registry hands in (plugins.NewInTreeRegistry,
// which callers outside the core import) and through interfaces of the
// framework (e.g. framework.VolumeWriterPlugin, framework.BindFuncSetter).
var corePackages = []string{".", "./engine", "./queue", "./framework/...", "./record"}

const pluginsDir = "github.com/schedtui/schedtui/scheduler/plugins"

// pluginNames is the one package under plugins/ the core may import: the
// plugin names as constants (upstream's framework/plugins/names), which
// profiles and the engine refer to.
const pluginNames = pluginsDir + "/names"

func isPluginPackage(path string) bool {
	return (path == pluginsDir || strings.HasPrefix(path, pluginsDir+"/")) && path != pluginNames
}

// TestCoreImportsNoPlugin fails when a core package depends, directly or
// transitively, on a plugin package or on the plugin registry.
func TestCoreImportsNoPlugin(t *testing.T) {
	checkDeps(t, listDeps(t, corePackages...), isPluginPackage, "plugin packages other than "+pluginNames)
}

// listDeps runs `go list -deps` over patterns in this directory and
// returns each listed package's direct imports.
func listDeps(t *testing.T, patterns ...string) map[string][]string {
	t.Helper()
	goCmd := goTool()
	if goCmd == "" {
		t.Skip("go tool not found")
	}
	args := append([]string{"list", "-deps", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}"}, patterns...)
	cmd := exec.Command(goCmd, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v\n%s", strings.Join(patterns, " "), err, stderr.String())
	}
	imports := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if fields := strings.Fields(line); len(fields) > 0 {
			imports[fields[0]] = fields[1:]
		}
	}
	return imports
}

// checkDeps fails for every package in imports that forbidden matches,
// showing the shortest import chain reaching it from the scheduler's own
// packages through allowed ones.
func checkDeps(t *testing.T, imports map[string][]string, forbidden func(string) bool, what string) {
	t.Helper()
	// roots are the scheduler's own allowed packages, in sorted order.
	var roots []string
	const self = "github.com/schedtui/schedtui/scheduler"
	for pkg := range imports {
		if (pkg == self || strings.HasPrefix(pkg, self+"/")) && !forbidden(pkg) {
			roots = append(roots, pkg)
		}
	}
	if len(roots) == 0 {
		t.Fatalf("go list -deps listed no package under %s", self)
	}
	sort.Strings(roots)

	var bad []string
	for pkg := range imports {
		if forbidden(pkg) {
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
		if forbidden(pkg) {
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
		if !ok || forbidden(from) {
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
		len(bad), what, strings.Join(bad, "\n  "), report.String())
}
