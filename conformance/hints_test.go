package conformance

import (
	"context"
	"flag"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	resourcehelper "k8s.io/component-helpers/resource"
	podutil "k8s.io/kubernetes/pkg/api/pod"
	"k8s.io/kubernetes/pkg/apis/core"
	corev1 "k8s.io/kubernetes/pkg/apis/core/v1"
	corevalidation "k8s.io/kubernetes/pkg/apis/core/validation"

	"github.com/schedtui/schedtui/conformance/upstream"
	"github.com/schedtui/schedtui/internal/scenario"
	"github.com/schedtui/schedtui/scheduler/engine"
	"github.com/schedtui/schedtui/scheduler/plugins"
	"github.com/schedtui/schedtui/scheduler/record"
	"github.com/schedtui/schedtui/scheduler/why"
	"github.com/schedtui/schedtui/snapshot"
)

var numShapeScenarios = flag.Int("shape-scenarios", 40, "generated scenarios whose pending pods have limits-only containers, restartable init containers, pod-level resources or overhead, and too large a request")

// TestHintsHoldUpstream checks schedtui's hints against the real
// scheduler. Each generated scenario runs in the queue engine to
// quiescence, as run and explain do; every pod whose last attempt failed
// gets its hints as explain computes them (scheduler/why on a fork of
// that attempt); each hint is applied to the cluster as it stood at the
// attempt's start (what snapshot --at writes: objects replace theirs,
// removed pods go), its objects as the API server stores them (the real
// defaulting, and validation on create: a pod's resources change only by
// recreating it), and upstream's PreFilter and Filter, nominated pods
// included, must then pass the pod on exactly the nodes of the hint's
// fitsOn: wherever upstream places it, it is on a node the hint names.
// The shape scenarios make request hints on the pods whose requests take
// upstream's arithmetic to count; every shape must get some.
func TestHintsHoldUpstream(t *testing.T) {
	var scenarios []*scenario.Scenario
	for i := int64(0); i < int64(*numScenarios); i++ {
		scenarios = append(scenarios, scenario.Generate(*firstSeed+i, scenario.Options{}))
	}
	for i := int64(0); i < int64(*numPreemption); i++ {
		scenarios = append(scenarios, scenario.Generate(*firstSeed+i, scenario.Options{Preemption: true}))
	}
	for i := int64(0); i < int64(*numShapeScenarios); i++ {
		scenarios = append(scenarios, scenario.Generate(*firstSeed+i, scenario.Options{ResourceShapes: true}))
	}
	begin := time.Now()
	var mu sync.Mutex
	var total hintCounts
	// The harness mostly waits for its informers: a few scenarios at a
	// time keep two cores busy.
	work := make(chan *scenario.Scenario)
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for s := range work {
				n := checkHints(t, s, func() int { mu.Lock(); defer mu.Unlock(); return total.bad })
				mu.Lock()
				total.add(n)
				mu.Unlock()
			}
		}()
	}
	for _, s := range scenarios {
		if *only == "" || s.Name == *only {
			work <- s
		}
	}
	close(work)
	wg.Wait()
	t.Logf("%d scenarios: %d failed attempts with hints, %d hints checked against upstream's Filter, %d did not hold (%v)",
		len(scenarios), total.attempts, total.checked, total.bad, time.Since(begin).Round(time.Second))
	for _, shape := range []string{scenario.ShapeLimitsOnly, scenario.ShapeSidecar, scenario.ShapePodLevel, scenario.ShapeOverhead} {
		t.Logf("request hints on pods with %s: %d checked, %d did not hold", shape, total.shapeChecked[shape], total.shapeBad[shape])
		if *only == "" && *numShapeScenarios >= 10 && total.shapeChecked[shape] == 0 && !t.Failed() {
			t.Errorf("no request hint on a pod with %s was checked", shape)
		}
	}
	if total.checked == 0 && !t.Failed() {
		t.Error("no hint was checked")
	}
}

// hintCounts: the failed attempts with hints, the hints checked and those
// that did not hold; request hints (hints whose pod requests other
// amounts) by the shapes of the pod (scenario.ShapesAnnotation).
type hintCounts struct {
	attempts, checked, bad int
	shapeChecked, shapeBad map[string]int
}

func (c *hintCounts) add(o hintCounts) {
	c.attempts, c.checked, c.bad = c.attempts+o.attempts, c.checked+o.checked, c.bad+o.bad
	for _, m := range []struct {
		to   *map[string]int
		from map[string]int
	}{{&c.shapeChecked, o.shapeChecked}, {&c.shapeBad, o.shapeBad}} {
		if *m.to == nil {
			*m.to = map[string]int{}
		}
		for k, v := range m.from {
			(*m.to)[k] += v
		}
	}
}

// checkHints checks the hints of one scenario's failed last attempts
// (reporting while fewer than -report did not hold, badSoFar says). It
// runs on its own goroutine: failures are Errorf, and end the scenario.
func checkHints(t *testing.T, s *scenario.Scenario, badSoFar func() int) (n hintCounts) {
	n.shapeChecked, n.shapeBad = map[string]int{}, map[string]int{}
	c := s.Cluster.DeepCopy()
	e, err := engine.New(c.Nodes, c.Pods, c.SchedulerObjects(), engine.Options{Registry: plugins.NewInTreeRegistry(), Seed: 1})
	if err != nil {
		t.Errorf("%s: %v", s.Name, err)
		return n
	}
	e.RunToQuiescence()
	for _, h := range e.Histories() {
		pa := h.Last()
		if pa == nil || (pa.Attempt.Outcome != record.Unschedulable && pa.Attempt.Outcome != record.Error) {
			continue
		}
		sched, pod, err := e.Fork(pa.Index)
		if err != nil {
			t.Errorf("%s %s: %v", s.Name, h.Pod, err)
			return n
		}
		res, err := why.Hints(why.Input{Attempt: pa.Attempt, Sched: sched, Pod: pod}, why.Options{})
		if err != nil {
			t.Errorf("%s %s: %v", s.Name, h.Pod, err)
			return n
		}
		if len(res.Hints) == 0 {
			continue
		}
		n.attempts++
		st, err := e.StateAt(pa.Index)
		if err != nil {
			t.Errorf("%s %s: %v", s.Name, h.Pod, err)
			return n
		}
		var shapes []string
		if a := pod.Annotations[scenario.ShapesAnnotation]; a != "" {
			shapes = strings.Split(a, ",")
		}
		for _, hint := range res.Hints {
			hc, stored, err := withHint(c.WithSchedulerState(st.Nodes, st.Pods, st.Objects), hint)
			if err != nil {
				t.Errorf("%s %s: hint %q: %v", s.Name, h.Pod, hint.Summary, err)
				return n
			}
			n.checked++
			requestHint := stored != nil && !equality.Semantic.DeepEqual(
				resourcehelper.PodRequests(stored, resourcehelper.PodResourcesOptions{}), resourcehelper.PodRequests(pod, resourcehelper.PodResourcesOptions{}))
			if requestHint {
				for _, shape := range shapes {
					n.shapeChecked[shape]++
				}
			}
			var problem string
			if stored != nil {
				rejected, err := newInvalid(stored, pod)
				if err != nil {
					t.Errorf("%s %s: hint %q: %v", s.Name, h.Pod, hint.Summary, err)
					return n
				}
				if rejected != "" {
					problem = "the API server rejects the hint's pod: " + rejected
				}
			}
			if problem == "" {
				feasible, err := upstream.Feasible(context.Background(), hc, nil, pod.Namespace, pod.Name)
				if err != nil {
					t.Errorf("%s %s: hint %q: %v", s.Name, h.Pod, hint.Summary, err)
					return n
				}
				// upstream.Feasible sorts; fitsOn is in the snapshot's order.
				if slices.Equal(feasible, slices.Sorted(slices.Values(hint.FitsOn))) {
					continue
				}
				problem = fmt.Sprintf("upstream's Filter passes it on %v", feasible)
			}
			n.bad++
			if requestHint {
				for _, shape := range shapes {
					n.shapeBad[shape]++
				}
			}
			if badSoFar()+n.bad <= *maxReportedBad {
				t.Errorf("%s %s attempt %d: hint %q says it fits on %v; %s (saved as %s)",
					s.Name, h.Pod, pa.N, hint.Summary, hint.FitsOn, problem, save(t, s))
			}
		}
	}
	return n
}

// withHint applies a hint to a cluster: its objects (Pods, Nodes), as
// the API server stores them (SetObjectDefaults_Pod, _Node), replace the
// objects of the same name, its removals delete pods. The cluster's node
// and pod lists are copied, not changed; the hint's pod as stored is
// returned.
func withHint(c *snapshot.Cluster, h why.Hint) (*snapshot.Cluster, *v1.Pod, error) {
	out := *c
	out.Nodes = slices.Clone(c.Nodes)
	out.Pods = slices.Clone(c.Pods)
	var stored *v1.Pod
	for _, o := range h.Objects {
		switch o := o.(type) {
		case *v1.Pod:
			i := slices.IndexFunc(out.Pods, func(p *v1.Pod) bool { return p.Namespace == o.Namespace && p.Name == o.Name })
			if i < 0 {
				return nil, nil, fmt.Errorf("no pod %s/%s to replace", o.Namespace, o.Name)
			}
			stored = o.DeepCopy()
			corev1.SetObjectDefaults_Pod(stored)
			out.Pods[i] = stored
		case *v1.Node:
			i := slices.IndexFunc(out.Nodes, func(n *v1.Node) bool { return n.Name == o.Name })
			if i < 0 {
				return nil, nil, fmt.Errorf("no node %s to replace", o.Name)
			}
			n := o.DeepCopy()
			corev1.SetObjectDefaults_Node(n)
			out.Nodes[i] = n
		default:
			return nil, nil, fmt.Errorf("hint object of type %T", o)
		}
	}
	for _, r := range h.Remove {
		i := slices.IndexFunc(out.Pods, func(p *v1.Pod) bool { return r.Kind == "Pod" && p.Namespace == r.Namespace && p.Name == r.Name })
		if i < 0 {
			return nil, nil, fmt.Errorf("no %s %s/%s to remove", r.Kind, r.Namespace, r.Name)
		}
		out.Pods = slices.Delete(out.Pods, i, i+1)
	}
	return &out, stored, nil
}

// newInvalid is what the API server's validation of hint, a pod created
// anew, finds that it does not find in was, the pod it replaces ("" when
// nothing).
func newInvalid(hint, was *v1.Pod) (string, error) {
	errs, err := validateCreate(hint)
	if err != nil {
		return "", err
	}
	old, err := validateCreate(was)
	if err != nil {
		return "", err
	}
	seen := map[string]bool{}
	for _, e := range old {
		seen[e.Error()] = true
	}
	var msgs []string
	for _, e := range errs {
		if !seen[e.Error()] {
			msgs = append(msgs, e.Error())
		}
	}
	return strings.Join(msgs, "; "), nil
}

func validateCreate(p *v1.Pod) ([]error, error) {
	var internal core.Pod
	if err := corev1.Convert_v1_Pod_To_core_Pod(p, &internal, nil); err != nil {
		return nil, fmt.Errorf("converting pod %s/%s: %w", p.Namespace, p.Name, err)
	}
	var out []error
	for _, e := range corevalidation.ValidatePodCreate(&internal, podutil.GetValidationOptionsFromPodSpecAndMeta(&internal.Spec, nil, &internal.ObjectMeta, nil)) {
		out = append(out, e)
	}
	return out, nil
}
