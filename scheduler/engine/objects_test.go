package engine

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/schedtui/schedtui/scheduler"
	"github.com/schedtui/schedtui/scheduler/change"
	"github.com/schedtui/schedtui/scheduler/history"
	"github.com/schedtui/schedtui/scheduler/record"
)

// volumeCluster: one node and a pod whose claim "data" does not exist yet
// (VolumeBinding rejects it at PreFilter); a storage class "fast".
var volumeCluster = listHeader + nodeYAML("n1", "4", "") + podYAML("app", "1", 0, `    volumes: [{name: v, persistentVolumeClaim: {claimName: data}}]
`) + `- apiVersion: storage.k8s.io/v1
  kind: StorageClass
  metadata: {name: fast}
  provisioner: example.com/fast
`

func claimObj(name, volume string) *v1.PersistentVolumeClaim {
	empty := ""
	return &v1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID("uid-pvc-" + name), ResourceVersion: "1",
			Annotations: map[string]string{"pv.kubernetes.io/bind-completed": "yes"}},
		Spec: v1.PersistentVolumeClaimSpec{
			AccessModes:      []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce},
			Resources:        v1.VolumeResourceRequirements{Requests: v1.ResourceList{v1.ResourceStorage: resource.MustParse("1Gi")}},
			VolumeName:       volume,
			StorageClassName: &empty,
		},
		Status: v1.PersistentVolumeClaimStatus{Phase: v1.ClaimBound},
	}
}

// unboundClaim is a claim waiting for the PV controller (immediate
// binding: no storage class).
func unboundClaim(name string) *v1.PersistentVolumeClaim {
	c := claimObj(name, "")
	c.Annotations = nil
	c.Status.Phase = v1.ClaimPending
	return c
}

func volumeObj(name, claim string) *v1.PersistentVolume {
	return &v1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("uid-pv-" + name), ResourceVersion: "1"},
		Spec: v1.PersistentVolumeSpec{
			Capacity:               v1.ResourceList{v1.ResourceStorage: resource.MustParse("1Gi")},
			AccessModes:            []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce},
			PersistentVolumeSource: v1.PersistentVolumeSource{HostPath: &v1.HostPathVolumeSource{Path: "/data"}},
			ClaimRef:               &v1.ObjectReference{Namespace: "default", Name: claim},
		},
		Status: v1.PersistentVolumeStatus{Phase: v1.VolumeBound},
	}
}

func serviceObj(name string) *v1.Service {
	return &v1.Service{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID("uid-svc-" + name)},
		Spec: v1.ServiceSpec{Selector: map[string]string{"app": name}}}
}

// eventsSince returns the timeline events from index i on.
func eventsSince(e *Engine, i int) []history.Event {
	return append([]history.Event(nil), e.Timeline().Slice(i, e.Timeline().Len())...)
}

// TestObjectChanges applies changes of objects other than nodes and pods
// to a pod stuck on its missing claim: the kinds a plugin registered
// events for move it (with upstream's event label), the others are only
// stored.
func TestObjectChanges(t *testing.T) {
	fast := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "fast"}, Provisioner: "example.com/fast"}
	for _, tc := range []struct {
		name string
		// before are applied before the first attempt.
		before  []change.Change
		changes []change.Change
		// moved is the reason the pod left the unschedulable pool, ""
		// when the changes must not move it.
		moved string
		// outcome of the next attempt; quiescent: there is none.
		outcome   record.Outcome
		quiescent bool
		check     func(t *testing.T, e *Engine)
	}{{
		name:    "claim then volume added",
		changes: []change.Change{{Kind: change.ObjectAdd, Object: claimObj("data", "pv-data")}, {Kind: change.ObjectAdd, Object: volumeObj("pv-data", "data")}},
		moved:   "PersistentVolumeClaimAdd", outcome: record.Scheduled,
	}, {
		// VolumeRestrictions rejected the pod; it registers no PV event.
		name:    "volume then claim added",
		changes: []change.Change{{Kind: change.ObjectAdd, Object: volumeObj("pv-data", "data")}, {Kind: change.ObjectAdd, Object: claimObj("data", "pv-data")}},
		moved:   "PersistentVolumeClaimAdd", outcome: record.Scheduled,
	}, {
		// VolumeBinding rejected the pod (unbound immediate claim); a PV
		// added moves it, it still waits for the PV controller.
		name:    "volume added for an unbound claim",
		before:  []change.Change{{Kind: change.ObjectAdd, Object: unboundClaim("data")}},
		changes: []change.Change{{Kind: change.ObjectAdd, Object: volumeObj("pv-data", "data")}},
		moved:   "PersistentVolumeAdd", outcome: record.Unschedulable,
	}, {
		name:    "claim bound by the PV controller",
		before:  []change.Change{{Kind: change.ObjectAdd, Object: unboundClaim("data")}, {Kind: change.ObjectAdd, Object: volumeObj("pv-data", "data")}},
		changes: []change.Change{{Kind: change.ObjectUpdate, Object: claimObj("data", "pv-data")}},
		moved:   "PersistentVolumeClaimUpdate", outcome: record.Scheduled,
	}, {
		name:    "claim deleted",
		before:  []change.Change{{Kind: change.ObjectAdd, Object: claimObj("data", "pv-data")}},
		changes: []change.Change{{Kind: change.ObjectDelete, Object: claimObj("data", "pv-data")}},
		outcome: record.Unschedulable,
		check: func(t *testing.T, e *Engine) {
			if _, err := e.Scheduler().Objects().PersistentVolumeClaim("default", "data"); !apierrors.IsNotFound(err) {
				t.Errorf("claim still there: %v", err)
			}
		},
	}, {
		name:    "another pod's claim: VolumeBinding's hint skips it",
		changes: []change.Change{{Kind: change.ObjectAdd, Object: claimObj("other", "")}},
		outcome: record.Unschedulable,
		check: func(t *testing.T, e *Engine) {
			if _, err := e.Scheduler().Objects().PersistentVolumeClaim("default", "other"); err != nil {
				t.Errorf("claim not stored: %v", err)
			}
		},
	}, {
		name:    "service added: stored, moves nothing",
		changes: []change.Change{{Kind: change.ObjectAdd, Object: serviceObj("web")}},
		outcome: record.Unschedulable,
		check: func(t *testing.T, e *Engine) {
			if s := e.Scheduler().Objects().Services("default"); len(s) != 1 || s[0].Name != "web" {
				t.Errorf("services %v", s)
			}
		},
	}, {
		name: "service updated then deleted",
		changes: []change.Change{{Kind: change.ObjectAdd, Object: serviceObj("web")}, {Kind: change.ObjectUpdate, Object: serviceObj("web")},
			{Kind: change.ObjectDelete, Object: serviceObj("web")}},
		outcome: record.Unschedulable,
		check: func(t *testing.T, e *Engine) {
			if s := e.Scheduler().Objects().Services("default"); len(s) != 0 {
				t.Errorf("services %v after the delete", s)
			}
		},
	}, {
		name:    "storage class deleted: no plugin registered StorageClass deletes",
		changes: []change.Change{{Kind: change.ObjectDelete, Object: fast}},
		outcome: record.Unschedulable,
		check: func(t *testing.T, e *Engine) {
			if _, err := e.Scheduler().Objects().StorageClass("fast"); !apierrors.IsNotFound(err) {
				t.Errorf("storage class still there: %v", err)
			}
		},
	}, {
		name:    "storage class updated: registered, the hint decides",
		changes: []change.Change{{Kind: change.ObjectUpdate, Object: fast}},
		outcome: record.Unschedulable,
	}, {
		name:      "priority class: not read by the scheduler, on the timeline only",
		changes:   []change.Change{{Kind: change.ObjectAdd, Object: &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "urgent"}, Value: 5}}},
		quiescent: true,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			e := load(t, volumeCluster, Options{})
			for _, c := range tc.before {
				if err := e.Apply(c); err != nil {
					t.Fatal(err)
				}
			}
			a, ok := e.Step()
			if !ok || a.Outcome != record.Unschedulable {
				t.Fatalf("first attempt %v: %+v", ok, a)
			}
			if tc.before == nil && !strings.Contains(a.Message, `persistentvolumeclaim "data" not found`) {
				t.Errorf("first attempt: %s", a.Message)
			}
			mark := e.Timeline().Len()
			for _, c := range tc.changes {
				if err := e.Apply(c); err != nil {
					t.Fatalf("Apply(%s): %v", c, err)
				}
			}
			var moves, cluster []history.Event
			for _, ev := range eventsSince(e, mark) {
				switch ev.Kind {
				case history.EventQueueMove:
					moves = append(moves, ev)
				case history.EventCluster:
					cluster = append(cluster, ev)
				}
			}
			if len(cluster) != len(tc.changes) {
				t.Errorf("%d cluster events for %d changes: %+v", len(cluster), len(tc.changes), cluster)
			}
			for i, ev := range cluster {
				if c := tc.changes[i]; ev.Reason != string(c.Kind) || ev.Object != c.Describe() || ev.Message != "" {
					t.Errorf("cluster event %+v for %s", ev, c)
				}
			}
			switch {
			case tc.moved == "" && len(moves) > 0:
				t.Errorf("the changes moved the pod: %+v", moves)
			case tc.moved != "" && (len(moves) != 1 || moves[0].Reason != tc.moved || moves[0].From != history.Unschedulable):
				t.Errorf("moves %+v, want one out of the unschedulable pool by %s", moves, tc.moved)
			}
			if tc.check != nil {
				tc.check(t, e)
			}
			a, ok = e.Step()
			if tc.quiescent {
				if ok {
					t.Errorf("an attempt after a change the scheduler does not read: %+v", a)
				}
				return
			}
			if !ok || a.Outcome != tc.outcome {
				t.Fatalf("next attempt %v %+v, want %s", ok, a, tc.outcome)
			}
			if tc.moved == "" && !a.Time.After(scheduler.Epoch.Add(5*time.Minute)) {
				t.Errorf("retried at %v without an event: want the leftover flush", a.Time)
			}
		})
	}
}

// TestObjectChangeErrors: malformed or impossible changes are refused
// with a message naming the object, and leave the engine as it was.
func TestObjectChangeErrors(t *testing.T) {
	e := load(t, volumeCluster, Options{})
	var nilPV *v1.PersistentVolume
	unnamed := serviceObj("")
	for _, tc := range []struct {
		c    change.Change
		want string
	}{
		{change.Change{Kind: change.ObjectAdd}, "ObjectAdd without an object"},
		{change.Change{Kind: change.ObjectAdd, Object: nilPV}, "ObjectAdd without an object"},
		{change.Change{Kind: change.ObjectAdd, Object: nodeObj("n2", "1")}, "ObjectAdd of Node n2: node changes are NodeAdd"},
		{change.Change{Kind: change.ObjectDelete, Object: &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default"}}}, "ObjectDelete of Pod default/p: pod changes are"},
		{change.Change{Kind: change.ObjectUpdate, Object: &v1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm", Namespace: "default"}}}, "not a kind the scheduler reads"},
		{change.Change{Kind: change.ObjectAdd, Object: unnamed}, "ObjectAdd of Service default/<unnamed>: the object has no name"},
		{change.Change{Kind: change.ObjectAdd, Object: &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "fast"}}}, "StorageClass fast already exists"},
		{change.Change{Kind: change.ObjectUpdate, Object: claimObj("data", "")}, "PersistentVolumeClaim default/data does not exist"},
		{change.Change{Kind: change.ObjectDelete, Object: volumeObj("pv-x", "")}, "PersistentVolume pv-x does not exist"},
	} {
		before := e.Timeline().Len()
		err := e.Apply(tc.c)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Apply(%s %v): %v, want %q", tc.c.Kind, tc.c.Object, err, tc.want)
		}
		if e.Timeline().Len() != before {
			t.Errorf("a refused change reached the timeline: %+v", e.Timeline().Slice(before, e.Timeline().Len()))
		}
	}
	// Scheduled, it is refused when due: a "not applied" cluster event.
	if err := e.Apply(change.Change{Kind: change.ObjectUpdate, Object: claimObj("data", ""), At: scheduler.Epoch.Add(time.Minute)}); err != nil {
		t.Fatal(err)
	}
	e.RunUntil(2 * time.Minute)
	evs := findEvents(e, history.EventCluster, "")
	if len(evs) != 1 || evs[0].Message != "not applied: PersistentVolumeClaim default/data does not exist" ||
		evs[0].Object != "PersistentVolumeClaim default/data" || !evs[0].Time.Equal(scheduler.Epoch.Add(time.Minute)) {
		t.Errorf("cluster events %+v", evs)
	}
	j, ok := EventJSON(evs[0])
	if b, _ := json.Marshal(j); !ok || !strings.Contains(string(b), `"kind":"cluster"`) || !strings.Contains(string(b), `"message":"not applied: `) {
		t.Errorf("JSON line %s (%v)", b, ok)
	}
}

// TestRewindAcrossObjectChanges: a run in which scheduled object changes
// unblock a pod rewinds to exactly the state of a fresh run stopped at the
// same attempt, checkpoints (which copy the object store) included, and
// runs on to the same end.
func TestRewindAcrossObjectChanges(t *testing.T) {
	cluster := volumeCluster + podYAML("other", "1", 0, "")
	opts := Options{CheckpointInterval: 1, MaxCheckpoints: 3}
	run := func() *Engine {
		e := load(t, cluster, opts)
		for _, c := range []change.Change{
			{Kind: change.ObjectAdd, Object: serviceObj("web"), At: scheduler.Epoch.Add(time.Minute)},
			{Kind: change.ObjectAdd, Object: claimObj("data", "pv-data"), At: scheduler.Epoch.Add(7 * time.Minute)},
			{Kind: change.ObjectAdd, Object: volumeObj("pv-data", "data"), At: scheduler.Epoch.Add(8 * time.Minute)},
			{Kind: change.ObjectDelete, Object: serviceObj("web"), At: scheduler.Epoch.Add(9 * time.Minute)},
		} {
			if err := e.Apply(c); err != nil {
				t.Fatal(err)
			}
		}
		return e
	}
	full := run()
	total := full.RunToQuiescence()
	if a := full.Attempts().Slice(0, full.Attempts().Len()); len(a) == 0 || a[len(a)-1].Outcome != record.Scheduled || a[len(a)-1].Pod != "default/app" ||
		!a[len(a)-1].Time.Equal(scheduler.Epoch.Add(8*time.Minute)) {
		t.Fatalf("attempts %s", attemptsSummary(a))
	}
	fullJSON := timelineJSON(t, full)
	for n := 1; n <= total; n++ {
		t.Run(fmt.Sprintf("rewind %d", n), func(t *testing.T) {
			e := run()
			e.RunToQuiescence()
			if err := e.Rewind(n); err != nil {
				t.Fatal(err)
			}
			fresh := run()
			for i := 0; i < total-n; i++ {
				if _, ok := fresh.Step(); !ok {
					t.Fatalf("fresh run ended after %d attempts", i)
				}
			}
			if got, want := timelineJSON(t, e), timelineJSON(t, fresh); got != want {
				t.Fatalf("rewound state differs from a fresh run:\n%s\n---\n%s", got, want)
			}
			if got, want := len(e.Scheduler().Objects().Services("default")), len(fresh.Scheduler().Objects().Services("default")); got != want {
				t.Errorf("%d services after the rewind, %d in the fresh run", got, want)
			}
			e.RunToQuiescence()
			if got := timelineJSON(t, e); got != fullJSON {
				t.Errorf("running on after the rewind differs from the original run")
			}
		})
	}
	// A fork before the claim arrived sees no claim.
	s, pod, err := full.Fork(0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Objects().PersistentVolumeClaim("default", "data"); err == nil || pod.Name == "" {
		t.Errorf("the fork of the first attempt holds the claim added later")
	}
	last := full.Attempts().Len() - 1
	if s, _, err = full.Fork(last); err != nil {
		t.Fatal(err)
	} else if _, err := s.Objects().PersistentVolumeClaim("default", "data"); err != nil {
		t.Errorf("the fork of the last attempt lacks the claim: %v", err)
	}
}

func attemptsSummary(as []*record.Attempt) string {
	var out []string
	for _, a := range as {
		out = append(out, fmt.Sprintf("%s@%s:%s", a.Pod, a.Time.Sub(scheduler.Epoch), a.Outcome))
	}
	return strings.Join(out, " ")
}
