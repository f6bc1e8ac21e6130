package snapshot

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

const oneNode = `{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1"}}`

// TestOpenRefusesWhatNeverEnds: a device given as the snapshot is refused
// at once, by what it is, instead of being read forever; a pipe is read
// (--snapshot /dev/stdin), as far as MaxSnapshotSize.
func TestOpenRefusesWhatNeverEnds(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err == nil {
		start := time.Now()
		_, err := Open("/dev/zero")
		if err == nil || !strings.Contains(err.Error(), "/dev/zero: cannot read a character device: a snapshot is a regular file, a pipe or a directory") {
			t.Errorf("Open(/dev/zero) = %v, want it refused as a character device", err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("Open(/dev/zero) took %v", d)
		}
	}
	fifo := filepath.Join(t.TempDir(), "snap.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	write := func(data string) {
		go func() {
			f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
			if err != nil {
				return
			}
			defer f.Close()
			_, _ = f.WriteString(data)
		}()
	}
	write(oneNode)
	if o, err := Open(fifo); err != nil || len(o.Cluster.Nodes) != 1 {
		t.Errorf("Open(a pipe) = %v", err)
	}
	defer func(old int64) { MaxSnapshotSize = old }(MaxSnapshotSize)
	MaxSnapshotSize = 1 << 10
	write(oneNode + strings.Repeat(" ", 4<<10))
	if _, err := Open(fifo); err == nil || !strings.Contains(err.Error(), "over the 1 KiB limit") {
		t.Errorf("Open(a pipe past the limit) = %v", err)
	}
}

// TestEndlessBinaryPipeRefused: a pipe of endless binary data (cat
// /dev/zero, /dev/urandom) is refused after its first bytes, not after
// MaxSnapshotSize of them are in memory; text that is not UTF-8 is not
// binary.
func TestEndlessBinaryPipeRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		fill func([]byte)
		want string
	}{
		{"zeros", func([]byte) {}, "binary data (NUL bytes)"},
		{"random", func(b []byte) { _, _ = rand.Read(b) }, "binary data (NUL bytes)"},
	} {
		fifo := filepath.Join(t.TempDir(), "snap.json")
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Fatal(err)
		}
		go func() {
			f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
			if err != nil {
				return
			}
			defer f.Close()
			chunk := make([]byte, 1<<20)
			tc.fill(chunk)
			for {
				if _, err := f.Write(chunk); err != nil {
					return // the reader closed the pipe
				}
			}
		}()
		start := time.Now()
		_, err := Open(fifo)
		if err == nil || !strings.Contains(err.Error(), "not a snapshot: "+tc.want) {
			t.Errorf("%s: Open(an endless pipe) = %v, want %q", tc.name, err, tc.want)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s: Open(an endless pipe) took %v", tc.name, d)
		}
	}
	if what := binaryData([]byte("{\"a\": \"caf\xe9\"}")); what != "" {
		t.Errorf("binaryData(text not UTF-8) = %q, want it left to the decoders", what)
	}
	if what := binaryData([]byte{0x1f, 0x8b, 0, 0}); what != "" {
		t.Errorf("binaryData(gzip) = %q", what)
	}
}

// TestGzipBombRefused: gzip data expanding far beyond what objects do is
// refused before it is all in memory.
func TestGzipBombRefused(t *testing.T) {
	bomb := gz(t, oneNode+"\n"+strings.Repeat(" ", 64<<20))
	_, _, err := Load("bomb.json.gz", bomb)
	if err == nil || !strings.Contains(err.Error(), "refused as a gzip bomb") {
		t.Fatalf("Load(bomb) = %v, want it refused as a gzip bomb", err)
	}
	// Objects compress well, but not that well.
	var many bytes.Buffer
	for i := range 2000 {
		fmt.Fprintf(&many, `{"apiVersion":"v1","kind":"Node","metadata":{"name":"node-%d","labels":{"zone":"z%d"}}}`+"\n", i, i%7)
	}
	c, _, err := Load("many.json.gz", gz(t, many.String()))
	if err != nil || len(c.Nodes) != 2000 {
		t.Fatalf("Load(2000 nodes, gzipped) = %v", err)
	}
}

// TestMaxSnapshotSize: files, gzip expansion and a directory's files
// together are held to MaxSnapshotSize, with a message naming the flag.
func TestMaxSnapshotSize(t *testing.T) {
	defer func(old int64) { MaxSnapshotSize = old }(MaxSnapshotSize)
	MaxSnapshotSize = 1 << 10
	dir := t.TempDir()
	big := []byte(oneNode + strings.Repeat(" ", 2<<10))
	writeFile(t, filepath.Join(dir, "big.json"), big)
	writeFile(t, filepath.Join(dir, "big.json.gz"), gz(t, string(big)))
	for _, name := range []string{"big.json", "big.json.gz"} {
		_, err := Open(filepath.Join(dir, name))
		if err == nil || !strings.Contains(err.Error(), "over the 1 KiB limit of what a snapshot may hold (--max-snapshot-size)") {
			t.Errorf("Open(%s) = %v, want it over the limit", name, err)
		}
	}
	// Each file fits, not both.
	parts := t.TempDir()
	half := []byte(oneNode + strings.Repeat(" ", 600))
	writeFile(t, filepath.Join(parts, "a.json"), half)
	writeFile(t, filepath.Join(parts, "b.json"), bytes.Replace(half, []byte("n1"), []byte("n2"), 1))
	o, err := Open(parts)
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Cluster.Nodes) != 1 || !strings.Contains(o.Report.String(), "b.json: the file is 658 bytes and the snapshot's files read before it 658 bytes, over the 1 KiB limit") {
		t.Errorf("a directory over the limit: %d nodes, report:\n%s", len(o.Cluster.Nodes), o.Report)
	}
	MaxSnapshotSize = DefaultMaxSnapshotSize
	if o, err := Open(filepath.Join(dir, "big.json")); err != nil || len(o.Cluster.Nodes) != 1 {
		t.Errorf("Open(big.json) under the default limit = %v", err)
	}
}

// TestGzipTrailingBytes: gzip members one after the other are one stream,
// zeros after the data are padding, anything else is named as trailing
// garbage (not as a truncated file).
func TestGzipTrailingBytes(t *testing.T) {
	one := gz(t, oneNode)
	two := append(append([]byte{}, one...), gz(t, strings.Replace(oneNode, "n1", "n2", 1))...)
	if c, _, err := Load("two.json.gz", two); err != nil || len(c.Nodes) != 2 {
		t.Errorf("two gzip members: %v", err)
	}
	if c, _, err := Load("padded.json.gz", append(append([]byte{}, one...), make([]byte, 512)...)); err != nil || len(c.Nodes) != 1 {
		t.Errorf("gzip padded with zeros: %v", err)
	}
	_, _, err := Load("garbage.json.gz", append(append([]byte{}, one...), "garbage"...))
	want := "garbage.json.gz: trailing garbage: the gzip data ends at byte " + strconv.Itoa(len(one)) + ", and the 7 bytes after it are not gzip data"
	if err == nil || err.Error() != want {
		t.Errorf("gzip with trailing garbage: %v, want %s", err, want)
	}
}
