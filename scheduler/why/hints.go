package why

import (
	"fmt"
	"sort"
	"strings"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ndf "k8s.io/component-helpers/nodedeclaredfeatures"

	"github.com/schedtui/schedtui/scheduler/record"
)

// Hint is a change to the cluster as the attempt saw it that makes the
// pod feasible on every node of FitsOn, proven by re-running PreFilter and
// Filter (nominated pods included) with the change applied. Applying
// Objects (each the whole changed object, as it would be) and removing
// Remove gives that cluster.
type Hint struct {
	Summary string   `json:"summary"`
	Objects []any    `json:"objects"`
	Remove  []Ref    `json:"remove"`
	FitsOn  []string `json:"fitsOn"`
	// Changes is how many changes the hint makes.
	Changes int `json:"-"`
}

// Ref names an object to remove.
type Ref struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
}

// Options bounds the work.
type Options struct {
	// MaxCandidates is how many candidate hints are re-run per size
	// (single changes, then pairs when no single change works); default 12.
	MaxCandidates int
	// MaxHints is how many proven single-change hints are kept; default 3.
	MaxHints int
}

// Result is the proven hints of an attempt.
type Result struct {
	// Hints are ranked: fewest changes first, then most nodes opened.
	Hints []Hint
	// Note says why there is no single-change hint, or no hint at all.
	Note string
	// Tried counts the candidates re-run.
	Tried int
}

// Lines is the text form of the hints: the note, then one line per hint.
func (r *Result) Lines() []string {
	if r == nil {
		return nil
	}
	var out []string
	if r.Note != "" {
		out = append(out, r.Note)
	}
	for _, h := range r.Hints {
		out = append(out, fmt.Sprintf("Hint: %s → fits on %s (proven).", h.Summary, names(h.FitsOn)))
	}
	return out
}

// change is one atomic change: to the pod, to one node, or removing one
// pod.
type change struct {
	desc   string
	pod    func(*v1.Pod)
	node   string
	onNode func(*v1.Node)
	remove *v1.Pod
}

type candidate struct {
	changes []change
	key     string
	votes   int
}

// Hints finds the smallest changes that make the attempt's pod fit, proves
// each on the fork (in.Sched, which it changes and restores: the caller
// must own it), and ranks them. Only unschedulable attempts get hints.
func Hints(in Input, opt Options) (*Result, error) {
	res := &Result{}
	a := in.Attempt
	if a == nil || in.Sched == nil || in.Pod == nil || (a.Outcome != record.Unschedulable && a.Outcome != record.Error) {
		return res, nil
	}
	if opt.MaxCandidates <= 0 {
		opt.MaxCandidates = 12
	}
	if opt.MaxHints <= 0 {
		opt.MaxHints = 3
	}
	d := in.Diag
	if d == nil {
		var err error
		if d, err = in.Sched.Diagnose(in.Pod); err != nil {
			return nil, err
		}
		in.Diag = d
	}
	if d.PreFilter.Code != record.CodeSuccess && d.PreFilter.Code != record.CodeNotRun {
		res.Note = fmt.Sprintf("No hint: PreFilter %s rejects the pod before any node is considered (%s).", d.PreFilter.Plugin, d.PreFilter.Message)
		return res, nil
	}
	cands := candidates(in, d)
	for size := 1; size <= 2 && len(res.Hints) == 0; size++ {
		tried := 0
		for _, c := range cands {
			if len(c.changes) != size || tried == opt.MaxCandidates {
				continue
			}
			tried++
			if h, ok := prove(in, c); ok {
				res.Hints = append(res.Hints, h)
			}
		}
		res.Tried += tried
	}
	sort.SliceStable(res.Hints, func(i, j int) bool {
		hi, hj := res.Hints[i], res.Hints[j]
		if hi.Changes != hj.Changes {
			return hi.Changes < hj.Changes
		}
		return len(hi.FitsOn) > len(hj.FitsOn)
	})
	switch {
	case len(res.Hints) == 0:
		res.Note = "No hint: no change of one or two objects that schedtui tries (requests, tolerations, nodeSelector/affinity, spread, node taints/labels/features, removing a blocking pod) makes the pod fit."
	case res.Hints[0].Changes > 1:
		res.Note = "No single change makes the pod fit; the smallest proven one needs two:"
		res.Hints = res.Hints[:1]
	default:
		res.Hints = res.Hints[:min(len(res.Hints), opt.MaxHints)]
	}
	return res, nil
}

// candidates derives, node by node from the full diagnosis, the changes
// that would clear every plugin rejecting it; identical candidates from
// several nodes are merged (votes). Ranked fewest changes first, then
// most votes.
func candidates(in Input, d *record.FullDiagnosis) []candidate {
	byKey := map[string]*candidate{}
	var order []*candidate
	for n, name := range d.Nodes.Names {
		if d.Narrowed[n] {
			continue
		}
		var alts [][][]change
		fits, fixable := true, true
		for p, plugin := range d.Plugins {
			if d.SkippedPlugins[p] {
				continue
			}
			st := d.Cell(n, p)
			if st.Code == record.CodeSuccess {
				continue
			}
			fits = false
			fx := fixes(in, plugin, st, name)
			if len(fx) == 0 {
				fixable = false
				break
			}
			alts = append(alts, fx)
		}
		if fits || !fixable {
			continue
		}
		for _, combo := range product(alts, 4) {
			c := newCandidate(combo)
			if len(c.changes) > 2 {
				continue
			}
			if have := byKey[c.key]; have != nil {
				have.votes++
				continue
			}
			c.votes = 1
			byKey[c.key] = &c
			order = append(order, &c)
		}
	}
	sort.SliceStable(order, func(i, j int) bool {
		if len(order[i].changes) != len(order[j].changes) {
			return len(order[i].changes) < len(order[j].changes)
		}
		return order[i].votes > order[j].votes
	})
	out := make([]candidate, len(order))
	for i, c := range order {
		out[i] = *c
	}
	return out
}

// product picks one alternative per plugin, at most limit combinations.
func product(alts [][][]change, limit int) [][]change {
	out := [][]change{nil}
	for _, a := range alts {
		var next [][]change
		for _, prefix := range out {
			for _, alt := range a {
				if len(next) == limit {
					break
				}
				next = append(next, append(append([]change(nil), prefix...), alt...))
			}
		}
		out = next
	}
	return out
}

func newCandidate(changes []change) candidate {
	seen := map[string]bool{}
	var c candidate
	var keys []string
	for _, ch := range changes {
		if seen[ch.desc] {
			continue
		}
		seen[ch.desc] = true
		c.changes = append(c.changes, ch)
		keys = append(keys, ch.desc)
	}
	sort.Strings(keys)
	c.key = strings.Join(keys, "\x00")
	return c
}

// prove applies c to the fork, re-runs PreFilter and Filter on every node,
// restores the fork, and returns the hint when the pod fits somewhere.
func prove(in Input, c candidate) (Hint, bool) {
	s := in.Sched
	h := Hint{Objects: []any{}, Remove: []Ref{}, Changes: len(c.changes)}
	var descs []string
	pod := in.Pod
	editedNodes := map[string]*v1.Node{}
	var removed []*v1.Pod
	for _, ch := range c.changes {
		descs = append(descs, ch.desc)
		switch {
		case ch.pod != nil:
			if pod == in.Pod {
				pod = in.Pod.DeepCopy()
			}
			ch.pod(pod)
		case ch.onNode != nil:
			n := editedNodes[ch.node]
			if n == nil {
				ni := in.nodeInfo(ch.node)
				if ni == nil {
					return h, false
				}
				n = ni.Node().DeepCopy()
				editedNodes[ch.node] = n
			}
			ch.onNode(n)
		case ch.remove != nil:
			removed = append(removed, ch.remove)
		}
	}
	h.Summary = strings.Join(descs, "; ")
	// Apply.
	var nodes0 []*v1.Node
	if len(editedNodes) > 0 {
		for _, ni := range s.Snapshot().List() {
			nodes0 = append(nodes0, ni.Node())
		}
		nodes := make([]*v1.Node, len(nodes0))
		for i, n := range nodes0 {
			nodes[i] = n
			if e := editedNodes[n.Name]; e != nil {
				nodes[i] = e
			}
		}
		s.SetNodes(nodes)
	}
	for _, p := range removed {
		s.RemoveAssignedPod(p)
	}
	if pod != in.Pod {
		s.SetPendingPod(pod)
	}
	h.FitsOn = feasible(s, pod, nil)
	// Restore.
	if pod != in.Pod {
		s.SetPendingPod(in.Pod)
	}
	for i := len(removed) - 1; i >= 0; i-- {
		s.AddAssignedPod(removed[i])
	}
	if nodes0 != nil {
		s.SetNodes(nodes0)
	}
	if len(h.FitsOn) == 0 {
		return h, false
	}
	if pod != in.Pod {
		p := pod.DeepCopy()
		p.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}
		p.ManagedFields = nil
		h.Objects = append(h.Objects, p)
	}
	for _, name := range sortedKeys(editedNodes) {
		n := editedNodes[name].DeepCopy()
		n.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Node"}
		n.ManagedFields = nil
		h.Objects = append(h.Objects, n)
	}
	for _, p := range removed {
		h.Remove = append(h.Remove, Ref{Kind: "Pod", Namespace: p.Namespace, Name: p.Name})
	}
	sort.Slice(h.Remove, func(i, j int) bool {
		return h.Remove[i].Namespace+"/"+h.Remove[i].Name < h.Remove[j].Namespace+"/"+h.Remove[j].Name
	})
	return h, true
}

// fixes lists the alternatives that clear plugin's rejection (st) of
// node; each alternative is one or more changes. None: schedtui knows no
// change for it (a PV pinned elsewhere, too many pods, ...).
func fixes(in Input, plugin string, st record.Status, node string) [][]change {
	ni := in.nodeInfo(node)
	if ni == nil {
		return nil
	}
	pod := in.Pod
	switch plugin {
	case "NodeResourcesFit":
		var alt []change
		req := requests(in, pod)
		for _, r := range st.Reasons {
			res, ok := reasonResource(r)
			if !ok || res == v1.ResourcePods {
				return nil
			}
			f, _ := free(in, node, res, true)
			if f <= 0 || f >= req.Amount(res) {
				return nil
			}
			alt = append(alt, change{desc: fmt.Sprintf("lower the pod's %s request to %s (from %s)", res, qty(res, f), qty(res, req.Amount(res))),
				pod: func(p *v1.Pod) { setRequest(p, res, f) }})
		}
		if len(alt) == 0 {
			return nil
		}
		return [][]change{alt}
	case "TaintToleration":
		taints := untolerated(pod, ni.Node())
		if len(taints) == 0 {
			return nil
		}
		var ts []string
		for _, t := range taints {
			ts = append(ts, t.ToString())
		}
		list := strings.Join(ts, ", ")
		return [][]change{
			{{desc: "tolerate " + list, pod: func(p *v1.Pod) {
				for _, t := range taints {
					p.Spec.Tolerations = append(p.Spec.Tolerations, v1.Toleration{Key: t.Key, Operator: v1.TolerationOpEqual, Value: t.Value, Effect: t.Effect})
				}
			}}},
			{{desc: fmt.Sprintf("remove taint %s from %s", list, node), node: node, onNode: func(n *v1.Node) {
				var keep []v1.Taint
				for _, t := range n.Spec.Taints {
					drop := false
					for _, u := range taints {
						drop = drop || t.MatchTaint(&u)
					}
					if !drop {
						keep = append(keep, t)
					}
				}
				n.Spec.Taints = keep
			}}},
		}
	case "NodeAffinity":
		var out [][]change
		if miss := selectorMisses(pod, ni.Node()); len(miss) > 0 {
			var keys []string
			for _, k := range sortedKeys(pod.Spec.NodeSelector) {
				if ni.Node().Labels[k] != pod.Spec.NodeSelector[k] {
					keys = append(keys, k)
				}
			}
			sel := map[string]string{}
			for _, k := range keys {
				sel[k] = pod.Spec.NodeSelector[k]
			}
			out = append(out,
				[]change{{desc: fmt.Sprintf("label %s %s", node, selectorString(sel)), node: node, onNode: func(n *v1.Node) {
					if n.Labels == nil {
						n.Labels = map[string]string{}
					}
					for k, v := range sel {
						n.Labels[k] = v
					}
				}}},
				[]change{{desc: "drop nodeSelector " + strings.Join(keys, ", ") + " from the pod", pod: func(p *v1.Pod) {
					for _, k := range keys {
						delete(p.Spec.NodeSelector, k)
					}
				}}})
			return out
		}
		if a := pod.Spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
			out = append(out, []change{{desc: "drop the pod's required node affinity", pod: func(p *v1.Pod) {
				p.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution = nil
			}}})
		}
		return out
	case "NodeUnschedulable":
		return [][]change{
			{{desc: "uncordon " + node, node: node, onNode: func(n *v1.Node) { n.Spec.Unschedulable = false }}},
			{{desc: "tolerate " + v1.TaintNodeUnschedulable + ":NoSchedule", pod: func(p *v1.Pod) {
				p.Spec.Tolerations = append(p.Spec.Tolerations, v1.Toleration{Key: v1.TaintNodeUnschedulable, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule})
			}}},
		}
	case "NodePorts":
		var alt []change
		h := portHolders(in, node)
		seen := map[string]bool{}
		for _, port := range sortedKeys(h) {
			for _, p := range h[port] {
				if !seen[key(p)] {
					seen[key(p)] = true
					alt = append(alt, removal(p))
				}
			}
		}
		if len(alt) == 0 {
			return nil
		}
		return [][]change{alt}
	case "InterPodAffinity":
		blockers, unmet := interPodBlockers(in, node)
		var alt []change
		seen := map[string]bool{}
		ownAnti := false
		for _, b := range blockers {
			// "its anti-affinity ... selects this pod" is the other pod's
			// term: dropping the pod's own terms does not clear it.
			ownAnti = ownAnti || strings.HasPrefix(b.why, "matches this pod's anti-affinity")
			if !seen[key(b.pod)] {
				seen[key(b.pod)] = true
				alt = append(alt, removal(b.pod))
			}
		}
		var out [][]change
		if len(unmet) > 0 {
			out = append(out, []change{{desc: "drop the pod's required pod affinity", pod: func(p *v1.Pod) {
				p.Spec.Affinity.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution = nil
			}}})
			if len(alt) > 0 {
				out[0] = append(out[0], alt...)
			}
			return out
		}
		if len(alt) > 0 {
			out = append(out, alt)
		}
		if ownAnti && len(blockers) > 1 {
			out = append(out, []change{{desc: "drop the pod's required pod anti-affinity", pod: func(p *v1.Pod) {
				p.Spec.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution = nil
			}}})
		}
		return out
	case "PodTopologySpread":
		var out [][]change
		for _, d := range spreadCounts(in) {
			dom, ok := ni.Node().Labels[d.c.TopologyKey]
			if _, counted := d.counts[dom]; !ok || !counted {
				return nil
			}
			skew := d.counts[dom] + d.self - d.min
			if skew <= int(d.c.MaxSkew) {
				continue
			}
			tk, need := d.c.TopologyKey, int32(skew)
			match := func(c *v1.TopologySpreadConstraint) bool {
				return c.TopologyKey == tk && c.WhenUnsatisfiable == v1.DoNotSchedule
			}
			out = append(out,
				[]change{{desc: fmt.Sprintf("raise maxSkew of the %s spread constraint to %d", tk, need), pod: func(p *v1.Pod) {
					for i := range p.Spec.TopologySpreadConstraints {
						if c := &p.Spec.TopologySpreadConstraints[i]; match(c) {
							c.MaxSkew = need
						}
					}
				}}},
				[]change{{desc: fmt.Sprintf("make the %s spread constraint whenUnsatisfiable: ScheduleAnyway", tk), pod: func(p *v1.Pod) {
					for i := range p.Spec.TopologySpreadConstraints {
						if c := &p.Spec.TopologySpreadConstraints[i]; match(c) {
							c.WhenUnsatisfiable = v1.ScheduleAnyway
						}
					}
				}}})
			// One constraint at a time: a node violating two needs both,
			// which the combination over plugins does not cover.
			break
		}
		return out
	case "NodeDeclaredFeatures":
		reqs, err := ndf.DefaultFramework.InferForPodScheduling(&ndf.PodInfo{Spec: &pod.Spec}, featuresVersion)
		if err != nil {
			return nil
		}
		m, err := ndf.DefaultFramework.MatchNode(reqs, ni.Node())
		if err != nil || m.IsMatch {
			return nil
		}
		missing := m.UnsatisfiedRequirements
		return [][]change{{{desc: fmt.Sprintf("declare feature %s on %s", strings.Join(missing, ", "), node), node: node, onNode: func(n *v1.Node) {
			n.Status.DeclaredFeatures = append(n.Status.DeclaredFeatures, missing...)
			sort.Strings(n.Status.DeclaredFeatures)
		}}}}
	case "VolumeRestrictions":
		var alt []change
		for _, c := range claims(pod) {
			for _, p := range in.Sched.Objects().Pods() {
				if p.UID == pod.UID || p.Spec.NodeName == "" {
					continue
				}
				for _, pc := range claims(p) {
					if pc == c {
						alt = append(alt, removal(p))
					}
				}
			}
		}
		if len(alt) == 0 {
			return nil
		}
		return [][]change{alt}
	}
	return nil
}

// removal removes a bound pod; the same pod removed for several nodes or
// plugins is one change.
func removal(p *v1.Pod) change {
	return change{desc: "remove pod " + key(p), remove: p}
}

// setRequest makes the pod's total request of res n: pod-level requests
// when the pod has them, else the first container's (the other
// containers' requests of res dropped, init containers capped at n, the
// overhead subtracted); a limit below the new request is dropped.
func setRequest(p *v1.Pod, res v1.ResourceName, n int64) {
	if over, ok := p.Spec.Overhead[res]; ok {
		n -= quantityAmount(res, &over)
	}
	q := quantity(res, n)
	if r := p.Spec.Resources; r != nil {
		if _, ok := r.Requests[res]; ok {
			r.Requests[res] = q
			return
		}
	}
	for i := range p.Spec.InitContainers {
		c := &p.Spec.InitContainers[i]
		if v, ok := c.Resources.Requests[res]; ok && v.Cmp(q) > 0 {
			c.Resources.Requests[res] = q
			if l, ok := c.Resources.Limits[res]; ok && l.Cmp(q) < 0 {
				delete(c.Resources.Limits, res)
			}
		}
	}
	for i := range p.Spec.Containers {
		c := &p.Spec.Containers[i]
		if i > 0 {
			delete(c.Resources.Requests, res)
			continue
		}
		if c.Resources.Requests == nil {
			c.Resources.Requests = v1.ResourceList{}
		}
		c.Resources.Requests[res] = q
		if l, ok := c.Resources.Limits[res]; ok && l.Cmp(q) < 0 {
			delete(c.Resources.Limits, res)
		}
	}
}

func quantityAmount(res v1.ResourceName, q interface{ MilliValue() int64 }) int64 {
	if res == v1.ResourceCPU {
		return q.MilliValue()
	}
	return q.MilliValue() / 1000
}
