package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/schedtui/schedtui/scheduler/change"
	"github.com/schedtui/schedtui/snapshot/live"
)

// attemptLines keeps the attempt lines of `schedtui run -o json` (the
// other lines are the queue's moves, compared too).
func outcomes(t *testing.T, out string) map[string]int {
	t.Helper()
	n := map[string]int{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var v struct {
			Outcome string `json:"outcome"`
		}
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Fatalf("not JSON: %q: %v", l, err)
		}
		if v.Outcome != "" {
			n[v.Outcome]++
		}
	}
	return n
}

// TestLiveAgreesWithSnapshot: schedtui gives the same answers on the live
// cluster, through a user who may only get, list and watch, as on a
// snapshot of it; and that user made no write request.
func TestLiveAgreesWithSnapshot(t *testing.T) {
	s := startAPIServer(t)
	populate(t, s.admin)
	kc := s.Kubeconfig(readerUser)
	dir := t.TempDir()

	liveRun := schedtui(t, "run", "-o", "json", "--kubeconfig", kc)
	snap := filepath.Join(dir, "cluster.yaml")
	schedtui(t, "snapshot", "--kubeconfig", kc, "-o", snap)
	snapRun := schedtui(t, "run", "-o", "json", "--snapshot", snap)
	if liveRun != snapRun {
		t.Errorf("run on the live cluster and on its snapshot differ:\nlive:\n%s\nsnapshot:\n%s", liveRun, snapRun)
	}
	got := outcomes(t, liveRun)
	// The story of populate: some pods schedule, some cannot, checkout
	// preempts and then schedules.
	if got["Scheduled"] < 5 || got["Unschedulable"] < 3 {
		t.Errorf("outcomes %v: want at least 5 Scheduled and 3 Unschedulable", got)
	}
	if !strings.Contains(liveRun, `"preemption"`) {
		t.Errorf("no preemption in the live run:\n%s", liveRun)
	}

	for _, target := range []string{"batch/huge", "shop/cache-1", "batch/train"} {
		liveExplain := schedtui(t, "explain", target, "--all", "--kubeconfig", kc)
		snapExplain := schedtui(t, "explain", target, "--all", "--snapshot", snap)
		if liveExplain != snapExplain {
			t.Errorf("explain %s differs:\nlive:\n%s\nsnapshot:\n%s", target, liveExplain, snapExplain)
		}
	}

	if reqs := s.Requests(readerUser); len(reqs) < 20 {
		t.Fatalf("the audit log has %d requests of %s: is auditing on?", len(reqs), readerUser)
	}
	for _, w := range s.Writes(readerUser) {
		t.Errorf("schedtui wrote to the cluster: %s %s", w.Verb, w.RequestURI)
	}
}

// TestOptionalKindForbidden: a user who may not list an optional kind
// gets a warning naming it, and the rest works.
func TestOptionalKindForbidden(t *testing.T) {
	s := startAPIServer(t)
	populate(t, s.admin)
	ctx := context.Background()
	role, err := s.admin.RbacV1().ClusterRoles().Get(ctx, readerUser, metav1.GetOptions{})
	must(t, err)
	for i, r := range role.Rules {
		if len(r.APIGroups) == 1 && r.APIGroups[0] == "storage.k8s.io" {
			role.Rules[i].Resources = []string{"storageclasses", "csinodes", "csidrivers"}
		}
	}
	_, err = s.admin.RbacV1().ClusterRoles().Update(ctx, role, metav1.UpdateOptions{})
	must(t, err)
	reader := kubernetes.NewForConfigOrDie(s.RESTConfig(readerUser))
	waitFor(t, 30*time.Second, "RBAC to forbid csistoragecapacities", func() (bool, error) {
		_, err := reader.StorageV1().CSIStorageCapacities("").List(ctx, metav1.ListOptions{Limit: 1})
		return err != nil, nil
	})
	out, errOut, err := runSchedtui("run", "--kubeconfig", s.Kubeconfig(readerUser))
	if err != nil {
		t.Fatalf("run failed: %v\n%s", err, errOut)
	}
	for _, want := range []string{"CSIStorageCapacities", "forbidden", "VolumeAttachments"} {
		if !strings.Contains(strings.ToLower(errOut), strings.ToLower(want)) {
			t.Errorf("stderr does not mention %q:\n%s", want, errOut)
		}
	}
	if !strings.Contains(out, "Scheduled") {
		t.Errorf("nothing scheduled:\n%s", out)
	}
	for _, w := range s.Writes(readerUser) {
		t.Errorf("schedtui wrote to the cluster: %s %s", w.Verb, w.RequestURI)
	}
}

// TestAPIServerRestart: a live source reports the lost connection while
// the API server is down and, once it is back, delivers what changed.
func TestAPIServerRestart(t *testing.T) {
	s := startAPIServer(t)
	populate(t, s.admin)
	lc, err := live.Connect(live.Options{Kubeconfig: s.Kubeconfig(readerUser)})
	must(t, err)
	statuses := make(chan live.Status, 1024)
	src := live.NewSource(lc.Name, lc.Client, func(st live.Status) {
		select {
		case statuses <- st:
		default:
		}
	})
	defer src.Stop()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c, _, err := src.Sync(ctx)
	must(t, err)
	if len(c.Nodes) != 5 {
		t.Fatalf("synced %d nodes, want 5", len(c.Nodes))
	}
	changes := make(chan string, 1024)
	go func() {
		_ = src.Watch(ctx, func(ch change.Change) error {
			changes <- describe(ch)
			return nil
		})
	}()

	s.Stop()
	waitForStatus(t, statuses, 60*time.Second, "the disconnection", func(st live.Status) bool {
		return !st.Connected && st.Err != nil
	})
	s.Start()
	waitForStatus(t, statuses, 60*time.Second, "the reconnection", func(st live.Status) bool {
		return st.Connected && strings.Contains(st.Message, "reconnected")
	})
	createNode(t, s.admin, node("node-c1", "zone-c", "4", "8Gi"))
	_, err = s.admin.CoreV1().Pods("shop").Create(ctx, pod("shop", "after-restart", "100m", "64Mi"), metav1.CreateOptions{})
	must(t, err)
	want := map[string]bool{"NodeAdd node-c1": false, "PodAdd shop/after-restart": false}
	deadline := time.After(90 * time.Second)
	for {
		done := true
		for _, seen := range want {
			done = done && seen
		}
		if done {
			break
		}
		select {
		case d := <-changes:
			if _, ok := want[d]; ok {
				want[d] = true
			}
		case <-deadline:
			t.Fatalf("after the restart, changes not delivered: %v", want)
		}
	}
	for _, w := range s.Writes(readerUser) {
		t.Errorf("schedtui wrote to the cluster: %s %s", w.Verb, w.RequestURI)
	}
}

func waitForStatus(t *testing.T, ch <-chan live.Status, d time.Duration, what string, ok func(live.Status) bool) live.Status {
	t.Helper()
	deadline := time.After(d)
	for {
		select {
		case st := <-ch:
			if ok(st) {
				t.Logf("status: %s", st)
				return st
			}
		case <-deadline:
			t.Fatalf("no status reporting %s within %s", what, d)
		}
	}
}

func writeFile(t *testing.T, path, content string) string {
	t.Helper()
	must(t, os.WriteFile(path, []byte(content), 0o644))
	return path
}

func describe(c change.Change) string {
	switch {
	case c.Pod != nil:
		return string(c.Kind) + " " + c.Pod.Namespace + "/" + c.Pod.Name
	case c.Node != nil:
		return string(c.Kind) + " " + c.Node.Name
	}
	return string(c.Kind)
}
