package why

import (
	"fmt"
	"math/bits"
	"sort"
	"strings"

	v1 "k8s.io/api/core/v1"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/record"
)

// Hint is a change to the cluster as the attempt saw it that makes the
// pod feasible on every node of FitsOn, proven by re-running PreFilter and
// Filter (nominated pods included) with the change applied. Applying
// Objects (each the whole changed object, as it would be, which the API
// server's defaulting leaves as it is) and removing Remove gives that
// cluster.
type Hint struct {
	Summary string   `json:"summary"`
	Objects []any    `json:"objects"`
	Remove  []Ref    `json:"remove"`
	FitsOn  []string `json:"fitsOn"`
	// NodeGroup describes the node an "add a node like ..." hint adds
	// (the Node itself, and the DaemonSet pods it would run, are among
	// Objects).
	NodeGroup *NodeGroup `json:"nodeGroup,omitempty"`
	// Changes is how many changes the hint makes.
	Changes int `json:"-"`
	// rank is the most disruptive of its changes.
	rank disruption
}

// disruption orders hints as an SRE would pick them, least disruptive
// first.
type disruption int

const (
	// byKind: the change's kind decides (change.disruption).
	byKind disruption = iota
	// fixesNearMiss: the pod's own spec, a near-miss label value or
	// claim name fixed to what the cluster has ("did you mean").
	fixesNearMiss
	// keepsIntent: the pod's own spec, its intent kept but relaxed (a
	// required term made preferred, a spread constraint relaxed).
	keepsIntent
	// addsToCluster: a node like an existing one.
	addsToCluster
	// editsSpecOrNodes: the pod drops a constraint or tolerates a taint,
	// or an existing node is relabelled, untainted, uncordoned.
	editsSpecOrNodes
	// movesOthers: other workloads' pods removed (to move or scale down).
	movesOthers
	// cutsRequests: the pod's requests lowered.
	cutsRequests
)

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
	// Hints are ranked by disruption (the pod's own spec: a near miss
	// fixed, then a required term relaxed; then nodes added, then the pod's constraints dropped or
	// existing nodes edited, then other pods removed, then request cuts),
	// then fewest changes, then most nodes opened.
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
		out = append(out, fmt.Sprintf("Hint: %s → fits on %s (proven).", h.Summary, Names(h.FitsOn)))
	}
	return out
}

// change is one atomic change: to the pod, to one node, removing one
// pod, or adding a node (with the DaemonSet pods it would run).
type change struct {
	desc   string
	pod    func(*v1.Pod)
	node   string
	onNode func(*v1.Node)
	remove *v1.Pod
	add    *newNode
	// update replaces bound pods (by namespace and name) with these,
	// along with the change to the pod (a workload's template changed).
	update []*v1.Pod
	// rank overrides the kind's disruption (byKind: the kind's).
	rank disruption
}

func (ch change) disruption() disruption {
	switch {
	case ch.rank != byKind:
		return ch.rank
	case ch.remove != nil:
		return movesOthers
	case ch.add != nil:
		return addsToCluster
	}
	return editsSpecOrNodes
}

type candidate struct {
	changes []change
	key     string
	votes   int
	rank    disruption
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
		for _, c := range missingClaimCandidates(in) {
			res.Tried++
			if h, ok := prove(in, c); ok {
				res.Hints = append(res.Hints, h)
			}
		}
		res.Hints = res.Hints[:min(len(res.Hints), opt.MaxHints)]
		if len(res.Hints) == 0 {
			res.Note = fmt.Sprintf("No hint: PreFilter %s rejects the pod before any node is considered (%s).", d.PreFilter.Plugin, d.PreFilter.Message)
		}
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
		if hi.rank != hj.rank {
			return hi.rank < hj.rank
		}
		if hi.Changes != hj.Changes {
			return hi.Changes < hj.Changes
		}
		return len(hi.FitsOn) > len(hj.FitsOn)
	})
	res.Hints = oneNodeGroup(res.Hints)
	switch {
	case len(res.Hints) == 0:
		res.Note = "No hint: no change of one or two objects that schedtui tries (requests, tolerations, nodeSelector/affinity, spread, node taints/labels/features, a node like an existing one, removing a blocking pod) makes the pod fit."
	case res.Hints[0].Changes > 1:
		res.Note = "No single change makes the pod fit; the smallest proven one needs two:"
		res.Hints = res.Hints[:1]
	default:
		res.Hints = res.Hints[:min(len(res.Hints), opt.MaxHints)]
	}
	return res, nil
}

// missingClaimCandidates fixes the claimName of each of the pod's
// volumes whose claim does not exist (VolumeBinding's PreFilter
// rejection) to an existing claim of the namespace whose name is a near
// miss (nearMiss); one candidate per such claim.
func missingClaimCandidates(in Input) []candidate {
	var out []candidate
	objs := in.Sched.Objects()
	for i, vol := range in.Pod.Spec.Volumes {
		src := vol.PersistentVolumeClaim
		if src == nil {
			continue
		}
		if _, err := objs.PersistentVolumeClaim(in.Pod.Namespace, src.ClaimName); err == nil {
			continue
		}
		for _, pvc := range objs.PersistentVolumeClaims(in.Pod.Namespace) {
			if !nearMiss(src.ClaimName, pvc.Name) {
				continue
			}
			i, name := i, pvc.Name
			out = append(out, newCandidate([]change{{desc: fmt.Sprintf("did you mean claimName: %s? (volume %s; no claim %s/%s)", name, vol.Name, in.Pod.Namespace, src.ClaimName),
				rank: fixesNearMiss, pod: func(p *v1.Pod) { p.Spec.Volumes[i].PersistentVolumeClaim.ClaimName = name }}}))
		}
	}
	return out
}

// oneNodeGroup keeps the best "add a node like X" hint of hints: the
// others add the same kind of change, and would crowd out the rest.
func oneNodeGroup(hints []Hint) []Hint {
	out := hints[:0]
	seen := false
	for _, h := range hints {
		if h.NodeGroup != nil {
			if seen {
				continue
			}
			seen = true
		}
		out = append(out, h)
	}
	return out
}

// candidates derives, node by node from the full diagnosis, the changes
// that would clear every plugin rejecting it, and a node added like each
// node group an empty node could take the pod from (nodeGroupCandidates);
// identical candidates from several nodes are merged (votes). Ranked
// fewest changes first, then least disruptive, then most votes.
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
	for _, c := range nodeGroupCandidates(in, d) {
		order = append(order, &c)
	}
	sort.SliceStable(order, func(i, j int) bool {
		if len(order[i].changes) != len(order[j].changes) {
			return len(order[i].changes) < len(order[j].changes)
		}
		if order[i].rank != order[j].rank {
			return order[i].rank < order[j].rank
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
		c.rank = max(c.rank, ch.disruption())
	}
	sort.Strings(keys)
	c.key = strings.Join(keys, "\x00")
	return c
}

// prove applies c to the fork, re-runs PreFilter and Filter on every node,
// restores the fork, and returns the hint when the pod fits somewhere.
func prove(in Input, c candidate) (Hint, bool) {
	s := in.Sched
	h := Hint{Objects: []any{}, Remove: []Ref{}, Changes: len(c.changes), rank: c.rank}
	var descs []string
	pod := in.Pod
	editedNodes := map[string]*v1.Node{}
	var removed, updated []*v1.Pod
	var added []*newNode
	for _, ch := range c.changes {
		descs = append(descs, ch.desc)
		for _, u := range ch.update {
			if _, err := s.Objects().Pod(u.Namespace, u.Name); err != nil {
				return h, false
			}
			updated = append(updated, u)
		}
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
		case ch.add != nil:
			added = append(added, ch.add)
		}
	}
	h.Summary = strings.Join(descs, "; ")
	var e Edits
	if pod != in.Pod {
		e.Objects = append(e.Objects, pod)
	}
	for _, u := range updated {
		e.Objects = append(e.Objects, u)
	}
	for _, name := range sortedKeys(editedNodes) {
		e.Objects = append(e.Objects, editedNodes[name])
	}
	for _, a := range added {
		e.Objects = append(e.Objects, a.node)
		for _, p := range a.pods {
			e.Objects = append(e.Objects, p)
		}
	}
	for _, p := range removed {
		e.Remove = append(e.Remove, Ref{Kind: "Pod", Namespace: p.Namespace, Name: p.Name})
	}
	_, undo, err := Apply(s, in.Pod, e)
	if err != nil {
		return h, false
	}
	h.FitsOn = feasible(s, pod, nil)
	if len(h.FitsOn) > 0 && len(added) == 1 {
		// How many such nodes the pods pending like this one need, on the
		// cluster with the change (placing them moves nothing else).
		h.NodeGroup = added[0].estimate(in, pod)
	}
	undo()
	if len(h.FitsOn) == 0 {
		return h, false
	}
	if g := h.NodeGroup; g != nil && g.Pending > 1 {
		h.Summary += fmt.Sprintf("; the %d pods pending like this one need %s", g.Pending, plural(g.Needed, "such node", "such nodes"))
	}
	for _, obj := range e.Objects {
		h.Objects = append(h.Objects, APIObject(obj))
	}
	h.Remove = append(h.Remove, e.Remove...)
	sort.Slice(h.Remove, func(i, j int) bool {
		return h.Remove[i].Namespace+"/"+h.Remove[i].Name < h.Remove[j].Namespace+"/"+h.Remove[j].Name
	})
	return h, true
}

// fixes lists the alternatives that clear plugin's rejection (st) of
// node: the plugin's explainer's candidates (explain.go).
func fixes(in Input, plugin string, st record.Status, node string) [][]change {
	e := explainers[plugin]
	ni := in.nodeInfo(node)
	if e.fixes == nil || ni == nil {
		return nil
	}
	return e.fixes(in, st, ni)
}

// removal removes a bound pod; the same pod removed for several nodes or
// plugins is one change.
func removal(p *v1.Pod) change {
	return change{desc: "remove pod " + key(p), remove: p}
}

// setRequest makes the pod's request of res as the scheduler counts it
// (component-helpers' PodRequests: pod-level requests when set, else the
// regular containers and sidecars together or the largest init container
// with the sidecars started before it, plus the overhead) n, and makes the
// object shown the object proven: the API server defaults a container's
// missing request to its limit, so every container whose request of res
// changes, or would be defaulted, gets it explicitly. The cut is shared
// between the containers that run together in proportion to what they
// request; an init container is lowered only as far as the sidecars
// started before it leave room. Resources that cannot be overcommitted
// (extended resources, huge pages) need the limit equal to the request:
// it follows. A pod-level request is set to what the containers may have
// (the API server rejects one below their aggregate).
func setRequest(p *v1.Pod, res v1.ResourceName, n int64) {
	if over, ok := p.Spec.Overhead[res]; ok {
		n -= quantityAmount(res, &over)
	}
	n = max(n, 0)
	if r := p.Spec.Resources; r != nil {
		if v, ok := r.Requests[res]; ok && quantityAmount(res, &v) > n {
			r.Requests[res] = quantity(res, n)
		}
	}
	// What defaulting would fill is written out, so that it is counted
	// here and stored as shown.
	var running []*v1.Container
	for i := range p.Spec.InitContainers {
		c := &p.Spec.InitContainers[i]
		requestFromLimit(c, res)
		if restartable(c) {
			running = append(running, c)
		}
	}
	for i := range p.Spec.Containers {
		requestFromLimit(&p.Spec.Containers[i], res)
		running = append(running, &p.Spec.Containers[i])
	}
	amounts := make([]int64, len(running))
	sum := int64(0)
	for i, c := range running {
		amounts[i] = containerRequest(c, res)
		sum += amounts[i]
	}
	if sum > n {
		for i, cut := range shares(sum-n, amounts) {
			if cut > 0 {
				setContainerRequest(running[i], res, amounts[i]-cut)
			}
		}
	}
	sidecars := int64(0)
	for i := range p.Spec.InitContainers {
		c := &p.Spec.InitContainers[i]
		if restartable(c) {
			sidecars += containerRequest(c, res)
			continue
		}
		if containerRequest(c, res)+sidecars > n {
			setContainerRequest(c, res, n-sidecars)
		}
	}
}

// restartable: an init container with restartPolicy Always, a sidecar,
// which runs beside the regular containers.
func restartable(c *v1.Container) bool {
	return c.RestartPolicy != nil && *c.RestartPolicy == v1.ContainerRestartPolicyAlways
}

// requestFromLimit is the API server's defaulting of a missing request
// to the limit, for res.
func requestFromLimit(c *v1.Container, res v1.ResourceName) {
	l, ok := c.Resources.Limits[res]
	if _, set := c.Resources.Requests[res]; !ok || set {
		return
	}
	if c.Resources.Requests == nil {
		c.Resources.Requests = v1.ResourceList{}
	}
	c.Resources.Requests[res] = l.DeepCopy()
}

func containerRequest(c *v1.Container, res v1.ResourceName) int64 {
	q, ok := c.Resources.Requests[res]
	if !ok {
		return 0
	}
	return quantityAmount(res, &q)
}

// setContainerRequest lowers c's request of res to n; a resource that
// cannot be overcommitted keeps its limit equal.
func setContainerRequest(c *v1.Container, res v1.ResourceName, n int64) {
	q := quantity(res, n)
	c.Resources.Requests[res] = q
	if _, ok := c.Resources.Limits[res]; ok && (!framework.IsNativeResource(res) || framework.IsHugePageResourceName(res)) {
		c.Resources.Limits[res] = q.DeepCopy()
	}
}

// shares splits total (at most the sum of weights) in proportion to the
// weights, in whole units that add up to total: each gets the floor of
// its share, and the units left go to the largest remainders, earlier
// ones first on ties. No share exceeds its weight.
func shares(total int64, weights []int64) []int64 {
	out := make([]int64, len(weights))
	sum := int64(0)
	for _, w := range weights {
		sum += w
	}
	if sum == 0 {
		return out
	}
	rem := make([]int64, len(weights))
	left := total
	for i, w := range weights {
		hi, lo := bits.Mul64(uint64(total), uint64(w))
		q, r := bits.Div64(hi, lo, uint64(sum))
		out[i], rem[i] = int64(q), int64(r)
		left -= out[i]
	}
	order := make([]int, len(weights))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return rem[order[a]] > rem[order[b]] })
	for _, i := range order[:left] {
		out[i]++
	}
	return out
}

func quantityAmount(res v1.ResourceName, q interface{ MilliValue() int64 }) int64 {
	if res == v1.ResourceCPU {
		return q.MilliValue()
	}
	return q.MilliValue() / 1000
}
