package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/schedtui/schedtui/snapshot"
	"github.com/schedtui/schedtui/snapshot/live"
	"github.com/schedtui/schedtui/tui"
)

// sourceFlags are the flags that say where the cluster state comes from.
type sourceFlags struct {
	snapshot   string
	config     string
	seed       uint64
	kubeconfig string
	context    string
	demo       bool
	bind       bool
	// simulate: on a recording (or a live cluster in the debugger),
	// schedtui schedules every pod itself instead of shadowing the
	// cluster's scheduler.
	simulate bool
	// compareWith: the debugger's compare mode, with this second side
	// (compare's side syntax).
	compareWith string
	// compare: schedtui compare, two sides from the same state (a
	// recording is simulated: in shadow mode schedtui schedules nothing).
	compare bool
	// recordOnly: the scheduler configuration a snapshot carries is only
	// recorded (schedtui snapshot), so loading says nothing about using it.
	recordOnly bool
	// skipExtenders leaves the configuration's scheduler extenders out.
	skipExtenders bool
	// gates are kube-scheduler's version and feature gate flags.
	gates gateFlags
	// keepDetail: the debugger keeps the last keepDetail attempts whole
	// (tui.Backend.Retain).
	keepDetail int
	// scenario replaces the demo's snapshot, and lesson opens the
	// debugger on it as schedtui learn's lesson (learn.go).
	scenario *embeddedScenario
	lesson   *tui.LessonRun
}

func (f *sourceFlags) register(cmd *cobra.Command) {
	f.registerLive(cmd)
	cmd.Flags().StringVar(&f.snapshot, "snapshot", "", "snapshot to schedule against: a file (YAML/JSON, a kube-scheduler-simulator export; .gz too), a directory of them, or a kubectl cluster-info dump directory")
	cmd.Flags().StringVar(&f.config, "config", "", "KubeSchedulerConfiguration file, as kube-scheduler takes it")
	cmd.Flags().Uint64Var(&f.seed, "seed", 1, "seed of the random source (preemption's candidate offset)")
	cmd.Flags().BoolVar(&f.demo, "demo", false, "use the embedded demo snapshot even when a kubeconfig is available")
	f.gates.register(cmd)
	f.registerSkipExtenders(cmd)
	registerMaxSnapshotSize(cmd)
}

// registerMaxSnapshotSize adds --max-snapshot-size, for every command
// that reads a snapshot.
func registerMaxSnapshotSize(cmd *cobra.Command) {
	cmd.Flags().Var(byteSize{&snapshot.MaxSnapshotSize}, "max-snapshot-size", "the most a snapshot may hold, all its files together "+
		"and gzipped files as they expand (a quantity: 4Gi, 500Mi)")
}

// byteSize is a flag of a number of bytes written as a quantity.
type byteSize struct{ n *int64 }

func (b byteSize) String() string {
	if b.n == nil {
		return ""
	}
	return resource.NewQuantity(*b.n, resource.BinarySI).String()
}

func (b byteSize) Set(s string) error {
	q, err := resource.ParseQuantity(s)
	if err != nil || q.Sign() <= 0 {
		return fmt.Errorf("%q: want a positive quantity of bytes, e.g. 4Gi or 500Mi", s)
	}
	*b.n = q.Value()
	return nil
}

func (byteSize) Type() string { return "quantity" }

// registerSkipExtenders adds --skip-extenders, for every command that
// builds a scheduler.
func (f *sourceFlags) registerSkipExtenders(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&f.skipExtenders, "skip-extenders", false, "leave out the scheduler extenders of the configuration (e.g. a snapshot "+
		"whose extenders cannot be reached from here); the answers may then differ from the cluster's")
}

// registerBind adds --bind, for the commands that schedule for real
// (the debugger and run); explain never binds.
func (f *sourceFlags) registerBind(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&f.bind, "bind", false, "act as the scheduler of the live cluster for pods whose schedulerName names one of schedtui's profiles: "+
		"bind them for real (POST pods/NAME/binding, nothing else is ever written; needs RBAC create on pods/binding)")
}

// registerSimulate adds --simulate, for the commands that replay a
// recording or follow a live cluster (the debugger, run, explain).
func (f *sourceFlags) registerSimulate(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&f.simulate, "simulate", false, "on a recording (or a live cluster in the debugger): schedtui schedules every pod itself, "+
		"from the first state on, instead of judging the decisions of the cluster's scheduler (shadow mode)")
}

// registerLive adds the flags that select a live cluster.
func (f *sourceFlags) registerLive(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.kubeconfig, "kubeconfig", "", "kubeconfig file of the live cluster to read (default: $KUBECONFIG, ~/.kube/config, or in-cluster)")
	cmd.Flags().StringVar(&f.context, "context", "", "kubeconfig context to use (default: the current context)")
}

const sourceHelp = `Where the cluster comes from:
  --snapshot PATH          a snapshot file, directory, cluster-info dump or simulator export
  --kubeconfig/--context   a live cluster, read-only
` + neitherHelp + `
  --demo                   the embedded demo`

// neitherHelp is sourceHelp's line for no source flag; neitherHelpPlugin
// replaces it in the kubectl plugin, whose debugger opens the cluster too.
const (
	neitherHelp = `  (neither)                schedtui alone: the embedded demo; run, explain, compare,
                           snapshot: the live cluster of $KUBECONFIG, ~/.kube/config or
                           the in-cluster service account, an error when there is none`
	neitherHelpPlugin = `  (neither)                the live cluster of $KUBECONFIG, ~/.kube/config or the
                           in-cluster service account, an error when there is none`
)

// pluginName is the command as a kubectl plugin (binary kubectl-schedtui).
const pluginName = "kubectl schedtui"

func newRootCommand(stdout, stderr io.Writer) *cobra.Command {
	return newRootCommandAs("schedtui", stdout, stderr)
}

// newRootCommandAs is the root command invoked as name: "schedtui", or
// "kubectl schedtui" for the plugin, whose help and usage then say so and
// which without a source opens the current context (the demo only with
// --demo), as kubectl commands do.
func newRootCommandAs(name string, stdout, stderr io.Writer) *cobra.Command {
	plugin := name == pluginName
	var src sourceFlags
	root := &cobra.Command{
		Use:   "schedtui",
		Short: "Step through the Kubernetes scheduler's decisions, pod by pod and phase by phase",
		Long: `schedtui with no command opens the interactive debugger. Press ? inside for
the keys. On a live cluster, changes (pods added, bound, deleted; nodes added,
updated, deleted; volumes, classes, workloads) reach the debugger as they
happen. Shadow mode (the default there and on a recording): the cluster's
scheduler decides, schedtui schedules nothing itself, and each time the
cluster binds a pod (or reports it unschedulable) schedtui makes its own
attempt for it on the state the cluster's scheduler had and judges it: agree,
tie or disagree, in the Events view (enter: side by side) and on the status
line. --simulate makes schedtui schedule every pod itself instead. With --bind
schedtui is the scheduler for pods of its profiles' schedulerNames: each step
binds a pod in the cluster.

` + sourceHelp,
		Args:          cobra.NoArgs,
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			// The debugger opens on the demo unless told where else to
			// look: a newcomer's first `schedtui` must not reach into
			// whatever cluster their kubeconfig happens to point at.
			// As a kubectl plugin the user asked for their cluster.
			if src.snapshot == "" && src.kubeconfig == "" && src.context == "" && !src.bind && !src.demo {
				if !plugin {
					src.demo = true
				} else if !live.Available() {
					return errNoCluster
				}
			}
			return openTUI(cmd.Context(), &src, cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	// Local, not persistent: run and explain register the same names.
	src.register(root)
	src.registerBind(root)
	src.registerSimulate(root)
	root.Flags().IntVar(&src.keepDetail, "keep-detail", tui.DefaultKeepDetail, "the debugger keeps the last N attempts whole (and pinned ones: the selected pod's, "+
		"the pods breakpoints name, pending pods' last); older ones keep their summary line, and rewinding to one re-runs it from a checkpoint "+
		"(about an hour of attempts at 10 pods/s kept rewindable). 0 keeps everything")
	root.Flags().StringVar(&src.compareWith, "compare-with", "", "compare mode: run a second side from the same state beside the first "+
		"(a KubeSchedulerConfiguration file, demo-packing, defaults, or quoted kube-scheduler flags, as schedtui compare's --right); C picks one inside")
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.AddCommand(newRunCommand(), newExplainCommand(), newCompareCommand(), newSnapshotCommand(), newRecordCommand(), newVersionCommand(), newLearnCommand())
	root.Version = schedtuiVersion()
	suggestMistypes(root)
	if plugin {
		asPlugin(root)
	}
	return root
}

// asPlugin makes help and usage say "kubectl schedtui", and the root's
// help say that it opens the current context.
func asPlugin(root *cobra.Command) {
	if root.Annotations == nil {
		root.Annotations = map[string]string{}
	}
	root.Annotations[cobra.CommandDisplayNameAnnotation] = pluginName
	root.Long = strings.Replace(root.Long, "schedtui with no command opens the interactive debugger.",
		"kubectl schedtui with no command opens the interactive debugger on the current\ncontext (--demo: the embedded demo).", 1)
	var fix func(c *cobra.Command)
	fix = func(c *cobra.Command) {
		c.Long = strings.Replace(c.Long, neitherHelp, neitherHelpPlugin, 1)
		c.Example = strings.ReplaceAll(c.Example, "  schedtui ", "  "+pluginName+" ")
		for _, sub := range c.Commands() {
			fix(sub)
		}
	}
	fix(root)
}
