package snapshot

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/schedtui/schedtui/internal/docread"
)

func TestFileBufferGivesBackWhatWasAdded(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("snapshot files are read into the heap here")
	}
	b := mapFileBuffer(48 << 20)
	if b == nil {
		t.Fatal("no fileBuffer")
	}
	defer b.free()
	for i := range b.data {
		b.data[i] = 1
	}
	b.releaseThrough(b.data[:1<<20])
	if b.released != 0 || b.data[0] != 1 {
		t.Fatalf("released %d bytes (data[0] %d) less than a step past the start", b.released, b.data[0])
	}
	b.releaseThrough([]byte("not in the buffer, an item copied"))
	if b.released != 0 {
		t.Fatalf("released %d bytes for a slice outside the buffer", b.released)
	}
	item := b.data[20<<20+5 : 20<<20+50]
	b.releaseThrough(item)
	if want := (20<<20 + 50) &^ (os.Getpagesize() - 1); b.released != want {
		t.Fatalf("released %d bytes, want %d (the pages before the item's end)", b.released, want)
	}
	if b.data[0] != 0 || b.data[b.released-1] != 0 {
		t.Errorf("the released pages still hold the file's bytes")
	}
	if b.data[b.released] != 1 || b.data[len(b.data)-1] != 1 {
		t.Errorf("pages past the item were released")
	}
}

// TestFileBufferLoadsAlike reads snapshots of every format into a
// fileBuffer that gives back each page as soon as the items before it are
// added, and through the heap: the clusters, reports and configurations
// must be the same (nothing the loader keeps may point into the file).
// Read into the fileBuffer, a JSON List's items are also read as in a big
// file: their members not recorded by the List's scan but scanned as each
// item is decoded.
func TestFileBufferLoadsAlike(t *testing.T) {
	dir := t.TempDir()
	paths := []string{"../testdata/demo.yaml", "../testdata/dra-gpus.yaml", "testdata/simulator-export.json"}
	demo, _, err := LoadFile("../testdata/demo.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"demo.json", "demo.pb", "demo.json.gz"} {
		p := filepath.Join(dir, name)
		if _, err := WriteFile(p, demo, Header{Source: "TestFileBufferLoadsAlike", SchedulerConfig: "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"}); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	defer func(size int64, step, members int) {
		fileBufferMinSize, fileBufferReleaseStep, docread.ItemMembersMaxFile = size, step, members
	}(fileBufferMinSize, fileBufferReleaseStep, docread.ItemMembersMaxFile)
	for _, p := range paths {
		fileBufferMinSize, docread.ItemMembersMaxFile = 1<<62, 1<<62
		heap, err := Open(p)
		if err != nil {
			t.Fatal(err)
		}
		fileBufferMinSize, fileBufferReleaseStep, docread.ItemMembersMaxFile = 1, 1, 0
		buffered, err := Open(p)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(heap, buffered) {
			t.Errorf("%s: read through a fileBuffer, the snapshot differs from the one read into the heap", p)
		}
		if len(heap.Cluster.Pods) == 0 {
			t.Errorf("%s: no pods read", p)
		}
	}
}

// TestMappedFileReadsAgainWhatWasDropped: a file mapped itself reads the
// same after its pages are given back (dropResident once it is scanned,
// releaseThrough behind the items added), where memory read into would
// read zeros.
func TestMappedFileReadsAgainWhatWasDropped(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("snapshot files are read into the heap here")
	}
	want := bytes.Repeat([]byte("0123456789abcdef"), 3<<20/16)
	p := filepath.Join(t.TempDir(), "big.json")
	if err := os.WriteFile(p, want, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	defer func(step int) { fileBufferReleaseStep = step }(fileBufferReleaseStep)
	fileBufferReleaseStep = 1
	b, err := readFileBuffer(f, want[:sniffSize], int64(len(want)))
	if err != nil || b == nil || !b.fileBacked {
		t.Fatalf("readFileBuffer: %v, %+v: want the file mapped", err, b)
	}
	defer b.free()
	b.releaseThrough(b.data[:1<<20])
	b.dropResident()
	if !bytes.Equal(b.data, want) {
		t.Errorf("the mapped file reads otherwise once its pages are given back")
	}
}

// TestMappedFileCutShort: a mapped snapshot file cut short by another
// program while it is loaded faults where it is read; the loader's
// goroutine and its workers turn that into the load's error, naming the
// file, instead of the process ending (SIGBUS).
func TestMappedFileCutShort(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("snapshot files are read into the heap here")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	for _, items := range []int{parallelMinItems / 2, 4 * parallelMinItems} {
		data := bytes.Repeat([]byte("0123456789abcdef"), items*4096/16)
		p := filepath.Join(t.TempDir(), "big.json")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		b, err := readFileBuffer(f, data[:sniffSize], int64(len(data)))
		f.Close()
		if err != nil || b == nil || !b.fileBacked {
			t.Fatalf("readFileBuffer: %v, %+v: want the file mapped", err, b)
		}
		if err := os.Truncate(p, 0); err != nil {
			t.Fatal(err)
		}
		read := make([]byte, items)
		err = func() (err error) {
			defer guardMappedFile(p, &err)()
			// Each item on a page of its own: read on the workers from
			// parallelMinItems items on, on this goroutine below.
			inOrder(items, func(i int) { read[i] = b.data[i*4096] }, func(int) {}, nil)
			return nil
		}()
		b.free()
		if err == nil || !strings.Contains(err.Error(), p+": cannot read file: it was cut short while it was loaded") {
			t.Errorf("%d items: error %v, want the file cut short", items, err)
		}
	}
}
