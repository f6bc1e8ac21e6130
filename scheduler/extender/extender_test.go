package extender

import (
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/schedtui/schedtui/internal/extendertest"
	"github.com/schedtui/schedtui/scheduler/framework"
)

func testNodes(names ...string) ([]*v1.Node, []*framework.NodeInfo) {
	var nodes []*v1.Node
	var infos []*framework.NodeInfo
	for _, n := range names {
		node := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: n, Labels: map[string]string{}}}
		nodes = append(nodes, node)
		ni := framework.NewNodeInfo(&v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "on-" + n, UID: types.UID("uid-" + n)}, Spec: v1.PodSpec{NodeName: n}})
		ni.SetNode(node)
		infos = append(infos, ni)
	}
	return nodes, infos
}

func testPod() *v1.Pod {
	return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default"}}
}

// A cache-capable extender answers names, mapped back to the NodeInfos
// sent; another answers whole nodes, which become NodeInfos with no pods,
// as upstream builds them.
func TestFilterModes(t *testing.T) {
	nodes, infos := testNodes("a", "b")
	nodes[1].Labels["extender.test/filter"] = "fail"
	srv := extendertest.Start(nodes)
	defer srv.Close()
	for _, cacheCapable := range []bool{true, false} {
		e, err := New(configv1.Extender{URLPrefix: srv.URL(), FilterVerb: "filter", NodeCacheCapable: cacheCapable})
		if err != nil {
			t.Fatal(err)
		}
		kept, failed, _, err := e.Filter(testPod(), infos)
		if err != nil || len(kept) != 1 || kept[0].Name() != "a" || failed["b"] == "" {
			t.Fatalf("cacheCapable=%v: kept %v failed %v err %v", cacheCapable, kept, failed, err)
		}
		if same := kept[0] == infos[0]; same != cacheCapable || (len(kept[0].Pods) == 1) != cacheCapable {
			t.Errorf("cacheCapable=%v: kept the NodeInfo sent: %v, with its pods: %d", cacheCapable, same, len(kept[0].Pods))
		}
		calls := e.TakeCalls()
		if len(calls) != 1 || calls[0].Verb != VerbFilter || !strings.Contains(calls[0].Response, `"FailedNodes":{"b"`) {
			t.Errorf("recorded %+v", calls)
		}
	}
}

func TestErrorsAsUpstream(t *testing.T) {
	_, infos := testNodes("a")
	srv := extendertest.Start(nil)
	defer srv.Close()
	srv.Status = http.StatusInternalServerError
	e, _ := New(configv1.Extender{URLPrefix: srv.URL() + "/", FilterVerb: "filter"})
	if _, _, _, err := e.Filter(testPod(), infos); err == nil || err.Error() != "failed filter with extender at URL "+srv.URL()+"/filter, code 500" {
		t.Errorf("non-200: %v", err)
	}
	srv.Status, srv.Delay = 0, 300*time.Millisecond
	e, _ = New(configv1.Extender{URLPrefix: srv.URL(), PrioritizeVerb: "prioritize", HTTPTimeout: metav1.Duration{Duration: 50 * time.Millisecond}})
	if _, _, err := e.Prioritize(testPod(), infos); err == nil || !strings.Contains(err.Error(), "Client.Timeout") {
		t.Errorf("timeout: %v", err)
	}
}

// enableHTTPS without a CA trusts any certificate; with the server's CA it
// verifies it; a wrong CA fails the handshake.
func TestTLS(t *testing.T) {
	_, infos := testNodes("a")
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`{"NodeNames":["a"]}`))
	}))
	defer srv.Close()
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	for _, tc := range []struct {
		name string
		cfg  configv1.Extender
		ok   bool
	}{
		{"enableHTTPS, no CA: insecure", configv1.Extender{EnableHTTPS: true}, true},
		{"no TLS settings: verified against the system roots", configv1.Extender{}, false},
		{"the server's CA", configv1.Extender{TLSConfig: &configv1.ExtenderTLSConfig{CAData: ca}}, true},
	} {
		tc.cfg.URLPrefix, tc.cfg.FilterVerb, tc.cfg.NodeCacheCapable = srv.URL, "filter", true
		e, err := New(tc.cfg)
		if err != nil {
			t.Fatal(err)
		}
		_, _, _, err = e.Filter(testPod(), infos)
		if (err == nil) != tc.ok {
			t.Errorf("%s: err %v", tc.name, err)
		}
	}
	if _, err := New(configv1.Extender{URLPrefix: srv.URL, TLSConfig: &configv1.ExtenderTLSConfig{Insecure: true, CAData: ca}}); err == nil {
		t.Error("insecure with a CA should be refused")
	}
}
