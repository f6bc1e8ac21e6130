// Command schedtui is an interactive debugger for the Kubernetes scheduler.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := execute(ctx, commandName(os.Args[0]), os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

// execute runs the command line args as the command name. A command's
// output that could not be written (a full disk, a closed pipe) is an
// error, as any other: `schedtui explain ... > /dev/full` must not exit 0.
// The debugger itself (the root command) keeps the terminal as it is.
func execute(ctx context.Context, name string, args []string, stdout, stderr io.Writer) error {
	out := &outputWriter{w: stdout}
	root := newRootCommandAs(name, stdout, stderr)
	for _, c := range root.Commands() {
		c.SetOut(out)
	}
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil && out.err != nil {
		err = fmt.Errorf("writing the output: %w", out.err)
	}
	return err
}

// outputWriter keeps the first error writing to w; writes after it are
// dropped, so that a command stops producing what nobody can read.
type outputWriter struct {
	w   io.Writer
	err error
}

func (o *outputWriter) Write(p []byte) (int, error) {
	if o.err != nil {
		return 0, o.err
	}
	n, err := o.w.Write(p)
	if err != nil {
		o.err = err
	}
	return n, err
}

// commandName is how the binary was invoked: "kubectl schedtui" when it
// runs as the kubectl plugin kubectl-schedtui (kubectl runs the plugin
// binary under that name), else "schedtui".
func commandName(arg0 string) string {
	base := strings.TrimSuffix(filepath.Base(arg0), ".exe")
	if strings.HasPrefix(base, "kubectl-") {
		return pluginName
	}
	return "schedtui"
}
