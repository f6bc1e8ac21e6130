// Package live reads a running cluster, read-only: client-go's kubeconfig
// loading rules, informers for every kind the scheduler reads, an initial
// sync into a snapshot.Cluster, and then the changes as they arrive.
package live

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"

	"k8s.io/client-go/kubernetes"
	// Auth plugins as kubectl has them: exec plugins are built into
	// client-go; OIDC is the remaining in-tree auth provider.
	_ "k8s.io/client-go/plugin/pkg/client/auth/oidc"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/util/homedir"
)

// Options say which cluster to read.
type Options struct {
	// Kubeconfig is an explicit kubeconfig file (--kubeconfig); empty
	// means client-go's rules: $KUBECONFIG (a list of files, merged),
	// else ~/.kube/config, else the in-cluster service account.
	Kubeconfig string
	// Context overrides the kubeconfig's current context (--context).
	Context string
	// Bind lets the client POST pod bindings (--bind); every other write
	// is still refused before it leaves the process.
	Bind bool
}

// loadingRules are client-go's default rules with the explicit file.
func (o Options) loadingRules() *clientcmd.ClientConfigLoadingRules {
	rules := defaultLoadingRules()
	rules.ExplicitPath = o.Kubeconfig
	return rules
}

// defaultLoadingRules are clientcmd's, with ~/.kube/config resolved now
// rather than when the process started.
func defaultLoadingRules() *clientcmd.ClientConfigLoadingRules {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	if os.Getenv(clientcmd.RecommendedConfigPathEnvVar) == "" {
		rules.Precedence = []string{filepath.Join(homedir.HomeDir(), clientcmd.RecommendedHomeDir, clientcmd.RecommendedFileName)}
	}
	return rules
}

// Available reports whether there is a cluster to connect to without any
// flag: a kubeconfig file client-go would read ($KUBECONFIG, or
// ~/.kube/config), or the in-cluster service account.
func Available() bool {
	for _, f := range defaultLoadingRules().Precedence {
		if fi, err := os.Stat(f); err == nil && !fi.IsDir() {
			return true
		}
	}
	_, err := rest.InClusterConfig()
	return err == nil
}

// Cluster is a connection to a cluster: its REST configuration (with the
// read-only transport) and a client built on it.
type Cluster struct {
	// Name is the kubeconfig context, or "in-cluster".
	Name string
	// Host is the API server's URL.
	Host   string
	Config *rest.Config
	Client kubernetes.Interface
}

// Connect resolves the kubeconfig (or the in-cluster configuration) and
// builds a client whose every request goes through ReadOnly. It does not
// talk to the server yet.
func Connect(o Options) (*Cluster, error) {
	overrides := &clientcmd.ConfigOverrides{CurrentContext: o.Context}
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(o.loadingRules(), overrides)
	cfg, err := cc.ClientConfig()
	if err != nil {
		where := "kubeconfig"
		if o.Kubeconfig != "" {
			where = o.Kubeconfig
		} else if env := os.Getenv(clientcmd.RecommendedConfigPathEnvVar); env != "" {
			where = "$KUBECONFIG (" + env + ")"
		}
		if o.Context != "" {
			where += ", context " + o.Context
		}
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	name := o.Context
	if name == "" {
		if raw, err := cc.RawConfig(); err == nil {
			name = raw.CurrentContext
		}
	}
	if name == "" {
		name = "in-cluster"
	}
	cfg = rest.CopyConfig(cfg)
	cfg.UserAgent = "schedtui (read-only)"
	transport := ReadOnly
	if o.Bind {
		cfg.UserAgent = "schedtui (read-only, binds pods)"
		transport = ReadOnlyExceptBindings
	}
	// Listing a large cluster's pods is one request per kind; the default
	// 5 QPS only slows the watches' re-lists.
	cfg.QPS, cfg.Burst = 50, 100
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return transport(rt) })
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("context %s: %w", name, err)
	}
	return &Cluster{Name: name, Host: cfg.Host, Config: cfg, Client: client}, nil
}
