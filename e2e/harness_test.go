// Package e2e runs schedtui against a real kube-apiserver (k8s.io/kubernetes
// v1.37.1, started in-process on an embedded etcd): live answers against
// snapshot answers, read-only access under RBAC checked in the audit log,
// an API server restart in the middle of a watch, and --bind.
package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/klog/v2"
	kubeapiservertesting "k8s.io/kubernetes/cmd/kube-apiserver/app/testing"

	"github.com/schedtui/schedtui/e2e/kubecluster"
)

// The users the API server knows, by bearer token.
const (
	adminUser  = "e2e-admin"  // system:masters: the test's own client
	readerUser = "e2e-reader" // get/list/watch only (see readerRules)
	binderUser = "e2e-binder" // the reader's rights plus create pods/binding
)

var (
	// etcdURL is the embedded etcd every API server of the run stores in.
	etcdURL string
	// schedtuiBin is the schedtui binary built from the main module.
	schedtuiBin string
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	// The API server logs through klog at info level; the tests report
	// what matters themselves.
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	_ = fs.Set("logtostderr", "false")
	_ = fs.Set("stderrthreshold", "FATAL")
	klog.SetOutput(io.Discard)
	// BenchmarkLiveSync runs etcd and the sync in processes of their own
	// (this binary again) to measure each one's memory and CPU.
	switch os.Getenv(benchChildEnv) {
	case "etcd":
		return serveEtcd()
	case "sync":
		return syncOnce()
	}
	tmp, err := os.MkdirTemp("", "schedtui-e2e")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(tmp)
	var stop func()
	etcdURL, stop, err = kubecluster.StartEtcd(filepath.Join(tmp, "etcd"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "starting etcd:", err)
		return 1
	}
	defer stop()
	schedtuiBin = filepath.Join(tmp, "schedtui")
	build := exec.Command("go", "build", "-o", schedtuiBin, "./cmd/schedtui")
	build.Dir = ".."
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building schedtui:", err)
		return 1
	}
	return m.Run()
}

// apiServer is a kube-apiserver behind a TCP proxy whose address does not
// change when the server is restarted: kubeconfigs point at the proxy, so
// a client sees a restart as the real thing (connections refused, then a
// server that answers again with the same data).
type apiServer struct {
	t      testing.TB
	dir    string
	prefix string
	// etcd is the URL of the etcd the server stores in.
	etcd  string
	proxy *kubecluster.Proxy
	// audit is the audit log of every server started (appended to).
	audit string
	// flags are added to the server's on every start (e.g.
	// kubecluster.WorkloadAPIFlags).
	flags []string
	// slowStart: Start does not wait for /healthz, which the harness
	// gives a minute (a storage of a million objects takes longer); the
	// caller waits for what it needs.
	slowStart bool

	mu       sync.Mutex
	teardown func()

	admin kubernetes.Interface
}

// startAPIServer starts an API server with RBAC, token users and an audit
// log, and the users' roles; flags are added to the server's on every
// start.
func startAPIServer(t testing.TB, flags ...string) *apiServer {
	t.Helper()
	return startAPIServerOn(t, etcdURL, flags...)
}

// startAPIServerOn is startAPIServer storing in the etcd at etcd.
func startAPIServerOn(t testing.TB, etcd string, flags ...string) *apiServer {
	t.Helper()
	dir := t.TempDir()
	s := &apiServer{t: t, dir: dir, etcd: etcd, prefix: "/" + strings.ReplaceAll(strings.ToLower(t.Name()), "/", "-"), audit: filepath.Join(dir, "audit.log"), flags: flags}
	tokens := fmt.Sprintf("admin-token,%s,1,\"system:masters\"\nreader-token,%s,2\nbinder-token,%s,3\n", adminUser, readerUser, binderUser)
	must(t, os.WriteFile(filepath.Join(dir, "tokens.csv"), []byte(tokens), 0o600))
	// Metadata for every request: who did what to which resource.
	policy := "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n"
	must(t, os.WriteFile(filepath.Join(dir, "audit-policy.yaml"), []byte(policy), 0o600))
	p, err := kubecluster.NewProxy("127.0.0.1:0")
	must(t, err)
	s.proxy = p
	t.Cleanup(func() {
		s.Stop()
		p.Close()
	})
	s.Start()
	cfg, err := clientcmd.BuildConfigFromFlags("", s.Kubeconfig(adminUser))
	must(t, err)
	// The test's own client fills clusters of thousands of objects.
	cfg.QPS, cfg.Burst = 5000, 10000
	s.admin = kubernetes.NewForConfigOrDie(cfg)
	s.grantRoles()
	return s
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// Start starts the server (again) on the same storage.
func (s *apiServer) Start() {
	s.t.Helper()
	flags := []string{
		"--authorization-mode=RBAC",
		"--token-auth-file=" + filepath.Join(s.dir, "tokens.csv"),
		"--audit-policy-file=" + filepath.Join(s.dir, "audit-policy.yaml"),
		"--audit-log-path=" + s.audit,
		"--audit-log-mode=blocking",
		"--disable-admission-plugins=ServiceAccount",
	}
	flags = append(flags, s.flags...)
	opts := kubeapiservertesting.NewDefaultTestServerOptions()
	opts.SkipHealthzCheck = s.slowStart
	host, teardown, err := kubecluster.StartAPIServer(s.t, opts, s.etcd, s.prefix, flags)
	if err != nil {
		s.t.Fatalf("starting kube-apiserver: %v", err)
	}
	s.proxy.SetBackend(host)
	s.mu.Lock()
	s.teardown = teardown
	s.mu.Unlock()
}

// Stop stops the server; the proxy then refuses connections.
func (s *apiServer) Stop() {
	s.mu.Lock()
	td := s.teardown
	s.teardown = nil
	s.mu.Unlock()
	s.proxy.SetBackend("")
	if td != nil {
		td()
	}
}

// Kubeconfig writes (once) and returns a kubeconfig for user, through the
// proxy. The server's certificate changes on every restart, so TLS is not
// verified: the test is about what the client sends, not whom it trusts.
func (s *apiServer) Kubeconfig(user string) string {
	path := filepath.Join(s.dir, user+".kubeconfig")
	if _, err := os.Stat(path); err == nil {
		return path
	}
	token := map[string]string{adminUser: "admin-token", readerUser: "reader-token", binderUser: "binder-token"}[user]
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["e2e"] = &clientcmdapi.Cluster{Server: "https://" + s.proxy.Addr, InsecureSkipTLSVerify: true}
	cfg.AuthInfos[user] = &clientcmdapi.AuthInfo{Token: token}
	cfg.Contexts["e2e-"+user] = &clientcmdapi.Context{Cluster: "e2e", AuthInfo: user}
	cfg.CurrentContext = "e2e-" + user
	must(s.t, clientcmd.WriteToFile(*cfg, path))
	return path
}

// RESTConfig is the rest config of a kubeconfig, for in-process clients.
func (s *apiServer) RESTConfig(user string) *rest.Config {
	cfg, err := clientcmd.BuildConfigFromFlags("", s.Kubeconfig(user))
	must(s.t, err)
	return cfg
}

// readerRules are what a read-only user of schedtui needs: get, list and
// watch on every kind schedtui reads.
var readerRules = []rbacv1.PolicyRule{
	{APIGroups: []string{""}, Resources: []string{"nodes", "pods", "namespaces", "persistentvolumes", "persistentvolumeclaims", "services", "replicationcontrollers"}, Verbs: []string{"get", "list", "watch"}},
	{APIGroups: []string{"apps"}, Resources: []string{"replicasets", "statefulsets", "daemonsets"}, Verbs: []string{"get", "list", "watch"}},
	{APIGroups: []string{"policy"}, Resources: []string{"poddisruptionbudgets"}, Verbs: []string{"get", "list", "watch"}},
	// Workloads, PodGroups and CompositePodGroups are served only with the
	// workload API on (kubecluster.WorkloadAPIFlags).
	{APIGroups: []string{"scheduling.k8s.io"}, Resources: []string{"priorityclasses", "workloads", "podgroups", "compositepodgroups"}, Verbs: []string{"get", "list", "watch"}},
	{APIGroups: []string{"node.k8s.io"}, Resources: []string{"runtimeclasses"}, Verbs: []string{"get", "list", "watch"}},
	{APIGroups: []string{"storage.k8s.io"}, Resources: []string{"storageclasses", "csinodes", "csidrivers", "csistoragecapacities", "volumeattachments"}, Verbs: []string{"get", "list", "watch"}},
}

func (s *apiServer) grantRoles() {
	ctx := context.Background()
	rbac := s.admin.RbacV1()
	bindRules := append(append([]rbacv1.PolicyRule(nil), readerRules...),
		rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"pods/binding"}, Verbs: []string{"create"}})
	for user, rules := range map[string][]rbacv1.PolicyRule{readerUser: readerRules, binderUser: bindRules} {
		_, err := rbac.ClusterRoles().Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: user}, Rules: rules}, metav1.CreateOptions{})
		must(s.t, err)
		_, err = rbac.ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: user},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: user},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: user}},
		}, metav1.CreateOptions{})
		must(s.t, err)
	}
	// RBAC caches take a moment: wait until the reader may list nodes.
	reader := kubernetes.NewForConfigOrDie(s.RESTConfig(readerUser))
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		_, err := reader.CoreV1().Nodes().List(ctx, metav1.ListOptions{Limit: 1})
		return err == nil, nil
	})
	must(s.t, err)
}

// auditEvent is the part of an audit.k8s.io/v1 Event the tests read.
type auditEvent struct {
	Verb       string `json:"verb"`
	RequestURI string `json:"requestURI"`
	Stage      string `json:"stage"`
	User       struct {
		Username string `json:"username"`
	} `json:"user"`
	ObjectRef *struct {
		Resource    string `json:"resource"`
		Subresource string `json:"subresource"`
		Namespace   string `json:"namespace"`
		Name        string `json:"name"`
	} `json:"objectRef"`
	ResponseStatus *struct {
		Code int `json:"code"`
	} `json:"responseStatus"`
}

// Requests returns the requests user made, as the audit log has them (one
// per request: the ResponseComplete or Panic stage).
func (s *apiServer) Requests(user string) []auditEvent {
	s.t.Helper()
	f, err := os.Open(s.audit)
	must(s.t, err)
	defer f.Close()
	var out []auditEvent
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var ev auditEvent
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			s.t.Fatalf("audit log: %v", err)
		}
		if ev.User.Username == user && (ev.Stage == "ResponseComplete" || ev.Stage == "Panic") {
			out = append(out, ev)
		}
	}
	must(s.t, sc.Err())
	return out
}

// Writes are the requests of user that are not get, list or watch.
func (s *apiServer) Writes(user string) []auditEvent {
	var out []auditEvent
	for _, ev := range s.Requests(user) {
		switch ev.Verb {
		case "get", "list", "watch":
		default:
			out = append(out, ev)
		}
	}
	return out
}

// schedtui runs the binary with args and returns its stdout; stderr is
// logged. A non-zero exit fails the test.
func schedtui(t *testing.T, args ...string) string {
	t.Helper()
	out, errOut, err := runSchedtui(args...)
	if err != nil {
		t.Fatalf("schedtui %s: %v\nstderr:\n%s", strings.Join(args, " "), err, errOut)
	}
	return out
}

func runSchedtui(args ...string) (stdout, stderr string, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, schedtuiBin, args...)
	var o, e strings.Builder
	cmd.Stdout, cmd.Stderr = &o, &e
	// Nothing of the machine's own kubeconfig may leak in.
	cmd.Env = append(os.Environ(), "KUBECONFIG=/nonexistent", "HOME="+os.TempDir())
	err = cmd.Run()
	return o.String(), e.String(), err
}
