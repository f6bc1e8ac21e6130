package live

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	fakediscovery "k8s.io/client-go/discovery/fake"
	"k8s.io/client-go/kubernetes/fake"
)

func podGroup(name string, minCount int32) *schedulingv1beta1.PodGroup {
	return &schedulingv1beta1.PodGroup{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: name, ResourceVersion: "1"},
		Spec: schedulingv1beta1.PodGroupSpec{
			SchedulingPolicy: schedulingv1beta1.PodGroupSchedulingPolicy{Gang: &schedulingv1beta1.GangSchedulingPolicy{MinCount: minCount}},
			DisruptionMode:   &schedulingv1beta1.DisruptionMode{Single: &schedulingv1beta1.SingleDisruptionMode{}},
		},
	}
}

// serve makes the fake API server's discovery show the resources of
// group versions (as when --runtime-config enables them).
func serve(t *testing.T, c *fake.Clientset, resources map[string][]string) {
	t.Helper()
	d := c.Discovery().(*fakediscovery.FakeDiscovery)
	for gv, names := range resources {
		l := &metav1.APIResourceList{GroupVersion: gv}
		for _, n := range names {
			l.APIResources = append(l.APIResources, metav1.APIResource{Name: n, Namespaced: true})
		}
		d.Resources = append(d.Resources, l)
	}
}

// TestWorkloadKinds: when discovery shows scheduling.k8s.io/v1beta1 and
// v1alpha3, Workloads, PodGroups and CompositePodGroups are listed and
// their changes delivered; when it does not, the sync goes on without
// them, saying in one line per group version which flag serves them when
// the scheduler's gate wants them, and only noting it when it does not.
func TestWorkloadKinds(t *testing.T) {
	workload := &schedulingv1beta1.Workload{ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: "train", ResourceVersion: "1"},
		Spec: schedulingv1beta1.WorkloadSpec{PodGroupTemplates: []schedulingv1beta1.PodGroupTemplate{{Name: "workers",
			SchedulingPolicy: schedulingv1beta1.PodGroupSchedulingPolicy{Basic: &schedulingv1beta1.BasicSchedulingPolicy{}}}}}}
	composite := &schedulingv1alpha3.CompositePodGroup{ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: "job", ResourceVersion: "1"},
		Spec: schedulingv1alpha3.CompositePodGroupSpec{WorkloadRef: &schedulingv1alpha3.WorkloadReference{WorkloadName: "train", TemplateName: "job"},
			SchedulingPolicy: schedulingv1alpha3.CompositePodGroupSchedulingPolicy{Basic: &schedulingv1alpha3.CompositeBasicSchedulingPolicy{}}}}
	objects := func() []runtime.Object {
		return []runtime.Object{node("n1", "4"), workload.DeepCopy(), composite.DeepCopy(), podGroup("workers", 2)}
	}
	served := map[string][]string{
		"scheduling.k8s.io/v1beta1":  {"workloads", "podgroups", "priorityclasses"},
		"scheduling.k8s.io/v1alpha3": {"compositepodgroups", "podgroups", "workloads"},
	}

	t.Run("served", func(t *testing.T) {
		ctx := context.Background()
		c := fake.NewClientset(objects()...)
		serve(t, c, served)
		s, cl, r, _ := syncFake(t, c)
		if len(r.Problems) > 0 {
			t.Errorf("problems:\n%s", r)
		}
		if got := names(cl.Workloads); !reflect.DeepEqual(got, []string{"ml/train"}) {
			t.Errorf("Workloads %q", got)
		}
		if got := names(cl.CompositePodGroups); !reflect.DeepEqual(got, []string{"ml/job"}) {
			t.Errorf("CompositePodGroups %q", got)
		}
		if got := names(cl.PodGroups); !reflect.DeepEqual(got, []string{"ml/workers"}) {
			t.Errorf("PodGroups %q", got)
		}
		rec := &recorder{}
		wctx, cancel := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() { done <- s.Watch(wctx, rec.record) }()
		groups := c.SchedulingV1beta1().PodGroups("ml")
		steps := []func() error{
			func() error { _, err := groups.Create(ctx, podGroup("ps", 1), metav1.CreateOptions{}); return err },
			func() error {
				pg := podGroup("workers", 1)
				pg.ResourceVersion = "2"
				_, err := groups.Update(ctx, pg, metav1.UpdateOptions{})
				return err
			},
			func() error { return groups.Delete(ctx, "ps", metav1.DeleteOptions{}) },
			func() error {
				return c.SchedulingV1alpha3().CompositePodGroups("ml").Delete(ctx, "job", metav1.DeleteOptions{})
			},
		}
		want := []string{"ObjectAdd PodGroup ml/ps", "ObjectUpdate PodGroup ml/workers", "ObjectDelete PodGroup ml/ps", "ObjectDelete CompositePodGroup ml/job"}
		for i, step := range steps {
			if err := step(); err != nil {
				t.Fatalf("step %d: %v", i, err)
			}
			rec.waitFor(t, i+1)
		}
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Errorf("Watch returned %v", err)
		}
		if got := rec.waitFor(t, len(want)); !reflect.DeepEqual(got, want) {
			t.Errorf("changes\n%q\nwant\n%q", got, want)
		}
	})

	t.Run("not served, gate on", func(t *testing.T) {
		c := fake.NewClientset(objects()...)
		log := &statusLog{}
		s := NewSource("fake", c, log.add)
		s.SetSchedulerGates(map[string]bool{"GenericWorkload": true, "CompositePodGroup": true})
		t.Cleanup(s.Stop)
		cl, r, err := s.Sync(context.Background())
		if err != nil {
			t.Fatalf("Sync: %v", err)
		}
		if len(cl.Nodes) != 1 || len(cl.Workloads)+len(cl.PodGroups)+len(cl.CompositePodGroups) != 0 {
			t.Errorf("synced %d nodes, %d Workloads, %d PodGroups, %d CompositePodGroups", len(cl.Nodes), len(cl.Workloads), len(cl.PodGroups), len(cl.CompositePodGroups))
		}
		want := []string{
			"context fake: warning: Workload, PodGroup: scheduling.k8s.io/v1beta1 is not served: workloads and podgroups are left out, " +
				"which the scheduler reads with GenericWorkload on (an API server serves them with --runtime-config=scheduling.k8s.io/v1beta1=true)",
			"context fake: warning: CompositePodGroup: scheduling.k8s.io/v1alpha3 is not served: compositepodgroups are left out, " +
				"which the scheduler reads with CompositePodGroup on (an API server serves them with --runtime-config=scheduling.k8s.io/v1alpha3=true)",
		}
		var got []string
		for _, p := range r.Problems {
			got = append(got, p.String())
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("problems\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		if last := log.all[len(log.all)-1]; last.Synced != last.Total {
			t.Errorf("synced %d of %d kinds", last.Synced, last.Total)
		}
	})

	t.Run("not served, gate off", func(t *testing.T) {
		c := fake.NewClientset(objects()...)
		_, cl, r, log := syncFake(t, c)
		if len(r.Problems) > 0 || len(cl.PodGroups) != 0 {
			t.Errorf("%d PodGroups; problems:\n%s", len(cl.PodGroups), r)
		}
		if !log.find("scheduling.k8s.io/v1beta1 is not served: workloads and podgroups are left out (not needed with GenericWorkload off)") {
			t.Errorf("statuses %q", log.messages())
		}
	})
}
