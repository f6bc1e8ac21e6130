package snapshot

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/schedtui/schedtui/internal/progress"
	"github.com/schedtui/schedtui/internal/scalegen"
)

// TestOpenReporting opens every layout Open reads, recordings included,
// and checks what the load reports: the bytes of the files read of all of
// them, never going back, some of the way within the files (not only as
// each ends: a single file has no other), all of them at the end; and the snapshot read as Open reads
// it.
func TestOpenReporting(t *testing.T) {
	dir := t.TempDir()
	demo, err := Open("../testdata/demo.yaml")
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	gzJSON := filepath.Join(dir, "demo.json.gz")
	if _, err := WriteFile(gzJSON, demo.Cluster, Header{}); err != nil {
		t.Fatal(err)
	}
	recYAML, _ := writeRecording(t, OutputFormat{}, -1)
	jsonGz, err := OutputFormatFor("r.json.gz")
	if err != nil {
		t.Fatal(err)
	}
	recJSON, _ := writeRecording(t, jsonGz, -1)
	// A List long enough that its items are decoded by several
	// goroutines.
	large, err := scalegen.Generate(20, 10*parallelMinItems, nil)
	if err != nil {
		t.Fatal(err)
	}
	largePath := write("large.json", large.Data)
	largeLoaded, err := Open(largePath)
	if err != nil {
		t.Fatal(err)
	}
	largePB := filepath.Join(dir, "large.pb")
	if _, err := WriteFile(largePB, largeLoaded.Cluster, Header{}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, path string }{
		{"YAML file", "../testdata/demo.yaml"},
		{"large protobuf List", largePB},
		{"gzipped JSON file", gzJSON},
		{"large JSON List", largePath},
		{"directory", "testdata/dir"},
		{"cluster-info dump", "testdata/cluster-info-dump"},
		{"simulator export", "testdata/simulator-export.json"},
		{"YAML recording", write("rec.yaml", recYAML)},
		{"gzipped JSON recording", write("rec.json.gz", recJSON)},
	} {
		t.Run(c.name, func(t *testing.T) {
			var reports [][2]int64
			o, err := OpenReporting(c.path, progress.Func(func(done, total int64) { reports = append(reports, [2]int64{done, total}) }))
			if err != nil {
				t.Fatal(err)
			}
			plain, err := Open(c.path)
			if err != nil {
				t.Fatal(err)
			}
			if len(o.Cluster.Objects()) != len(plain.Cluster.Objects()) || o.Format != plain.Format || len(o.Changes) != len(plain.Changes) ||
				o.Report.String() != plain.Report.String() {
				t.Fatalf("OpenReporting read %d objects, %d changes (%s), Open %d, %d (%s)",
					len(o.Cluster.Objects()), len(o.Changes), o.Format, len(plain.Cluster.Objects()), len(plain.Changes), plain.Format)
			}
			if len(reports) == 0 {
				t.Fatal("nothing reported")
			}
			total := reports[0][1]
			if want := sizeOf(t, c.path); total <= 0 || total > want {
				t.Fatalf("total %d bytes, want at most the %d under %s", total, want, c.path)
			}
			if fi, _ := os.Stat(c.path); !fi.IsDir() && total != fi.Size() {
				t.Errorf("total %d bytes, the file has %d", total, fi.Size())
			}
			inside := map[int64]bool{}
			for i, r := range reports {
				if r[1] != total {
					t.Fatalf("report %d: total %d, then %d", i, total, r[1])
				}
				if i > 0 && r[0] < reports[i-1][0] {
					t.Fatalf("report %d: %d bytes after %d", i, r[0], reports[i-1][0])
				}
				if r[0] > 0 && r[0] < total {
					inside[r[0]] = true
				}
			}
			if last := reports[len(reports)-1]; last[0] != total {
				t.Errorf("the last report is %d of %d bytes", last[0], total)
			}
			if len(inside) < 2 {
				t.Errorf("%d distinct reports between the start and the end: %v", len(inside), reports)
			}
		})
	}
}

// sizeOf is the bytes of the file at path, or of every file under it.
func sizeOf(t *testing.T, path string) int64 {
	var n int64
	err := filepath.WalkDir(path, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, err := d.Info()
		n += fi.Size()
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}
