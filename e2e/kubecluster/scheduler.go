package kubecluster

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/pflag"
	"k8s.io/client-go/tools/cache"
	"k8s.io/kubernetes/cmd/kube-scheduler/app"
	"k8s.io/kubernetes/cmd/kube-scheduler/app/options"
)

// StartScheduler runs the real kube-scheduler with the configuration file
// config (a KubeSchedulerConfiguration naming the kubeconfig to use) and
// flags (e.g. WorkloadSchedulerFlags), as
// the kube-scheduler command would but without its HTTPS endpoint (no
// port is opened) nor its signal handling (the caller's). It returns once
// the scheduler is set up; stop ends it and waits for it to return. The
// upstream test harness (kube-scheduler/app/testing) needs a *testing.T,
// which a command has not; this runs the same Setup and Run.
//
// Run it once per process: the scheduler registers process-wide metrics
// and informer names.
func StartScheduler(ctx context.Context, config string, flags ...string) (stop func() error, err error) {
	opts := options.NewOptions()
	fs := pflag.NewFlagSet("kube-scheduler", pflag.ContinueOnError)
	for _, f := range opts.Flags.FlagSets {
		fs.AddFlagSet(f)
	}
	if err := fs.Parse(append([]string{"--config=" + config, "--secure-port=0"}, flags...)); err != nil {
		return nil, fmt.Errorf("kube-scheduler flags: %w", err)
	}
	if err := opts.ComponentGlobalsRegistry.Set(); err != nil {
		return nil, fmt.Errorf("kube-scheduler feature gates: %w", err)
	}
	if opts.InformerName, err = cache.NewInformerName("kube-scheduler"); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	cc, sched, err := app.Setup(ctx, opts)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("kube-scheduler: %w", err)
	}
	done := make(chan error, 1)
	go func() { done <- app.Run(ctx, cc, sched) }()
	return func() error {
		select {
		case err := <-done:
			// Run ended before it was asked to: that is the error.
			cancel()
			if err == nil {
				err = errors.New("kube-scheduler stopped on its own")
			}
			return err
		default:
		}
		// Once its context ends, Run returns an error saying so.
		cancel()
		<-done
		return nil
	}, nil
}
