package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	kubeapiservertesting "k8s.io/kubernetes/cmd/kube-apiserver/app/testing"

	"github.com/schedtui/schedtui/e2e/kubecluster"
)

// adminToken is the bearer token of the only user, in system:masters: the
// cluster lives as long as the process, on 127.0.0.1 only.
const adminToken = "demo-admin-token"

// cluster is the running control plane; stop undoes start in reverse,
// whatever part of it started.
type cluster struct {
	dir        string
	proc       *kubecluster.Process
	kubeconfig string
	// workloads: the API server serves the workload API and the
	// scheduler runs workload-aware scheduling (GenericWorkload).
	workloads bool

	stopEtcd      func()
	proxy         *kubecluster.Proxy
	stopAPIServer func()
	stopScheduler func() error
}

func (c *cluster) start(ctx context.Context, port int) (err error) {
	var etcdURL string
	if etcdURL, c.stopEtcd, err = kubecluster.StartEtcd(filepath.Join(c.dir, "etcd")); err != nil {
		return fmt.Errorf("starting etcd: %w", err)
	}
	if c.proxy, err = kubecluster.NewProxy(fmt.Sprintf("127.0.0.1:%d", port)); err != nil {
		return fmt.Errorf("--port %d: %w", port, err)
	}
	tokens := filepath.Join(c.dir, "tokens.csv")
	if err := os.WriteFile(tokens, []byte(adminToken+",demo-admin,1,\"system:masters\"\n"), 0o600); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	flags := []string{
		"--authorization-mode=RBAC",
		"--token-auth-file=" + tokens,
		// No controller creates the service accounts pods would need.
		"--disable-admission-plugins=ServiceAccount",
	}
	if c.workloads {
		flags = append(flags, kubecluster.WorkloadAPIFlags...)
	}
	opts := kubeapiservertesting.NewDefaultTestServerOptions()
	// Scraping the server's metrics on the way out only slows Ctrl-C.
	opts.DisableInvariantChecks = true
	if err := c.startAPIServer(opts, etcdURL, flags); err != nil {
		return fmt.Errorf("starting kube-apiserver: %w", err)
	}
	return c.writeKubeconfig()
}

// startAPIServer starts the server, turning the harness's fatal errors
// into an error.
func (c *cluster) startAPIServer(opts *kubeapiservertesting.TestServerInstanceOptions, etcdURL string, flags []string) (err error) {
	defer kubecluster.Recover(&err)
	host, teardown, err := kubecluster.StartAPIServer(c.proc, opts, etcdURL, "/registry", flags)
	if err != nil {
		return err
	}
	c.stopAPIServer = teardown
	c.proxy.SetBackend(host)
	return nil
}

// writeKubeconfig writes the kubeconfig of the admin user, through the
// proxy. The server's certificate is a fresh self-signed one, so TLS is
// not verified: the server is on 127.0.0.1 and gone when the process is.
func (c *cluster) writeKubeconfig() error {
	c.kubeconfig = filepath.Join(c.dir, "kubeconfig")
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters[name] = &clientcmdapi.Cluster{Server: "https://" + c.proxy.Addr, InsecureSkipTLSVerify: true}
	cfg.AuthInfos["demo-admin"] = &clientcmdapi.AuthInfo{Token: adminToken}
	cfg.Contexts[name] = &clientcmdapi.Context{Cluster: name, AuthInfo: "demo-admin", Namespace: "default"}
	cfg.CurrentContext = name
	return clientcmd.WriteToFile(*cfg, c.kubeconfig)
}

func (c *cluster) startScheduler() (err error) {
	config := filepath.Join(c.dir, "kube-scheduler.yaml")
	yaml := fmt.Sprintf("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nclientConnection:\n  kubeconfig: %s\nleaderElection:\n  leaderElect: false\n", c.kubeconfig)
	if err := os.WriteFile(config, []byte(yaml), 0o600); err != nil {
		return err
	}
	var flags []string
	if c.workloads {
		flags = kubecluster.WorkloadSchedulerFlags
	}
	if c.stopScheduler, err = kubecluster.StartScheduler(context.Background(), config, flags...); err != nil {
		return fmt.Errorf("starting kube-scheduler: %w", err)
	}
	return nil
}

// stop stops what started, the scheduler first (it would only retry
// against a missing server), etcd last.
func (c *cluster) stop(out io.Writer) {
	if c.stopScheduler != nil {
		if err := c.stopScheduler(); err != nil {
			fmt.Fprintf(os.Stderr, "%s: kube-scheduler: %v\n", name, err)
		}
	}
	if c.stopAPIServer != nil {
		c.stopAPIServer()
	}
	if c.proxy != nil {
		c.proxy.Close()
	}
	if c.stopEtcd != nil {
		c.stopEtcd()
	}
	c.proc.RunCleanups()
	fmt.Fprintln(out, "Stopped: kube-scheduler, kube-apiserver, etcd.")
}
