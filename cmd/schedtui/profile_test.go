package main

import (
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunProfileFlags runs the demo with run's hidden measuring flags:
// both profiles are written (gzipped protocol buffers, as pprof writes
// them), the timings name every phase, and the flags stay
// out of run's help.
func TestRunProfileFlags(t *testing.T) {
	dir := t.TempDir()
	cpu, mem, timings := filepath.Join(dir, "cpu.pprof"), filepath.Join(dir, "heap.pprof"), filepath.Join(dir, "timings.json")
	out, errOut, err := runCmd(t, newRunCommand, "--demo", "-o", "json", "--cpuprofile", cpu, "--memprofile", mem, "--timings", timings)
	if err != nil {
		t.Fatalf("%v: %s", err, errOut)
	}
	if !strings.Contains(out, `"kind":"attempt"`) {
		t.Fatalf("no attempt written:\n%s", out)
	}
	for _, path := range []string{cpu, mem} {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(f)
		if err != nil {
			f.Close()
			t.Fatalf("%s: %v", path, err)
		}
		n, err := io.Copy(io.Discard, zr)
		f.Close()
		if err != nil || n == 0 {
			t.Errorf("%s: %d bytes, %v", path, n, err)
		}
	}
	b, err := os.ReadFile(timings)
	if err != nil {
		t.Fatal(err)
	}
	var rt RunTimings
	if err := json.Unmarshal(b, &rt); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	if rt.LoadSeconds <= 0 || rt.BuildSeconds <= 0 || rt.ScheduleSeconds <= 0 || rt.CPUSeconds <= 0 || rt.PeakRSSBytes == 0 {
		t.Errorf("timings %+v: every phase took some time", rt)
	}
	help, _, err := runCmd(t, newRunCommand, "--help")
	if err != nil {
		t.Fatal(err)
	}
	for _, flag := range []string{"--cpuprofile", "--memprofile", "--timings"} {
		if strings.Contains(help, flag) {
			t.Errorf("run --help shows the hidden %s", flag)
		}
	}
}
