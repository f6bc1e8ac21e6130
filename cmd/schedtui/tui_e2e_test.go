package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// findTmux returns tmux's path, installing it with apt-get when it is
// missing and we may (the Makefile's tmux target does the same).
func findTmux(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("tmux"); err == nil {
		return p
	}
	if os.Geteuid() == 0 {
		if _, err := exec.LookPath("apt-get"); err == nil {
			_ = exec.Command("apt-get", "update").Run()
			_ = exec.Command("apt-get", "install", "-y", "tmux").Run()
		}
	}
	p, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux is not installed and could not be installed (apt-get install -y tmux): skipping the terminal end-to-end test")
	}
	return p
}

// tmuxSession is the real binary running in a detached tmux session.
type tmuxSession struct {
	t    *testing.T
	tmux string
	name string
}

func (s *tmuxSession) cmd(args ...string) string {
	s.t.Helper()
	out, err := s.command(args...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func (s *tmuxSession) capture() string {
	out, _ := s.command("capture-pane", "-p", "-t", s.name).CombinedOutput()
	return string(out)
}

// command runs tmux on the session's own server (-L): tests never share a
// server, so one test's server shutting down after its last session never
// races another test's new-session ("server exited unexpectedly").
func (s *tmuxSession) command(args ...string) *exec.Cmd {
	return exec.Command(s.tmux, append([]string{"-L", s.name}, args...)...)
}

// waitFor polls the screen until every string shows: the renderer writes
// cell diffs at its own pace, so a fixed sleep would be flaky.
func (s *tmuxSession) waitFor(want ...string) string {
	s.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	var screen string
	for time.Now().Before(deadline) {
		screen = s.capture()
		ok := true
		for _, w := range want {
			if !strings.Contains(screen, w) {
				ok = false
				break
			}
		}
		if ok {
			return screen
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.t.Fatalf("timed out waiting for %q; screen:\n%s", want, screen)
	return ""
}

func (s *tmuxSession) keys(k ...string) { s.cmd(append([]string{"send-keys", "-t", s.name}, k...)...) }

// The binary the terminal tests run, built once.
var (
	tuiBinOnce sync.Once
	tuiBin     string
	tuiBinErr  error
)

// startDemo builds the binary (once) and opens it on the demo in a tmux
// session of w×h named after the test, killed at the end.
func startDemo(t *testing.T, w, h int) *tmuxSession {
	t.Helper()
	s := startTUI(t, w, h, nil, "--demo")
	s.waitFor("Active (20)", "default/critical-api")
	return s
}

// startTUI builds the binary (once) and runs it with args (and the
// environment's env, NAME=value) in a tmux session of w×h named after the
// test, killed at the end.
func startTUI(t *testing.T, w, h int, env []string, args ...string) *tmuxSession {
	t.Helper()
	if testing.Short() {
		t.Skip("short")
	}
	tmux := findTmux(t)
	tuiBinOnce.Do(func() {
		dir, err := os.MkdirTemp("", "schedtui-e2e")
		if err != nil {
			tuiBinErr = err
			return
		}
		tuiBin = filepath.Join(dir, "schedtui")
		if out, err := exec.Command("go", "build", "-o", tuiBin, ".").CombinedOutput(); err != nil {
			tuiBinErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if tuiBinErr != nil {
		t.Fatal(tuiBinErr)
	}
	s := &tmuxSession{t: t, tmux: tmux, name: strings.ReplaceAll(fmt.Sprintf("schedtui-%s-%d", t.Name(), os.Getpid()), "/", "-")}
	session := []string{"new-session", "-d", "-s", s.name, "-x", fmt.Sprint(w), "-y", fmt.Sprint(h), "-e", "TERM=xterm-256color"}
	for _, e := range env {
		session = append(session, "-e", e)
	}
	s.cmd(append(append(session, tuiBin), args...)...)
	t.Cleanup(func() { _ = s.command("kill-server").Run() })
	return s
}

// TestTUITypeAhead: keys sent together, the second while the engine runs
// the first, apply in order: n then 4 ends on the Scores view, not on the
// Pod view n opens from the queues.
func TestTUITypeAhead(t *testing.T) {
	s := startDemo(t, 80, 24)
	s.keys("n", "4")
	s.waitFor("attempt 1/1", "Nothing was scored: no node passed Filter")
	s.keys("2", "n", "4", "j")
	s.waitFor("attempt 2/2", "default/frontend-1 · 2 feasible")
}

// TestTUIEndToEnd builds the binary, opens it on the demo in tmux at 80×24,
// steps to the preemption and checks what the screen shows.
func TestTUIEndToEnd(t *testing.T) {
	s := startDemo(t, 80, 24)
	// Step into the first attempt phase by phase, then open Preempt.
	s.keys("s")
	s.waitFor("@PreEnqueue")
	s.keys("s", "s", "s")
	s.waitFor("✗ Filter")
	// The last phase reveals the verdict, which comes first; the phases
	// are below it (G).
	s.keys("s")
	s.waitFor("Waiting for victims to leave: no node fits now")
	s.keys("G")
	s.waitFor("✓ PostFilter")
	s.keys("5")
	screen := s.waitFor("Decided by: latest start time of the highest-priority victims", "★ node-b2")
	for _, want := range []string{"default/web-2", "default/job-0", "violates PDB default/batch", "nominated to node-b2"} {
		if !strings.Contains(screen, want) {
			t.Errorf("preemption screen lacks %q:\n%s", want, screen)
		}
	}
	// The Filter map explains a cell with its numbers.
	s.keys("3", "l", "e")
	s.waitFor("Explain: NodeResourcesFit on node-a1", "requests 3500m")
	// A too small window gets a message, and recovers.
	s.cmd("resize-window", "-t", s.name, "-x", "60", "-y", "20")
	s.waitFor("needs a terminal of at least 80×24")
	s.cmd("resize-window", "-t", s.name, "-x", "100", "-y", "30")
	s.waitFor("Explain: NodeResourcesFit")
	s.keys("q")
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if s.command("has-session", "-t", s.name).Run() != nil {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Errorf("q did not quit: the session is still there:\n%s", s.capture())
}

// TestTUINodesViewDevices opens the Nodes view on the demo's GPU node and
// sees its devices: driver, pool/device, attributes, capacity, holder.
func TestTUINodesViewDevices(t *testing.T) {
	s := startDemo(t, 120, 30)
	s.keys("6", "j", "j")
	s.waitFor("devices (3, 1 free)", "gpu.example.com node-a2/gpu-0 model=a100 · memory=80Gi",
		"held by default/gpu-batch-gpus (pod default/gpu-batch)", "gpu.example.com node-a2/gpu-2 model=l4 · memory=24Gi · free")
}

// TestTUIContinue: c runs to the end in chunks in the real binary, the
// keys typed meanwhile apply after it, and a second c says nothing is left.
func TestTUIContinue(t *testing.T) {
	s := startDemo(t, 100, 30)
	s.keys("c", "7")
	s.waitFor("no breakpoints set (b): ran until nothing was left to schedule")
	s.waitFor("engine quiescent", "Events")
	s.keys("2", "c")
	s.waitFor("no breakpoints set (b): ran until nothing was left to schedule")
}

// TestTUIHintsAt80x24: at the documented minimum the stuck GPU pod's
// hints show in the Pod view, above its phases, without scrolling.
func TestTUIHintsAt80x24(t *testing.T) {
	s := startDemo(t, 80, 24)
	s.keys("n", "n", "n", "n", "n", "n", "2")
	s.waitFor("attempt 6/6", "default/gpu-train", "Hint: tolerate nvidia.com/gpu=present:NoSchedule → fits on node-a2 (proven).")
}

// TestTUIWhatIfEditNodeLabels: in the real binary, W on a node of the
// Nodes view opens its YAML; deleting its hostname label (the topology
// key of web-3's required anti-affinity) and ctrl+s re-runs web-3's
// attempt, which now fits there.
func TestTUIWhatIfEditNodeLabels(t *testing.T) {
	s := startDemo(t, 120, 40)
	s.keys("n", "n", "n", "n", "n", "n", "n")
	s.waitFor("attempt 7/7", "default/web-3 Unschedulable")
	s.keys("6", "/")
	s.keys("-l", "node-a1")
	s.keys("Enter", "W")
	s.waitFor("object: Node/node-a1", "    kubernetes.io/hostname: node-a1")
	// The YAML starts apiVersion, kind, metadata, labels, then the
	// hostname label (labels are sorted).
	s.keys("Down", "Down", "Down", "Down", "Home", "C-k")
	s.keys("C-s")
	s.waitFor("What-if for default/web-3", "with Node/node-a1 (replaced)", "before: Unschedulable", "after:  Scheduled on node-a1")
}
