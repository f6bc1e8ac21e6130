package scheduler

import (
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/klog/v2"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/record"
)

// DaemonSet pods: the pod the DaemonSet controller creates for a node
// (upstream's pkg/controller/daemon), the controller's own node predicate
// (NodeShouldRunDaemonPod), and what the scheduler says about that pod on
// that node.

// daemonTolerations are the tolerations the controller adds to every
// daemon pod (AddOrUpdateDaemonPodTolerations), in its order.
var daemonTolerations = []v1.Toleration{
	{Key: v1.TaintNodeNotReady, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute},
	{Key: v1.TaintNodeUnreachable, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute},
	{Key: v1.TaintNodeDiskPressure, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule},
	{Key: v1.TaintNodeMemoryPressure, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule},
	{Key: v1.TaintNodePIDPressure, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule},
	{Key: v1.TaintNodeUnschedulable, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule},
}

// AddDaemonPodTolerations adds the daemon tolerations to spec, plus
// network-unavailable for hostNetwork pods. A toleration matching one
// already there (same key, operator, value, effect) replaces it in place
// unless identical, as AddOrUpdateTolerationInPodSpec does.
func AddDaemonPodTolerations(spec *v1.PodSpec) {
	tols := daemonTolerations
	if spec.HostNetwork {
		tols = append(tols[:len(tols):len(tols)], v1.Toleration{Key: v1.TaintNodeNetworkUnavailable, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule})
	}
	for i := range tols {
		addOrUpdateToleration(spec, tols[i])
	}
}

func addOrUpdateToleration(spec *v1.PodSpec, t v1.Toleration) {
	var out []v1.Toleration
	updated := false
	for i := range spec.Tolerations {
		cur := spec.Tolerations[i]
		if t.MatchToleration(&cur) {
			if equalToleration(t, cur) {
				return
			}
			out = append(out, t)
			updated = true
			continue
		}
		out = append(out, cur)
	}
	if !updated {
		out = append(out, t)
	}
	spec.Tolerations = out
}

func equalToleration(a, b v1.Toleration) bool {
	if a.Key != b.Key || a.Operator != b.Operator || a.Value != b.Value || a.Effect != b.Effect {
		return false
	}
	if a.TolerationSeconds == nil || b.TolerationSeconds == nil {
		return a.TolerationSeconds == nil && b.TolerationSeconds == nil
	}
	return *a.TolerationSeconds == *b.TolerationSeconds
}

// DaemonSetPod is the pod the controller creates for node (before API
// admission: the caller resolves its priority). Labels, annotations and
// finalizers come from the template, the owner is the DaemonSet, the
// daemon tolerations are added, and the required node affinity is replaced
// by matchFields metadata.name In [node] (preferred terms and pod
// (anti-)affinity are kept; so is the nodeSelector). The controller uses
// generateName; the name here is "<daemonset>-<node>" so that it reads in
// explanations.
func DaemonSetPod(ds *appsv1.DaemonSet, node string) *v1.Pod {
	t := ds.Spec.Template.DeepCopy()
	pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{
		Name: ds.Name + "-" + node, GenerateName: ds.Name + "-", Namespace: ds.Namespace,
		Labels: t.Labels, Annotations: t.Annotations, Finalizers: t.Finalizers,
		UID: types.UID(fmt.Sprintf("daemonset-%s-%s-%s", ds.Namespace, ds.Name, node)),
	}, Spec: t.Spec}
	isController, block := true, true
	pod.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: ds.Name, UID: ds.UID,
		Controller: &isController, BlockOwnerDeletion: &block}}
	AddDaemonPodTolerations(&pod.Spec)
	pod.Spec.Affinity = replaceNodeNameAffinity(pod.Spec.Affinity, node)
	if pod.Spec.SchedulerName == "" {
		pod.Spec.SchedulerName = v1.DefaultSchedulerName
	}
	return pod
}

// replaceNodeNameAffinity is ReplaceDaemonSetPodNodeNameNodeAffinity.
func replaceNodeNameAffinity(a *v1.Affinity, node string) *v1.Affinity {
	sel := &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchFields: []v1.NodeSelectorRequirement{{
		Key: metav1.ObjectNameField, Operator: v1.NodeSelectorOpIn, Values: []string{node},
	}}}}}
	switch {
	case a == nil:
		return &v1.Affinity{NodeAffinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: sel}}
	case a.NodeAffinity == nil:
		a.NodeAffinity = &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: sel}
	case a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil:
		a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution = sel
	default:
		a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms = sel.NodeSelectorTerms
	}
	return a
}

// NodeShouldRunDaemonPod is the controller's predicate: the template's
// nodeName (if any) names the node, its nodeSelector and required node
// affinity match, and no NoSchedule/NoExecute taint is untolerated (with
// the daemon tolerations). When only taints fail, an existing pod keeps
// running unless a NoExecute taint is untolerated. why says what failed.
func NodeShouldRunDaemonPod(node *v1.Node, ds *appsv1.DaemonSet) (shouldRun, shouldContinueRunning bool, why string) {
	spec := ds.Spec.Template.Spec.DeepCopy()
	if spec.NodeName != "" && spec.NodeName != node.Name {
		return false, false, fmt.Sprintf("the template's spec.nodeName is %q", spec.NodeName)
	}
	AddDaemonPodTolerations(spec)
	fits, err := nodeaffinity.NewRequiredNodeAffinity(spec.NodeSelector, spec.Affinity).Match(node)
	if err != nil {
		return false, false, fmt.Sprintf("the template's node affinity does not parse: %v", err)
	}
	if !fits {
		return false, false, "the node does not match the template's nodeSelector / required node affinity"
	}
	logger := klog.Background()
	taint, untolerated := findUntoleratedTaint(logger, node.Spec.Taints, spec.Tolerations, func(t *v1.Taint) bool {
		return t.Effect == v1.TaintEffectNoExecute || t.Effect == v1.TaintEffectNoSchedule
	})
	if !untolerated {
		return true, true, ""
	}
	_, noExecute := findUntoleratedTaint(logger, node.Spec.Taints, spec.Tolerations, func(t *v1.Taint) bool {
		return t.Effect == v1.TaintEffectNoExecute
	})
	return false, !noExecute, fmt.Sprintf("untolerated taint {%s}", taint.ToString())
}

func findUntoleratedTaint(logger klog.Logger, taints []v1.Taint, tols []v1.Toleration, include func(*v1.Taint) bool) (v1.Taint, bool) {
	for i := range taints {
		t := &taints[i]
		if !include(t) {
			continue
		}
		tolerated := false
		for j := range tols {
			// TaintTolerationComparisonOperators is alpha and off in 1.37.
			if tols[j].ToleratesTaint(logger, t, false) {
				tolerated = true
				break
			}
		}
		if !tolerated {
			return *t, true
		}
	}
	return v1.Taint{}, false
}

// PluginVerdict is one Filter plugin's verdict on a node.
type PluginVerdict struct {
	Plugin  string
	Code    record.Code
	Reasons []string
}

// NodeVerdict is what the scheduler's Filter says about a pod on one node,
// without scheduling or binding anything.
type NodeVerdict struct {
	Node string
	// PreFilter is set when PreFilter rejected the pod (or left the node
	// out of its result): no Filter plugin ran.
	PreFilter *PluginVerdict
	// First is the first Filter plugin that rejects the node, as upstream
	// reports it (the nominated-pod check included); nil when it fits.
	First *PluginVerdict
	// Failing lists every Filter plugin that rejects the node, in Filter
	// order (the full diagnosis).
	Failing []PluginVerdict
}

// Fits reports whether the pod passes PreFilter and every Filter plugin.
func (v *NodeVerdict) Fits() bool { return v.PreFilter == nil && v.First == nil }

func verdict(st *framework.Status) *PluginVerdict {
	return &PluginVerdict{Plugin: st.Plugin(), Code: record.Code(st.Code()), Reasons: st.Reasons()}
}

// FilterOnNode runs PreFilter and Filter for pod on one node against the
// current state, changing nothing.
func (s *Scheduler) FilterOnNode(pod *v1.Pod, node string) (*NodeVerdict, error) {
	fwk := s.profiles[pod.Spec.SchedulerName]
	if fwk == nil {
		return nil, fmt.Errorf("no profile for scheduler name %q", pod.Spec.SchedulerName)
	}
	ni, err := s.snapshot.Get(node)
	if err != nil {
		return nil, err
	}
	ctx := s.ctx()
	v := &NodeVerdict{Node: node}
	state := framework.NewCycleState()
	preRes, st, narrowing := fwk.RunPreFilterPlugins(ctx, state, pod)
	// Nodes the PreFilterResult leaves out are named after the plugins
	// whose results narrowed the nodes, as attempts record them.
	narrowedBy := strings.Join(sets.List(narrowing), ",")
	if !st.IsSuccess() {
		v.PreFilter = verdict(st)
		if v.PreFilter.Plugin == "" {
			v.PreFilter.Plugin = narrowedBy
		}
		return v, nil
	}
	if !preRes.AllNodes() && !preRes.NodeNames.Has(node) {
		v.PreFilter = &PluginVerdict{Plugin: narrowedBy, Code: record.CodeUnschedulableAndUnresolvable,
			Reasons: []string{fmt.Sprintf("node(s) didn't satisfy plugin(s) %v", sets.List(narrowing))}}
		return v, nil
	}
	if first := fwk.RunFilterPluginsWithNominatedPods(ctx, state, pod, ni); !first.IsSuccess() {
		v.First = verdict(first)
	}
	_, stateWith, niWith, err := fwk.AddNominatedPods(ctx, pod, state, ni)
	if err != nil {
		return nil, err
	}
	with := fwk.RunFilterPluginsEach(ctx, stateWith, pod, niWith)
	var without []*framework.Status
	if niWith != ni {
		without = fwk.RunFilterPluginsEach(ctx, state, pod, ni)
	}
	for i, cell := range with {
		if cell.IsSuccess() && without != nil {
			cell = without[i]
		}
		if cell.IsSuccess() || cell.IsSkip() {
			continue
		}
		v.Failing = append(v.Failing, *verdict(cell))
	}
	return v, nil
}

// DaemonSetNode is one node of a DaemonSet explanation.
type DaemonSetNode struct {
	Node string
	// ShouldRun and ShouldContinueRunning are the controller's predicate;
	// Why says what failed when ShouldRun is false.
	ShouldRun, ShouldContinueRunning bool
	Why                              string
	// Running lists the DaemonSet's pods bound to the node; Pending its
	// pods waiting for the node.
	Running, Pending []string
	// Pod is the pod evaluated (the pending one, or the one the controller
	// would create) and Verdict the scheduler's Filter on the node; both
	// nil where the DaemonSet should not run or already runs.
	Pod     *v1.Pod
	Verdict *NodeVerdict
}

// ExplainDaemonSet lists, node by node in node-tree order, where the
// DaemonSet should run, which of its pods already run or wait there, and
// for each node that should run it but has no running pod, what the
// scheduler's Filter says about the pod (a pending one if there is, else
// the pod the controller would create, passed through admit for API-side
// admission such as priority resolution; admit may be nil).
func (s *Scheduler) ExplainDaemonSet(ds *appsv1.DaemonSet, admit func(*v1.Pod) (*v1.Pod, error)) ([]DaemonSetNode, error) {
	running, pending := map[string][]string{}, map[string][]*v1.Pod{}
	for _, p := range s.objects.Pods() {
		if !ownedBy(p, ds) || p.DeletionTimestamp != nil {
			continue
		}
		if p.Spec.NodeName != "" {
			running[p.Spec.NodeName] = append(running[p.Spec.NodeName], p.Namespace+"/"+p.Name)
			continue
		}
		if n := targetNode(p); n != "" {
			pending[n] = append(pending[n], p)
		}
	}
	var out []DaemonSetNode
	for _, ni := range s.snapshot.List() {
		node := ni.Node()
		d := DaemonSetNode{Node: node.Name, Running: running[node.Name]}
		for _, p := range pending[node.Name] {
			d.Pending = append(d.Pending, p.Namespace+"/"+p.Name)
		}
		d.ShouldRun, d.ShouldContinueRunning, d.Why = NodeShouldRunDaemonPod(node, ds)
		if d.ShouldRun && len(d.Running) == 0 {
			pod := DaemonSetPod(ds, node.Name)
			if len(pending[node.Name]) > 0 {
				pod = pending[node.Name][0]
			} else if admit != nil {
				admitted, err := admit(pod)
				if err != nil {
					return nil, fmt.Errorf("admitting the daemon pod for node %s: %w", node.Name, err)
				}
				pod = admitted
			}
			v, err := s.FilterOnNode(pod, node.Name)
			if err != nil {
				return nil, err
			}
			d.Pod, d.Verdict = pod, v
		}
		out = append(out, d)
	}
	return out, nil
}

// ownedBy reports whether the pod belongs to ds: ds is its controller (by
// UID, or by kind and name when the snapshot has no UIDs), or it has no
// controller and ds's selector matches it (the controller adopts orphans).
func ownedBy(p *v1.Pod, ds *appsv1.DaemonSet) bool {
	if p.Namespace != ds.Namespace {
		return false
	}
	for _, o := range p.OwnerReferences {
		if o.Controller == nil || !*o.Controller {
			continue
		}
		if o.Kind != "DaemonSet" {
			return false
		}
		if ds.UID != "" && o.UID != "" {
			return o.UID == ds.UID
		}
		return o.Name == ds.Name
	}
	sel, err := metav1.LabelSelectorAsSelector(ds.Spec.Selector)
	if err != nil || sel.Empty() {
		return false
	}
	return sel.Matches(labels.Set(p.Labels))
}

// targetNode is the node a pending daemon pod is pinned to
// (GetTargetNodeName): matchFields metadata.name In [one node].
func targetNode(p *v1.Pod) string {
	a := p.Spec.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return ""
	}
	for _, t := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		for _, r := range t.MatchFields {
			if r.Key == metav1.ObjectNameField && r.Operator == v1.NodeSelectorOpIn && len(r.Values) == 1 {
				return r.Values[0]
			}
		}
	}
	return ""
}
