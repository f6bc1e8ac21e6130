// Package extender is upstream's HTTPExtender (pkg/scheduler/extender.go):
// a scheduler extender called over HTTP with the wire types of
// k8s.io/kube-scheduler/extender/v1, built from the configuration's
// extenders as upstream's buildExtenders builds them. Every call is kept,
// with its latency and raw answer, for the attempt record (TakeCalls).
package extender

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	configv1 "k8s.io/kube-scheduler/config/v1"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/record"
)

// DefaultTimeout is upstream's DefaultExtenderTimeout, used when
// httpTimeout is zero.
const DefaultTimeout = 5 * time.Second

// maxKeptResponse bounds the raw answer kept per call in the record.
const maxKeptResponse = 64 << 10

// The verbs, as the record names them.
const (
	VerbFilter     = "filter"
	VerbPrioritize = "prioritize"
	VerbPreempt    = "preempt"
	VerbBind       = "bind"
)

// HTTPExtender calls one configured extender.
type HTTPExtender struct {
	url              string
	filterVerb       string
	prioritizeVerb   string
	preemptVerb      string
	bindVerb         string
	weight           int64
	nodeCacheCapable bool
	ignorable        bool
	managed          sets.Set[string]
	client           *http.Client

	// answers keeps every answer; replaying, when it returns true, makes
	// a request already answered take that answer without calling out.
	answers   *Answers
	replaying func() bool

	// mu guards calls: a fork proving hints in the background may share
	// the extender with the engine.
	mu    sync.Mutex
	calls []record.ExtenderCall
}

var _ framework.Extender = &HTTPExtender{}

// New builds an extender client as upstream's NewHTTPExtender.
func New(cfg configv1.Extender) (*HTTPExtender, error) {
	timeout := cfg.HTTPTimeout.Duration
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	transport, err := newTransport(cfg.TLSConfig, cfg.EnableHTTPS)
	if err != nil {
		return nil, err
	}
	managed := sets.New[string]()
	for _, r := range cfg.ManagedResources {
		managed.Insert(r.Name)
	}
	return &HTTPExtender{
		url: cfg.URLPrefix, filterVerb: cfg.FilterVerb, prioritizeVerb: cfg.PrioritizeVerb,
		preemptVerb: cfg.PreemptVerb, bindVerb: cfg.BindVerb, weight: cfg.Weight,
		nodeCacheCapable: cfg.NodeCacheCapable, ignorable: cfg.Ignorable, managed: managed,
		client: &http.Client{Transport: transport, Timeout: timeout},
	}, nil
}

// Build is upstream's buildExtenders: one client per configured extender,
// the ignorable ones moved to the end (order otherwise kept), and the
// extended resources the extenders manage with ignoredByScheduler, which
// replace NodeResourcesFit's ignoredResources in every profile.
func Build(cfgs []configv1.Extender) ([]*HTTPExtender, []string, error) {
	var required, ignorable []*HTTPExtender
	var ignored []string
	for i := range cfgs {
		e, err := New(cfgs[i])
		if err != nil {
			return nil, nil, fmt.Errorf("couldn't build extenders: extenders[%d] (%s): %w", i, cfgs[i].URLPrefix, err)
		}
		if e.ignorable {
			ignorable = append(ignorable, e)
		} else {
			required = append(required, e)
		}
		for _, r := range cfgs[i].ManagedResources {
			if r.IgnoredByScheduler {
				ignored = append(ignored, r.Name)
			}
		}
	}
	return append(required, ignorable...), ignored, nil
}

// UseAnswers makes the extender keep its answers in a and, whenever
// replaying returns true, answer a request it already answered from a.
func (h *HTTPExtender) UseAnswers(a *Answers, replaying func() bool) {
	h.answers, h.replaying = a, replaying
}

// Name is the URL prefix, as upstream names an extender.
func (h *HTTPExtender) Name() string { return h.url }

func (h *HTTPExtender) IsIgnorable() bool        { return h.ignorable }
func (h *HTTPExtender) IsFilter() bool           { return h.filterVerb != "" }
func (h *HTTPExtender) IsPrioritizer() bool      { return h.prioritizeVerb != "" }
func (h *HTTPExtender) IsBinder() bool           { return h.bindVerb != "" }
func (h *HTTPExtender) SupportsPreemption() bool { return h.preemptVerb != "" }

// IsInterested: no managed resources, or one of them requested or limited
// by a container or init container (pod-level resources, ephemeral
// containers and claims are not looked at, as upstream).
func (h *HTTPExtender) IsInterested(pod *v1.Pod) bool {
	if h.managed.Len() == 0 {
		return true
	}
	return h.managesAny(pod.Spec.Containers) || h.managesAny(pod.Spec.InitContainers)
}

func (h *HTTPExtender) managesAny(containers []v1.Container) bool {
	for i := range containers {
		for name := range containers[i].Resources.Requests {
			if h.managed.Has(string(name)) {
				return true
			}
		}
		for name := range containers[i].Resources.Limits {
			if h.managed.Has(string(name)) {
				return true
			}
		}
	}
	return false
}

// args is the filter and prioritize request: node names for a
// cache-capable extender, whole nodes otherwise.
func (h *HTTPExtender) args(pod *v1.Pod, nodes []*framework.NodeInfo) *extenderv1.ExtenderArgs {
	a := &extenderv1.ExtenderArgs{Pod: pod}
	if h.nodeCacheCapable {
		names := make([]string, 0, len(nodes))
		for _, n := range nodes {
			names = append(names, n.Name())
		}
		a.NodeNames = &names
		return a
	}
	a.Nodes = &v1.NodeList{}
	for _, n := range nodes {
		a.Nodes.Items = append(a.Nodes.Items, *n.Node())
	}
	return a
}

// Filter is upstream's HTTPExtender.Filter.
func (h *HTTPExtender) Filter(pod *v1.Pod, nodes []*framework.NodeInfo) ([]*framework.NodeInfo, extenderv1.FailedNodesMap, extenderv1.FailedNodesMap, error) {
	if h.filterVerb == "" {
		return nodes, extenderv1.FailedNodesMap{}, extenderv1.FailedNodesMap{}, nil
	}
	byName := make(map[string]*framework.NodeInfo, len(nodes))
	for _, n := range nodes {
		byName[n.Name()] = n
	}
	var result extenderv1.ExtenderFilterResult
	call := h.send(h.request(VerbFilter, pod, nodeNames(nodes)), h.filterVerb, h.args(pod, nodes), &result)
	err := call.err
	if err == nil && result.Error != "" {
		err = errors.New(result.Error)
	}
	var out []*framework.NodeInfo
	if err == nil {
		switch {
		case h.nodeCacheCapable && result.NodeNames != nil:
			out = make([]*framework.NodeInfo, len(*result.NodeNames))
			for i, name := range *result.NodeNames {
				n, ok := byName[name]
				if !ok {
					err = fmt.Errorf("extender %q claims a filtered node %q which is not found in the input node list", h.url, name)
					break
				}
				out[i] = n
			}
		case result.Nodes != nil:
			// Upstream makes a NodeInfo of each returned Node: no pods, no
			// image states; the Score plugins then score those.
			out = make([]*framework.NodeInfo, len(result.Nodes.Items))
			for i := range result.Nodes.Items {
				out[i] = framework.NewNodeInfo()
				out[i].SetNode(&result.Nodes.Items[i])
			}
		}
	}
	rc := call.record(err)
	if err == nil {
		rc.Failed, rc.FailedAndUnresolvable = result.FailedNodes, result.FailedAndUnresolvableNodes
		rc.Passed = make([]string, len(out))
		for i, n := range out {
			rc.Passed[i] = n.Name()
		}
	}
	h.keep(rc)
	if err != nil {
		return nil, nil, nil, err
	}
	return out, result.FailedNodes, result.FailedAndUnresolvableNodes, nil
}

// Prioritize is upstream's HTTPExtender.Prioritize: without a prioritize
// verb every node scores 0 with weight 0.
func (h *HTTPExtender) Prioritize(pod *v1.Pod, nodes []*framework.NodeInfo) (*extenderv1.HostPriorityList, int64, error) {
	if h.prioritizeVerb == "" {
		out := make(extenderv1.HostPriorityList, 0, len(nodes))
		for _, n := range nodes {
			out = append(out, extenderv1.HostPriority{Host: n.Name()})
		}
		return &out, 0, nil
	}
	var result extenderv1.HostPriorityList
	call := h.send(h.request(VerbPrioritize, pod, nodeNames(nodes)), h.prioritizeVerb, h.args(pod, nodes), &result)
	rc := call.record(call.err)
	if call.err == nil {
		rc.Weight = h.weight
		rc.Scores = make(map[string]int64, len(result))
		for _, hp := range result {
			rc.Scores[hp.Host] += hp.Score
		}
	}
	h.keep(rc)
	if call.err != nil {
		return nil, 0, call.err
	}
	return &result, h.weight, nil
}

// ProcessPreemption is upstream's: a cache-capable extender gets the
// victims' UIDs, another the whole pods; the answer (always UIDs) is
// resolved against the snapshot's nodes.
func (h *HTTPExtender) ProcessPreemption(pod *v1.Pod, victims map[string]*extenderv1.Victims, nodes *framework.Snapshot) (map[string]*extenderv1.Victims, error) {
	if h.preemptVerb == "" {
		return nil, fmt.Errorf("preempt verb is not defined for extender %v but run into ProcessPreemption", h.url)
	}
	args := &extenderv1.ExtenderPreemptionArgs{Pod: pod}
	if h.nodeCacheCapable {
		args.NodeNameToMetaVictims = metaVictims(victims)
	} else {
		args.NodeNameToVictims = victims
	}
	var result extenderv1.ExtenderPreemptionResult
	candidates := make([]string, 0, len(victims))
	for name := range victims {
		candidates = append(candidates, name)
	}
	call := h.send(h.request(VerbPreempt, pod, candidates), h.preemptVerb, args, &result)
	err := call.err
	var out map[string]*extenderv1.Victims
	if err == nil {
		out, err = h.resolveVictims(result.NodeNameToMetaVictims, nodes)
	}
	rc := call.record(err)
	if err == nil {
		for name := range out {
			rc.Passed = append(rc.Passed, name)
		}
		sort.Strings(rc.Passed)
	}
	h.keep(rc)
	return out, err
}

func metaVictims(victims map[string]*extenderv1.Victims) map[string]*extenderv1.MetaVictims {
	out := make(map[string]*extenderv1.MetaVictims, len(victims))
	for node, v := range victims {
		mv := &extenderv1.MetaVictims{Pods: []*extenderv1.MetaPod{}, NumPDBViolations: v.NumPDBViolations}
		for _, p := range v.Pods {
			mv.Pods = append(mv.Pods, &extenderv1.MetaPod{UID: string(p.UID)})
		}
		out[node] = mv
	}
	return out
}

func (h *HTTPExtender) resolveVictims(meta map[string]*extenderv1.MetaVictims, nodes *framework.Snapshot) (map[string]*extenderv1.Victims, error) {
	out := map[string]*extenderv1.Victims{}
	for name, mv := range meta {
		ni, err := nodes.Get(name)
		if err != nil {
			return nil, err
		}
		v := &extenderv1.Victims{Pods: []*v1.Pod{}}
		if mv != nil {
			v.NumPDBViolations = mv.NumPDBViolations
			for _, mp := range mv.Pods {
				p := podByUID(ni, mp)
				if p == nil {
					return nil, fmt.Errorf("extender: %v claims to preempt pod (UID: %v) on node: %v, but the pod is not found on that node", h.url, mp, name)
				}
				v.Pods = append(v.Pods, p)
			}
		}
		out[name] = v
	}
	return out, nil
}

func podByUID(ni *framework.NodeInfo, mp *extenderv1.MetaPod) *v1.Pod {
	if mp == nil {
		return nil
	}
	for _, pi := range ni.Pods {
		if string(pi.Pod.UID) == mp.UID {
			return pi.Pod
		}
	}
	return nil
}

// Bind is upstream's HTTPExtender.Bind.
func (h *HTTPExtender) Bind(b *v1.Binding) error {
	if h.bindVerb == "" {
		return errors.New("unexpected empty bindVerb in extender")
	}
	args := &extenderv1.ExtenderBindingArgs{PodName: b.Name, PodNamespace: b.Namespace, PodUID: b.UID, Node: b.Target.Name}
	var result extenderv1.ExtenderBindingResult
	call := h.send(Exchange{Extender: h.url, Verb: VerbBind, Pod: b.Namespace + "/" + b.Name, PodUID: string(b.UID), Nodes: []string{b.Target.Name}},
		h.bindVerb, args, &result)
	err := call.err
	if err == nil && result.Error != "" {
		err = errors.New(result.Error)
	}
	h.keep(call.record(err))
	return err
}

// TakeCalls returns the calls made since the last TakeCalls, in order.
func (h *HTTPExtender) TakeCalls() []record.ExtenderCall {
	h.mu.Lock()
	defer h.mu.Unlock()
	c := h.calls
	h.calls = nil
	return c
}

func (h *HTTPExtender) keep(c record.ExtenderCall) {
	h.mu.Lock()
	h.calls = append(h.calls, c)
	h.mu.Unlock()
}

// sent is one HTTP exchange, before its answer was interpreted.
type sent struct {
	h        *HTTPExtender
	verb     string
	nodes    int
	latency  time.Duration
	response []byte
	err      error
	replayed bool
}

func (c sent) record(err error) record.ExtenderCall {
	rc := record.ExtenderCall{
		Extender: c.h.url, Verb: c.verb, Nodes: c.nodes, Latency: c.latency,
		Ignorable: c.h.ignorable, Response: string(c.response), Replayed: c.replayed,
	}
	if err != nil {
		rc.Error = err.Error()
	}
	return rc
}

// request identifies a call for a recording (Exchange).
func (h *HTTPExtender) request(verb string, pod *v1.Pod, nodes []string) Exchange {
	return Exchange{Extender: h.url, Verb: verb, Pod: pod.Namespace + "/" + pod.Name, PodUID: string(pod.UID), Nodes: nodes}
}

func nodeNames(nodes []*framework.NodeInfo) []string {
	out := make([]string, len(nodes))
	for i, n := range nodes {
		out[i] = n.Name()
	}
	return out
}

// send is upstream's send: POST the JSON args to urlPrefix/verb, anything
// but 200 is an error, the answer is decoded with encoding/json. A request
// answered before is answered the same way again when replaying; a store
// preloaded from a recording answers every request, nothing is called.
func (h *HTTPExtender) send(x Exchange, action string, args, result any) sent {
	c := sent{h: h, verb: x.Verb, nodes: len(x.Nodes)}
	body, err := json.Marshal(args)
	if err != nil {
		c.err = err
		return c
	}
	url := strings.TrimRight(h.url, "/") + "/" + action
	key := answerKey{url: url, action: action, request: sha256.Sum256(body)}
	ans, ok := answer{}, false
	if h.answers != nil && h.replaying != nil && h.replaying() {
		ans, ok = h.answers.get(key)
		c.replayed = ok
	}
	if !ok {
		switch {
		case h.answers != nil && h.answers.Offline():
			ans = h.answers.fromRecording(&x)
			c.replayed = ans.err == "" || !strings.HasPrefix(ans.err, noRecordedAnswer)
		default:
			ans = h.post(url, body)
			if h.answers != nil {
				h.answers.exchanged(x, ans)
			}
		}
		if h.answers != nil {
			h.answers.put(key, ans)
		}
	}
	c.latency = ans.latency
	switch {
	case ans.err != "":
		c.err = errors.New(ans.err)
		return c
	case ans.status != http.StatusOK:
		c.err = fmt.Errorf("failed %v with extender at URL %v, code %v", action, url, ans.status)
		return c
	}
	c.response = ans.body
	if len(c.response) > maxKeptResponse {
		c.response = c.response[:maxKeptResponse]
	}
	c.err = json.NewDecoder(bytes.NewReader(ans.body)).Decode(result)
	return c
}

// post makes the HTTP call.
func (h *HTTPExtender) post(url string, body []byte) answer {
	start := time.Now()
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return answer{err: err.Error()}
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := h.client.Do(req)
	if err != nil {
		return answer{err: err.Error(), latency: time.Since(start)}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return answer{status: resp.StatusCode, latency: time.Since(start)}
	}
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return answer{err: err.Error(), latency: time.Since(start)}
	}
	return answer{status: resp.StatusCode, body: raw, latency: time.Since(start)}
}
