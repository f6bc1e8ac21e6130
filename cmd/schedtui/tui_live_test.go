package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/schedtui/schedtui/scheduler/change"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// gatedReader types its keys once release is closed, then blocks until
// done is closed.
type gatedReader struct {
	keys          []byte
	release, done chan struct{}
	sent          bool
}

func (r *gatedReader) Read(p []byte) (int, error) {
	if !r.sent {
		<-r.release
		r.sent = true
		return copy(p, r.keys), nil
	}
	<-r.done
	return 0, io.EOF
}

// TestTUILive opens the TUI on a (fake) live cluster, deletes a node while
// it runs and quits once the engine applied the change: the watch is wired
// to the engine and shuts down with the TUI.
func TestTUILive(t *testing.T) {
	c := fakeCluster(t)
	existingKubeconfig(t)
	setServerVersion(c, "v1.35.0")
	applied := make(chan string, 10)
	old := liveApplied
	liveApplied = func(ch change.Change, err error) {
		s := string(ch.Kind)
		if err != nil {
			s += ": " + err.Error()
		}
		applied <- s
	}
	t.Cleanup(func() { liveApplied = old })
	in := &gatedReader{keys: []byte("q"), release: make(chan struct{}), done: make(chan struct{})}
	defer close(in.done)

	var out bytes.Buffer
	var errOut lockedBuffer
	done := make(chan error, 1)
	go func() { done <- openTUI(context.Background(), &sourceFlags{seed: 1}, in, &out, &errOut) }()
	go func() {
		// The node is deleted once the sync is over (the TUI is running).
		for !strings.Contains(errOut.String(), "synced") {
			time.Sleep(10 * time.Millisecond)
		}
		_ = c.CoreV1().Nodes().Delete(context.Background(), "live-node", metav1.DeleteOptions{})
	}()
	select {
	case got := <-applied:
		if got != string(change.NodeDelete) {
			t.Errorf("applied %q, want NodeDelete without error", got)
		}
	case err := <-done:
		t.Fatalf("openTUI returned before the change: %v\n%s", err, errOut.String())
	case <-time.After(20 * time.Second):
		t.Fatal("the change never reached the engine")
	}
	close(in.release)
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("openTUI: %v\n%s", err, errOut.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the TUI did not quit")
	}
	// The version simulated, on stderr.
	if line := "simulating kube-scheduler 1.35 (from the server's version)"; !strings.Contains(errOut.String(), line+"\n") {
		t.Errorf("stderr lacks %q:\n%s", line, errOut.String())
	}
}

// lockedBuffer is a bytes.Buffer safe for one writer and one reader.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
