package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/schedtui/schedtui/e2e/kubecluster"
)

// gangGates is what schedtui is told of the cluster's scheduler: the
// gate the real kube-scheduler runs with (kubecluster.WorkloadSchedulerFlags).
var gangGates = []string{"--feature-gates", "GenericWorkload=true"}

// TestGangRealScheduler runs the real kube-scheduler v1.37.1 with
// GenericWorkload on against an API server serving the workload API
// (scheduling.k8s.io/v1beta1), on the gang cluster (newGangCluster), while
// `schedtui record` records and the debugger watches in tmux, both with
// the gate on. Every decision of the real scheduler — each member's and
// each ordinary pod's binding, each PodScheduled=False/Unschedulable
// message, each PodGroup's PodGroupInitiallyScheduled condition and
// message — must show as a judged `observed` line in the replay of the
// recording and in the live TUI's Events view, with the same verdicts and
// no disagreement (-shadow-strict=false only logs disagreements and
// missing observations). The pods of the PodGroup that does not exist are
// never attempted, by the cluster nor in schedtui's judgments.
//
// Run: cd e2e && go test -count=1 -run TestGangRealScheduler -v .
// [-args -shadow-strict=false]; SCHEDTUI_E2E_KEEP=DIR keeps the recording.
func TestGangRealScheduler(t *testing.T) {
	began := time.Now()
	s := startAPIServer(t, kubecluster.WorkloadAPIFlags...)
	gc := newGangCluster()
	gc.create(t, s.admin)
	ctx, cancel := context.WithCancel(context.Background())
	ctrl := startControllers(t, ctx, s.admin, nil)
	t.Cleanup(func() {
		cancel()
		<-ctrl.done
	})
	startKubeScheduler(t, s, kubecluster.WorkloadSchedulerFlags...)
	decisions := watchDecisions(t, ctx, s.admin)
	groups := watchGroupDecisions(t, ctx, s.admin)
	rec := startRecorder(t, s, gangGates...)
	tm := startTmux(t, 250, 200, append([]string{"--kubeconfig", s.Kubeconfig(readerUser)}, gangGates...)...)
	tm.waitFor(60*time.Second, "live")
	// The Events view, only the observations: each on one line.
	tm.keys("7")
	tm.keys("/")
	tm.keys("-l", "observed")
	tm.keys("Enter")

	// Every pending pod but the orphans is to be decided.
	decided := &loaded{stuck: map[string]bool{}}
	orphans := map[string]bool{}
	for _, p := range gc.orphans {
		orphans[podKey(p)] = true
	}
	for _, p := range gc.pending() {
		_, err := s.admin.CoreV1().Pods(p.Namespace).Create(ctx, p, metav1.CreateOptions{})
		must(t, err)
		if !orphans[podKey(p)] {
			decided.pending = append(decided.pending, p)
		}
	}
	setUp := time.Since(began)
	waitSettled(t, s.admin, decided, 90*time.Second)
	settled := time.Since(began)
	real := append(decisions.list(), groups.list()...)
	rec.stop(t)
	if dir := os.Getenv("SCHEDTUI_E2E_KEEP"); dir != "" {
		b, err := os.ReadFile(rec.path)
		must(t, err)
		kept := filepath.Join(dir, "recording-gang.json")
		must(t, os.WriteFile(kept, b, 0o644))
		t.Logf("recording kept at %s", kept)
	}
	checkGangOutcome(t, s.admin, gc, real)

	// The replay: every real decision is an observed line.
	lines := parseRunJSON(t, schedtui(t, "run", "--snapshot", rec.path, "-o", "json"))
	replay := matchDecisions(t, "replay", real, lines)
	for _, o := range lines {
		if orphans[o.Pod] && (o.Kind == "attempt" || o.Kind == "observed") {
			t.Errorf("replay: %s, a pod of a PodGroup that does not exist, is attempted: %+v", o.Pod, o)
		}
		if o.Kind == "observed" && o.Verdict == "disagree" {
			t.Logf("replay disagreement: %s: cluster %q, schedtui %q: %s", o.Pod, o.Node, o.Predicted, o.Message)
		}
	}

	// The live TUI: the same observations, the same verdicts.
	replayed := time.Since(began)
	live, status, liveDisagree := liveObservations(t, tm, len(real))
	bindings, members := 0, 0
	for _, d := range real {
		if d.node != "" {
			bindings++
		}
	}
	for _, g := range gc.groups {
		members += len(g.members)
	}
	t.Logf("gang cluster: %d nodes, %d pods bound at the start, %d groups (%d members), %d orphans, %d ordinary pods; the real scheduler made %d decisions (%d bindings, %d unschedulable pods, %d PodGroup conditions); %d victims terminated",
		len(gc.nodes), len(gc.bound), len(gc.groups), members, len(gc.orphans), len(gc.ordinary), len(real), bindings, len(real)-bindings-len(groups.list()), len(groups.list()), len(ctrl.Actions()))
	for _, d := range real {
		t.Logf("  %s", d)
	}
	t.Logf("replay verdicts %s; live verdicts %s; live status line %s", replay, live, status)
	compareVerdicts(t, replay, live, status, liveDisagree)
	t.Logf("took %s (set up %s, settled at %s, replayed at %s)", time.Since(began).Round(time.Second),
		setUp.Round(time.Second), settled.Round(time.Second), replayed.Round(time.Second))
}

// checkGangOutcome checks that the real scheduler did with the gang
// cluster what it is built for, so that the judgments cover each case: the
// CPU gang, the basic group and the GPU gang (after preemption) bound
// whole, the pair left unschedulable with its group condition saying so,
// the orphans never attempted, and victims preempted.
func checkGangOutcome(t *testing.T, c kubernetes.Interface, gc *gangCluster, real []decision) {
	t.Helper()
	ctx := context.Background()
	pods, err := c.CoreV1().Pods(gangNamespace).List(ctx, metav1.ListOptions{})
	must(t, err)
	node := map[string]string{}
	for i := range pods.Items {
		node[pods.Items[i].Name] = pods.Items[i].Spec.NodeName
		if p := &pods.Items[i]; p.Spec.NodeName == "" && unschedulable(p) && strings.HasPrefix(p.Name, "ghost-") {
			t.Errorf("%s, of a PodGroup that does not exist, was attempted", podKey(p))
		}
	}
	for _, g := range gc.groups {
		bound := 0
		for _, m := range g.members {
			if node[m.Name] != "" {
				bound++
			}
		}
		want := len(g.members)
		if g.name == "pair" {
			want = 0
		}
		if bound != want {
			t.Errorf("group %s: %d of %d members bound, want %d", g.name, bound, len(g.members), want)
		}
	}
	for _, p := range gc.orphans {
		if node[p.Name] != "" {
			t.Errorf("%s, of a PodGroup that does not exist, was bound to %s", podKey(p), node[p.Name])
		}
	}
	waited := false
	for _, d := range real {
		waited = waited || strings.HasPrefix(d.pod, gangNamespace+"/gpu-worker-") && d.node == "" && strings.Contains(d.message, "pod group preemption")
	}
	if !waited {
		t.Errorf("the GPU gang never waited on the preemption of its victims")
	}
}

// podGroupPrefix names a PodGroup where a decision names a pod, as
// schedtui's references do (explain podgroup/NS/NAME).
const podGroupPrefix = "podgroup/"

// sameCondition begins the observation of a PodGroup condition schedtui's
// group cycle gives too, followed by the condition (conditionText).
const sameCondition = "the same condition: "

// conditionText is a PodGroupInitiallyScheduled condition as shadow mode
// quotes it: "PodGroupInitiallyScheduled=False (Unschedulable): message".
func conditionText(c *metav1.Condition) string {
	s := fmt.Sprintf("%s=%s (%s)", c.Type, c.Status, c.Reason)
	if c.Message != "" {
		s += ": " + c.Message
	}
	return s
}

// watchGroupDecisions collects, from a PodGroup informer, the group
// decisions of the scheduler: each change of a PodGroup's
// PodGroupInitiallyScheduled condition (its status, reason or message), as
// a decision on "podgroup/NS/NAME" without a node.
func watchGroupDecisions(t *testing.T, ctx context.Context, c kubernetes.Interface) *decisionLog {
	t.Helper()
	d := &decisionLog{}
	last := map[string]string{}
	f := informers.NewSharedInformerFactory(c, 0)
	inf := f.Scheduling().V1beta1().PodGroups().Informer()
	seen := func(obj any) {
		pg := obj.(*schedulingv1beta1.PodGroup)
		cond := apimeta.FindStatusCondition(pg.Status.Conditions, schedulingv1beta1.PodGroupInitiallyScheduled)
		if cond == nil {
			return
		}
		key := podGroupPrefix + pg.Namespace + "/" + pg.Name
		text := conditionText(cond)
		d.mu.Lock()
		defer d.mu.Unlock()
		if last[key] != text {
			last[key] = text
			d.all = append(d.all, decision{pod: key, message: text})
		}
	}
	_, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: seen, UpdateFunc: func(_, n any) { seen(n) }})
	must(t, err)
	f.Start(ctx.Done())
	for typ, ok := range f.WaitForCacheSync(ctx.Done()) {
		if !ok {
			t.Fatalf("the %v informer did not sync", typ)
		}
	}
	return d
}
