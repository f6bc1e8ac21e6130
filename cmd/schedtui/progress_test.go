package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/schedtui/schedtui/scheduler/features"
	"github.com/schedtui/schedtui/scheduler/history"
)

// TestRunInterrupted cancels run -o json after its second attempt, as
// Ctrl-C does: every line written is a whole JSON object, the run stopped
// there, and the error says so.
func TestRunInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, err := load(ctx, &sourceFlags{demo: true}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	attempts := 0
	p := &runPrinter{json: true, keep: func(ev history.Event) bool {
		if ev.Kind == history.EventAttempt {
			if attempts++; attempts == 2 {
				cancel()
			}
		}
		return true
	}}
	var out bytes.Buffer
	err = s.stream(&out, 0, p)
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "interrupted after 2 attempt(s)") {
		t.Fatalf("err = %v, want it interrupted after 2 attempts", err)
	}
	written := 0
	for _, line := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
		var obj map[string]any
		if err := json.Unmarshal([]byte(line), &obj); err != nil {
			t.Fatalf("line %q is not a JSON object: %v", line, err)
		}
		if _, ok := obj["outcome"]; ok {
			written++
		}
	}
	if written != 2 {
		t.Errorf("%d attempts written, want 2:\n%s", written, out.String())
	}
}

// TestRunProgressLineOnlyOnATerminal: run draws its progress on stderr
// when stderr is a terminal and stdout is not, and clears it at the end.
func TestRunProgressLineOnlyOnATerminal(t *testing.T) {
	clock := time.Unix(0, 0)
	defer func(f func() time.Time, g func(io.Writer) bool) { progressClock, isTerminal = f, g }(progressClock, isTerminal)
	progressClock = func() time.Time { clock = clock.Add(time.Second); return clock }
	for _, c := range []struct {
		name                 string
		stderrTTY, stdoutTTY bool
		want                 bool
	}{
		{"stderr a terminal", true, false, true},
		{"neither a terminal", false, false, false},
		{"stdout a terminal too", true, true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			isTerminal = func(w io.Writer) bool { return w == &stderr && c.stderrTTY || w == &stdout && c.stdoutTTY }
			cmd := newRunCommand()
			cmd.SetOut(&stdout)
			cmd.SetErr(&stderr)
			cmd.SetArgs([]string{"--demo", "-o", "json"})
			if err := cmd.Execute(); err != nil {
				t.Fatal(err)
			}
			got := stderr.String()
			if has := strings.Contains(got, "\r\x1b[Kscheduling: 1/"); has != c.want {
				t.Fatalf("progress line shown: %v, want %v; stderr:\n%q", has, c.want, got)
			}
			if c.want && !strings.HasSuffix(got, "\r\x1b[K") {
				t.Errorf("the progress line is not cleared at the end: %q", got)
			}
			if strings.Contains(stdout.String(), "\r") {
				t.Error("the progress line went to stdout")
			}
		})
	}
}

// TestLoadInterrupted: Ctrl-C before or while a snapshot loads ends the
// command with an error saying so, not a half-loaded run.
func TestLoadInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := load(ctx, &sourceFlags{snapshot: "../../testdata/demo.yaml"}, io.Discard)
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "interrupted") {
		t.Fatalf("err = %v, want the load interrupted", err)
	}
}

// TestLiveSyncProgressLine: on a terminal a live sync's progress is one
// line rewritten in place, cleared before the summary line.
func TestLiveSyncProgressLine(t *testing.T) {
	fakeCluster(t)
	clock := time.Unix(0, 0)
	defer func(f func() time.Time, g func(io.Writer) bool) { progressClock, isTerminal = f, g }(progressClock, isTerminal)
	progressClock = func() time.Time { clock = clock.Add(time.Second); return clock }
	var stderr bytes.Buffer
	isTerminal = func(w io.Writer) bool { return w == &stderr }
	src, err := loadLive(context.Background(), &sourceFlags{context: "c1"}, runMode{}, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	src.stop()
	got := stderr.String()
	if !strings.Contains(got, "\r\x1b[Ksyncing c1: ") || !strings.Contains(got, " kinds (") {
		t.Errorf("no progress line on the terminal:\n%q", got)
	}
	if strings.Contains(got, "c1 [") {
		t.Errorf("status lines printed besides the progress line:\n%q", got)
	}
	if !strings.Contains(got, "\r\x1b[Kc1: synced 1 nodes, 1 pods") {
		t.Errorf("the progress line is not cleared before the summary:\n%q", got)
	}
}

// TestLoadProgressLine: on a terminal, loading a snapshot or a recording
// shows how far it is as one line rewritten in place, in MiB of the file,
// cleared before anything else is printed; into a file or a pipe nothing.
func TestLoadProgressLine(t *testing.T) {
	clock := time.Unix(0, 0)
	defer func(f func() time.Time, g func(io.Writer) bool) { progressClock, isTerminal = f, g }(progressClock, isTerminal)
	progressClock = func() time.Time { clock = clock.Add(time.Second); return clock }
	for _, path := range []string{"../../testdata/demo.yaml", "../../testdata/recording-stuck-pod.yaml"} {
		for _, tty := range []bool{true, false} {
			var stderr bytes.Buffer
			isTerminal = func(w io.Writer) bool { return tty && w == &stderr }
			src, err := loadSource(context.Background(), &sourceFlags{snapshot: path}, &stderr, false)
			if err != nil {
				t.Fatal(err)
			}
			src.stop()
			got := stderr.String()
			if !tty {
				if strings.Contains(got, "\r") {
					t.Errorf("%s: a progress line into a file:\n%q", path, got)
				}
				continue
			}
			if !strings.HasPrefix(got, "\r\x1b[Kloading "+path+": 0/1 MiB (0%)") || !strings.Contains(got, "\r\x1b[Kloading "+path+": 1/1 MiB (100%) · <1s left · Ctrl-C stops") {
				t.Errorf("%s: no progress line from the start to the end of the load:\n%q", path, got)
			}
			if clearedAt, lastDrawn := strings.LastIndex(got, "\r\x1b[K"), strings.LastIndex(got, "\r\x1b[Kloading "); clearedAt <= lastDrawn {
				t.Errorf("%s: the progress line is not cleared:\n%q", path, got)
			}
		}
	}
}

// TestLoadInterruptedClearsLine: Ctrl-C while the load's line is shown
// clears it before the command fails. The snapshot is a named pipe, so
// that the load waits in its read until the test ends it.
func TestLoadInterruptedClearsLine(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "snapshot.yaml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	clock, calls := time.Unix(0, 0), 0
	defer func(f func() time.Time, g func(io.Writer) bool) { progressClock, isTerminal = f, g }(progressClock, isTerminal)
	progressClock = func() time.Time {
		// The first call starts the line, the second draws it: Ctrl-C
		// comes as it is drawn.
		if calls++; calls == 2 {
			cancel()
		}
		clock = clock.Add(time.Second)
		return clock
	}
	var stderr bytes.Buffer
	isTerminal = func(w io.Writer) bool { return w == &stderr }
	_, err := openSnapshot(ctx, fifo, features.Default(), &stderr)
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "interrupted while loading") {
		t.Fatalf("err = %v, want the load interrupted", err)
	}
	if got, want := stderr.String(), "\r\x1b[Kloading "+fifo+": 0 MiB · Ctrl-C stops\r\x1b[K"; got != want {
		t.Errorf("stderr %q, want the line shown then cleared: %q", got, want)
	}
	// Let the load, left running, end.
	w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
}
