package upstream

import (
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/apiserver/pkg/storage/names"
	"k8s.io/client-go/kubernetes/fake"
	clientsetscheme "k8s.io/client-go/kubernetes/scheme"
	clienttesting "k8s.io/client-go/testing"
)

// fakeAPI is the fake API server the upstream scheduler talks to: a client-go
// fake clientset whose object tracker behaves like the real API server in the
// three ways the scheduler's informer-driven state depends on.
//
//  1. Every write stamps a fresh, increasing metadata.resourceVersion. The
//     stock tracker leaves resourceVersion untouched, and the scheduler's
//     pod-update handler drops updates whose old and new resourceVersion are
//     equal (eventhandlers.go updatePodInSchedulingQueue), so nominatedNodeName
//     changes written by preemption would otherwise never reach the queue's
//     nominator.
//  2. POST pods/<name>/binding sets spec.nodeName (and the PodScheduled
//     condition), as the API server's binding subresource does. The stock
//     tracker silently drops subresource creates of a different kind.
//  3. A create with generateName gets a name (five random characters
//     appended) and a UID, as DynamicResources' PreBind expects of the
//     special claim of DRA-backed extended resources; the stock tracker
//     would store every such claim under the empty name.
//  4. The moment each watch is established is observable, so objects whose
//     arrival order matters (nodes, pods) can be created one by one after the
//     informer's initial List instead of being listed from the tracker's
//     unordered map.
//
// It also records pod deletions, the fallback source of preemption victims.
type fakeAPI struct {
	client  *fake.Clientset
	tracker *rvTracker

	mu      sync.Mutex
	watches map[schema.GroupVersionResource]chan struct{}
	deleted []string // namespace/name of pods deleted since resetDeleted
}

var (
	podsGVR  = v1.SchemeGroupVersion.WithResource("pods")
	nodesGVR = v1.SchemeGroupVersion.WithResource("nodes")
)

func newFakeAPI(objects []runtime.Object) (*fakeAPI, error) {
	tr := &rvTracker{ObjectTracker: clienttesting.NewObjectTracker(clientsetscheme.Scheme, clientsetscheme.Codecs.UniversalDecoder())}
	for _, obj := range objects {
		if err := tr.Add(obj); err != nil {
			return nil, fmt.Errorf("loading %s into the fake API server: %w", describe(obj), err)
		}
	}
	api := &fakeAPI{
		tracker: tr,
		watches: map[schema.GroupVersionResource]chan struct{}{
			podsGVR:  make(chan struct{}),
			nodesGVR: make(chan struct{}),
		},
	}

	// The stock reactors of NewSimpleClientset stay at the end of the chain,
	// unreachable: the reactors prepended here handle every action.
	cs := fake.NewSimpleClientset()
	cs.PrependReactor("*", "*", clienttesting.ObjectReaction(tr))
	cs.PrependReactor("create", "pods", api.bindReaction)
	cs.PrependReactor("create", "*", generateNameReaction)
	cs.PrependWatchReactor("*", func(action clienttesting.Action) (bool, watch.Interface, error) {
		var opts metav1.ListOptions
		if wa, ok := action.(clienttesting.WatchActionImpl); ok {
			opts = wa.ListOptions
		}
		w, err := tr.Watch(action.GetResource(), action.GetNamespace(), opts)
		if err != nil {
			return false, nil, err
		}
		api.watchStarted(action.GetResource())
		return true, w, nil
	})
	cs.PrependReactor("delete", "pods", func(action clienttesting.Action) (bool, runtime.Object, error) {
		if d, ok := action.(clienttesting.DeleteActionImpl); ok && d.GetNamespace() != barrierNamespace {
			api.mu.Lock()
			api.deleted = append(api.deleted, d.GetNamespace()+"/"+d.GetName())
			api.mu.Unlock()
		}
		return false, nil, nil // recorded only; the tracker reaction deletes
	})
	api.client = cs
	return api, nil
}

func (a *fakeAPI) resetDeleted() {
	a.mu.Lock()
	a.deleted = nil
	a.mu.Unlock()
}

// deletedPods returns namespace/name of the pods deleted since resetDeleted.
func (a *fakeAPI) deletedPods() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.deleted...)
}

// watchStarted records that a watch on gvr is registered with the tracker, so
// objects created from now on are delivered as watch events, in order.
func (a *fakeAPI) watchStarted(gvr schema.GroupVersionResource) {
	a.mu.Lock()
	defer a.mu.Unlock()
	ch, ok := a.watches[gvr]
	if !ok {
		return
	}
	select {
	case <-ch:
	default:
		close(ch)
	}
}

// watchEstablished returns a channel closed once the first watch on gvr is
// registered.
func (a *fakeAPI) watchEstablished(gvr schema.GroupVersionResource) <-chan struct{} {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.watches[gvr]
}

// bindReaction implements the pods/binding subresource.
func (a *fakeAPI) bindReaction(action clienttesting.Action) (bool, runtime.Object, error) {
	create, ok := action.(clienttesting.CreateActionImpl)
	if !ok || create.GetSubresource() != "binding" {
		return false, nil, nil
	}
	binding, ok := create.GetObject().(*v1.Binding)
	if !ok {
		return true, nil, fmt.Errorf("pods/binding: unexpected object %T", create.GetObject())
	}
	obj, err := a.tracker.Get(podsGVR, binding.Namespace, binding.Name)
	if err != nil {
		return true, nil, err
	}
	pod := obj.(*v1.Pod)
	if binding.UID != "" && pod.UID != binding.UID {
		return true, nil, fmt.Errorf("pods/binding %s/%s: UID %s does not match pod UID %s", binding.Namespace, binding.Name, binding.UID, pod.UID)
	}
	if pod.Spec.NodeName != "" {
		return true, nil, fmt.Errorf("pods/binding %s/%s: pod is already assigned to node %q", binding.Namespace, binding.Name, pod.Spec.NodeName)
	}
	pod.Spec.NodeName = binding.Target.Name
	setCondition(&pod.Status, v1.PodCondition{Type: v1.PodScheduled, Status: v1.ConditionTrue})
	if err := a.tracker.Update(podsGVR, pod, pod.Namespace); err != nil {
		return true, nil, err
	}
	return true, binding, nil
}

// generateNameReaction names a created object from its generateName and
// gives it a UID; the tracker reaction then stores it.
func generateNameReaction(action clienttesting.Action) (bool, runtime.Object, error) {
	create, ok := action.(clienttesting.CreateActionImpl)
	if !ok || create.GetSubresource() != "" {
		return false, nil, nil
	}
	m, err := meta.Accessor(create.GetObject())
	if err != nil || m.GetName() != "" || m.GetGenerateName() == "" {
		return false, nil, nil
	}
	m.SetName(names.SimpleNameGenerator.GenerateName(m.GetGenerateName()))
	if m.GetUID() == "" {
		m.SetUID(uuid.NewUUID())
	}
	return false, nil, nil
}

func setCondition(status *v1.PodStatus, cond v1.PodCondition) {
	for i := range status.Conditions {
		if status.Conditions[i].Type == cond.Type {
			status.Conditions[i] = cond
			return
		}
	}
	status.Conditions = append(status.Conditions, cond)
}

// rvTracker stamps a fresh resourceVersion on every object it stores.
type rvTracker struct {
	clienttesting.ObjectTracker
	rv atomic.Int64
}

func (t *rvTracker) stamp(obj runtime.Object) runtime.Object {
	obj = obj.DeepCopyObject()
	if m, err := meta.Accessor(obj); err == nil {
		m.SetResourceVersion(strconv.FormatInt(t.rv.Add(1), 10))
	}
	return obj
}

func (t *rvTracker) Add(obj runtime.Object) error {
	return t.ObjectTracker.Add(t.stamp(obj))
}

func (t *rvTracker) Create(gvr schema.GroupVersionResource, obj runtime.Object, ns string, opts ...metav1.CreateOptions) error {
	return t.ObjectTracker.Create(gvr, t.stamp(obj), ns, opts...)
}

func (t *rvTracker) Update(gvr schema.GroupVersionResource, obj runtime.Object, ns string, opts ...metav1.UpdateOptions) error {
	return t.ObjectTracker.Update(gvr, t.stamp(obj), ns, opts...)
}

func (t *rvTracker) Patch(gvr schema.GroupVersionResource, obj runtime.Object, ns string, opts ...metav1.PatchOptions) error {
	return t.ObjectTracker.Patch(gvr, t.stamp(obj), ns, opts...)
}

func describe(obj runtime.Object) string {
	kind := fmt.Sprintf("%T", obj)
	if m, err := meta.Accessor(obj); err == nil {
		if m.GetNamespace() != "" {
			return fmt.Sprintf("%s %s/%s", kind, m.GetNamespace(), m.GetName())
		}
		return fmt.Sprintf("%s %s", kind, m.GetName())
	}
	return kind
}
