// Package extendertest is a real scheduler extender for tests: an HTTP
// server speaking the k8s.io/kube-scheduler/extender/v1 wire format, whose
// answers follow node labels, in either nodeCacheCapable mode. It records
// every call it gets.
//
// Rules, for a server with label prefix P (default "extender.test"):
//   - filter: a node labelled P/filter=fail is rejected with FailMessage,
//     =unresolvable with UnresolvableMessage as unresolvable, =both is in
//     both maps; every other node passes.
//   - prioritize: a node scores the integer of its label P/score (0 without).
//   - preempt: every candidate is kept with the victims it came with, except
//     a node labelled P/preempt=deny (left out) and P/preempt=novictims
//     (answered with no victims).
//   - bind: recorded; answers BindError.
package extendertest

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"
)

// Call is one request the server answered.
type Call struct {
	Verb string
	Pod  string
	// Nodes are the node names sent (candidates' nodes for preempt), in
	// the order sent.
	Nodes []string
	// NodeNames reports that names were sent rather than whole nodes
	// (filter, prioritize) or UIDs rather than pods (preempt).
	NodeNames bool
}

// Server is a running test extender.
type Server struct {
	// Prefix is the label prefix of the rules.
	Prefix              string
	FailMessage         string
	UnresolvableMessage string
	BindError           string
	// Status, when not 0 or 200, is the HTTP status of every answer.
	Status int
	// Delay is waited before every answer (to exceed httpTimeout).
	Delay time.Duration

	srv   *httptest.Server
	mu    sync.Mutex
	nodes map[string]*v1.Node
	calls []Call
}

// Start runs a server on the loopback interface; cached are the nodes a
// nodeCacheCapable extender knows by name (SetNodes replaces them).
func Start(cached []*v1.Node) *Server {
	s := &Server{Prefix: "extender.test", FailMessage: "rejected by the test extender", UnresolvableMessage: "unresolvable for the test extender"}
	s.SetNodes(cached)
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// URL is the server's URL prefix (http://127.0.0.1:PORT).
func (s *Server) URL() string { return s.srv.URL }

// Close stops the server.
func (s *Server) Close() { s.srv.Close() }

// SetNodes replaces the nodes known by name.
func (s *Server) SetNodes(nodes []*v1.Node) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nodes = map[string]*v1.Node{}
	for _, n := range nodes {
		s.nodes[n.Name] = n
	}
}

// Calls returns the calls answered so far.
func (s *Server) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Call(nil), s.calls...)
}

// UnreachableURL is an http URL on the loopback interface where nothing
// listens (a port that was just closed).
func UnreachableURL() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		return "", err
	}
	return "http://" + addr, nil
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if s.Delay > 0 {
		time.Sleep(s.Delay)
	}
	if s.Status != 0 && s.Status != http.StatusOK {
		http.Error(w, "test extender: configured failure", s.Status)
		return
	}
	verb := strings.TrimPrefix(r.URL.Path, "/")
	var answer any
	var err error
	switch verb {
	case "filter", "prioritize":
		var args extenderv1.ExtenderArgs
		if err = json.NewDecoder(r.Body).Decode(&args); err == nil {
			answer = s.filterOrPrioritize(verb, &args)
		}
	case "preempt":
		var args extenderv1.ExtenderPreemptionArgs
		if err = json.NewDecoder(r.Body).Decode(&args); err == nil {
			answer = s.preempt(&args)
		}
	case "bind":
		var args extenderv1.ExtenderBindingArgs
		if err = json.NewDecoder(r.Body).Decode(&args); err == nil {
			s.record(Call{Verb: verb, Pod: args.PodNamespace + "/" + args.PodName, Nodes: []string{args.Node}})
			answer = extenderv1.ExtenderBindingResult{Error: s.BindError}
		}
	default:
		http.NotFound(w, r)
		return
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(answer)
}

func (s *Server) record(c Call) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, c)
}

func podName(p *v1.Pod) string {
	if p == nil {
		return ""
	}
	return p.Namespace + "/" + p.Name
}

// sentNodes are the nodes of a filter or prioritize request, with labels
// from the cache when only names came.
func (s *Server) sentNodes(args *extenderv1.ExtenderArgs) ([]*v1.Node, bool) {
	var out []*v1.Node
	if args.NodeNames != nil {
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, name := range *args.NodeNames {
			n := s.nodes[name]
			if n == nil {
				n = &v1.Node{}
				n.Name = name
			}
			out = append(out, n)
		}
		return out, true
	}
	if args.Nodes != nil {
		for i := range args.Nodes.Items {
			out = append(out, &args.Nodes.Items[i])
		}
	}
	return out, false
}

func (s *Server) filterOrPrioritize(verb string, args *extenderv1.ExtenderArgs) any {
	nodes, byName := s.sentNodes(args)
	c := Call{Verb: verb, Pod: podName(args.Pod), NodeNames: byName}
	for _, n := range nodes {
		c.Nodes = append(c.Nodes, n.Name)
	}
	s.record(c)
	if verb == "prioritize" {
		out := extenderv1.HostPriorityList{}
		for _, n := range nodes {
			score, _ := strconv.ParseInt(n.Labels[s.Prefix+"/score"], 10, 64)
			out = append(out, extenderv1.HostPriority{Host: n.Name, Score: score})
		}
		return out
	}
	res := extenderv1.ExtenderFilterResult{FailedNodes: extenderv1.FailedNodesMap{}, FailedAndUnresolvableNodes: extenderv1.FailedNodesMap{}}
	var kept []string
	var keptNodes []v1.Node
	for _, n := range nodes {
		switch n.Labels[s.Prefix+"/filter"] {
		case "fail":
			res.FailedNodes[n.Name] = s.FailMessage
		case "unresolvable":
			res.FailedAndUnresolvableNodes[n.Name] = s.UnresolvableMessage
		case "both":
			res.FailedNodes[n.Name] = s.FailMessage
			res.FailedAndUnresolvableNodes[n.Name] = s.UnresolvableMessage
		default:
			kept = append(kept, n.Name)
			keptNodes = append(keptNodes, *n)
		}
	}
	if byName {
		if kept == nil {
			kept = []string{}
		}
		res.NodeNames = &kept
	} else {
		res.Nodes = &v1.NodeList{Items: keptNodes}
		if res.Nodes.Items == nil {
			res.Nodes.Items = []v1.Node{}
		}
	}
	return res
}

func (s *Server) preempt(args *extenderv1.ExtenderPreemptionArgs) any {
	byName := args.NodeNameToMetaVictims != nil
	meta := args.NodeNameToMetaVictims
	if !byName {
		meta = map[string]*extenderv1.MetaVictims{}
		for node, v := range args.NodeNameToVictims {
			mv := &extenderv1.MetaVictims{Pods: []*extenderv1.MetaPod{}, NumPDBViolations: v.NumPDBViolations}
			for _, p := range v.Pods {
				mv.Pods = append(mv.Pods, &extenderv1.MetaPod{UID: string(p.UID)})
			}
			meta[node] = mv
		}
	}
	c := Call{Verb: "preempt", Pod: podName(args.Pod), NodeNames: byName}
	for node := range meta {
		c.Nodes = append(c.Nodes, node)
	}
	sort.Strings(c.Nodes)
	s.record(c)
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]*extenderv1.MetaVictims{}
	for node, mv := range meta {
		var rule string
		if n := s.nodes[node]; n != nil {
			rule = n.Labels[s.Prefix+"/preempt"]
		}
		switch rule {
		case "deny":
		case "novictims":
			out[node] = &extenderv1.MetaVictims{Pods: []*extenderv1.MetaPod{}}
		default:
			out[node] = mv
		}
	}
	return extenderv1.ExtenderPreemptionResult{NodeNameToMetaVictims: out}
}

// String names the server in test output.
func (s *Server) String() string { return fmt.Sprintf("test extender at %s", s.URL()) }
