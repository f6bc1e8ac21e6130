package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
	apiversion "k8s.io/apimachinery/pkg/version"

	"github.com/schedtui/schedtui/snapshot/live"
)

// version is set at build time: go build -ldflags "-X main.version=v1.2.3".
var version string

// The scheduler schedtui re-implements: kube-scheduler v1.37, with the
// behaviour of k8s.io/kubernetes v1.37.1 (what the conformance suite runs).
const (
	simulatedScheduler  = "kube-scheduler v1.37"
	simulatedKubernetes = "k8s.io/kubernetes v1.37.1"
)

// schedtuiVersion is the version recorded in captures: the build-time
// version, else the module version Go recorded, else "dev".
func schedtuiVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// versionInfo is what schedtui version prints (-o json|yaml).
type versionInfo struct {
	ClientVersion clientVersion `json:"clientVersion"`
	Scheduler     simulated     `json:"scheduler"`
	// ServerVersion is the live cluster's, when one was given.
	ServerVersion *serverVersion `json:"serverVersion,omitempty"`
}

type clientVersion struct {
	Version   string `json:"version"`
	GoVersion string `json:"goVersion"`
	Platform  string `json:"platform"`
}

type simulated struct {
	Simulates string `json:"simulates"`
	Behaviour string `json:"behaviour"`
}

type serverVersion struct {
	Context string `json:"context"`
	Host    string `json:"host"`
	apiversion.Info
}

func newVersionCommand() *cobra.Command {
	var src sourceFlags
	var output string
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print schedtui's version, the kube-scheduler it simulates, and the server's version with --kubeconfig/--context",
		Long: `version prints schedtui's own version, the kube-scheduler release whose
behaviour it re-implements, and, when a live cluster is named with
--kubeconfig or --context, that API server's version (only /version is read).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkOutput(output, "text", "json", "yaml"); err != nil {
				return err
			}
			v := versionInfo{
				ClientVersion: clientVersion{Version: schedtuiVersion(), GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH},
				Scheduler:     simulated{Simulates: simulatedScheduler, Behaviour: simulatedKubernetes},
			}
			if src.kubeconfig != "" || src.context != "" {
				lc, err := connectLive(live.Options{Kubeconfig: src.kubeconfig, Context: src.context})
				if err != nil {
					return fmt.Errorf("reading the server's version: %w", err)
				}
				info, err := lc.Client.Discovery().ServerVersion()
				if err != nil {
					return fmt.Errorf("reading the server's version from %s (context %s): %w", lc.Host, lc.Name, err)
				}
				v.ServerVersion = &serverVersion{Context: lc.Name, Host: lc.Host, Info: *info}
			}
			if output != "text" {
				return printObject(cmd.OutOrStdout(), v, output)
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "Client Version: %s (%s, %s)\n", v.ClientVersion.Version, v.ClientVersion.GoVersion, v.ClientVersion.Platform)
			fmt.Fprintf(w, "Simulates:      %s (%s behaviour)\n", v.Scheduler.Simulates, v.Scheduler.Behaviour)
			if s := v.ServerVersion; s != nil {
				fmt.Fprintf(w, "Server Version: %s (context %s, %s)\n", s.GitVersion, s.Context, s.Host)
			}
			return nil
		},
	}
	src.registerLive(cmd)
	cmd.Flags().StringVarP(&output, "output", "o", "text", "output format: text, json or yaml")
	return cmd
}
