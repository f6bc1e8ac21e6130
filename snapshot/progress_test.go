package snapshot

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/schedtui/schedtui/internal/docread"
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
	// A YAML List long enough that it is converted to JSON in parts.
	largeYAML := filepath.Join(dir, "large.yaml")
	if _, err := WriteFile(largeYAML, largeLoaded.Cluster, Header{}); err != nil {
		t.Fatal(err)
	}
	// Converted in parts, it is the JSON the whole document converts to.
	largeYAMLData, err := os.ReadFile(largeYAML)
	if err != nil {
		t.Fatal(err)
	}
	docs, err := docread.ReadDocuments(largeYAML, largeYAMLData)
	if err != nil {
		t.Fatal(err)
	}
	whole, err := yaml.YAMLToJSONStrict(largeYAMLData)
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 1 || !bytes.Equal(docs[0].JSON, whole) {
		t.Fatalf("%d documents; the List's JSON differs from its whole conversion's", len(docs))
	}
	for _, c := range []struct {
		name, path string
		// converting is the distinct reports wanted while the file is
		// converted from YAML, before any object is added.
		converting int
	}{
		{"YAML file", "../testdata/demo.yaml", 0},
		{"large YAML List", largeYAML, 4},
		{"large protobuf List", largePB, 0},
		{"gzipped JSON file", gzJSON, 0},
		{"large JSON List", largePath, 0},
		{"directory", "testdata/dir", 0},
		{"cluster-info dump", "testdata/cluster-info-dump", 0},
		{"simulator export", "testdata/simulator-export.json", 0},
		{"YAML recording", write("rec.yaml", recYAML), 0},
		{"gzipped JSON recording", write("rec.json.gz", recJSON), 0},
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
			converting := map[int64]bool{}
			for r := range inside {
				if float64(r) < float64(total)*yamlConversionShare {
					converting[r] = true
				}
			}
			if len(converting) < c.converting {
				t.Errorf("%d distinct reports while converting YAML, want at least %d: %v", len(converting), c.converting, reports)
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
