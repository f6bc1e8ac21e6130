package live

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// countingTransport records what reaches the network.
type countingTransport struct {
	mu   sync.Mutex
	seen []string
}

func (c *countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	c.mu.Lock()
	c.seen = append(c.seen, req.Method+" "+req.URL.Path)
	c.mu.Unlock()
	return &http.Response{StatusCode: 200, Body: io.NopCloser(strings.NewReader("{}")), Header: http.Header{}, Request: req}, nil
}

func TestReadOnlyTransport(t *testing.T) {
	for _, tc := range []struct {
		method, path string
		header       http.Header
		allowed      bool
		why          string
	}{
		{"GET", "/api/v1/pods", nil, true, ""},
		{"GET", "/api/v1/pods?watch=true", nil, true, ""},
		{"GET", "/apis/apps/v1/namespaces/default/daemonsets", nil, true, ""},
		{"GET", "/api/v1/namespaces/proxy/pods", nil, true, ""},        // a namespace named proxy
		{"GET", "/api/v1/namespaces/default/pods/exec", nil, true, ""}, // a pod named exec
		{"GET", "/version", nil, true, ""},
		{"HEAD", "/api", nil, true, ""},
		{"", "/api/v1/nodes", nil, true, ""}, // net/http: "" means GET
		{"POST", "/api/v1/namespaces/default/pods", nil, false, "only GET, LIST and WATCH"},
		{"POST", "/api/v1/namespaces/default/pods/web/binding", nil, false, "only GET"},
		{"PUT", "/api/v1/nodes/n1", nil, false, "only GET"},
		{"PATCH", "/api/v1/nodes/n1/status", nil, false, "only GET"},
		{"DELETE", "/api/v1/namespaces/default/pods/web", nil, false, "only GET"},
		{"DELETE", "/api/v1/namespaces/default/pods", nil, false, "only GET"}, // deletecollection
		{"OPTIONS", "/api/v1/pods", nil, false, "only GET"},
		{"GET", "/api/v1/namespaces/default/pods/web/exec", nil, false, "the exec subresource"},
		{"GET", "/api/v1/namespaces/default/pods/web/attach", nil, false, "the attach subresource"},
		{"GET", "/api/v1/namespaces/default/pods/web/portforward", nil, false, "the portforward subresource"},
		{"GET", "/api/v1/nodes/n1/proxy/configz", nil, false, "the proxy subresource"},
		{"GET", "/api/v1/namespaces/default/services/web/proxy/", nil, false, "the proxy subresource"},
		{"GET", "/api/v1/proxy/nodes/n1/", nil, false, "the proxy subresource"},
		{"GET", "/api/v1/namespaces/default/pods/web/log", http.Header{"Upgrade": {"websocket"}}, false, "connection upgrades"},
		{"GET", "/api/v1/pods", http.Header{"Connection": {"Upgrade"}}, false, "connection upgrades"},
		// What --bind must still refuse.
		{"POST", "/api/v1/namespaces/default/pods/web/eviction", nil, false, "only GET"},
		{"PUT", "/api/v1/namespaces/default/pods/web/binding", nil, false, "only GET"},
		{"POST", "/api/v1/namespaces/default/bindings", nil, false, "only GET"},
		{"POST", "/apis/example.com/v1/namespaces/default/pods/web/binding", nil, false, "only GET"},
		{"POST", "/api/v1/namespaces/default/pods/web/binding/x", nil, false, "only GET"},
	} {
		for _, bind := range []bool{false, true} {
			name := tc.method + " " + tc.path
			newTransport := ReadOnly
			allowed := tc.allowed
			if bind {
				name += " (--bind)"
				newTransport = ReadOnlyExceptBindings
				// The one write --bind allows.
				allowed = allowed || tc.method == "POST" && tc.path == "/api/v1/namespaces/default/pods/web/binding"
			}
			tc := tc
			tc.allowed = allowed
			t.Run(name, func(t *testing.T) {
				next := &countingTransport{}
				rt := newTransport(next)
				req, err := http.NewRequest(tc.method, "https://cluster.example"+tc.path, strings.NewReader("body"))
				if err != nil {
					t.Fatal(err)
				}
				for k, vs := range tc.header {
					req.Header[k] = vs
				}
				resp, err := rt.RoundTrip(req)
				if resp != nil {
					resp.Body.Close()
				}
				if tc.allowed {
					if err != nil || len(next.seen) != 1 {
						t.Fatalf("refused: %v (reached the network: %v)", err, next.seen)
					}
					return
				}
				var ro *ReadOnlyError
				if !errors.As(err, &ro) || !strings.Contains(err.Error(), tc.why) || !strings.Contains(err.Error(), "schedtui is read-only") {
					t.Fatalf("err = %v, want a ReadOnlyError about %q", err, tc.why)
				}
				if len(next.seen) != 0 {
					t.Fatalf("a refused request reached the network: %v", next.seen)
				}
			})
		}
	}
}

// fakeAPIServer answers list requests for nodes and records every request.
func fakeAPIServer(t *testing.T) (*httptest.Server, *countingTransport) {
	t.Helper()
	rec := &countingTransport{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec.mu.Lock()
		rec.seen = append(rec.seen, r.Method+" "+r.URL.Path)
		rec.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.Method == http.MethodGet && r.URL.Path == "/api/v1/nodes":
			_ = json.NewEncoder(w).Encode(&v1.NodeList{
				TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "NodeList"},
				Items:    []v1.Node{{ObjectMeta: metav1.ObjectMeta{Name: "n1"}}},
			})
		case r.URL.Path == "/version":
			_, _ = w.Write([]byte(`{"major":"1","minor":"37","gitVersion":"v1.37.1"}`))
		default:
			w.WriteHeader(http.StatusCreated)
			_, _ = w.Write([]byte(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"created"}}`))
		}
	}))
	t.Cleanup(srv.Close)
	return srv, rec
}

func writeKubeconfig(t *testing.T, path, server string, contexts map[string]string, current string) {
	t.Helper()
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: Config\nclusters:\n")
	for ctx := range contexts {
		b.WriteString("- name: " + ctx + "-cluster\n  cluster:\n    server: " + server + "\n")
	}
	b.WriteString("users:\n- name: me\n  user:\n    token: secret\n")
	b.WriteString("contexts:\n")
	for ctx, ns := range contexts {
		b.WriteString("- name: " + ctx + "\n  context:\n    cluster: " + ctx + "-cluster\n    user: me\n    namespace: " + ns + "\n")
	}
	if current != "" {
		b.WriteString("current-context: " + current + "\n")
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestConnectIsReadOnly builds a real clientset from a kubeconfig: reads
// reach the server, writes never leave the process.
func TestConnectIsReadOnly(t *testing.T) {
	srv, rec := fakeAPIServer(t)
	dir := t.TempDir()
	kc := filepath.Join(dir, "config")
	writeKubeconfig(t, kc, srv.URL, map[string]string{"dev": "default"}, "dev")
	c, err := Connect(Options{Kubeconfig: kc})
	if err != nil {
		t.Fatal(err)
	}
	if c.Name != "dev" || c.Host != srv.URL {
		t.Errorf("name %q host %q", c.Name, c.Host)
	}
	ctx := context.Background()
	nodes, err := c.Client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil || len(nodes.Items) != 1 {
		t.Fatalf("list nodes: %v %v", nodes, err)
	}
	writes := map[string]func() error{
		"create pod": func() error {
			_, err := c.Client.CoreV1().Pods("default").Create(ctx, &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "x"}}, metav1.CreateOptions{})
			return err
		},
		"delete node": func() error { return c.Client.CoreV1().Nodes().Delete(ctx, "n1", metav1.DeleteOptions{}) },
		"bind pod": func() error {
			return c.Client.CoreV1().Pods("default").Bind(ctx, &v1.Binding{ObjectMeta: metav1.ObjectMeta{Name: "x"}, Target: v1.ObjectReference{Name: "n1"}}, metav1.CreateOptions{})
		},
		"patch node": func() error {
			_, err := c.Client.CoreV1().Nodes().Patch(ctx, "n1", "application/merge-patch+json", []byte(`{}`), metav1.PatchOptions{})
			return err
		},
	}
	for name, write := range writes {
		err := write()
		if err == nil || !strings.Contains(err.Error(), "schedtui is read-only") {
			t.Errorf("%s: err = %v, want a read-only refusal", name, err)
		}
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	for _, s := range rec.seen {
		if !strings.HasPrefix(s, "GET ") {
			t.Errorf("the server saw %s", s)
		}
	}
}

func TestConnectKubeconfigRules(t *testing.T) {
	srv, _ := fakeAPIServer(t)
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	writeKubeconfig(t, a, srv.URL, map[string]string{"alpha": "default"}, "alpha")
	writeKubeconfig(t, b, srv.URL, map[string]string{"beta": "default"}, "")
	for _, tc := range []struct {
		name       string
		kubeconfig string // $KUBECONFIG
		opts       Options
		want       string // context, or
		err        string
	}{
		{"current context", a, Options{}, "alpha", ""},
		{"several files merged, --context from the second", a + string(os.PathListSeparator) + b, Options{Context: "beta"}, "beta", ""},
		{"explicit file wins over $KUBECONFIG", a, Options{Kubeconfig: b, Context: "beta"}, "beta", ""},
		{"unknown context", a, Options{Context: "gamma"}, "", `context "gamma" does not exist`},
		{"missing explicit file", a, Options{Kubeconfig: filepath.Join(dir, "nope")}, "", "nope"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("KUBECONFIG", tc.kubeconfig)
			c, err := Connect(tc.opts)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.Name != tc.want {
				t.Errorf("context %q, want %q", c.Name, tc.want)
			}
		})
	}
}

func TestAvailable(t *testing.T) {
	dir := t.TempDir()
	kc := filepath.Join(dir, "config")
	writeKubeconfig(t, kc, "https://127.0.0.1:1", map[string]string{"x": "default"}, "x")
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	t.Setenv("KUBERNETES_SERVICE_PORT", "")
	for _, tc := range []struct {
		name, kubeconfig, home string
		want                   bool
	}{
		{"$KUBECONFIG", kc, dir, true},
		{"$KUBECONFIG names missing files", filepath.Join(dir, "missing"), dir, false},
		{"nothing", "", dir, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("KUBECONFIG", tc.kubeconfig)
			t.Setenv("HOME", tc.home)
			if got := Available(); got != tc.want {
				t.Errorf("Available() = %v, want %v", got, tc.want)
			}
		})
	}
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".kube"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeKubeconfig(t, filepath.Join(home, ".kube", "config"), "https://127.0.0.1:1", map[string]string{"x": "default"}, "x")
	t.Setenv("KUBECONFIG", "")
	t.Setenv("HOME", home)
	if !Available() {
		t.Error("~/.kube/config is not seen")
	}
}
