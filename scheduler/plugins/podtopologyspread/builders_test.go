package podtopologyspread

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/framework/frameworktest"
)

// Test fixtures mirroring upstream's: selectors, policies and the taint.
var (
	fooSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "foo", Operator: metav1.LabelSelectorOpExists}}}
	barSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "bar", Operator: metav1.LabelSelectorOpExists}}}
	ignore      = v1.NodeInclusionPolicyIgnore
	honor       = v1.NodeInclusionPolicyHonor
	taints      = []v1.Taint{{Key: v1.TaintNodeUnschedulable, Effect: v1.TaintEffectNoSchedule}}
)

func matchLabels(kv ...string) *metav1.LabelSelector {
	ls := &metav1.LabelSelector{MatchLabels: map[string]string{}}
	for i := 0; i+1 < len(kv); i += 2 {
		ls.MatchLabels[kv[i]] = kv[i+1]
	}
	return ls
}

func ptrTo[T any](v T) *T { return &v }

type podBuilder struct{ p v1.Pod }

func makePod(name string) *podBuilder {
	return &podBuilder{p: v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID(name)}}}
}

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
func (b *podBuilder) terminating() *podBuilder {
	now := metav1.Now()
	b.p.DeletionTimestamp = &now
	return b
}
func (b *podBuilder) toleration(key string) *podBuilder {
	b.p.Spec.Tolerations = append(b.p.Spec.Tolerations, v1.Toleration{Key: key, Operator: v1.TolerationOpExists})
	return b
}
func (b *podBuilder) nodeSelector(m map[string]string) *podBuilder {
	b.p.Spec.NodeSelector = m
	return b
}
func (b *podBuilder) owner(name string, gvk schema.GroupVersionKind) *podBuilder {
	b.p.OwnerReferences = []metav1.OwnerReference{{APIVersion: gvk.GroupVersion().String(), Kind: gvk.Kind, Name: name, Controller: ptrTo(true)}}
	return b
}

// nodeAffinity sets one required term with one match expression.
func (b *podBuilder) nodeAffinity(key string, op v1.NodeSelectorOperator, vals ...string) *podBuilder {
	b.p.Spec.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
			MatchExpressions: []v1.NodeSelectorRequirement{{Key: key, Operator: op, Values: vals}},
		}}},
	}}
	return b
}

// spread mirrors upstream's st.PodWrapper.SpreadConstraint.
func (b *podBuilder) spread(maxSkew int32, key string, mode v1.UnsatisfiableConstraintAction, sel *metav1.LabelSelector, minDomains *int32, na, nt *v1.NodeInclusionPolicy, matchLabelKeys []string) *podBuilder {
	b.p.Spec.TopologySpreadConstraints = append(b.p.Spec.TopologySpreadConstraints, v1.TopologySpreadConstraint{
		MaxSkew: maxSkew, TopologyKey: key, WhenUnsatisfiable: mode, LabelSelector: sel,
		MinDomains: minDomains, NodeAffinityPolicy: na, NodeTaintsPolicy: nt, MatchLabelKeys: matchLabelKeys,
	})
	return b
}

func (b *podBuilder) obj() *v1.Pod { p := b.p.DeepCopy(); return p }

type nodeBuilder struct{ n v1.Node }

func makeNode(name string) *nodeBuilder {
	return &nodeBuilder{n: v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}}
}

func (b *nodeBuilder) label(k, v string) *nodeBuilder {
	if b.n.Labels == nil {
		b.n.Labels = map[string]string{}
	}
	b.n.Labels[k] = v
	return b
}
func (b *nodeBuilder) taints(t []v1.Taint) *nodeBuilder {
	b.n.Spec.Taints = t
	return b
}
func (b *nodeBuilder) obj() *v1.Node { return b.n.DeepCopy() }

// zoneNode is the common fixture: labels zone and node.
func zoneNode(name, zone string) *nodeBuilder {
	return makeNode(name).label("zone", zone).label("node", name)
}

func listArgs(defaults ...v1.TopologySpreadConstraint) *configv1.PodTopologySpreadArgs {
	return &configv1.PodTopologySpreadArgs{DefaultingType: configv1.ListDefaulting, DefaultConstraints: defaults}
}

func systemArgs() *configv1.PodTopologySpreadArgs {
	return &configv1.PodTopologySpreadArgs{DefaultingType: configv1.SystemDefaulting}
}

func newTestPlugin(t *testing.T, args *configv1.PodTopologySpreadArgs, nodes []*v1.Node, pods []*v1.Pod, objs ...any) (*PodTopologySpread, *frameworktest.Handle) {
	t.Helper()
	h := frameworktest.NewHandle(nodes, pods, objs...)
	pl, err := New(args, h)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return pl.(*PodTopologySpread), h
}

func mustSelector(t *testing.T, ls *metav1.LabelSelector) labels.Selector {
	t.Helper()
	s, err := metav1.LabelSelectorAsSelector(ls)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// wantConstraint builds an expected constraint with upstream's defaults
// (minDomains 1, nodeAffinityPolicy Honor, nodeTaintsPolicy Ignore).
func wantConstraint(t *testing.T, maxSkew int32, key string, sel *metav1.LabelSelector) topologySpreadConstraint {
	return topologySpreadConstraint{
		MaxSkew: maxSkew, TopologyKey: key, Selector: mustSelector(t, sel), MinDomains: 1,
		NodeAffinityPolicy: v1.NodeInclusionPolicyHonor, NodeTaintsPolicy: v1.NodeInclusionPolicyIgnore,
	}
}

func nodeInfo(t *testing.T, h *frameworktest.Handle, name string) *framework.NodeInfo {
	t.Helper()
	ni, err := h.Snapshot().Get(name)
	if err != nil {
		t.Fatal(err)
	}
	return ni
}
