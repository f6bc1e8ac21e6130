package snapshot

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
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
