// Package e2e runs schedtui against a real kube-apiserver (k8s.io/kubernetes
// v1.37.1, started in-process on an embedded etcd): live answers against
// snapshot answers, read-only access under RBAC checked in the audit log,
// an API server restart in the middle of a watch, and --bind.
package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apiserver/pkg/storage/storagebackend"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/klog/v2"
	kubeapiservertesting "k8s.io/kubernetes/cmd/kube-apiserver/app/testing"
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
	tmp, err := os.MkdirTemp("", "schedtui-e2e")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(tmp)
	stop, err := startEtcd(filepath.Join(tmp, "etcd"))
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

func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

func startEtcd(dir string) (func(), error) {
	cfg := embed.NewConfig()
	cfg.Dir = dir
	client, err := freeAddr()
	if err != nil {
		return nil, err
	}
	peer, err := freeAddr()
	if err != nil {
		return nil, err
	}
	cu, pu := url.URL{Scheme: "http", Host: client}, url.URL{Scheme: "http", Host: peer}
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{cu}, []url.URL{cu}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{pu}, []url.URL{pu}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	cfg.LogLevel = "fatal"
	cfg.QuotaBackendBytes = 8 << 30
	// A test store: losing it in a power cut costs nothing, and fsync on
	// every write makes filling a 55,000-object cluster crawl.
	cfg.UnsafeNoFsync = true
	// A single member never needs an election; long ticks keep a CPU
	// starved CI machine from timing requests out.
	cfg.TickMs, cfg.ElectionMs = 500, 5000
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return nil, err
	}
	select {
	case <-e.Server.ReadyNotify():
	case <-time.After(60 * time.Second):
		e.Close()
		return nil, errors.New("etcd did not become ready in 60s")
	}
	etcdURL = cu.String()
	return e.Close, nil
}

// apiServer is a kube-apiserver behind a TCP proxy whose address does not
// change when the server is restarted: kubeconfigs point at the proxy, so
// a client sees a restart as the real thing (connections refused, then a
// server that answers again with the same data).
type apiServer struct {
	t      testing.TB
	dir    string
	prefix string
	proxy  *proxy
	// audit is the audit log of every server started (appended to).
	audit string

	mu       sync.Mutex
	teardown func()

	admin kubernetes.Interface
}

// startAPIServer starts an API server with RBAC, token users and an audit
// log, and the users' roles.
func startAPIServer(t testing.TB) *apiServer {
	t.Helper()
	dir := t.TempDir()
	s := &apiServer{t: t, dir: dir, prefix: "/" + strings.ReplaceAll(strings.ToLower(t.Name()), "/", "-"), audit: filepath.Join(dir, "audit.log")}
	tokens := fmt.Sprintf("admin-token,%s,1,\"system:masters\"\nreader-token,%s,2\nbinder-token,%s,3\n", adminUser, readerUser, binderUser)
	must(t, os.WriteFile(filepath.Join(dir, "tokens.csv"), []byte(tokens), 0o600))
	// Metadata for every request: who did what to which resource.
	policy := "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n"
	must(t, os.WriteFile(filepath.Join(dir, "audit-policy.yaml"), []byte(policy), 0o600))
	p, err := newProxy()
	must(t, err)
	s.proxy = p
	t.Cleanup(func() {
		s.Stop()
		p.close()
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
	sc := storagebackend.NewDefaultConfig(s.prefix, nil)
	sc.Transport.ServerList = []string{etcdURL}
	flags := []string{
		"--authorization-mode=RBAC",
		"--token-auth-file=" + filepath.Join(s.dir, "tokens.csv"),
		"--audit-policy-file=" + filepath.Join(s.dir, "audit-policy.yaml"),
		"--audit-log-path=" + s.audit,
		"--audit-log-mode=blocking",
		"--disable-admission-plugins=ServiceAccount",
	}
	ts, err := kubeapiservertesting.StartTestServer(s.t, kubeapiservertesting.NewDefaultTestServerOptions(), flags, sc)
	if err != nil {
		s.t.Fatalf("starting kube-apiserver: %v", err)
	}
	u, err := url.Parse(ts.ClientConfig.Host)
	must(s.t, err)
	s.proxy.setBackend(u.Host)
	s.mu.Lock()
	s.teardown = ts.TearDownFn
	s.mu.Unlock()
}

// Stop stops the server; the proxy then refuses connections.
func (s *apiServer) Stop() {
	s.mu.Lock()
	td := s.teardown
	s.teardown = nil
	s.mu.Unlock()
	s.proxy.setBackend("")
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
	cfg.Clusters["e2e"] = &clientcmdapi.Cluster{Server: "https://" + s.proxy.addr, InsecureSkipTLSVerify: true}
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
	{APIGroups: []string{"scheduling.k8s.io"}, Resources: []string{"priorityclasses"}, Verbs: []string{"get", "list", "watch"}},
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

// proxy forwards TCP connections to the current backend; with none it
// closes them at once, as a stopped server's port would refuse them.
type proxy struct {
	addr string
	l    net.Listener

	mu      sync.Mutex
	backend string
	conns   map[net.Conn]bool
}

func newProxy() (*proxy, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &proxy{addr: l.Addr().String(), l: l, conns: map[net.Conn]bool{}}
	go p.serve()
	return p, nil
}

// setBackend switches the target; open connections are cut, so clients
// notice a stop at once.
func (p *proxy) setBackend(addr string) {
	p.mu.Lock()
	p.backend = addr
	conns := p.conns
	p.conns = map[net.Conn]bool{}
	p.mu.Unlock()
	for c := range conns {
		c.Close()
	}
}

func (p *proxy) close() {
	p.l.Close()
	p.setBackend("")
}

func (p *proxy) track(cs ...net.Conn) {
	p.mu.Lock()
	for _, c := range cs {
		p.conns[c] = true
	}
	p.mu.Unlock()
}

func (p *proxy) serve() {
	for {
		c, err := p.l.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		backend := p.backend
		p.mu.Unlock()
		if backend == "" {
			c.Close()
			continue
		}
		b, err := net.Dial("tcp", backend)
		if err != nil {
			c.Close()
			continue
		}
		p.track(c, b)
		go func() {
			_, _ = io.Copy(b, c)
			b.Close()
		}()
		go func() {
			_, _ = io.Copy(c, b)
			c.Close()
		}()
	}
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
