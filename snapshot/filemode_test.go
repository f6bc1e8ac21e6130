//go:build unix

package snapshot

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// withUmask runs f under umask mask (the process's: no test of this
// package runs in parallel).
func withUmask(t *testing.T, mask int, f func()) {
	t.Helper()
	old := syscall.Umask(mask)
	defer syscall.Umask(old)
	f()
}

func fileMode(t *testing.T, path string) fs.FileMode {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

// TestWrittenFileModes checks the modes of the files snapshot and record
// write: a new file's is 0666 less the umask, a replaced or truncated
// file keeps its own.
func TestWrittenFileModes(t *testing.T) {
	c, _ := mustLoad(t, "t.yaml", nodeN1+"---\n"+pod("p", ""))
	writeSnapshot := func(path string) {
		if _, err := WriteFile(path, c, Header{}); err != nil {
			t.Fatal(err)
		}
	}
	writeRecording := func(path string) {
		start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		rw, err := CreateRecording(path, c, Header{RecordingStarted: start})
		if err != nil {
			t.Fatal(err)
		}
		if err := rw.Close(start.Add(time.Second)); err != nil {
			t.Fatal(err)
		}
	}
	for _, w := range []struct {
		name  string
		write func(string)
	}{{"snapshot", writeSnapshot}, {"record", writeRecording}} {
		t.Run(w.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, tc := range []struct {
				umask    int
				existing fs.FileMode // 0: no file to replace
				want     fs.FileMode
			}{
				{umask: 0o022, want: 0o644},
				{umask: 0o002, want: 0o664},
				{umask: 0o077, want: 0o600},
				{umask: 0o027, want: 0o640},
				{umask: 0o022, existing: 0o600, want: 0o600},
				{umask: 0o077, existing: 0o664, want: 0o664},
			} {
				path := filepath.Join(dir, "out.yaml")
				os.Remove(path)
				if tc.existing != 0 {
					if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
						t.Fatal(err)
					}
					if err := os.Chmod(path, tc.existing); err != nil {
						t.Fatal(err)
					}
				}
				withUmask(t, tc.umask, func() { w.write(path) })
				if got := fileMode(t, path); got != tc.want {
					t.Errorf("umask %04o, replacing a file of mode %04o (0: none): wrote mode %04o, want %04o", tc.umask, tc.existing, got, tc.want)
				}
				if _, err := Open(path); err != nil {
					t.Errorf("reading the file back: %v", err)
				}
			}
			if left, _ := filepath.Glob(filepath.Join(dir, ".*.tmp")); len(left) != 0 {
				t.Errorf("temporary files left: %v", left)
			}
		})
	}
}
