package main

import (
	"io"

	"github.com/spf13/cobra"
)

// sourceFlags are the flags that say where the cluster state comes from.
type sourceFlags struct {
	snapshot string
	config   string
	seed     uint64
}

func (f *sourceFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.snapshot, "snapshot", "", "snapshot file to schedule against (default: the embedded demo)")
	cmd.Flags().StringVar(&f.config, "config", "", "KubeSchedulerConfiguration file, as kube-scheduler takes it")
	cmd.Flags().Uint64Var(&f.seed, "seed", 1, "seed of the random source (preemption's candidate offset)")
}

func newRootCommand(stdout, stderr io.Writer) *cobra.Command {
	var src sourceFlags
	root := &cobra.Command{
		Use:   "schedtui",
		Short: "Step through the Kubernetes scheduler's decisions, pod by pod and phase by phase",
		Long: `schedtui with no command opens the interactive debugger on the snapshot
(--snapshot FILE, default: the embedded demo). Press ? inside for the keys.`,
		Args:          cobra.NoArgs,
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return openTUI(&src, cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	// Local, not persistent: run and explain register the same names.
	src.register(root)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.AddCommand(newRunCommand(), newExplainCommand())
	return root
}
