package compare

import (
	"sort"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	"github.com/schedtui/schedtui/scheduler/engine"
	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/history"
	"github.com/schedtui/schedtui/scheduler/record"
)

// Summary is one side's run as a whole.
type Summary struct {
	// Label is the side as given; Describe what it runs.
	Label, Describe string
	// Scheduled counts the pods whose last attempt placed them; Pending
	// those still in the queue when the run ended.
	Scheduled, Pending int
	// Preemptions counts preemption decisions, Victims the distinct pods
	// they evicted.
	Preemptions, Victims int
	Packing              Packing
	Spread               []Spread
}

// Packing is how full the nodes are when the run ends.
type Packing struct {
	// Nodes counts the nodes; NodesUsed those running at least one pod
	// that is not a DaemonSet's.
	Nodes, NodesUsed int
	// Resources are cpu and memory, then every other resource some pod
	// requests, by name.
	Resources []Histogram
}

// Buckets is the number of histogram buckets: 10 percentage points each.
const Buckets = 10

// Histogram counts the nodes by requested/allocatable of one resource:
// Nodes[i] holds those in [10·i %, 10·(i+1) %), 100 % and over in the last.
// Nodes without the resource allocatable are not counted.
type Histogram struct {
	Resource string
	Nodes    [Buckets]int
}

// Spread is the skew of one spread-constrained workload over one
// topology key when the run ends.
type Spread struct {
	TopologyKey string
	// Workload names the pods the constraint counts: the namespace and
	// the controller of the pods carrying it ("default/ReplicaSet/web"),
	// or the namespace and the constraint's selector.
	Workload string
	MaxSkew  int32
	// Skew is the most matching pods in a domain minus the fewest, over
	// every domain of the nodes the carrying pods may run on (their
	// required node affinity and nodeSelector), as PodTopologySpread
	// counts them (terminating pods left out).
	Skew int
	// Domains maps each domain to its matching pods.
	Domains map[string]int
}

func summarize(run Run) Summary {
	e := run.Engine
	s := Summary{Label: run.Side.Spec.Label(), Describe: run.Side.Describe()}
	for _, h := range e.Histories() {
		if last := h.Last(); last != nil && last.Attempt.Outcome == record.Scheduled {
			s.Scheduled++
		}
		if h.Queue != "" {
			s.Pending++
		}
	}
	victims := map[string]bool{}
	for _, ev := range e.Timeline().All() {
		if ev.Kind == history.EventPreemption {
			s.Preemptions++
			for _, v := range ev.Victims {
				victims[v] = true
			}
		}
	}
	s.Victims = len(victims)
	nodes := e.Scheduler().Snapshot().List()
	s.Packing = packing(nodes)
	s.Spread = spread(nodes, pendingPods(e))
	return s
}

func pendingPods(e *engine.Engine) []*v1.Pod {
	var out []*v1.Pod
	q := e.Queue()
	for _, list := range [][]engine.QueuedPod{q.ActiveQ, q.BackoffQ, q.Unschedulable, q.Gated} {
		for _, p := range list {
			if pod := e.Pod(p.Pod); pod != nil {
				out = append(out, pod)
			}
		}
	}
	return out
}

func packing(nodes []*framework.NodeInfo) Packing {
	p := Packing{Nodes: len(nodes)}
	extended := map[v1.ResourceName]bool{}
	for _, n := range nodes {
		for _, pi := range n.Pods {
			if !ownedByDaemonSet(pi.Pod) {
				p.NodesUsed++
				break
			}
		}
		for name, q := range n.Requested.ScalarResources {
			if q > 0 {
				extended[name] = true
			}
		}
	}
	names := []v1.ResourceName{v1.ResourceCPU, v1.ResourceMemory}
	var more []v1.ResourceName
	for name := range extended {
		more = append(more, name)
	}
	sort.Slice(more, func(i, j int) bool { return more[i] < more[j] })
	for _, name := range append(names, more...) {
		h := Histogram{Resource: string(name)}
		for _, n := range nodes {
			alloc := n.Allocatable.Amount(name)
			if alloc <= 0 {
				continue
			}
			b := int(n.Requested.Amount(name) * Buckets / alloc)
			h.Nodes[min(max(b, 0), Buckets-1)]++
		}
		p.Resources = append(p.Resources, h)
	}
	return p
}

func ownedByDaemonSet(p *v1.Pod) bool {
	ref := metav1.GetControllerOf(p)
	return ref != nil && ref.Kind == "DaemonSet"
}

// workloadKey identifies a constraint's counted pods.
type workloadKey struct {
	namespace, topologyKey, selector string
}

func spread(nodes []*framework.NodeInfo, pending []*v1.Pod) []Spread {
	type workload struct {
		Spread
		selector labels.Selector
		carrier  *v1.Pod
		owner    string
		mixed    bool
	}
	byKey := map[workloadKey]*workload{}
	var order []workloadKey
	consider := func(p *v1.Pod) {
		for _, c := range p.Spec.TopologySpreadConstraints {
			sel, err := metav1.LabelSelectorAsSelector(c.LabelSelector)
			if err != nil || c.LabelSelector == nil {
				continue
			}
			for _, k := range c.MatchLabelKeys {
				if v, ok := p.Labels[k]; ok {
					r, err := labels.NewRequirement(k, "in", []string{v})
					if err == nil {
						sel = sel.Add(*r)
					}
				}
			}
			key := workloadKey{p.Namespace, c.TopologyKey, sel.String()}
			w := byKey[key]
			owner := ""
			if ref := metav1.GetControllerOf(p); ref != nil {
				owner = ref.Kind + "/" + ref.Name
			}
			if w == nil {
				w = &workload{Spread: Spread{TopologyKey: c.TopologyKey, MaxSkew: c.MaxSkew}, selector: sel, carrier: p, owner: owner}
				byKey[key] = w
				order = append(order, key)
			} else if w.owner != owner {
				w.mixed = true
			}
		}
	}
	for _, n := range nodes {
		for _, pi := range n.Pods {
			consider(pi.Pod)
		}
	}
	for _, p := range pending {
		consider(p)
	}
	var out []Spread
	for _, key := range order {
		w := byKey[key]
		w.Workload = key.namespace + "/" + w.owner
		if w.owner == "" || w.mixed {
			w.Workload = key.namespace + " " + key.selector
		}
		affinity := nodeaffinity.GetRequiredNodeAffinity(w.carrier)
		w.Domains = map[string]int{}
		for _, n := range nodes {
			node := n.Node()
			domain, ok := node.Labels[key.topologyKey]
			if !ok {
				continue
			}
			if match, err := affinity.Match(node); err != nil || !match {
				continue
			}
			count := w.Domains[domain]
			for _, pi := range n.Pods {
				p := pi.Pod
				if p.Namespace == key.namespace && p.DeletionTimestamp == nil && w.selector.Matches(labels.Set(p.Labels)) {
					count++
				}
			}
			w.Domains[domain] = count
		}
		if len(w.Domains) > 0 {
			lo, hi := -1, 0
			for _, c := range w.Domains {
				if lo < 0 || c < lo {
					lo = c
				}
				hi = max(hi, c)
			}
			w.Skew = hi - lo
		}
		out = append(out, w.Spread)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].TopologyKey != out[j].TopologyKey {
			return out[i].TopologyKey < out[j].TopologyKey
		}
		return out[i].Workload < out[j].Workload
	})
	return out
}
