package e2e

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const schedtuiProfile = `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: schedtui
`

// TestBind: with --bind, schedtui binds for real the pods of its own
// schedulerName, and only those, with nothing but pods/binding requests.
func TestBind(t *testing.T) {
	s := startAPIServer(t)
	ctx := context.Background()
	for _, n := range []string{"node-1", "node-2"} {
		createNode(t, s.admin, node(n, "zone-a", "4", "8Gi"))
	}
	mine := []string{"mine-1", "mine-2", "mine-3"}
	for _, name := range mine {
		_, err := s.admin.CoreV1().Pods("default").Create(ctx, pod("default", name, "1", "1Gi", schedulerName("schedtui")), metav1.CreateOptions{})
		must(t, err)
	}
	for _, p := range []string{"theirs"} {
		_, err := s.admin.CoreV1().Pods("default").Create(ctx, pod("default", p, "1", "1Gi"), metav1.CreateOptions{})
		must(t, err)
	}
	_, err := s.admin.CoreV1().Pods("default").Create(ctx, pod("default", "mine-too-big", "64", "1Gi", schedulerName("schedtui")), metav1.CreateOptions{})
	must(t, err)
	cfg := writeFile(t, filepath.Join(t.TempDir(), "config.yaml"), schedtuiProfile)

	// A user without the right to bind: the bindings fail, nothing is
	// bound, schedtui reports why.
	out, errOut, err := runSchedtui("run", "--bind", "--config", cfg, "--kubeconfig", s.Kubeconfig(readerUser))
	if err != nil {
		t.Fatalf("run --bind as %s: %v\n%s", readerUser, err, errOut)
	}
	if !strings.Contains(out, "forbidden") {
		t.Errorf("a forbidden binding is not reported:\n%s", out)
	}
	assertUnbound(t, s, append(mine, "theirs", "mine-too-big")...)

	out = schedtui(t, "run", "--bind", "--config", cfg, "--kubeconfig", s.Kubeconfig(binderUser), "-o", "json")
	chosen := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var v struct{ Kind, Pod, Outcome, Node string }
		must(t, json.Unmarshal([]byte(l), &v))
		if v.Kind == "attempt" && v.Outcome == "Scheduled" {
			chosen[v.Pod] = v.Node
		}
	}
	for _, name := range mine {
		p, err := s.admin.CoreV1().Pods("default").Get(ctx, name, metav1.GetOptions{})
		must(t, err)
		if p.Spec.NodeName == "" || p.Spec.NodeName != chosen["default/"+name] {
			t.Errorf("%s is on %q in the cluster; schedtui chose %q", name, p.Spec.NodeName, chosen["default/"+name])
		}
	}
	assertUnbound(t, s, "theirs", "mine-too-big")

	writes := s.Writes(binderUser)
	if len(writes) != len(mine) {
		t.Errorf("%d write requests, want %d bindings", len(writes), len(mine))
	}
	for _, w := range writes {
		if w.Verb != "create" || w.ObjectRef == nil || w.ObjectRef.Resource != "pods" || w.ObjectRef.Subresource != "binding" {
			t.Errorf("a write that is not a binding: %s %s", w.Verb, w.RequestURI)
		}
	}
	for _, w := range s.Writes(readerUser) {
		if w.ObjectRef == nil || w.ObjectRef.Subresource != "binding" || w.ResponseStatus == nil || w.ResponseStatus.Code != 403 {
			t.Errorf("the reader's write was not a forbidden binding: %s %s", w.Verb, w.RequestURI)
		}
	}
}

func assertUnbound(t *testing.T, s *apiServer, names ...string) {
	t.Helper()
	for _, name := range names {
		p, err := s.admin.CoreV1().Pods("default").Get(context.Background(), name, metav1.GetOptions{})
		must(t, err)
		if p.Spec.NodeName != "" {
			t.Errorf("%s was bound to %s", name, p.Spec.NodeName)
		}
	}
}

// TestBindFromTUI: with --bind, each step of the debugger (n) binds the
// pod it schedules in the cluster; nothing is bound before the user steps.
func TestBindFromTUI(t *testing.T) {
	s := startAPIServer(t)
	ctx := context.Background()
	createNode(t, s.admin, node("node-1", "zone-a", "4", "8Gi"))
	for _, name := range []string{"first", "second"} {
		_, err := s.admin.CoreV1().Pods("default").Create(ctx, pod("default", name, "1", "1Gi", schedulerName("schedtui")), metav1.CreateOptions{})
		must(t, err)
	}
	cfg := writeFile(t, filepath.Join(t.TempDir(), "config.yaml"), schedtuiProfile)
	tm := startTmux(t, 160, 40, "--bind", "--config", cfg, "--kubeconfig", s.Kubeconfig(binderUser))
	tm.waitFor(60*time.Second, "default/first", "default/second", "--bind")
	assertUnbound(t, s, "first", "second")
	tm.keys("n")
	tm.waitFor(30*time.Second, "Scheduled")
	bound := ""
	waitFor(t, 30*time.Second, "one pod bound in the cluster", func() (bool, error) {
		for _, name := range []string{"first", "second"} {
			p, err := s.admin.CoreV1().Pods("default").Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			if p.Spec.NodeName != "" {
				bound = name
			}
		}
		return bound != "", nil
	})
	other := map[string]string{"first": "second", "second": "first"}[bound]
	assertUnbound(t, s, other)
	// u (rewind) is refused: the binding cannot be undone.
	tm.keys("u")
	tm.waitFor(10*time.Second, "cannot rewind")
	tm.keys("q")
	writes := s.Writes(binderUser)
	if len(writes) != 1 || writes[0].ObjectRef == nil || writes[0].ObjectRef.Subresource != "binding" || writes[0].ObjectRef.Name != bound {
		t.Errorf("writes %+v, want the binding of %s", writes, bound)
	}
}
