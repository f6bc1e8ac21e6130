package tui

import (
	"sort"

	"charm.land/bubbles/v2/help"
	tea "charm.land/bubbletea/v2"
	v1 "k8s.io/api/core/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"

	"github.com/schedtui/schedtui/scheduler"
	"github.com/schedtui/schedtui/scheduler/engine"
	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/record"
)

// component is the contract every view keeps (soft-serve's): it renders
// exactly its rectangle, takes its size from the root, and lists its keys
// for the help. Components are pointers updated in place: they hold
// caches (formatted rows, sort orders) too large to copy per message.
type component interface {
	help.KeyMap
	Init() tea.Cmd
	Update(msg tea.Msg) tea.Cmd
	View() string
	SetSize(w, h int)
	// Refresh recomputes what the view derives from Common's data; the
	// root calls it when the world, the focus or a result changed.
	Refresh()
	// Explain is the teaching pane's text for the selection.
	Explain() (title string, body []string)
	// Click selects what is at (x, y) inside the view's rectangle.
	Click(x, y int) tea.Cmd
	// SetFilter applies the `/` search text.
	SetFilter(q string)
}

// Common is shared by the root and every component: styles, keys and the
// state they all read. Only the root writes it, in Update.
type Common struct {
	St   *Styles
	Keys *KeyMap
	// World is the engine's state after the last operation.
	World *world
	// Focus indexes World.attempts: the attempt the views show. It follows
	// the cursor unless the user opened an older attempt.
	Focus int
	// Forks caches, per attempt, the cluster as the attempt saw it.
	Forks map[int]*forkResult
	// Diags caches the full diagnosis per attempt.
	Diags map[int]*diagResult
	// Jump asks the root to switch views (set by components, consumed by
	// the root after Update).
	Jump *jump
}

type jump struct {
	view viewID
	node string
}

// focused is the attempt in focus, or nil.
func (c *Common) focused() *record.Attempt {
	if c.World == nil || c.Focus < 0 || c.Focus >= len(c.World.attempts) {
		return nil
	}
	return c.World.attempts[c.Focus]
}

// revealed reports whether phase p of the focused attempt may be shown:
// when stepping by phase, later phases stay hidden until stepped to.
func (c *Common) revealed(p record.Phase) bool {
	a := c.focused()
	if a == nil || c.Focus != c.World.cursor.Attempt {
		return true
	}
	// Fully revealed: phases the attempt never reached show as not run.
	return c.World.cursor.Phase >= p || c.World.cursor.Phase >= engine.LastPhase(a)
}

// fork is the focused attempt's fork, or nil while it is computed.
func (c *Common) fork() *forkResult {
	if f := c.Forks[c.Focus]; f != nil && f.err == nil {
		return f
	}
	return nil
}

// world is the engine's state captured under the backend lock right after
// an operation, so that views read it while the next Cmd runs.
type world struct {
	attempts []*record.Attempt
	cursor   engine.Cursor
	queue    engine.QueueSnapshot
	events   []engine.Event
	nodes    []nodeView
	nodeIdx  map[string]int
	// nominated lists, per node, the pods nominated to it.
	nominated map[string][]nominee
	// filterPlugins is each profile's Filter plugins, in run order.
	filterPlugins map[string][]string
	// pods holds the objects of attempted and queued pods.
	pods map[string]*v1.Pod
	// done: the engine has nothing left to do.
	done bool
}

type nodeView struct {
	node        *v1.Node
	allocatable framework.Resource
	requested   framework.Resource
	pods        []*v1.Pod
}

type nominee struct {
	pod      string
	priority int32
	obj      *v1.Pod // set when read from a fork
}

// capture reads the backend's state. It must run under the backend lock.
func capture(b *Backend) *world {
	w := &world{
		attempts:      append([]*record.Attempt(nil), b.Attempts()...),
		cursor:        b.Cursor(),
		queue:         b.Queue(),
		events:        append([]engine.Event(nil), b.Timeline()...),
		nodeIdx:       map[string]int{},
		nominated:     map[string][]nominee{},
		filterPlugins: map[string][]string{},
		pods:          map[string]*v1.Pod{},
	}
	s := b.State()
	for i, ni := range s.Snapshot().List() {
		nv := nodeView{node: ni.Node(), allocatable: copyResource(ni.Allocatable), requested: copyResource(ni.Requested)}
		nv.pods = make([]*v1.Pod, len(ni.Pods))
		for j, pi := range ni.Pods {
			nv.pods[j] = pi.Pod
		}
		w.nodes = append(w.nodes, nv)
		w.nodeIdx[ni.Name()] = i
	}
	nom := s.Nominator()
	for _, n := range nom.Nodes() {
		for _, pi := range nom.NominatedPodsForNode(n) {
			w.nominated[n] = append(w.nominated[n], nominee{pod: pi.Pod.Namespace + "/" + pi.Pod.Name, priority: corev1helpers.PodPriority(pi.Pod)})
		}
	}
	addPod := func(key string) {
		if _, ok := w.pods[key]; !ok {
			if p := b.Pod(key); p != nil {
				w.pods[key] = p
			}
		}
	}
	for _, a := range w.attempts {
		addPod(a.Pod)
		if w.filterPlugins[a.Profile] == nil {
			if f := s.Profile(a.Profile); f != nil {
				w.filterPlugins[a.Profile] = f.FilterPluginNames()
			}
		}
	}
	for _, list := range [][]engine.QueuedPod{w.queue.ActiveQ, w.queue.BackoffQ, w.queue.Unschedulable, w.queue.Gated} {
		for _, q := range list {
			addPod(q.Pod)
		}
	}
	return w
}

func copyResource(r *framework.Resource) framework.Resource {
	if r == nil {
		return framework.Resource{}
	}
	c := *r
	if r.ScalarResources != nil {
		c.ScalarResources = make(map[v1.ResourceName]int64, len(r.ScalarResources))
		for k, v := range r.ScalarResources {
			c.ScalarResources[k] = v
		}
	}
	return c
}

// forkResult is the cluster as one attempt saw it.
type forkResult struct {
	sched *scheduler.Scheduler
	pod   *v1.Pod
	err   error
}

// nodeInfo returns a node's NodeInfo in the fork.
func (f *forkResult) nodeInfo(name string) *framework.NodeInfo {
	if f == nil {
		return nil
	}
	ni, err := f.sched.Snapshot().Get(name)
	if err != nil {
		return nil
	}
	return ni
}

type diagResult struct {
	d   *record.FullDiagnosis
	err error
}

// sortedKeys returns a map's keys sorted.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
