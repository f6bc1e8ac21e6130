package snapshot

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSymlinksInSnapshotDirectory: links are followed within the
// directory (a ConfigMap mounted as a volume: files linked into a hidden
// directory), the directory itself may be a link, and a link out of it, a
// dangling one and a loop are refused by name.
func TestSymlinksInSnapshotDirectory(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "snap")
	link := func(target, name string) {
		t.Helper()
		if err := os.Symlink(target, name); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(dir, "..2026_11_27_10_00_00.1", "nodes.yaml"), []byte("apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n"))
	link("..2026_11_27_10_00_00.1", filepath.Join(dir, "..data"))
	link("..data/nodes.yaml", filepath.Join(dir, "nodes.yaml"))
	writeFile(t, filepath.Join(dir, "pods", "web.yaml"), []byte(pod("web", "  nodeName: n1\n")))
	link("pods", filepath.Join(dir, "pods-again"))
	link(".", filepath.Join(dir, "pods", "loop"))
	writeFile(t, filepath.Join(base, "elsewhere.yaml"), []byte("apiVersion: v1\nkind: Node\nmetadata:\n  name: n9\n"))
	link("../elsewhere.yaml", filepath.Join(dir, "elsewhere.yaml"))
	link("missing.yaml", filepath.Join(dir, "dangling.yaml"))
	link("snap", filepath.Join(base, "current"))

	for _, open := range []string{dir, filepath.Join(base, "current")} {
		o, err := Open(open)
		if err != nil {
			t.Fatalf("Open(%s): %v", open, err)
		}
		if got := nodeNames(o.Cluster); strings.Join(got, ",") != "n1" || len(o.Cluster.Pods) != 1 {
			t.Errorf("Open(%s): nodes %v, %d pods", open, got, len(o.Cluster.Pods))
		}
		for _, want := range []string{
			"dangling.yaml: a symbolic link that cannot be followed",
			"elsewhere.yaml: a symbolic link to " + filepath.Join(base, "elsewhere.yaml") + ", outside the snapshot directory",
			filepath.Join("pods", "loop") + ": a directory read already",
			"pods-again: a directory read already",
		} {
			if !strings.Contains(o.Report.String(), want) {
				t.Errorf("Open(%s): missing %q in:\n%s", open, want, o.Report)
			}
		}
	}
}
