package live

import (
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/version"
	"k8s.io/apimachinery/pkg/watch"
	fakediscovery "k8s.io/client-go/discovery/fake"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/schedtui/schedtui/internal/docread"
	"github.com/schedtui/schedtui/scheduler/change"
	"github.com/schedtui/schedtui/scheduler/engine"
	"github.com/schedtui/schedtui/scheduler/plugins"
	"github.com/schedtui/schedtui/scheduler/why"
	"github.com/schedtui/schedtui/snapshot"
)

func node(name string, cpu string) *v1.Node {
	rl := v1.ResourceList{v1.ResourceCPU: resource.MustParse(cpu), v1.ResourceMemory: resource.MustParse("4Gi"), v1.ResourcePods: resource.MustParse("110")}
	return &v1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("uid-node-" + name), ResourceVersion: "1",
			Labels: map[string]string{"kubernetes.io/hostname": name}},
		Status: v1.NodeStatus{Capacity: rl, Allocatable: rl},
	}
}

func pod(ns, name, nodeName, cpu string) *v1.Pod {
	prio := int32(0)
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID("uid-pod-" + ns + "-" + name), ResourceVersion: "1",
			CreationTimestamp: metav1.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)},
		Spec: v1.PodSpec{
			NodeName: nodeName, SchedulerName: v1.DefaultSchedulerName, Priority: &prio,
			Containers: []v1.Container{{Name: "c", Image: "x", Resources: v1.ResourceRequirements{
				Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse(cpu)}}}},
		},
		Status: v1.PodStatus{Phase: v1.PodPending},
	}
}

// forbid makes the fake API server answer 403 to list (and watch) of a
// resource, as RBAC would.
func forbid(c *fake.Clientset, res string) {
	f := func(a k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: res}, "", errors.New("RBAC: access denied"))
	}
	c.PrependReactor("list", res, f)
	c.PrependWatchReactor(res, func(a k8stesting.Action) (bool, watch.Interface, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: res}, "", errors.New("RBAC: access denied"))
	})
}

type statusLog struct {
	mu  sync.Mutex
	all []Status
}

func (l *statusLog) add(s Status) {
	l.mu.Lock()
	l.all = append(l.all, s)
	l.mu.Unlock()
}

func (l *statusLog) messages() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, s := range l.all {
		out = append(out, s.String())
	}
	return out
}

func (l *statusLog) find(part string) bool {
	for _, m := range l.messages() {
		if strings.Contains(m, part) {
			return true
		}
	}
	return false
}

func syncFake(t *testing.T, c *fake.Clientset) (*Source, *snapshot.Cluster, *docread.Report, *statusLog) {
	t.Helper()
	return syncFakeWith(t, c, nil)
}

// syncFakeWith syncs a source whose changes clk stamps (nil: the wall
// clock).
func syncFakeWith(t *testing.T, c *fake.Clientset, clk change.Clock) (*Source, *snapshot.Cluster, *docread.Report, *statusLog) {
	t.Helper()
	log := &statusLog{}
	s := NewSource("fake", c, log.add)
	if clk != nil {
		s.SetClock(clk)
	}
	t.Cleanup(s.Stop)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cl, r, err := s.Sync(ctx)
	if err != nil {
		t.Fatalf("Sync: %v", err)
	}
	return s, cl, r, log
}

func names[T metav1.Object](objs []T) []string {
	var out []string
	for _, o := range objs {
		if o.GetNamespace() != "" {
			out = append(out, o.GetNamespace()+"/"+o.GetName())
		} else {
			out = append(out, o.GetName())
		}
	}
	return out
}

func TestSync(t *testing.T) {
	c := fake.NewClientset(
		node("n2", "4"), node("n1", "2"),
		pod("default", "bound", "n1", "1"), pod("default", "pending", "", "3"),
		&schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "high", UID: "uid-pc", ResourceVersion: "1"}, Value: 1000},
		&storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "standard", UID: "uid-sc", ResourceVersion: "1"}, Provisioner: "x"},
	)
	forbid(c, "csistoragecapacities")
	_, cl, r, log := syncFake(t, c)

	if got, want := names(cl.Nodes), []string{"n1", "n2"}; !reflect.DeepEqual(got, want) {
		t.Errorf("nodes %v, want %v (list order)", got, want)
	}
	if got, want := names(cl.Pods), []string{"default/bound", "default/pending"}; !reflect.DeepEqual(got, want) {
		t.Errorf("pods %v, want %v", got, want)
	}
	if got := names(cl.StorageClasses); !reflect.DeepEqual(got, []string{"standard"}) {
		t.Errorf("storage classes %v", got)
	}
	pcs := names(cl.PriorityClasses)
	if len(pcs) != 3 || pcs[0] != "high" {
		t.Errorf("priority classes %v, want high and the two built-in ones", pcs)
	}
	if r.HasErrors() {
		t.Errorf("errors:\n%s", r)
	}
	w := r.Warnings()
	if len(w) != 1 || !strings.Contains(w[0].String(), "context fake: warning: CSIStorageCapacity: csistoragecapacities are left out: forbidden (403)") {
		t.Errorf("warnings %v, want one about csistoragecapacities", w)
	}
	for _, want := range []string{"connected to fake", "listed 2 nodes", "listed 2 pods", "warning: csistoragecapacities are left out"} {
		if !log.find(want) {
			t.Errorf("no status %q in %q", want, log.messages())
		}
	}
	// Only reads, never Secrets or ConfigMaps, every kind listed.
	listed := map[string]bool{}
	for _, a := range c.Actions() {
		res := a.GetResource().Resource
		switch a.GetVerb() {
		case "get", "list", "watch":
		default:
			t.Errorf("the source made a %s request on %s", a.GetVerb(), res)
		}
		if res == "secrets" || res == "configmaps" {
			t.Errorf("the source read %s", res)
		}
		if a.GetVerb() == "list" {
			listed[res] = true
		}
	}
	for _, k := range kinds {
		// (The opt-in kinds only when served: TestWorkloadKinds.)
		if !listed[k.gvr.Resource] && !k.optIn {
			t.Errorf("%s never listed", k.gvr.Resource)
		}
	}
	last := log.all[len(log.all)-1]
	if !last.Connected || last.Synced != last.Total || last.Total != len(kinds) {
		t.Errorf("last status %+v: want every kind synced", last)
	}
}

// The pods come without their managed fields, as the scheduler's pod
// informer has them; other kinds keep theirs.
func TestSyncDropsPodsManagedFields(t *testing.T) {
	managed := []metav1.ManagedFieldsEntry{{Manager: "kubectl", Operation: metav1.ManagedFieldsOperationApply, APIVersion: "v1",
		FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:spec":{}}`)}}}
	n, p := node("n1", "2"), pod("default", "bound", "n1", "1")
	n.ManagedFields, p.ManagedFields = managed, managed
	s, cl, _, _ := syncFake(t, fake.NewClientset(n, p))
	if len(cl.Pods) != 1 || cl.Pods[0].ManagedFields != nil {
		t.Errorf("pods %v: want default/bound without managed fields", names(cl.Pods))
	}
	if len(cl.Nodes) != 1 || !reflect.DeepEqual(cl.Nodes[0].ManagedFields, managed) {
		t.Errorf("nodes %v: want n1 with its managed fields", names(cl.Nodes))
	}
	// Nor does the informer hold them.
	for _, k := range kinds {
		if k.name != "Pod" {
			continue
		}
		for _, o := range s.informers[k].GetStore().List() {
			if o.(*v1.Pod).ManagedFields != nil {
				t.Errorf("the pod informer holds %s with its managed fields", o.(*v1.Pod).Name)
			}
		}
	}
}

func TestSyncFailures(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(*fake.Clientset)
		want  string
	}{
		{"nodes forbidden", func(c *fake.Clientset) { forbid(c, "nodes") }, "cannot list nodes, which the scheduler needs: forbidden (403)"},
		{"pods forbidden", func(c *fake.Clientset) { forbid(c, "pods") }, "cannot list pods, which the scheduler needs"},
		{"server unreachable", func(c *fake.Clientset) {
			c.PrependReactor("get", "version", func(k8stesting.Action) (bool, runtime.Object, error) {
				return true, nil, errors.New("dial tcp 10.0.0.1:6443: connect: connection refused")
			})
		}, "context fake: cannot reach the API server: dial tcp"},
		{"other list error", func(c *fake.Clientset) {
			c.PrependReactor("list", "services", func(k8stesting.Action) (bool, runtime.Object, error) {
				return true, nil, apierrors.NewInternalError(errors.New("etcd is down"))
			})
		}, "context fake: listing services: Internal error occurred: etcd is down"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := fake.NewClientset(node("n1", "1"))
			tc.setup(c)
			s := NewSource("fake", c, nil)
			defer s.Stop()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_, _, err := s.Sync(ctx)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

// recorder collects the changes Watch applies.
type recorder struct {
	mu      sync.Mutex
	changes []string
	fail    map[string]error
	apply   func(change.Change) error
}

func (r *recorder) record(c change.Change) error {
	d := describeChange(c)
	if c.Object != nil {
		d = c.String()
	}
	r.mu.Lock()
	r.changes = append(r.changes, d)
	err := r.fail[d]
	r.mu.Unlock()
	if err == nil && r.apply != nil {
		err = r.apply(c)
	}
	return err
}

func (r *recorder) waitFor(t *testing.T, n int) []string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		r.mu.Lock()
		got := append([]string(nil), r.changes...)
		r.mu.Unlock()
		if len(got) >= n {
			return got
		}
		time.Sleep(10 * time.Millisecond)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	t.Fatalf("got %d changes, want %d: %q", len(r.changes), n, r.changes)
	return nil
}

func TestWatch(t *testing.T) {
	ctx := context.Background()
	c := fake.NewClientset(node("n1", "2"), pod("default", "bound", "n1", "1"))
	s, _, _, log := syncFake(t, c)
	rec := &recorder{fail: map[string]error{"PodDelete default/gone": errors.New("pod default/gone does not exist")}}
	wctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- s.Watch(wctx, rec.record) }()

	core := c.CoreV1()
	steps := []func() error{
		func() error { _, err := core.Nodes().Create(ctx, node("n2", "4"), metav1.CreateOptions{}); return err },
		func() error {
			_, err := core.Pods("default").Create(ctx, pod("default", "new", "", "1"), metav1.CreateOptions{})
			return err
		},
		func() error {
			p := pod("default", "new", "n2", "1")
			p.ResourceVersion = "2"
			_, err := core.Pods("default").Update(ctx, p, metav1.UpdateOptions{})
			return err
		},
		func() error {
			n := node("n1", "2")
			n.ResourceVersion, n.Spec.Unschedulable = "2", true
			_, err := core.Nodes().Update(ctx, n, metav1.UpdateOptions{})
			return err
		},
		func() error { return core.Pods("default").Delete(ctx, "bound", metav1.DeleteOptions{}) },
		func() error { return core.Nodes().Delete(ctx, "n1", metav1.DeleteOptions{}) },
		func() error {
			_, err := core.Pods("default").Create(ctx, pod("default", "gone", "", "1"), metav1.CreateOptions{})
			return err
		},
		func() error { return core.Pods("default").Delete(ctx, "gone", metav1.DeleteOptions{}) },
		func() error {
			_, err := c.StorageV1().StorageClasses().Create(ctx, &storagev1.StorageClass{
				ObjectMeta: metav1.ObjectMeta{Name: "fast", ResourceVersion: "1"}, Provisioner: "x"}, metav1.CreateOptions{})
			return err
		},
		func() error {
			_, err := c.StorageV1().StorageClasses().Update(ctx, &storagev1.StorageClass{
				ObjectMeta: metav1.ObjectMeta{Name: "fast", ResourceVersion: "2", Labels: map[string]string{"tier": "1"}}, Provisioner: "x"}, metav1.UpdateOptions{})
			return err
		},
		func() error {
			_, err := core.PersistentVolumeClaims("default").Create(ctx, &v1.PersistentVolumeClaim{
				ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "data", ResourceVersion: "1"}}, metav1.CreateOptions{})
			return err
		},
		func() error {
			_, err := core.Services("default").Create(ctx, &v1.Service{
				ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web", ResourceVersion: "1"}}, metav1.CreateOptions{})
			return err
		},
		func() error { return c.StorageV1().StorageClasses().Delete(ctx, "fast", metav1.DeleteOptions{}) },
	}
	want := []string{
		"NodeAdd n2",
		"PodAdd default/new",
		"PodUpdate default/new on n2",
		"NodeUpdate n1",
		"PodDelete default/bound",
		"NodeDelete n1",
		"PodAdd default/gone",
		"PodDelete default/gone",
		"ObjectAdd StorageClass fast",
		"ObjectUpdate StorageClass fast",
		"ObjectAdd PersistentVolumeClaim default/data",
		"ObjectAdd Service default/web",
		"ObjectDelete StorageClass fast",
	}
	for i, step := range steps {
		if err := step(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		// One change at a time: informers of different kinds deliver
		// in their own order.
		if i < len(want) {
			rec.waitFor(t, i+1)
		}
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Watch returned %v", err)
	}
	if got := rec.waitFor(t, len(want)); !reflect.DeepEqual(got, want) {
		t.Errorf("changes\n%q\nwant\n%q", got, want)
	}
	if log.find("not applied") {
		t.Errorf("a change was not applied: %q", log.messages())
	}
	for _, part := range []string{
		"NodeAdd n2", "PodUpdate default/new on n2",
		"PodDelete default/gone: pod default/gone does not exist",
	} {
		if !log.find(part) {
			t.Errorf("no status %q in %q", part, log.messages())
		}
	}
}

// lockedClock is a clock the test sets while informers read it.
type lockedClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *lockedClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *lockedClock) set(t time.Time) {
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
}

// TestWatchIntoEngine feeds a live source into a real-time engine: a pod
// created in the cluster reaches the queue at the time it arrived and
// gets scheduled.
func TestWatchIntoEngine(t *testing.T) {
	ctx := context.Background()
	c := fake.NewClientset(node("n1", "2"))
	start := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	clk := &lockedClock{t: start}
	s, cl, _, _ := syncFakeWith(t, c, clk)
	e, err := engine.New(cl.Nodes, cl.Pods, cl.SchedulerObjects(), engine.Options{Registry: plugins.NewInTreeRegistry(), Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	arrived := start.Add(7 * time.Second)
	clk.set(arrived)
	var mu sync.Mutex
	rec := &recorder{apply: func(ch change.Change) error {
		mu.Lock()
		defer mu.Unlock()
		return e.Apply(ch)
	}}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() { _ = s.Watch(wctx, rec.record) }()
	if _, err := c.CoreV1().Pods("default").Create(ctx, pod("default", "web", "", "1"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	rec.waitFor(t, 1)
	mu.Lock()
	a, ok := e.Step()
	mu.Unlock()
	if !ok || a.Pod != "default/web" || a.Node != "n1" {
		t.Fatalf("attempt %v (ok %v), want default/web scheduled on n1", a, ok)
	}
	if ev := e.Timeline().At(0); ev.Reason != string(change.PodAdd) || !ev.Time.Equal(arrived) || !a.Time.Equal(arrived) {
		t.Errorf("the pod arrived at %v and was attempted at %v, want at %v", ev.Time, a.Time, arrived)
	}
	// Other kinds reach the engine's object store too.
	if _, err := c.CoreV1().Services("default").Create(ctx, &v1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	rec.waitFor(t, 2)
	mu.Lock()
	defer mu.Unlock()
	if svcs := e.Scheduler().Objects().Services("default"); len(svcs) != 1 || svcs[0].Name != "web" {
		t.Errorf("services in the engine: %v", svcs)
	}
}

func TestStatusString(t *testing.T) {
	for _, tc := range []struct {
		s    Status
		want string
	}{
		{Status{Message: "listed 3 nodes"}, "listed 3 nodes"},
		{Status{Message: "x", Warning: true}, "warning: x"},
		{Status{Message: "PodAdd a/b", Warning: true, Err: fmt.Errorf("boom")}, "PodAdd a/b: boom"},
		{Status{Err: fmt.Errorf("boom")}, "boom"},
	} {
		if got := tc.s.String(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.s, got, tc.want)
		}
	}
}

func TestKinds(t *testing.T) {
	got := strings.Join(Kinds(), ",")
	want := "Node,Pod,PriorityClass,PodDisruptionBudget,Namespace,PersistentVolume,PersistentVolumeClaim,StorageClass," +
		"CSINode,CSIDriver,CSIStorageCapacity,VolumeAttachment,Service,ReplicaSet,StatefulSet,ReplicationController,DaemonSet,RuntimeClass," +
		"DeviceClass,ResourceSlice,DeviceTaintRule,ResourceClaimTemplate,ResourceClaim,Workload,CompositePodGroup,PodGroup"
	if got != want {
		t.Errorf("kinds\n%s\nwant\n%s", got, want)
	}
	supported := snapshot.SupportedKinds()
	for _, k := range kinds {
		if _, ok := supported[k.name]; !ok {
			t.Errorf("%s is listed but the loader does not read it", k.name)
		}
	}
	if len(supported) != len(kinds) {
		t.Errorf("the loader reads %d kinds, the live source lists %d", len(supported), len(kinds))
	}
}

// fakeServerVersion makes the fake API server answer /version with
// gitVersion.
func fakeServerVersion(t *testing.T, c *fake.Clientset, gitVersion string) {
	t.Helper()
	d, ok := c.Discovery().(*fakediscovery.FakeDiscovery)
	if !ok {
		t.Fatalf("discovery client %T", c.Discovery())
	}
	d.FakedServerVersion = &version.Info{GitVersion: gitVersion}
}

// TestSyncSchedulerSettings: the server's version, and the flags of a
// visible kube-scheduler static pod, are the scheduler's defaults.
func TestSyncSchedulerSettings(t *testing.T) {
	for _, tc := range []struct {
		server string
		pod    bool
		want   []string
	}{
		{"v1.35.2", false, []string{"simulating kube-scheduler 1.35 (from the server's version)"}},
		{"v1.32.0", false, []string{"simulating kube-scheduler 1.34, the oldest it can emulate; the cluster's API server is 1.32 (from the server's version)"}},
		{"v1.38.1", false, []string{"simulating kube-scheduler 1.37, the newest it can emulate; the cluster's API server is 1.38, newer (from the server's version)"}},
		{"v1.36.0", true, []string{"simulating kube-scheduler 1.36 (from the server's version)",
			"using the cluster's kube-scheduler flags: --feature-gates=GenericWorkload=true (from pod kube-system/kube-scheduler-cp1)"}},
	} {
		t.Run(tc.server, func(t *testing.T) {
			objs := []runtime.Object{node("cp1", "4")}
			if tc.pod {
				p := pod("kube-system", "kube-scheduler-cp1", "cp1", "100m")
				p.Labels = map[string]string{"component": "kube-scheduler", "tier": "control-plane"}
				p.Spec.Containers[0].Name = "kube-scheduler"
				p.Spec.Containers[0].Image = "registry.k8s.io/kube-scheduler:v1.36.0"
				p.Spec.Containers[0].Command = []string{"kube-scheduler", "--kubeconfig=/etc/kubernetes/scheduler.conf", "--feature-gates", "GenericWorkload=true"}
				p.Status.Phase = v1.PodRunning
				objs = append(objs, p)
			}
			c := fake.NewClientset(objs...)
			fakeServerVersion(t, c, tc.server)
			s, _, _, log := syncFake(t, c)
			if got := s.SchedulerSettings().Lines(); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("lines\n%q\nwant\n%q", got, tc.want)
			}
			if s.ServerVersion() != tc.server || !log.find("(server "+tc.server+")") {
				t.Errorf("server version %q, statuses %q", s.ServerVersion(), log.messages())
			}
		})
	}
}

// The cluster Sync returns keeps the informers' own objects (no second
// copy of a large cluster), and so does the engine for the objects later
// changes carry, so nothing may change them afterwards: scheduling (a pod
// bound, a victim preempted and evicted), the changes watched (pods
// relabeled, bound by the cluster's scheduler, nominated, added and
// deleted, a node cordoned, other kinds changed), applied to an engine
// and to a shadow-mode one, a change applied by hand, what-ifs on a fork
// and their undo, rewinds replaying the changes and forgetting them, the
// state at an attempt and writing the clusters must leave every object
// the informers held at the end of the sync, and every object a change
// handed over, as it was.
func TestSyncSharesInformerObjects(t *testing.T) {
	ctx := context.Background()
	high := &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "high", UID: "uid-pc", ResourceVersion: "1"}, Value: 1000}
	urgent := pod("default", "urgent", "", "2")
	urgent.Spec.PriorityClassName, urgent.Spec.Priority = "high", &high.Value
	c := fake.NewClientset(node("n1", "2"), node("n2", "2"),
		pod("default", "victim", "n1", "2"), pod("default", "b2", "n2", "1"),
		pod("default", "fits", "", "1"), urgent, high)
	s, cl, r, _ := syncFake(t, c)
	if r.HasErrors() {
		t.Fatalf("errors:\n%s", r)
	}

	// The objects the informers held, and a copy of each as it was.
	held := map[runtime.Object]runtime.Object{}
	for _, inf := range s.informers {
		for _, o := range inf.GetStore().List() {
			held[o.(runtime.Object)] = o.(runtime.Object).DeepCopyObject()
		}
	}
	for _, o := range cl.Objects() {
		if _, ok := o.(*schedulingv1.PriorityClass); ok && held[o] == nil {
			continue // the built-in classes
		}
		if held[o] == nil {
			t.Errorf("the cluster's %T %s is not the informer's object", o, names([]metav1.Object{o.(metav1.Object)}))
		}
	}

	podNamed := func(name string) *v1.Pod {
		for _, p := range cl.Pods {
			if p.Name == name {
				return p
			}
		}
		t.Fatalf("no pod %s", name)
		return nil
	}

	reg := plugins.NewInTreeRegistry()
	e, err := engine.New(cl.Nodes, cl.Pods, cl.SchedulerObjects(), engine.Options{Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	shadow, err := engine.New(cl.Nodes, cl.Pods, cl.SchedulerObjects(), engine.Options{Registry: reg, Shadow: true})
	if err != nil {
		t.Fatal(err)
	}
	e.RunToQuiescence()
	n := e.Attempts().Len()
	if n < 3 {
		t.Fatalf("%d attempts, want fits bound, urgent preempting victim then bound", n)
	}

	// The changes watched after the sync: each object handed over, and a
	// copy of it as it was then.
	handed := map[runtime.Object]runtime.Object{}
	var last []runtime.Object // the last object handed over of each key
	var mu sync.Mutex
	rec := &recorder{apply: func(ch change.Change) error {
		typ, obj := ch.WatchEvent()
		mu.Lock()
		defer mu.Unlock()
		if handed[obj] == nil {
			handed[obj] = obj.DeepCopyObject()
		}
		if typ != watch.Deleted {
			last = append(last, obj)
		}
		ch.At = time.Time{} // at once, in the engines' virtual time
		if err := shadow.Apply(ch); err != nil {
			t.Logf("shadow: %s: %v", ch, err)
		}
		return e.Apply(ch)
	}}
	wctx, cancel := context.WithCancel(ctx)
	watched := make(chan error, 1)
	go func() { watched <- s.Watch(wctx, rec.record) }()
	core := c.CoreV1()
	update := func(p *v1.Pod) error {
		p.ResourceVersion = "2"
		_, err := core.Pods("default").Update(ctx, p, metav1.UpdateOptions{})
		return err
	}
	relabeledVictim := pod("default", "victim", "n1", "2")
	relabeledVictim.Labels = map[string]string{"tier": "db"}
	boundElsewhere := pod("default", "fits", "n2", "1")
	nominated := urgent.DeepCopy()
	nominated.Status.NominatedNodeName = "n1"
	cordoned := node("n2", "2")
	cordoned.ResourceVersion, cordoned.Spec.Unschedulable, cordoned.Labels["zone"] = "2", true, "b"
	described := high.DeepCopy()
	described.ResourceVersion, described.Description = "2", "urgent work"
	steps := []func() error{
		func() error { return update(relabeledVictim) },
		func() error { return update(boundElsewhere) },
		func() error { return update(nominated) },
		func() error { _, err := core.Nodes().Update(ctx, cordoned, metav1.UpdateOptions{}); return err },
		func() error {
			_, err := core.Pods("default").Create(ctx, pod("default", "late", "", "1"), metav1.CreateOptions{})
			return err
		},
		func() error { return core.Pods("default").Delete(ctx, "b2", metav1.DeleteOptions{}) },
		func() error {
			_, err := c.SchedulingV1().PriorityClasses().Update(ctx, described, metav1.UpdateOptions{})
			return err
		},
		func() error {
			_, err := c.StorageV1().StorageClasses().Create(ctx, &storagev1.StorageClass{
				ObjectMeta: metav1.ObjectMeta{Name: "fast", ResourceVersion: "1"}, Provisioner: "x"}, metav1.CreateOptions{})
			return err
		},
	}
	for i, step := range steps {
		if err := step(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	rec.waitFor(t, len(steps))
	cancel()
	<-watched

	// What was handed over is what the informers hold, not a copy.
	stored := map[runtime.Object]bool{}
	for _, inf := range s.informers {
		for _, o := range inf.GetStore().List() {
			stored[o.(runtime.Object)] = true
		}
	}
	for _, o := range last {
		if !stored[o] {
			t.Errorf("%T %s was handed over as a copy of the informer's object", o, names([]metav1.Object{o.(metav1.Object)}))
		}
	}

	// An update keeps the parts it did not change of the object it
	// replaces (snapshot.ChangePreparer): the relabeled victim's
	// containers are the synced victim's.
	for _, o := range last {
		if p, ok := o.(*v1.Pod); ok && p.Name == "victim" {
			if was := podNamed("victim"); &p.Spec.Containers[0] != &was.Spec.Containers[0] || reflect.DeepEqual(p.Labels, was.Labels) {
				t.Errorf("the relabeled victim does not share its containers with the synced one, or kept its labels")
			}
		}
	}

	e.RunToQuiescence()
	shadow.RunToQuiescence()
	m := e.Attempts().Len()
	if m <= n {
		t.Fatalf("%d attempts after the changes, want more than %d (default/late)", m, n)
	}
	relabeled := podNamed("fits").DeepCopy()
	relabeled.Labels = map[string]string{"tier": "web"}
	relabeled.ResourceVersion = "3"
	ch, err := change.For(watch.Modified, relabeled)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Apply(ch); err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{n - 1, m - 1} {
		sched, p, err := e.Fork(i)
		if err != nil {
			t.Fatal(err)
		}
		bigger := cl.Nodes[0].DeepCopy()
		bigger.Status.Allocatable = v1.ResourceList{v1.ResourceCPU: resource.MustParse("8"), v1.ResourceMemory: resource.MustParse("4Gi"), v1.ResourcePods: resource.MustParse("110")}
		_, undo, err := why.Apply(sched, p, why.Edits{Objects: []any{bigger, pod("default", "extra", "", "1")}, Remove: []why.Ref{why.RefOf(podNamed("fits"))}})
		if err != nil {
			t.Fatal(err)
		}
		undo()
	}
	st, err := e.StateAt(m - 1)
	if err != nil {
		t.Fatal(err)
	}
	// Back to the first attempt after the changes (they are replayed),
	// then to the start (they are forgotten), scheduling again each time.
	for _, back := range []int{m - n, m} {
		if err := e.Rewind(back); err != nil {
			t.Fatal(err)
		}
		e.RunToQuiescence()
	}
	for _, w := range []*snapshot.Cluster{cl, cl.WithSchedulerState(st.Nodes, st.Pods, st.Objects)} {
		if _, err := snapshot.Write(io.Discard, w, snapshot.Header{}, snapshot.OutputFormat{}); err != nil {
			t.Fatal(err)
		}
	}

	for _, objs := range []map[runtime.Object]runtime.Object{held, handed} {
		for o, was := range objs {
			if !reflect.DeepEqual(o, was) {
				t.Errorf("%T %s, which an informer holds, was changed", o, names([]metav1.Object{o.(metav1.Object)}))
			}
		}
	}
}

// What the informers' check finds is reported as a snapshot's load
// reports it: an invalid object refused, a field dropped from a pod the
// server has not stored (no resourceVersion) as one would be dropped from
// a new pod.
func TestSyncReportsWhatTheCheckFound(t *testing.T) {
	bad := pod("default", "bad", "", "1")
	bad.Labels = map[string]string{"app": "-not valid-"}
	group := "training"
	unstored := pod("default", "unstored", "", "1")
	unstored.ResourceVersion = ""
	unstored.Spec.SchedulingGroup = &v1.PodSchedulingGroup{PodGroupName: &group}
	_, cl, r, _ := syncFake(t, fake.NewClientset(node("n1", "2"), bad, unstored, pod("default", "good", "", "1")))
	if got, want := names(cl.Pods), []string{"default/good", "default/unstored"}; !reflect.DeepEqual(got, want) {
		t.Errorf("pods %v, want %v", got, want)
	}
	report := r.String()
	for _, want := range []string{
		`Pod default/bad: metadata.labels: Invalid value: "-not valid-"`,
		"Pod default/unstored: spec.schedulingGroup: dropped, as the API server drops it from a new Pod with feature gate GenericWorkload off",
	} {
		if !strings.Contains(report, want) {
			t.Errorf("report lacks %q:\n%s", want, report)
		}
	}
}
