package main

import (
	"bytes"
	"context"
	"errors"
	"syscall"
	"testing"
)

// fullWriter fails every write, as /dev/full does.
type fullWriter struct{}

func (fullWriter) Write([]byte) (int, error) { return 0, syscall.ENOSPC }

// TestOutputNotWrittenIsAnError: a command whose output cannot be written
// fails, for text and JSON alike (some commands report the write
// themselves, explain's text and version do not); the same command with
// room succeeds.
func TestOutputNotWrittenIsAnError(t *testing.T) {
	for _, args := range [][]string{
		{"version"},
		{"explain", "--demo", "default/analytics"},
		{"explain", "--demo", "default/analytics", "-o", "json"},
		{"run", "--demo"},
	} {
		var stderr bytes.Buffer
		err := execute(context.Background(), "schedtui", args, fullWriter{}, &stderr)
		if err == nil || !errors.Is(err, syscall.ENOSPC) {
			t.Errorf("%v to a full disk: err = %v, want the write's error", args, err)
		}
		var out bytes.Buffer
		if err := execute(context.Background(), "schedtui", args, &out, &stderr); err != nil || out.Len() == 0 {
			t.Errorf("%v: err = %v, %d bytes written", args, err, out.Len())
		}
	}
}
