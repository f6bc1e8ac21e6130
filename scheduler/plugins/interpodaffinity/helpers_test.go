package interpodaffinity

import (
	"context"
	"slices"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/framework/frameworktest"
)

// Fixtures in the shape upstream's tests use (st.MakePod and friends),
// written for this package.

type podBuilder struct{ p v1.Pod }

func mkPod(name string) *podBuilder {
	b := &podBuilder{}
	b.p.Name = name
	b.p.UID = types.UID(name)
	return b
}

func (b *podBuilder) uid(u string) *podBuilder { b.p.UID = types.UID(u); return b }
func (b *podBuilder) ns(ns string) *podBuilder { b.p.Namespace = ns; return b }
func (b *podBuilder) node(n string) *podBuilder {
	b.p.Spec.NodeName = n
	return b
}
func (b *podBuilder) nominated(n string) *podBuilder {
	b.p.Status.NominatedNodeName = n
	return b
}
func (b *podBuilder) label(k, v string) *podBuilder {
	if b.p.Labels == nil {
		b.p.Labels = map[string]string{}
	}
	b.p.Labels[k] = v
	return b
}
func (b *podBuilder) labels(m map[string]string) *podBuilder {
	for k, v := range m {
		b.label(k, v)
	}
	return b
}

func (b *podBuilder) affinity() *v1.Affinity {
	if b.p.Spec.Affinity == nil {
		b.p.Spec.Affinity = &v1.Affinity{}
	}
	return b.p.Spec.Affinity
}

func (b *podBuilder) reqAff(t v1.PodAffinityTerm) *podBuilder {
	a := b.affinity()
	if a.PodAffinity == nil {
		a.PodAffinity = &v1.PodAffinity{}
	}
	a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution = append(a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution, t)
	return b
}

func (b *podBuilder) reqAnti(t v1.PodAffinityTerm) *podBuilder {
	a := b.affinity()
	if a.PodAntiAffinity == nil {
		a.PodAntiAffinity = &v1.PodAntiAffinity{}
	}
	a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution = append(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution, t)
	return b
}

func (b *podBuilder) prefAff(w int32, t v1.PodAffinityTerm) *podBuilder {
	a := b.affinity()
	if a.PodAffinity == nil {
		a.PodAffinity = &v1.PodAffinity{}
	}
	a.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution = append(a.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution, v1.WeightedPodAffinityTerm{Weight: w, PodAffinityTerm: t})
	return b
}

func (b *podBuilder) prefAnti(w int32, t v1.PodAffinityTerm) *podBuilder {
	a := b.affinity()
	if a.PodAntiAffinity == nil {
		a.PodAntiAffinity = &v1.PodAntiAffinity{}
	}
	a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution = append(a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution, v1.WeightedPodAffinityTerm{Weight: w, PodAffinityTerm: t})
	return b
}

func (b *podBuilder) withAffinity(a *v1.Affinity) *podBuilder {
	b.p.Spec.Affinity = a.DeepCopy()
	return b
}

func (b *podBuilder) obj() *v1.Pod { return b.p.DeepCopy() }

func sel(reqs ...metav1.LabelSelectorRequirement) *metav1.LabelSelector {
	return &metav1.LabelSelector{MatchExpressions: reqs}
}

func in(key string, vals ...string) metav1.LabelSelectorRequirement {
	return metav1.LabelSelectorRequirement{Key: key, Operator: metav1.LabelSelectorOpIn, Values: vals}
}

func notIn(key string, vals ...string) metav1.LabelSelectorRequirement {
	return metav1.LabelSelectorRequirement{Key: key, Operator: metav1.LabelSelectorOpNotIn, Values: vals}
}

func exists(key string) metav1.LabelSelectorRequirement {
	return metav1.LabelSelectorRequirement{Key: key, Operator: metav1.LabelSelectorOpExists}
}

func doesNotExist(key string) metav1.LabelSelectorRequirement {
	return metav1.LabelSelectorRequirement{Key: key, Operator: metav1.LabelSelectorOpDoesNotExist}
}

// term builds a PodAffinityTerm on topologyKey selecting s.
func term(topologyKey string, s *metav1.LabelSelector) v1.PodAffinityTerm {
	return v1.PodAffinityTerm{LabelSelector: s, TopologyKey: topologyKey}
}

func nsTerm(topologyKey string, s *metav1.LabelSelector, namespaces []string, nsSel *metav1.LabelSelector) v1.PodAffinityTerm {
	return v1.PodAffinityTerm{LabelSelector: s, TopologyKey: topologyKey, Namespaces: namespaces, NamespaceSelector: nsSel}
}

func mkNode(name string, labels map[string]string) *v1.Node {
	return &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
}

func mkNamespace(name string, labels map[string]string) *v1.Namespace {
	return &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
}

// teamNamespaces are upstream's test namespaces.
func teamNamespaces() []any {
	t1 := map[string]string{"team": "team1"}
	t2 := map[string]string{"team": "team2"}
	return []any{
		mkNamespace("subteam1.team1", t1),
		mkNamespace("subteam2.team1", t1),
		mkNamespace("subteam1.team2", t2),
		mkNamespace("subteam2.team2", t2),
	}
}

func newPlugin(t *testing.T, args runtime.Object, h framework.Handle) *InterPodAffinity {
	t.Helper()
	p, err := New(args, h)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return p.(*InterPodAffinity)
}

func setup(t *testing.T, pods []*v1.Pod, nodes []*v1.Node, objs ...any) (*InterPodAffinity, *frameworktest.Handle) {
	t.Helper()
	h := frameworktest.NewHandle(nodes, pods, objs...)
	return newPlugin(t, nil, h), h
}

func nodeInfo(t *testing.T, h *frameworktest.Handle, name string) *framework.NodeInfo {
	t.Helper()
	ni, err := h.Snap.Get(name)
	if err != nil {
		t.Fatal(err)
	}
	return ni
}

// sameStatus compares code and reasons (error text included).
func sameStatus(a, b *framework.Status) bool {
	return a.Code() == b.Code() && slices.Equal(a.Reasons(), b.Reasons())
}

var ctx = context.Background()

func i32(v int32) *int32 { return &v }
