package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// runCmd runs a command with args and returns its stdout and stderr.
func runCmd(t *testing.T, cmd func() *cobra.Command, args ...string) (string, string, error) {
	t.Helper()
	c := cmd()
	var out, errOut bytes.Buffer
	c.SetOut(&out)
	c.SetErr(&errOut)
	c.SetArgs(args)
	err := c.Execute()
	return out.String(), errOut.String(), err
}

// cmdWant is what a command's run must show: an error containing
// errSubstr, or success with each of stdout and stderr in their streams
// and none of notStderr on stderr.
type cmdWant struct {
	stdout, stderr, notStderr []string
	errSubstr                 string
}

func checkCmd(t *testing.T, cmd func() *cobra.Command, args []string, w cmdWant) {
	t.Helper()
	out, errOut, err := runCmd(t, cmd, args...)
	if w.errSubstr != "" {
		if err == nil || !strings.Contains(err.Error(), w.errSubstr) {
			t.Fatalf("err = %v, want %q", err, w.errSubstr)
		}
		return
	}
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	for _, s := range w.stdout {
		if !strings.Contains(out, s) {
			t.Errorf("stdout lacks %q:\n%s", s, out)
		}
	}
	for _, s := range w.stderr {
		if !strings.Contains(errOut, s) {
			t.Errorf("stderr lacks %q:\n%s", s, errOut)
		}
	}
	for _, s := range w.notStderr {
		if strings.Contains(errOut, s) {
			t.Errorf("stderr has %q:\n%s", s, errOut)
		}
	}
}
