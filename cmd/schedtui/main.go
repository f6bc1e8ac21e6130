// Command schedtui is an interactive debugger for the Kubernetes scheduler.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := newRootCommandAs(commandName(os.Args[0]), os.Stdout, os.Stderr).ExecuteContext(ctx)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
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
