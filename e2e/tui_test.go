package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// tmuxSession is the real binary running in a detached tmux session.
type tmuxSession struct {
	t    *testing.T
	tmux string
	name string
}

func startTmux(t *testing.T, width, height int, args ...string) *tmuxSession {
	t.Helper()
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Fatal("tmux is not installed: `make test` installs it (make tmux)")
	}
	tmuxSessions++
	s := &tmuxSession{t: t, tmux: tmux, name: fmt.Sprintf("schedtui-e2e-live-%d-%d", os.Getpid(), tmuxSessions)}
	cmd := append([]string{"new-session", "-d", "-s", s.name, "-x", fmt.Sprint(width), "-y", fmt.Sprint(height),
		"-e", "TERM=xterm-256color", "-e", "KUBECONFIG=/nonexistent", schedtuiBin}, args...)
	if out, err := s.command(cmd...).CombinedOutput(); err != nil {
		t.Fatalf("tmux new-session: %v\n%s", err, out)
	}
	t.Cleanup(func() { _ = s.command("kill-server").Run() })
	return s
}

func (s *tmuxSession) capture() string {
	out, _ := s.command("capture-pane", "-p", "-t", s.name).CombinedOutput()
	return string(out)
}

// tmuxSessions numbers the sessions this process starts.
var tmuxSessions int

// command runs tmux on the session's own server (-L): sessions never share
// a server, so one server shutting down after its last session never races
// another session's start ("server exited unexpectedly").
func (s *tmuxSession) command(args ...string) *exec.Cmd {
	return exec.Command(s.tmux, append([]string{"-L", s.name}, args...)...)
}

// waitFor polls the screen until every string shows.
func (s *tmuxSession) waitFor(d time.Duration, want ...string) string {
	s.t.Helper()
	deadline := time.Now().Add(d)
	var screen string
	for time.Now().Before(deadline) {
		screen = s.capture()
		ok := true
		for _, w := range want {
			ok = ok && strings.Contains(screen, w)
		}
		if ok {
			return screen
		}
		time.Sleep(100 * time.Millisecond)
	}
	s.t.Fatalf("timed out waiting for %q; screen:\n%s", want, screen)
	return ""
}

func (s *tmuxSession) keys(k ...string) {
	s.t.Helper()
	if out, err := s.command(append([]string{"send-keys", "-t", s.name}, k...)...).CombinedOutput(); err != nil {
		s.t.Fatalf("tmux send-keys: %v\n%s", err, out)
	}
}

// TestTUILive opens the debugger on the live cluster in tmux: a pod
// created in the cluster shows in the queue without a key press, a
// binding made by someone else is put next to schedtui's prediction, and
// an API server restart is reported and survived. Nothing is written.
func TestTUILive(t *testing.T) {
	s := startAPIServer(t)
	populate(t, s.admin)
	ctx := context.Background()
	tm := startTmux(t, 160, 40, "--kubeconfig", s.Kubeconfig(readerUser))
	tm.waitFor(60*time.Second, "shop/checkout", "live")

	// A new pending pod appears by itself.
	_, err := s.admin.CoreV1().Pods("shop").Create(ctx, pod("shop", "arrived-live", "100m", "64Mi"), metav1.CreateOptions{})
	must(t, err)
	tm.waitFor(30*time.Second, "shop/arrived-live")

	// Someone else's scheduler binds batch/huge, which fits nowhere.
	must(t, s.admin.CoreV1().Pods("batch").Bind(ctx, &v1.Binding{
		ObjectMeta: metav1.ObjectMeta{Namespace: "batch", Name: "huge"},
		Target:     v1.ObjectReference{Kind: "Node", Name: "node-b2"},
	}, metav1.CreateOptions{}))
	tm.waitFor(30*time.Second, "vs the cluster: 0 agree · 0 tie · 1 disagree")
	tm.keys("7")
	tm.waitFor(10*time.Second, "batch/huge: the cluster bound it to node-b2; schedtui: no node (disagree")

	s.Stop()
	tm.waitFor(60*time.Second, "disconnected: lost the API server")
	s.Start()
	tm.waitFor(60*time.Second, "reconnected after")
	_, err = s.admin.CoreV1().Pods("shop").Create(ctx, pod("shop", "after-restart", "100m", "64Mi"), metav1.CreateOptions{})
	must(t, err)
	tm.keys("1")
	tm.waitFor(60*time.Second, "shop/after-restart")

	tm.keys("q")
	deadline := time.Now().Add(10 * time.Second)
	for tm.command("has-session", "-t", tm.name).Run() == nil {
		if time.Now().After(deadline) {
			t.Fatalf("q did not quit:\n%s", tm.capture())
		}
		time.Sleep(100 * time.Millisecond)
	}
	for _, w := range s.Writes(readerUser) {
		t.Errorf("schedtui wrote to the cluster: %s %s", w.Verb, w.RequestURI)
	}
}

// TestTUILiveRealTime: on a live cluster the engine follows the wall
// clock: a pending pod's age counts up on screen without a key press, and
// with --simulate (schedtui schedules itself rather than shadowing the
// cluster's scheduler) n forecasts where the pod goes.
func TestTUILiveRealTime(t *testing.T) {
	s := startAPIServer(t)
	createNode(t, s.admin, node("node-1", "zone-a", "2", "4Gi"))
	_, err := s.admin.CoreV1().Pods("default").Create(context.Background(), pod("default", "waiting", "100m", "64Mi"), metav1.CreateOptions{})
	must(t, err)
	tm := startTmux(t, 160, 40, "--simulate", "--kubeconfig", s.Kubeconfig(readerUser))
	tm.waitFor(60*time.Second, "default/waiting", "live")
	tm.keys("1")
	ageOf := regexp.MustCompile(`default/waiting +prio 0 +age (\d+)s`)
	first := -1
	deadline := time.Now().Add(30 * time.Second)
	for {
		screen := tm.capture()
		if m := ageOf.FindStringSubmatch(screen); m != nil {
			age, _ := strconv.Atoi(m[1])
			if first < 0 {
				first = age
			}
			if age >= first+3 {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the age did not count up from %ds in 30s:\n%s", first, screen)
		}
		time.Sleep(200 * time.Millisecond)
	}
	tm.keys("n")
	tm.waitFor(30*time.Second, "[forecast]", "default/waiting Scheduled → node-1")
	tm.keys("q")
}
