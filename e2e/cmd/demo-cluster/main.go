// Command demo-cluster runs a throwaway Kubernetes control plane to try
// schedtui's live mode on: a real kube-apiserver (k8s.io/kubernetes
// v1.37.1) on an embedded etcd, serving on 127.0.0.1 only, filled from a
// snapshot (the embedded demo by default), and the real kube-scheduler
// v1.37.1 scheduling its pending pods. No kubelet and no controller run:
// pods stay where they are bound. It writes a kubeconfig, prints the
// schedtui commands to try, optionally creates and deletes pods (--churn),
// and runs until SIGINT or SIGTERM; then it stops the scheduler, the API
// server and etcd, and removes its directory.
//
//	make demo-cluster ARGS='--churn 3s'
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"

	"github.com/schedtui/schedtui/e2e/kubecluster"
	"github.com/schedtui/schedtui/scheduler/features"
	"github.com/schedtui/schedtui/snapshot"
	"github.com/schedtui/schedtui/testdata"
)

const name = "demo-cluster"

type options struct {
	snapshot   string
	dir        string
	port       int
	churnEvery time.Duration
	churnSeed  uint64
	churnMax   int
}

func main() {
	var o options
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.StringVar(&o.snapshot, "snapshot", "", "snapshot to load (a file or directory schedtui --snapshot reads); default: the embedded demo")
	fs.StringVar(&o.dir, "dir", "", "directory for etcd's data, the kubeconfig and the certificates; must not exist or be empty; removed on exit (default: a new temporary directory)")
	fs.IntVar(&o.port, "port", 0, "port of 127.0.0.1 the API server answers on (default: a free one)")
	fs.DurationVar(&o.churnEvery, "churn", 0, "create or delete a pod of namespace default this often, e.g. 3s (default: off)")
	fs.Uint64Var(&o.churnSeed, "churn-seed", 1, "seed of --churn's choices: the same seed, the same pods in the same order")
	fs.IntVar(&o.churnMax, "churn-max", 8, "most pods --churn keeps at once")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: %s [flags]\n\nA throwaway kube-apiserver and kube-scheduler v1.37.1, filled from a snapshot, to try schedtui's live mode on.\nCtrl-C stops it and removes everything it wrote.\n\nFlags:\n", name)
		fs.PrintDefaults()
	}
	if err := fs.Parse(os.Args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		os.Exit(2)
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "%s: unexpected argument %q (flags only; see -help)\n", name, fs.Arg(0))
		os.Exit(2)
	}
	if err := run(o, os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		os.Exit(1)
	}
}

func (o options) validate() error {
	if o.port < 0 || o.port > 65535 {
		return fmt.Errorf("--port %d: not a port (0 to 65535)", o.port)
	}
	if o.churnEvery < 0 {
		return fmt.Errorf("--churn %s: must not be negative", o.churnEvery)
	}
	if o.churnMax < 1 {
		return fmt.Errorf("--churn-max %d: must be at least 1", o.churnMax)
	}
	return nil
}

func run(o options, out io.Writer) (err error) {
	if err := o.validate(); err != nil {
		return err
	}
	// The API server and the scheduler log a great deal through klog;
	// what matters is printed here.
	klogFlags := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(klogFlags)
	_ = klogFlags.Set("logtostderr", "false")
	_ = klogFlags.Set("stderrthreshold", "FATAL")
	klog.SetOutput(io.Discard)

	objs, source, workloads, err := loadSnapshot(o.snapshot)
	if err != nil {
		return err
	}
	dir, removesDir, removeDir, err := stateDir(o.dir)
	if err != nil {
		return err
	}
	defer func() {
		if rmErr := removeDir(); rmErr != nil && err == nil {
			err = rmErr
		}
	}()
	// Everything the API server's harness writes to temporary files goes
	// under dir too, so that nothing outlives it.
	tmp := filepath.Join(dir, "tmp")
	if err := os.Mkdir(tmp, 0o700); err != nil {
		return err
	}
	if err := os.Setenv("TMPDIR", tmp); err != nil {
		return err
	}

	ctx, stopSignals := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stopSignals()

	c := &cluster{dir: dir, proc: kubecluster.NewProcess(name, os.Stderr), workloads: workloads}
	defer c.stop(out)
	fmt.Fprintf(out, "Starting etcd, kube-apiserver and kube-scheduler v1.37.1 in %s ...\n", dir)
	if workloads {
		fmt.Fprintf(out, "Its workloads are gangs: kube-apiserver %s, kube-scheduler %s.\n",
			strings.Join(kubecluster.WorkloadAPIFlags, " "), strings.Join(kubecluster.WorkloadSchedulerFlags, " "))
	}
	if err := c.start(ctx, o.port); err != nil {
		return unlessInterrupted(ctx, err)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", c.kubeconfig)
	if err != nil {
		return err
	}
	cfg.QPS, cfg.Burst = 1000, 2000
	filled, err := kubecluster.Fill(ctx, cfg, objs, kubecluster.FillOptions{CreatePending: true})
	if err == nil && ctx.Err() != nil {
		err = ctx.Err() // the objects after the signal were refused
	}
	if err != nil {
		return unlessInterrupted(ctx, err)
	}
	fmt.Fprintf(out, "Loaded %s: %d objects created", source, filled.Created)
	if len(filled.Skipped) > 0 {
		fmt.Fprintf(out, ", %d left out:\n  %s", len(filled.Skipped), strings.Join(filled.Skipped, "\n  "))
	}
	fmt.Fprintln(out)
	if err := c.startScheduler(); err != nil {
		return err
	}
	printHints(out, c.kubeconfig, c.proxy.Addr, dir, removesDir)

	if o.churnEvery > 0 {
		client, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			return err
		}
		ch := newChurn(client, o.churnSeed, o.churnMax, out)
		done := make(chan struct{})
		go func() {
			defer close(done)
			ch.run(ctx, o.churnEvery)
		}()
		defer func() { <-done }()
		fmt.Fprintf(out, "Churn: a pod of namespace default created or deleted every %s (seed %d, at most %d at once).\n", o.churnEvery, o.churnSeed, o.churnMax)
	}
	<-ctx.Done()
	fmt.Fprintln(out, "Stopping ...")
	return nil
}

// unlessInterrupted is err, or nil once a signal asked to stop: what
// failed then failed because of it.
func unlessInterrupted(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// loadSnapshot reads the snapshot's objects (the embedded demo for ""),
// names its source, and says whether the cluster runs workload-aware
// scheduling: the demo's kube-scheduler does (testdata.DemoFeatureGates:
// its training job is a gang), and so does a snapshot holding Workloads
// or pod groups. Those objects are read as an API server with
// GenericWorkload on creates them (a pod keeps spec.schedulingGroup, a
// PodGroup's priority is resolved), as the cluster's will.
func loadSnapshot(path string) (_ []runtime.Object, source string, workloads bool, _ error) {
	// The demo's gates are those kubecluster's workload flags turn on.
	gates, err := features.Resolve("", "", testdata.DemoFeatureGates)
	if err != nil {
		return nil, "", false, err
	}
	if path == "" {
		c, _, err := snapshot.LoadUnder(testdata.DemoName, testdata.Demo, &gates.Features)
		if err != nil {
			return nil, "", false, err
		}
		return c.Objects(), "the demo (" + testdata.DemoName + ")", true, nil
	}
	opened, err := snapshot.OpenUnder(path, nil, gates.Features)
	if err != nil {
		return nil, "", false, err
	}
	if opened.Report.HasErrors() {
		fmt.Fprintf(os.Stderr, "%s: objects of %s left out:\n%s", name, path, opened.Report)
	}
	c := opened.Cluster
	workloads = len(c.Workloads)+len(c.PodGroups)+len(c.CompositePodGroups) > 0
	return c.Objects(), path, workloads, nil
}

// stateDir makes the state directory (a new temporary one for "") and
// returns what removes everything in it, and it too (removesDir) unless
// it existed.
func stateDir(dir string) (_ string, removesDir bool, remove func() error, _ error) {
	if dir == "" {
		d, err := os.MkdirTemp("", "schedtui-demo-cluster-")
		if err != nil {
			return "", false, nil, err
		}
		return d, true, func() error { return os.RemoveAll(d) }, nil
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", false, nil, err
	}
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return "", false, nil, fmt.Errorf("--dir: %w", err)
		}
		return dir, true, func() error { return os.RemoveAll(dir) }, nil
	case err != nil:
		return "", false, nil, fmt.Errorf("--dir: %w", err)
	case len(entries) > 0:
		return "", false, nil, fmt.Errorf("--dir %s: not empty (everything in it is removed on exit, so it must be new or empty)", dir)
	}
	return dir, false, func() error {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return err
		}
		for _, e := range entries {
			if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
		return nil
	}, nil
}

func printHints(out io.Writer, kubeconfig, addr, dir string, removesDir bool) {
	fmt.Fprintf(out, `
The cluster is up: kube-apiserver on https://%s, kube-scheduler v1.37.1 scheduling its pods.
No kubelet runs: pods stay bound where the scheduler puts them.

  schedtui --kubeconfig %[2]s
      live mode: the debugger follows the cluster; in shadow mode it judges each decision
      of the kube-scheduler (agree, tie, disagree); enter on a pending pod forecasts its attempt
  schedtui run --kubeconfig %[2]s
      every pending pod's attempt, on a copy (nothing is written)
  schedtui explain --kubeconfig %[2]s -n default
      why each pod of namespace default is where it is, or pending
  kubectl --kubeconfig %[2]s get pods -A -o wide

`, addr, kubeconfig)
	what := "the files in " + dir
	if removesDir {
		what = dir
	}
	fmt.Fprintf(out, "Ctrl-C stops the cluster and removes %s.\n", what)
}
