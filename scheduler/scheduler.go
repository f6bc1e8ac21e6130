// Package scheduler runs kube-scheduler v1.37's scheduling cycle over an
// in-memory cluster and records every attempt: the Filter verdict per node,
// the score matrix, the chosen node and each phase's status.
package scheduler

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/schedtui/schedtui/scheduler/apis/config"
	"github.com/schedtui/schedtui/scheduler/extender"
	"github.com/schedtui/schedtui/scheduler/features"
	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/framework/runtime"
	"github.com/schedtui/schedtui/scheduler/queue"
	"github.com/schedtui/schedtui/scheduler/record"
)

// Options configure a Scheduler.
type Options struct {
	// Config is a defaulted KubeSchedulerConfiguration; nil means defaults.
	Config *configv1.KubeSchedulerConfiguration
	// Registry holds the plugin factories (plugins.NewInTreeRegistry()).
	Registry runtime.Registry
	// Seed seeds the random source (preemption's candidate offset).
	Seed uint64
	// Clock is the (virtual) clock; nil means a fixed epoch.
	Clock func() time.Time
	// Features are the feature gates in effect; nil means v1.37's defaults.
	Features *features.Features
	// ExtenderAnswers keeps the extenders' answers (see
	// SetExtenderReplay); nil keeps them for this scheduler alone.
	ExtenderAnswers *ExtenderAnswers
	// RecomputeVerdicts turns the profiles' verdict memo off (runtime's
	// Options.RecomputeVerdicts).
	RecomputeVerdicts bool
}

// ExtenderAnswers is a store of extender answers, shared by an engine and
// its forks so that a replayed attempt gets the answers it got.
type ExtenderAnswers = extender.Answers

// ExtenderExchange is one extender call as a recording keeps it
// (ExtenderAnswers.Preload, ExtenderAnswers.OnExchange).
type ExtenderExchange = extender.Exchange

// NewExtenderAnswers is an empty store.
func NewExtenderAnswers() *ExtenderAnswers { return extender.NewAnswers() }

// Scheduler is the scheduling core over one cluster state.
type Scheduler struct {
	profiles  map[string]*runtime.Framework
	snapshot  *framework.Snapshot
	objects   *framework.ObjectStore
	nominator *queue.Nominator
	nodeList  *record.NodeList
	rand      *rand.Rand
	clock     func() time.Time

	nextStartNodeIndex int
	// percentageOfNodesToScore is the global setting (0: adaptive).
	percentageOfNodesToScore int32
	seq                      int
	// hooks are installed by the queue engine (hooks.go).
	hooks engineHooks
	// extenders are the configuration's extenders, ignorable ones last;
	// frameworkExtenders the same, as the plugins see them.
	extenders          []*extender.HTTPExtender
	frameworkExtenders []framework.Extender
	// gates are the feature gates in effect.
	gates features.Features
	// waiting are the parked binding cycles, by pod UID (binding_wait.go);
	// released those waiting at Permit that a gang's quorum allowed, not
	// yet handed to the engine (TakeReleasedBindings).
	waiting  map[types.UID]*waitingBinding
	released []types.UID
	// assumed are the pod-group members assumed and not bound yet, by UID
	// (podgroup_state.go).
	assumed map[string]*v1.Pod
	// groupSeq numbers pod-group cycles.
	groupSeq int
	// feasibleBuf holds a cycle's feasible nodes (findNodesThatPassFilters).
	feasibleBuf []*framework.NodeInfo
	// linesOnly records attempts without their per-node detail
	// (RecordLinesOnly).
	linesOnly bool
}

// RecordLinesOnly makes ScheduleOne record each attempt as its line alone
// (record.Attempt.Summarize), without the feasible nodes and the scores
// it would otherwise record only to drop: for a run that writes the line
// and nothing else. The decisions are the same.
func (s *Scheduler) RecordLinesOnly(on bool) { s.linesOnly = on }

// Epoch is the default virtual clock's start.
var Epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// New builds a scheduler over nodes (in the order they were added to the
// cluster), pods (bound ones are placed on their nodes) and the other
// objects plugins read.
func New(nodes []*v1.Node, pods []*v1.Pod, objects []any, opts Options) (*Scheduler, error) {
	s := &Scheduler{
		objects: framework.NewObjectStore(),
		rand:    rand.New(NewPCG(opts.Seed)),
		clock:   opts.Clock,
	}
	s.nominator = queue.NewNominator(s.objects)
	if s.clock == nil {
		s.clock = func() time.Time { return Epoch }
	}
	ordered := framework.NodeTreeOrder(nodes)
	names := make([]string, len(ordered))
	for i, n := range ordered {
		names[i] = n.Name
	}
	s.nodeList = record.NewNodeList(names)
	s.gates = features.Default()
	if opts.Features != nil {
		s.gates = *opts.Features
	}
	pods = ScheduledOrPending(pods)
	s.snapshot = framework.NewSnapshotWithGates(nodes, pods, framework.ResourceGatesOf(s.gates))
	s.objects.ReservePods(len(pods))
	for _, p := range pods {
		s.objects.Add(p)
		if p.Spec.NodeName == "" && p.Status.NominatedNodeName != "" {
			s.nominator.Add(framework.NewPodInfo(p), p.Status.NominatedNodeName)
		}
	}
	for _, o := range objects {
		s.objects.Add(o)
	}
	cfg := opts.Config
	if cfg == nil {
		cfg = &configv1.KubeSchedulerConfiguration{}
	}
	if cfg.PercentageOfNodesToScore != nil {
		s.percentageOfNodesToScore = *cfg.PercentageOfNodesToScore
	}
	exts, fexts, ignored, err := buildExtenders(cfg.Extenders)
	if err != nil {
		return nil, err
	}
	s.extenders, s.frameworkExtenders = exts, fexts
	answers := opts.ExtenderAnswers
	if answers == nil {
		answers = extender.NewAnswers()
	}
	for _, e := range exts {
		e.UseAnswers(answers, func() bool { return s.hooks.extenderReplay != nil && s.hooks.extenderReplay() })
	}
	profiles := cfg.Profiles
	if len(profiles) == 0 {
		name := v1.DefaultSchedulerName
		profiles = []configv1.KubeSchedulerProfile{{SchedulerName: &name}}
	}
	s.profiles = map[string]*runtime.Framework{}
	for i := range profiles {
		p := profiles[i]
		p.Plugins = config.MergePlugins(config.DefaultPlugins(s.gates), p.Plugins)
		name := v1.DefaultSchedulerName
		if p.SchedulerName != nil && *p.SchedulerName != "" {
			name = *p.SchedulerName
		}
		p.SchedulerName = &name
		ignoreExtendedResources(&p, ignored, s.gates)
		if _, dup := s.profiles[name]; dup {
			return nil, fmt.Errorf("duplicate profile with scheduler name %q", name)
		}
		f, err := runtime.NewFramework(opts.Registry, &p, runtime.Options{
			Snapshot:          func() *framework.Snapshot { return s.snapshot },
			Objects:           s.objects,
			Nominator:         s.nominator,
			Rand:              s.rand,
			Clock:             s.clock,
			Features:          s.gates,
			Extenders:         fexts,
			PodGroupStates:    s.PodGroupState,
			RecomputeVerdicts: opts.RecomputeVerdicts,
		})
		if err != nil {
			return nil, fmt.Errorf("profile %q: %w", name, err)
		}
		s.profiles[name] = f
	}
	return s, nil
}

// Features are the feature gates in effect.
func (s *Scheduler) Features() features.Features { return s.gates }

// Profile returns the framework of a scheduler name.
func (s *Scheduler) Profile(name string) *runtime.Framework { return s.profiles[name] }

// Snapshot is the current cluster state as the cycle sees it.
func (s *Scheduler) Snapshot() *framework.Snapshot { return s.snapshot }

// Objects is the object store.
func (s *Scheduler) Objects() *framework.ObjectStore { return s.objects }

// Nominator holds the nominations.
func (s *Scheduler) Nominator() *queue.Nominator { return s.nominator }

// Nodes is the node list in node-tree order.
func (s *Scheduler) Nodes() *record.NodeList { return s.nodeList }

// ProfileNames lists the profiles' scheduler names, sorted.
func (s *Scheduler) ProfileNames() []string {
	out := make([]string, 0, len(s.profiles))
	for name := range s.profiles {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// Profiles returns the frameworks by scheduler name.
func (s *Scheduler) Profiles() map[string]*runtime.Framework { return s.profiles }

// PendingPods returns the pods without a node whose schedulerName names a
// profile, in queue order for a freshly started scheduler: PrioritySort
// (priority, then creation time), file order breaking remaining ties.
func (s *Scheduler) PendingPods(pods []*v1.Pod) []*v1.Pod {
	var out []*v1.Pod
	for _, p := range ScheduledOrPending(pods) {
		if p.Spec.NodeName == "" && s.profiles[p.Spec.SchedulerName] != nil {
			out = append(out, p)
		}
	}
	sortQueueOrder(out)
	return out
}

func (s *Scheduler) ctx() context.Context { return context.Background() }

// PreEnqueue runs the pod's profile's PreEnqueue plugins, as the queue does
// before a pod may enter activeQ; a non-success status means it is gated.
func (s *Scheduler) PreEnqueue(pod *v1.Pod) *framework.Status {
	fwk := s.profiles[pod.Spec.SchedulerName]
	if fwk == nil {
		return nil
	}
	return fwk.RunPreEnqueuePlugins(s.ctx(), pod, "")
}

// ScheduledOrPending drops pods in phase Succeeded or Failed: the
// scheduler's pod informer never sees them (its field selector excludes
// both), so they hold no resources and are never scheduled.
func ScheduledOrPending(pods []*v1.Pod) []*v1.Pod {
	out := pods[:0:0]
	for _, p := range pods {
		if p.Status.Phase != v1.PodSucceeded && p.Status.Phase != v1.PodFailed {
			out = append(out, p)
		}
	}
	return out
}
