package why

import (
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestApplyAndUndo: an edit set moves a pod, removes another, replaces a
// node, adds one with a pod, and adds and removes a stored object; the
// fork shows each, and undo gives the fork back exactly.
func TestApplyAndUndo(t *testing.T) {
	y := node("n1", "2", "", "", "") + node("n2", "2", "", "", "") +
		pod("a", "1", "", "n1", "") + pod("b", "1", "", "n2", "") + pod("p", "3", "", "", "")
	e := run(t, header+y)
	in := stuck(t, e, "default/p")
	s := in.Sched
	before := forkState(in)
	a, _ := s.Objects().Pod("default", "a")
	moved := a.DeepCopy()
	moved.Spec.NodeName = "n2"
	n1 := s.Snapshot().List()[0].Node().DeepCopy()
	n1.Labels["edited"] = "yes"
	added := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n3"}, Status: v1.NodeStatus{Allocatable: n1.Status.Allocatable}}
	onAdded := moved.DeepCopy()
	onAdded.Name, onAdded.UID, onAdded.Spec.NodeName = "c", "uid-c", "n3"
	pdb := &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: "pdb", Namespace: "default"}}
	edits := Edits{Objects: []any{moved, n1, added, onAdded, pdb}, Remove: []Ref{{Kind: "Pod", Namespace: "default", Name: "b"}}}
	with, without := edits.Describe(s)
	if got := strings.Join(with, ", ") + " | " + strings.Join(without, ", "); got !=
		"Pod/default/a (replaced), Node/n1 (replaced), Node/n3 (added), Pod/default/c (added), PodDisruptionBudget/default/pdb (added) | Pod/default/b" {
		t.Errorf("Describe: %s", got)
	}
	cur, undo, err := Apply(s, in.Pod, edits)
	if err != nil {
		t.Fatal(err)
	}
	if cur != in.Pod {
		t.Errorf("the pod to schedule changed without an edit of it")
	}
	if got, want := forkState(in), "n1:\nn2: default/a\nn3: default/c\npending: default/p"; got != want {
		t.Errorf("after Apply:\n%s\nwant:\n%s", got, want)
	}
	if ni, _ := s.Snapshot().Get("n1"); ni.Node().Labels["edited"] != "yes" {
		t.Error("n1 not replaced")
	}
	if len(s.Objects().PodDisruptionBudgets()) != 1 {
		t.Error("the PDB was not added")
	}
	undo()
	if got := forkState(in); got != before {
		t.Errorf("after undo:\n%s\nwant:\n%s", got, before)
	}
	if len(s.Objects().PodDisruptionBudgets()) != 0 {
		t.Error("undo left the PDB")
	}
	if ni, _ := s.Snapshot().Get("n1"); ni.Node().Labels["edited"] != "" {
		t.Error("undo left n1 edited")
	}

	// Replacing the pod itself makes it the pod to schedule.
	edited := in.Pod.DeepCopy()
	edited.Spec.Containers[0].Resources.Requests = nil
	if cur, undo, err = Apply(s, in.Pod, Edits{Objects: []any{edited}}); err != nil || cur != edited {
		t.Errorf("the edited pod: %v, %v", cur, err)
	}
	undo()

	bound := in.Pod.DeepCopy()
	bound.Spec.NodeName = "n1"
	for _, tc := range []struct {
		e    Edits
		want string
	}{
		{Edits{Remove: []Ref{{Kind: "Node", Name: "nope"}}}, "Node/nope: no such node"},
		{Edits{Objects: []any{bound}}, "its spec.nodeName must stay empty"},
		{Edits{Remove: []Ref{{Kind: "Pod", Namespace: "default", Name: "p"}}}, "is the pod being scheduled"},
		{Edits{Remove: []Ref{{Kind: "PersistentVolumeClaim", Namespace: "default", Name: "x"}}}, "PersistentVolumeClaim/default/x: no such object"},
		{Edits{Objects: []any{&v1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm", Namespace: "default"}}}}, "kind ConfigMap is not read by the scheduler"},
	} {
		if _, _, err := Apply(s, in.Pod, tc.e); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Apply(%+v): %v, want %q", tc.e, err, tc.want)
		}
		if got := forkState(in); got != before {
			t.Errorf("a refused edit changed the fork:\n%s", got)
		}
	}
}

func TestParseRef(t *testing.T) {
	for in, want := range map[string]string{
		"pod/default/web": "Pod/default/web", "Node/n1": "Node/n1", "persistentvolumeclaim/ns/data": "PersistentVolumeClaim/ns/data",
		"pod/web": "error", "node/ns/n1": "error", "deployment/ns/x": "error", "pod//x": "error",
	} {
		r, err := ParseRef(in)
		got := r.String()
		if err != nil {
			got = "error"
		}
		if got != want {
			t.Errorf("ParseRef(%q) = %s (%v), want %s", in, got, err, want)
		}
	}
}
