package e2e

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/restmapper"

	"github.com/schedtui/schedtui/internal/scenario"
	"github.com/schedtui/schedtui/snapshot"
)

// Annotations of the PV controller's protocol with the scheduler's
// VolumeBinding plugin (k8s.io/component-helpers/storage/volume).
const (
	annSelectedNode     = "volume.kubernetes.io/selected-node"
	annBindCompleted    = "pv.kubernetes.io/bind-completed"
	annBoundByControler = "pv.kubernetes.io/bound-by-controller"
)

// statusKinds are the kinds whose status the scheduler reads (or that a
// controller would have set): created, then their status written.
var statusKinds = map[string]bool{"Node": true, "Pod": true, "PersistentVolume": true, "PersistentVolumeClaim": true, "PodDisruptionBudget": true, "VolumeAttachment": true}

// loaded is a generated scenario created in the API server, but for its
// pending pods, which the test creates once the real scheduler, the
// recorder and the TUI run.
type loaded struct {
	pending []*v1.Pod
	// stuck are the pods the scenario has terminating: deleted with a
	// grace period of an hour, their kubelet never confirms.
	stuck map[string]bool
	// skipped says what was left out, and why.
	skipped []string
}

// loadScenario creates sc's objects as a cluster without controllers
// would hold them: every object without its server-set metadata, nodes
// with their status and exactly their taints, bound pods bound and with
// their status, PVs' claimRefs naming the claims' new UIDs, terminating
// pods deleted with a long grace period. Pending pods are returned, not
// created: without their status (nominatedNodeName is the scheduler's to
// set). Left out, with a note: pods with resource claims (the scenario
// has no ResourceClaim objects and schedtui does not simulate DRA), and
// anything the API server refuses.
func loadScenario(t *testing.T, s *apiServer, sc *scenario.Scenario) *loaded {
	t.Helper()
	ctx := context.Background()
	cfg := s.RESTConfig(adminUser)
	cfg.QPS, cfg.Burst = 5000, 10000
	dyn := dynamic.NewForConfigOrDie(cfg)
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(s.admin.Discovery()))
	l := &loaded{stuck: map[string]bool{}}
	// PVCs before PVs, so that a PV's claimRef can name its claim's UID.
	objs := sc.Cluster.Objects()
	sort.SliceStable(objs, func(i, j int) bool {
		_, pvI := objs[i].(*v1.PersistentVolume)
		_, pvcJ := objs[j].(*v1.PersistentVolumeClaim)
		return pvI && pvcJ
	})
	claimUIDs := map[string]types.UID{}
	for _, o := range objs {
		o = o.DeepCopyObject()
		acc, err := meta.Accessor(o)
		must(t, err)
		name := acc.GetNamespace() + "/" + acc.GetName()
		terminating := acc.GetDeletionTimestamp() != nil
		acc.SetUID("")
		acc.SetResourceVersion("")
		acc.SetCreationTimestamp(metav1.Time{})
		acc.SetGeneration(0)
		acc.SetManagedFields(nil)
		acc.SetDeletionTimestamp(nil)
		acc.SetDeletionGracePeriodSeconds(nil)
		switch o := o.(type) {
		case *v1.Pod:
			if len(o.Spec.ResourceClaims) > 0 {
				l.skipped = append(l.skipped, "Pod "+name+": resource claims")
				continue
			}
			// The Priority and RuntimeClass admission plugins compute
			// these again from the classes, and refuse a pod that
			// brings its own.
			o.Spec.Priority, o.Spec.PreemptionPolicy = nil, nil
			if o.Spec.RuntimeClassName != nil {
				o.Spec.Overhead = nil
			}
			unmergeMatchLabelKeys(o)
			if o.Spec.NodeName == "" {
				if terminating {
					l.skipped = append(l.skipped, "Pod "+name+": pending and terminating")
					continue
				}
				o.Status = v1.PodStatus{}
				l.pending = append(l.pending, o)
				continue
			}
		case *v1.Service:
			// The scenario's addresses are not the test server's range;
			// the scheduler reads only the selector.
			o.Spec.ClusterIP, o.Spec.ClusterIPs = "", nil
		case *v1.PersistentVolume:
			if ref := o.Spec.ClaimRef; ref != nil && ref.UID != "" {
				ref.UID = claimUIDs[ref.Namespace+"/"+ref.Name]
			}
		}
		created, err := createObject(ctx, dyn, mapper, o)
		if apierrors.IsAlreadyExists(err) {
			continue // the default namespaces and priority classes
		}
		if err != nil {
			l.skipped = append(l.skipped, fmt.Sprintf("%T %s: %v", o, name, err))
			continue
		}
		if _, ok := o.(*v1.PersistentVolumeClaim); ok {
			claimUIDs[name] = created.GetUID()
		}
		if p, ok := o.(*v1.Pod); ok && terminating {
			grace := int64(3600)
			must(t, s.admin.CoreV1().Pods(p.Namespace).Delete(ctx, p.Name, metav1.DeleteOptions{GracePeriodSeconds: &grace}))
			l.stuck[name] = true
		}
	}
	if len(l.skipped) > 0 {
		t.Logf("%s: left out %d object(s):\n  %s", sc.Name, len(l.skipped), strings.Join(l.skipped, "\n  "))
	}
	return l
}

// unmergeMatchLabelKeys undoes what the API server does on create and
// the scenario already did (matchLabelKeys and mismatchLabelKeys merged
// into the label selectors), which the API server refuses to find done.
func unmergeMatchLabelKeys(p *v1.Pod) {
	drop := func(sel *metav1.LabelSelector, keys []string, op metav1.LabelSelectorOperator) {
		if sel == nil {
			return
		}
		for _, k := range keys {
			sel.MatchExpressions = slices.DeleteFunc(sel.MatchExpressions, func(r metav1.LabelSelectorRequirement) bool {
				return r.Key == k && r.Operator == op && len(r.Values) == 1 && r.Values[0] == p.Labels[k]
			})
		}
	}
	term := func(t *v1.PodAffinityTerm) {
		drop(t.LabelSelector, t.MatchLabelKeys, metav1.LabelSelectorOpIn)
		drop(t.LabelSelector, t.MismatchLabelKeys, metav1.LabelSelectorOpNotIn)
	}
	if a := p.Spec.Affinity; a != nil {
		var required []v1.PodAffinityTerm
		var preferred []v1.WeightedPodAffinityTerm
		if pa := a.PodAffinity; pa != nil {
			required, preferred = append(required, pa.RequiredDuringSchedulingIgnoredDuringExecution...), append(preferred, pa.PreferredDuringSchedulingIgnoredDuringExecution...)
		}
		if pa := a.PodAntiAffinity; pa != nil {
			required, preferred = append(required, pa.RequiredDuringSchedulingIgnoredDuringExecution...), append(preferred, pa.PreferredDuringSchedulingIgnoredDuringExecution...)
		}
		// The terms share their selectors with the pod's.
		for i := range required {
			term(&required[i])
		}
		for i := range preferred {
			term(&preferred[i].PodAffinityTerm)
		}
	}
	for i := range p.Spec.TopologySpreadConstraints {
		c := &p.Spec.TopologySpreadConstraints[i]
		drop(c.LabelSelector, c.MatchLabelKeys, metav1.LabelSelectorOpIn)
	}
}

// createObject creates o through the dynamic client and then writes its
// status (for statusKinds); a node gets its taints back, which the
// TaintNodesByCondition admission plugin replaced on create.
func createObject(ctx context.Context, dyn dynamic.Interface, mapper *restmapper.DeferredDiscoveryRESTMapper, o runtime.Object) (*unstructured.Unstructured, error) {
	o, err := snapshot.WithKind(o)
	if err != nil {
		return nil, err
	}
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o)
	if err != nil {
		return nil, err
	}
	obj := &unstructured.Unstructured{Object: u}
	gvk := obj.GroupVersionKind()
	m, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return nil, err
	}
	var ri dynamic.ResourceInterface = dyn.Resource(m.Resource)
	if ns := obj.GetNamespace(); ns != "" {
		ri = dyn.Resource(m.Resource).Namespace(ns)
	}
	created, err := ri.Create(ctx, obj, metav1.CreateOptions{})
	if err != nil || !statusKinds[gvk.Kind] {
		return created, err
	}
	if status, ok := u["status"]; ok {
		created.Object["status"] = status
		if created, err = ri.UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
			return nil, fmt.Errorf("status: %w", err)
		}
	}
	if gvk.Kind == "Node" {
		taints, _, _ := unstructured.NestedSlice(u, "spec", "taints")
		if err := unstructured.SetNestedSlice(created.Object, taints, "spec", "taints"); err != nil {
			return nil, err
		}
		if created, err = ri.Update(ctx, created, metav1.UpdateOptions{}); err != nil {
			return nil, fmt.Errorf("taints: %w", err)
		}
	}
	return created, nil
}

// controllers stands in for what a real cluster runs besides the
// scheduler, as far as the scheduler's decisions need it:
//
//   - the kubelet: a pod with a deletionTimestamp (a preemption victim)
//     is deleted with grace 0 one second after the test first sees it,
//     as a kubelet does once the pod's containers exited (pause exits on
//     SIGTERM at once), without waiting out the grace period. The
//     scenario's own terminating pods (stuck) stay: their kubelet never
//     confirms;
//   - the PV controller and a provisioner: a PV the scheduler's
//     VolumeBinding gave a claimRef gets its claim bound to it (volumeName,
//     bind-completed, Bound); a claim the scheduler annotated with a
//     selected node gets a new PV (the storage class's provisioner as CSI
//     driver, no node affinity), bound to it.
//
// It polls every 200ms until ctx ends; what it did is logged at the end.
type controllers struct {
	c     kubernetes.Interface
	stuck map[string]bool

	mu      sync.Mutex
	seen    map[types.UID]time.Time
	actions []string
	done    chan struct{}
}

func startControllers(t *testing.T, ctx context.Context, c kubernetes.Interface, stuck map[string]bool) *controllers {
	k := &controllers{c: c, stuck: stuck, seen: map[types.UID]time.Time{}, done: make(chan struct{})}
	go func() {
		defer close(k.done)
		for ctx.Err() == nil {
			k.tick(ctx)
			select {
			case <-ctx.Done():
			case <-time.After(200 * time.Millisecond):
			}
		}
	}()
	return k
}

func (k *controllers) did(format string, args ...any) {
	k.mu.Lock()
	k.actions = append(k.actions, fmt.Sprintf(format, args...))
	k.mu.Unlock()
}

// Actions is what the stand-ins did, in order.
func (k *controllers) Actions() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]string(nil), k.actions...)
}

func (k *controllers) tick(ctx context.Context) {
	pods, err := k.c.CoreV1().Pods("").List(ctx, metav1.ListOptions{})
	if err == nil {
		k.kubelet(ctx, pods.Items)
	}
	pvs, err := k.c.CoreV1().PersistentVolumes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return
	}
	pvcs, err := k.c.CoreV1().PersistentVolumeClaims("").List(ctx, metav1.ListOptions{})
	if err != nil {
		return
	}
	k.volumes(ctx, pvs.Items, pvcs.Items)
}

func (k *controllers) kubelet(ctx context.Context, pods []v1.Pod) {
	zero := int64(0)
	for i := range pods {
		p := &pods[i]
		if p.DeletionTimestamp == nil || k.stuck[podKey(p)] {
			continue
		}
		k.mu.Lock()
		first, ok := k.seen[p.UID]
		if !ok {
			first = time.Now()
			k.seen[p.UID] = first
		}
		k.mu.Unlock()
		if time.Since(first) < time.Second {
			continue
		}
		uid := p.UID
		err := k.c.CoreV1().Pods(p.Namespace).Delete(ctx, p.Name, metav1.DeleteOptions{GracePeriodSeconds: &zero, Preconditions: &metav1.Preconditions{UID: &uid}})
		if err == nil {
			k.did("kubelet: %s terminated (on %s)", podKey(p), p.Spec.NodeName)
		}
	}
}

func (k *controllers) volumes(ctx context.Context, pvs []v1.PersistentVolume, pvcs []v1.PersistentVolumeClaim) {
	claims := map[string]*v1.PersistentVolumeClaim{}
	for i := range pvcs {
		claims[pvcs[i].Namespace+"/"+pvcs[i].Name] = &pvcs[i]
	}
	referenced := map[types.UID]bool{}
	for i := range pvs {
		pv := &pvs[i]
		ref := pv.Spec.ClaimRef
		if ref == nil || ref.UID == "" {
			continue
		}
		referenced[ref.UID] = true
		pvc := claims[ref.Namespace+"/"+ref.Name]
		if pvc == nil || pvc.UID != ref.UID || pvc.Spec.VolumeName != "" {
			continue
		}
		k.bind(ctx, pv, pvc)
	}
	for _, pvc := range claims {
		node := pvc.Annotations[annSelectedNode]
		if node == "" || pvc.Spec.VolumeName != "" || referenced[pvc.UID] {
			continue
		}
		k.provision(ctx, pvc, node)
	}
}

// bind completes a binding the scheduler started, as the PV controller.
func (k *controllers) bind(ctx context.Context, pv *v1.PersistentVolume, pvc *v1.PersistentVolumeClaim) {
	pvc = pvc.DeepCopy()
	pvc.Spec.VolumeName = pv.Name
	metav1.SetMetaDataAnnotation(&pvc.ObjectMeta, annBindCompleted, "yes")
	metav1.SetMetaDataAnnotation(&pvc.ObjectMeta, annBoundByControler, "yes")
	pvc, err := k.c.CoreV1().PersistentVolumeClaims(pvc.Namespace).Update(ctx, pvc, metav1.UpdateOptions{})
	if err != nil {
		return
	}
	pvc.Status.Phase = v1.ClaimBound
	pvc.Status.AccessModes = pv.Spec.AccessModes
	pvc.Status.Capacity = pv.Spec.Capacity
	_, _ = k.c.CoreV1().PersistentVolumeClaims(pvc.Namespace).UpdateStatus(ctx, pvc, metav1.UpdateOptions{})
	pv = pv.DeepCopy()
	pv.Status.Phase = v1.VolumeBound
	_, _ = k.c.CoreV1().PersistentVolumes().UpdateStatus(ctx, pv, metav1.UpdateOptions{})
	k.did("pv controller: %s/%s bound to %s", pvc.Namespace, pvc.Name, pv.Name)
}

// provision creates the PV of a claim the scheduler selected a node for.
func (k *controllers) provision(ctx context.Context, pvc *v1.PersistentVolumeClaim, node string) {
	driver := "e2e.provisioner"
	if pvc.Spec.StorageClassName != nil {
		if sc, err := k.c.StorageV1().StorageClasses().Get(ctx, *pvc.Spec.StorageClassName, metav1.GetOptions{}); err == nil {
			driver = sc.Provisioner
		}
	}
	pv := &v1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: "pvc-" + string(pvc.UID), Annotations: map[string]string{"pv.kubernetes.io/provisioned-by": driver}},
		Spec: v1.PersistentVolumeSpec{
			Capacity:                      v1.ResourceList{v1.ResourceStorage: pvc.Spec.Resources.Requests[v1.ResourceStorage]},
			AccessModes:                   pvc.Spec.AccessModes,
			VolumeMode:                    pvc.Spec.VolumeMode,
			PersistentVolumeReclaimPolicy: v1.PersistentVolumeReclaimDelete,
			ClaimRef:                      &v1.ObjectReference{Kind: "PersistentVolumeClaim", APIVersion: "v1", Namespace: pvc.Namespace, Name: pvc.Name, UID: pvc.UID},
			PersistentVolumeSource:        v1.PersistentVolumeSource{CSI: &v1.CSIPersistentVolumeSource{Driver: driver, VolumeHandle: string(pvc.UID)}},
		},
	}
	if pvc.Spec.StorageClassName != nil {
		pv.Spec.StorageClassName = *pvc.Spec.StorageClassName
	}
	if _, err := k.c.CoreV1().PersistentVolumes().Create(ctx, pv, metav1.CreateOptions{}); err == nil {
		k.did("provisioner: %s for %s/%s (selected node %s)", pv.Name, pvc.Namespace, pvc.Name, node)
	}
}
