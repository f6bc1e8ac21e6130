package live

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/schedtui/schedtui/internal/docread"
	"github.com/schedtui/schedtui/scheduler/change"
	"github.com/schedtui/schedtui/snapshot"
)

// Status is what a Source reports as it goes: the initial sync's progress,
// then every change it saw.
type Status struct {
	// Connected: the server answered.
	Connected bool
	// Synced of Total kinds have been listed (Total is known once the
	// kinds the user may list are known).
	Synced, Total int
	// Objects counts the objects listed in the initial sync, then the
	// changes seen.
	Objects int
	// Message says what happened: "listed 12 Nodes", "PodAdd default/web-3".
	Message string
	// Warning marks a message about something left out (a kind the user
	// may not list, a change the engine refused).
	Warning bool
	Err     error
}

func (s Status) String() string {
	switch {
	case s.Err != nil && s.Message != "":
		return s.Message + ": " + s.Err.Error()
	case s.Err != nil:
		return s.Err.Error()
	case s.Warning:
		return "warning: " + s.Message
	}
	return s.Message
}

// Source is a read-only view of a live cluster: Sync lists every kind the
// scheduler reads into a snapshot.Cluster, Watch then delivers their
// changes as change.Changes.
type Source struct {
	name     string
	client   kubernetes.Interface
	onStatus func(Status)

	factory informers.SharedInformerFactory
	stop    chan struct{}
	stopped sync.Once

	active    []*kind
	informers map[*kind]cache.SharedIndexInformer
	regs      map[*kind]cache.ResourceEventHandlerRegistration
	skipped   []docread.Problem

	q queue

	mu     sync.Mutex // guards status, lastErr
	status Status
	// lastErr per kind: the last list/watch error, for a sync that hangs.
	lastErr map[string]error

	// known is the state delivered so far, per kind: key → object (as the
	// informer holds it: those of the initial sync are the cluster's own,
	// the later ones the engine's, which nothing changes).
	known map[*kind]map[string]runtime.Object
	// ahead, until the initial sync's cluster is loaded, checks each
	// object as its informer receives it; changes prepares the objects
	// received after that (see transform).
	ahead   atomic.Pointer[snapshot.AheadChecker]
	changes atomic.Pointer[snapshot.ChangePreparer]

	serverVersion string
	// settings are the scheduler's defaults the cluster shows, known
	// after Sync.
	settings snapshot.SchedulerSettings
	// gates are the scheduler's feature gates that are on, of those
	// under which it reads an opt-in kind (SetSchedulerGates).
	gates map[string]bool
	// servedResources are the resources discovery showed, per group
	// version asked (the opt-in kinds').
	servedResources map[string]map[string]bool
}

// NewSource returns a source over client; name labels it (the context)
// and onStatus, when non-nil, receives every status, from the goroutine
// calling Sync or Watch.
func NewSource(name string, client kubernetes.Interface, onStatus func(Status)) *Source {
	return &Source{
		name: name, client: client, onStatus: onStatus,
		stop: make(chan struct{}), regs: map[*kind]cache.ResourceEventHandlerRegistration{},
		informers: map[*kind]cache.SharedIndexInformer{},
		lastErr:   map[string]error{}, known: map[*kind]map[string]runtime.Object{},
		q: queue{signal: make(chan struct{}, 1), now: change.WallClock{}.Now},
	}
}

// SetClock sets the clock that stamps each change with the time it
// arrived (change.Change.At; the wall clock by default). Call it before
// Sync.
func (s *Source) SetClock(c change.Clock) { s.q.now = c.Now }

// SetSchedulerGates tells the source which of the feature gates under
// which the scheduler reads an opt-in kind are on (GenericWorkload for
// Workloads and PodGroups, CompositePodGroup for CompositePodGroups):
// such a kind that the server does not serve is then missed with a
// warning naming the API server's flag that serves it; with its gate off
// it is left out quietly. Call it before Sync.
func (s *Source) SetSchedulerGates(on map[string]bool) { s.gates = on }

// Name is the source's label (the kubeconfig context).
func (s *Source) Name() string { return s.name }

// ServerVersion is the API server's version (GitVersion), known after Sync.
func (s *Source) ServerVersion() string { return s.serverVersion }

// SchedulerSettings are the defaults for the scheduler's version and
// gates that the cluster shows (snapshot.DetectSchedulerSettings): its
// kube-scheduler pod's flags when visible, else the API server's version.
// Known after Sync.
func (s *Source) SchedulerSettings() snapshot.SchedulerSettings { return s.settings }

// Stop stops the informers. Sync and Watch return soon after.
func (s *Source) Stop() {
	s.stopped.Do(func() {
		close(s.stop)
		if s.factory != nil {
			s.factory.Shutdown()
		}
	})
}

func (s *Source) report(f func(*Status)) {
	s.mu.Lock()
	st := s.status
	st.Message, st.Warning, st.Err = "", false, nil
	f(&st)
	s.status = st
	s.mu.Unlock()
	if s.onStatus != nil {
		s.onStatus(st)
	}
}

// origin is the name objects of this source carry in problems.
func (s *Source) origin() string { return "context " + s.name }

// Sync connects, lists every kind the scheduler reads and waits until the
// informers hold them, reporting progress; it returns them as a Cluster,
// loaded like a snapshot (validation, the built-in priority classes). A
// kind the user may not list (403) or the server does not serve (404) is
// left out with a warning in the Report, except Nodes and Pods, which are
// required. The informers keep running for Watch until Stop.
func (s *Source) Sync(ctx context.Context) (*snapshot.Cluster, *docread.Report, error) {
	v, err := s.client.Discovery().ServerVersion()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: cannot reach the API server: %w", s.origin(), err)
	}
	s.serverVersion = v.GitVersion
	s.report(func(st *Status) {
		st.Connected, st.Total = true, len(kinds)
		st.Message = fmt.Sprintf("connected to %s (server %s)", s.name, v.GitVersion)
	})

	if err := s.probe(ctx); err != nil {
		return nil, nil, err
	}
	l := snapshot.NewLoader()
	s.ahead.Store(l.CheckAhead())
	s.factory = informers.NewSharedInformerFactory(s.client, 0)
	for _, k := range s.active {
		inf, err := k.informer(s.factory)
		if err == nil {
			err = inf.SetTransform(s.transform(k))
		}
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %s informer: %w", s.origin(), k.gvr.Resource, err)
		}
		s.informers[k] = inf
		_ = inf.SetWatchErrorHandler(func(_ *cache.Reflector, err error) {
			s.mu.Lock()
			s.lastErr[k.name] = err
			s.mu.Unlock()
			s.report(func(st *Status) {
				st.Warning, st.Err = true, err
				st.Message = fmt.Sprintf("list/watch %s", k.gvr.Resource)
			})
		})
		reg, err := inf.AddEventHandler(s.q.handler(k))
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %s informer: %w", s.origin(), k.gvr.Resource, err)
		}
		s.regs[k] = reg
	}
	s.factory.Start(s.stop)
	if err := s.waitForSync(ctx); err != nil {
		s.Stop()
		return nil, nil, err
	}
	for _, ev := range s.q.drain() {
		s.remember(ev)
	}
	c, r := s.cluster(l)
	s.settings = snapshot.DetectSchedulerSettings(c, s.serverVersion, snapshot.FromLiveServer)
	return c, r, nil
}

// probe lists at most one object of every kind: a forbidden or missing
// optional kind is skipped with a warning. An opt-in kind whose group
// version discovery does not show is skipped before it is listed (see
// notServed).
func (s *Source) probe(ctx context.Context) error {
	s.active = s.active[:0]
	served := map[string]bool{}
	var unserved []*kind
	for _, k := range kinds {
		if k.optIn {
			ok, err := s.served(k, served)
			if err != nil {
				return err
			}
			if !ok {
				unserved = append(unserved, k)
				continue
			}
		}
		err := k.probe(ctx, s.client, metav1.ListOptions{Limit: 1})
		switch {
		case err == nil:
			s.active = append(s.active, k)
			continue
		case ctx.Err() != nil:
			return ctx.Err()
		case apierrors.IsForbidden(err), apierrors.IsNotFound(err), apierrors.IsMethodNotSupported(err):
		default:
			return fmt.Errorf("%s: listing %s: %w", s.origin(), k.gvr.Resource, err)
		}
		why := "the server does not serve them"
		if apierrors.IsForbidden(err) {
			why = "forbidden (403): the user may not list them"
		}
		if k.required {
			return fmt.Errorf("%s: cannot list %s, which the scheduler needs: %s: %w", s.origin(), k.gvr.Resource, why, err)
		}
		msg := fmt.Sprintf("%s are left out: %s; plugins that read them see none", k.gvr.Resource, why)
		s.skipped = append(s.skipped, docread.Problem{Severity: docread.Warning, File: s.origin(), Object: k.name, Message: msg})
		s.report(func(st *Status) { st.Warning, st.Message = true, msg; st.Synced++ })
	}
	s.notServed(unserved)
	return nil
}

// served says whether discovery shows k's resource in its group version
// (known remembers each group version's answer). Not found is an answer;
// any other error fails the sync, as a failed list does.
func (s *Source) served(k *kind, known map[string]bool) (bool, error) {
	gv := k.gvr.GroupVersion().String()
	if ok, asked := known[gv]; asked {
		return ok && s.servedResources[gv][k.gvr.Resource], nil
	}
	list, err := s.client.Discovery().ServerResourcesForGroupVersion(gv)
	switch {
	case apierrors.IsNotFound(err):
		known[gv] = false
		return false, nil
	case err != nil:
		return false, fmt.Errorf("%s: discovering %s: %w", s.origin(), gv, err)
	}
	known[gv] = true
	if s.servedResources == nil {
		s.servedResources = map[string]map[string]bool{}
	}
	s.servedResources[gv] = map[string]bool{}
	for _, r := range list.APIResources {
		s.servedResources[gv][r.Name] = true
	}
	return s.servedResources[gv][k.gvr.Resource], nil
}

// notServed reports the opt-in kinds the server does not serve, a line
// per group version: a warning naming the API server's flag that serves
// them when a gate the scheduler reads them under is on, else a note
// that they are not needed.
func (s *Source) notServed(unserved []*kind) {
	var order []string
	byGV := map[string][]*kind{}
	for _, k := range unserved {
		gv := k.gvr.GroupVersion().String()
		if byGV[gv] == nil {
			order = append(order, gv)
		}
		byGV[gv] = append(byGV[gv], k)
	}
	for _, gv := range order {
		ks := byGV[gv]
		var resources, names, needed, gates []string
		for _, k := range ks {
			resources = append(resources, k.gvr.Resource)
			names = append(names, k.name)
			if s.gates[k.gate] {
				needed = append(needed, k.gate)
			} else if !slices.Contains(gates, k.gate) {
				gates = append(gates, k.gate)
			}
		}
		what := strings.Join(resources, " and ")
		if len(needed) == 0 {
			msg := fmt.Sprintf("%s is not served: %s are left out (not needed with %s off)", gv, what, strings.Join(gates, " and "))
			s.report(func(st *Status) { st.Message = msg; st.Synced += len(ks) })
			continue
		}
		msg := fmt.Sprintf("%s is not served: %s are left out, which the scheduler reads with %s on (an API server serves them with --runtime-config=%s=true)",
			gv, what, strings.Join(slices.Compact(needed), " and "), gv)
		s.skipped = append(s.skipped, docread.Problem{Severity: docread.Warning, File: s.origin(), Object: strings.Join(names, ", "), Message: msg})
		s.report(func(st *Status) { st.Warning, st.Message = true, msg; st.Synced += len(ks) })
	}
}

func (s *Source) waitForSync(ctx context.Context) error {
	done := map[*kind]bool{}
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		for _, k := range s.active {
			if done[k] || !s.regs[k].HasSynced() {
				continue
			}
			done[k] = true
			n := len(s.informers[k].GetStore().ListKeys())
			s.report(func(st *Status) {
				st.Synced++
				st.Objects += n
				st.Message = fmt.Sprintf("listed %d %s", n, k.gvr.Resource)
			})
		}
		if len(done) == len(s.active) {
			return nil
		}
		select {
		case <-ctx.Done():
			var missing []string
			s.mu.Lock()
			for _, k := range s.active {
				if !done[k] {
					m := k.gvr.Resource
					if err := s.lastErr[k.name]; err != nil {
						m += " (" + err.Error() + ")"
					}
					missing = append(missing, m)
				}
			}
			s.mu.Unlock()
			return fmt.Errorf("%s: initial sync did not finish: %w; still listing: %s", s.origin(), ctx.Err(), strings.Join(missing, ", "))
		case <-s.stop:
			return errors.New(s.origin() + ": stopped during the initial sync")
		case <-tick.C:
		}
	}
}

// transform is kind k's informer's: what it stores of each object it
// receives, before anything else reads it (client-go calls it on each
// object the server sends, never on one its store holds). Until the
// initial sync's cluster is loaded, the loader's first step runs on it
// (defaults, validation, parts shared with the objects before it): the
// cluster then keeps the object the informer holds, not a copy, and the
// informer holds it small from the start. An object received after that
// is prepared alike (defaults, the parts it did not change shared with
// the object it replaces: snapshot.ChangePreparer) and reaches the engine
// as the informer holds it (changeOf).
func (s *Source) transform(k *kind) cache.TransformFunc {
	return func(obj any) (any, error) {
		if k.withoutManagedFields {
			dropManagedFields(obj)
		}
		o := asObject(obj)
		if o == nil {
			return obj, nil
		}
		if a := s.ahead.Load(); a != nil {
			a.Check(o)
		} else if p := s.changes.Load(); p != nil {
			p.Prepare(o, s.stored(k, o))
		}
		return obj, nil
	}
}

// stored is the object kind k's informer holds under obj's key (nil when
// none): the one obj replaces.
func (s *Source) stored(k *kind, obj runtime.Object) runtime.Object {
	key, err := cache.MetaNamespaceKeyFunc(obj)
	if err != nil {
		return nil
	}
	held, ok, _ := s.informers[k].GetStore().GetByKey(key)
	if !ok {
		return nil
	}
	return asObject(held)
}

func asObject(obj any) runtime.Object {
	o, _ := obj.(runtime.Object)
	return o
}

// cluster loads the known objects into a snapshot.Cluster with l, whose
// AheadChecker checked them as they were received, in the API server's
// list order (by namespace and name). The cluster keeps the informers'
// objects: its loader changes none of them but by what Finish's admission
// does to any snapshot's objects (for objects an API server stored, what
// that server did already), and nothing changes a loaded object after
// that (the engine, the what-ifs and the writers change copies; see
// snapshot/share.go); nor one a later change carries (changeOf), which
// TestSyncSharesInformerObjects checks.
func (s *Source) cluster(l *snapshot.Loader) (*snapshot.Cluster, *docread.Report) {
	a := s.ahead.Load()
	for _, k := range s.active {
		objs := s.known[k]
		keys := make([]string, 0, len(objs))
		for key := range objs {
			keys = append(keys, key)
		}
		sort.Strings(keys)
		for _, key := range keys {
			l.AddChecked(a, objs[key], s.origin(), 0)
		}
	}
	c, r := l.Finish()
	// Objects received from now on are prepared as changes, which reads
	// the objects they replace: not before Finish's admission is done
	// with them. The preparer first, so that an object is checked or
	// prepared, never neither.
	s.changes.Store(a.Changes())
	s.ahead.Store(nil)
	r.Problems = append(append([]docread.Problem(nil), s.skipped...), r.Problems...)
	return c, r
}

// remember applies an event to the known state and returns the object it
// replaced (nil when new) and whether it changed anything.
func (s *Source) remember(ev event) (old runtime.Object, changed bool) {
	m := s.known[ev.kind]
	if m == nil {
		m = map[string]runtime.Object{}
		s.known[ev.kind] = m
	}
	old = m[ev.key]
	if ev.deleted {
		if old == nil {
			return nil, false
		}
		delete(m, ev.key)
		return old, true
	}
	if old != nil && resourceVersion(old) != "" && resourceVersion(old) == resourceVersion(ev.obj) {
		return old, false
	}
	m[ev.key] = ev.obj
	return old, true
}

func resourceVersion(o runtime.Object) string {
	if a, err := meta.Accessor(o); err == nil {
		return a.GetResourceVersion()
	}
	return ""
}

// Watch delivers the changes the informers see after Sync until ctx is
// done or Stop is called, every kind alike, to apply as
// change.Changes in the order they arrived: node and pod adds,
// updates (a pod bound, a node cordoned...) and deletes, and ObjectAdd,
// ObjectUpdate and ObjectDelete for the other kinds (a PV created, a
// StorageClass changed, a Service deleted...). An error from apply is
// reported as a warning and the watch goes on. Call Watch once, after a
// successful Sync; apply runs on Watch's goroutine.
func (s *Source) Watch(ctx context.Context, apply func(change.Change) error) error {
	if s.factory == nil {
		return errors.New(s.origin() + ": Watch before Sync")
	}
	hctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go s.watchHealth(hctx)
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-s.stop:
			return nil
		case <-s.q.signal:
		}
		for _, ev := range s.q.drain() {
			s.deliver(ev, apply)
		}
	}
}

func (s *Source) deliver(ev event, apply func(change.Change) error) {
	old, changed := s.remember(ev)
	if !changed {
		return
	}
	c, ok := changeOf(ev, old)
	if !ok {
		verb := "updated"
		switch {
		case ev.deleted:
			verb = "deleted"
		case old == nil:
			verb = "added"
		}
		s.report(func(st *Status) {
			st.Objects++
			st.Warning = true
			st.Message = fmt.Sprintf("%s %s %s (not applied: the informer did not hold the object)", ev.kind.name, ev.key, verb)
		})
		return
	}
	err := apply(c)
	s.report(func(st *Status) {
		st.Objects++
		st.Message = describeChange(c)
		if err != nil {
			st.Warning, st.Err = true, err
		}
	})
}

// changeOf converts an informer event into the engine's change, for every
// kind the source watches: an add when the source knew no such object, a
// delete (of the object's last known state when the informer only knows
// the key), else an update, at the time the informer handed it over (At:
// a real-time engine applies it then). The object is the one the
// informer holds, as its transform prepared it, not a copy: the engine
// keeps it, and nothing changes it (see cluster).
func changeOf(ev event, old runtime.Object) (change.Change, bool) {
	typ, obj := watch.Modified, ev.obj
	switch {
	case ev.deleted:
		typ = watch.Deleted
		if isNilObject(obj) {
			obj = old
		}
	case old == nil:
		typ = watch.Added
	}
	if isNilObject(obj) {
		return change.Change{}, false
	}
	c, err := change.For(typ, obj)
	if err != nil {
		return change.Change{}, false
	}
	c.At = ev.at
	return c, true
}

func isNilObject(o runtime.Object) bool {
	if o == nil {
		return true
	}
	v := reflect.ValueOf(o)
	return v.Kind() == reflect.Pointer && v.IsNil()
}

func describeChange(c change.Change) string {
	if c.Pod != nil {
		s := fmt.Sprintf("%s %s/%s", c.Kind, c.Pod.Namespace, c.Pod.Name)
		if c.Pod.Spec.NodeName != "" && c.Kind != change.PodDelete {
			s += " on " + c.Pod.Spec.NodeName
		}
		return s
	}
	if c.Node != nil {
		return fmt.Sprintf("%s %s", c.Kind, c.Node.Name)
	}
	return c.String()
}

// HealthInterval is how often Watch asks the API server for its version
// to notice a lost connection: the informers retry a refused connection
// quietly, so without it a user would not know the view went stale.
var HealthInterval = 2 * time.Second

// watchHealth reports when the API server stops answering and when it
// answers again; the informers then relist and deliver what changed.
func (s *Source) watchHealth(ctx context.Context) {
	t := time.NewTicker(HealthInterval)
	defer t.Stop()
	up, downSince := true, time.Time{}
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.stop:
			return
		case <-t.C:
		}
		_, err := s.client.Discovery().ServerVersion()
		switch {
		case err != nil && ctx.Err() == nil && up:
			up, downSince = false, time.Now()
			s.report(func(st *Status) {
				st.Connected, st.Warning, st.Err = false, true, err
				st.Message = "lost the API server; the view is stale until it answers again"
			})
		case err == nil && !up:
			up = true
			down := time.Since(downSince).Round(time.Second)
			s.report(func(st *Status) {
				st.Connected = true
				st.Message = fmt.Sprintf("reconnected after %s; catching up with what changed", down)
			})
		}
	}
}

// event is one informer notification.
type event struct {
	kind    *kind
	key     string
	obj     runtime.Object // nil for a delete whose final state is unknown
	deleted bool
	// at is when the handler received it.
	at time.Time
}

// queue collects informer notifications in arrival order; the handlers
// never block.
type queue struct {
	mu     sync.Mutex
	items  []event
	signal chan struct{}
	// now stamps each event as it arrives.
	now func() time.Time
}

func (q *queue) push(ev event) {
	ev.at = q.now()
	q.mu.Lock()
	q.items = append(q.items, ev)
	q.mu.Unlock()
	select {
	case q.signal <- struct{}{}:
	default:
	}
}

func (q *queue) drain() []event {
	q.mu.Lock()
	defer q.mu.Unlock()
	out := q.items
	q.items = nil
	return out
}

func (q *queue) handler(k *kind) cache.ResourceEventHandler {
	add := func(obj any, deleted bool) {
		if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			ev := event{kind: k, key: tomb.Key, deleted: true}
			if o, ok := tomb.Obj.(runtime.Object); ok {
				ev.obj = o
			}
			q.push(ev)
			return
		}
		o, ok := obj.(runtime.Object)
		if !ok {
			return
		}
		key, err := cache.MetaNamespaceKeyFunc(o)
		if err != nil {
			return
		}
		q.push(event{kind: k, key: key, obj: o, deleted: deleted})
	}
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { add(obj, false) },
		UpdateFunc: func(_, obj any) { add(obj, false) },
		DeleteFunc: func(obj any) { add(obj, true) },
	}
}
