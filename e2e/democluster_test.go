package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/schedtui/schedtui/e2e/kubecluster"
	"github.com/schedtui/schedtui/snapshot"
	"github.com/schedtui/schedtui/testdata"
)

// TestDemoCluster runs `make demo-cluster`'s command (cmd/demo-cluster,
// built as the Makefile builds it) with churn, on a chosen port and state
// directory: its kube-apiserver serves the demo's nodes and pods to
// client-go and to `schedtui explain --kubeconfig`, its kube-scheduler
// decides the demo's pending pods, churn creates pods, and every port it
// listens on is on 127.0.0.1. SIGTERM then stops it: it exits 0, its
// directory is gone and its ports are free again.
func TestDemoCluster(t *testing.T) {
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "demo-cluster")
	build := exec.Command("go", "build", "-ldflags", demoClusterLDFlags(t), "-o", bin, "./cmd/demo-cluster")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building demo-cluster: %v\n%s", err, out)
	}
	addr, err := kubecluster.FreeAddr()
	must(t, err)
	_, port, _ := net.SplitHostPort(addr)
	state := filepath.Join(tmp, "state")
	cmd := exec.Command(bin, "--dir", state, "--port", port, "--churn", "300ms", "--churn-seed", "7")
	var stdout, stderr syncBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	must(t, cmd.Start())
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			_ = cmd.Process.Kill()
			<-exited
		}
		if t.Failed() {
			t.Logf("demo-cluster stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
		}
	})

	// Ready once it prints the commands to try.
	ready := time.Now().Add(2 * time.Minute)
	for !strings.Contains(stdout.String(), "The cluster is up") {
		select {
		case err := <-exited:
			stopped = true
			t.Fatalf("demo-cluster exited before it was ready: %v", err)
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(ready) {
			t.Fatal("demo-cluster not ready in 2m")
		}
	}
	kubeconfig := filepath.Join(state, "kubeconfig")
	if want := "schedtui --kubeconfig " + kubeconfig; !strings.Contains(stdout.String(), want) {
		t.Errorf("the output does not say %q", want)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	must(t, err)
	if cfg.Host != "https://"+addr {
		t.Errorf("kubeconfig's server is %s, want https://%s (--port)", cfg.Host, addr)
	}
	client := kubernetes.NewForConfigOrDie(cfg)
	ctx := context.Background()

	info, err := client.Discovery().ServerVersion()
	must(t, err)
	if info.GitVersion != "v1.37.1" {
		t.Errorf("the API server reports version %s, want v1.37.1 (DEMO_CLUSTER_LDFLAGS)", info.GitVersion)
	}
	demo, _, err := snapshot.Load(testdata.DemoName, testdata.Demo)
	must(t, err)
	var wantNodes, gotNodes []string
	for _, n := range demo.Nodes {
		wantNodes = append(wantNodes, n.Name)
	}
	nodes, err := client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	must(t, err)
	for _, n := range nodes.Items {
		gotNodes = append(gotNodes, n.Name)
	}
	slices.Sort(wantNodes)
	slices.Sort(gotNodes)
	if !slices.Equal(gotNodes, wantNodes) {
		t.Errorf("nodes %v, want the demo's %v", gotNodes, wantNodes)
	}

	// The real scheduler decides the demo's pending pods (analytics fits
	// nowhere), and churn adds pods.
	err = wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, 60*time.Second, true, func(ctx context.Context) (bool, error) {
		p, err := client.CoreV1().Pods("default").Get(ctx, "analytics", metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		for _, c := range p.Status.Conditions {
			if c.Type == v1.PodScheduled && c.Reason == v1.PodReasonUnschedulable {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Errorf("kube-scheduler did not mark default/analytics unschedulable: %v", err)
	}
	// The demo's training job is a gang (its scheduler and API server run
	// with GenericWorkload): the real scheduler finds it unschedulable as
	// a whole and binds none of its 8 workers, though 6 would fit.
	var gangCondition string
	err = wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, 60*time.Second, true, func(ctx context.Context) (bool, error) {
		pg, err := client.SchedulingV1beta1().PodGroups("default").Get(ctx, "llm-train-workers", metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		for _, c := range pg.Status.Conditions {
			if c.Type == schedulingv1beta1.PodGroupInitiallyScheduled {
				gangCondition = fmt.Sprintf("%s %s: %s", c.Status, c.Reason, c.Message)
				return c.Status == metav1.ConditionFalse && c.Reason == schedulingv1beta1.PodGroupReasonUnschedulable, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Errorf("kube-scheduler did not find the gang default/llm-train-workers unschedulable (%q): %v", gangCondition, err)
	} else if !strings.Contains(gangCondition, "minCount (8) cannot be satisfied") {
		t.Errorf("the gang's condition: %s", gangCondition)
	}
	members, err := client.CoreV1().Pods("default").List(ctx, metav1.ListOptions{LabelSelector: "app=llm-train"})
	must(t, err)
	if len(members.Items) != 8 {
		t.Errorf("%d pods of the training job, want 8", len(members.Items))
	}
	for _, p := range members.Items {
		if p.Spec.NodeName != "" || p.Spec.SchedulingGroup == nil {
			t.Errorf("worker %s: bound to %q, schedulingGroup %v: the gang binds none, each names its group", p.Name, p.Spec.NodeName, p.Spec.SchedulingGroup)
		}
	}
	err = wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		_, err := client.CoreV1().Pods("default").Get(ctx, "churn-1", metav1.GetOptions{})
		return err == nil || strings.Contains(stdout.String(), "churn: deleted default/churn-1"), nil
	})
	if err != nil {
		t.Errorf("churn created no pod: %v", err)
	}

	// Live mode: schedtui reads the cluster through the kubeconfig.
	out := schedtui(t, "explain", "--kubeconfig", kubeconfig, "default/analytics")
	if !strings.Contains(out, "Insufficient cpu") {
		t.Errorf("schedtui explain on the demo cluster does not find analytics short of cpu:\n%s", out)
	}

	listening := listeningAddrs(t, cmd.Process.Pid)
	if len(listening) == 0 {
		t.Error("found no port demo-cluster listens on")
	}
	for _, a := range listening {
		if !strings.HasPrefix(a, "127.0.0.1:") {
			t.Errorf("demo-cluster listens on %s, not on 127.0.0.1", a)
		}
	}
	if !slices.Contains(listening, addr) {
		t.Errorf("demo-cluster does not listen on %s (--port): %v", addr, listening)
	}

	must(t, cmd.Process.Signal(syscall.SIGTERM))
	select {
	case err := <-exited:
		stopped = true
		if err != nil {
			t.Errorf("demo-cluster after SIGTERM: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("demo-cluster still runs 30s after SIGTERM")
	}
	if !strings.Contains(stdout.String(), "Stopped: kube-scheduler, kube-apiserver, etcd.") {
		t.Error("demo-cluster did not say it stopped its parts")
	}
	if _, err := os.Stat(state); !os.IsNotExist(err) {
		t.Errorf("its directory %s is still there (%v)", state, err)
	}
	for _, a := range listening {
		l, err := net.Listen("tcp", a)
		if err != nil {
			t.Errorf("port %s is still taken after exit: %v", a, err)
			continue
		}
		l.Close()
	}
	if s := stderr.String(); s != "" {
		t.Errorf("demo-cluster wrote to stderr:\n%s", s)
	}
}

// demoClusterLDFlags are the Makefile's DEMO_CLUSTER_LDFLAGS, so that the
// test builds the command as `make demo-cluster` does.
func demoClusterLDFlags(t *testing.T) string {
	t.Helper()
	mk, err := os.ReadFile("../Makefile")
	must(t, err)
	m := regexp.MustCompile(`(?m)^DEMO_CLUSTER_LDFLAGS\s*:=\s*(.*)$`).FindSubmatch(mk)
	if m == nil {
		t.Fatal("the Makefile sets no DEMO_CLUSTER_LDFLAGS")
	}
	return strings.TrimSpace(string(m[1]))
}

// listeningAddrs are the TCP addresses process pid listens on (IPv4
// ones as 127.0.0.1:PORT, others as [HEX]:PORT), from /proc: its socket
// inodes matched against the kernel's tables of listening sockets.
func listeningAddrs(t *testing.T, pid int) []string {
	t.Helper()
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	must(t, err)
	inodes := map[string]bool{}
	for _, fd := range fds {
		link, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name()))
		if err == nil && strings.HasPrefix(link, "socket:[") {
			inodes[strings.TrimSuffix(strings.TrimPrefix(link, "socket:["), "]")] = true
		}
	}
	var out []string
	for _, table := range []string{"tcp", "tcp6"} {
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/net/%s", pid, table))
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Scan() // the header
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			// local_address, state (0A: LISTEN), inode
			if len(f) < 10 || f[3] != "0A" || !inodes[f[9]] {
				continue
			}
			hexIP, hexPort, _ := strings.Cut(f[1], ":")
			p, _ := strconv.ParseUint(hexPort, 16, 16)
			ip, _ := hex.DecodeString(hexIP)
			host := "[" + hexIP + "]"
			if len(ip) == 4 { // little-endian on the machines this runs on
				host = net.IPv4(ip[3], ip[2], ip[1], ip[0]).String()
			}
			out = append(out, net.JoinHostPort(strings.Trim(host, "[]"), strconv.FormatUint(p, 10)))
		}
	}
	slices.Sort(out)
	return out
}
