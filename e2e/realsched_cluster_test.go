package e2e

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/schedtui/schedtui/e2e/kubecluster"
	"github.com/schedtui/schedtui/internal/scenario"
)

// Annotations of the PV controller's protocol with the scheduler's
// VolumeBinding plugin (k8s.io/component-helpers/storage/volume).
const (
	annSelectedNode     = "volume.kubernetes.io/selected-node"
	annBindCompleted    = "pv.kubernetes.io/bind-completed"
	annBoundByControler = "pv.kubernetes.io/bound-by-controller"
)

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
// would hold them (kubecluster.Fill). Pending pods are returned, not
// created. Left out, with a note: pods with resource claims (the scenario
// has no ResourceClaim objects and schedtui does not simulate DRA), and
// anything the API server refuses.
func loadScenario(t *testing.T, s *apiServer, sc *scenario.Scenario) *loaded {
	t.Helper()
	cfg := s.RESTConfig(adminUser)
	cfg.QPS, cfg.Burst = 5000, 10000
	f, err := kubecluster.Fill(context.Background(), cfg, sc.Cluster.Objects(), kubecluster.FillOptions{SkipClaimPods: true})
	must(t, err)
	if len(f.Skipped) > 0 {
		t.Logf("%s: left out %d object(s):\n  %s", sc.Name, len(f.Skipped), strings.Join(f.Skipped, "\n  "))
	}
	return &loaded{pending: f.Pending, stuck: f.Stuck, skipped: f.Skipped}
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
