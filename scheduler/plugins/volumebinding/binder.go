package volumebinding

import (
	"fmt"
	"sort"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/component-helpers/storage/ephemeral"

	"github.com/schedtui/schedtui/scheduler/framework"
	volume "github.com/schedtui/schedtui/scheduler/plugins/helper/storage"
)

// ConflictReason explains why the pod's volumes cannot be bound on a node.
type ConflictReason string

// ConflictReasons is a list of reasons, in the order Filter reports them.
type ConflictReasons []ConflictReason

const (
	// ErrReasonBindConflict: no PV matches and provisioning is impossible.
	ErrReasonBindConflict ConflictReason = "node(s) didn't find available persistent volumes to bind"
	// ErrReasonNodeConflict: a bound PV's node affinity excludes the node.
	ErrReasonNodeConflict ConflictReason = "node(s) didn't match PersistentVolume's node affinity"
	// ErrReasonNotEnoughSpace: no CSIStorageCapacity with room for a claim
	// to provision is accessible from the node.
	ErrReasonNotEnoughSpace = "node(s) did not have enough free storage"
	// ErrReasonPVNotExist: a claim is bound to a PV that does not exist.
	ErrReasonPVNotExist = "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)"
)

// binder is upstream's volumeBinder over the object store, with assume
// caches for PVs and claims.
type binder struct {
	objs     framework.ObjectLister
	pvCache  *assumeCache[*v1.PersistentVolume]
	pvcCache *assumeCache[*v1.PersistentVolumeClaim]
	// volumeAttributesClass is the VolumeAttributesClass gate: on, a
	// claim binds only to a PV of its volumeAttributesClassName; off, only
	// to a PV without one, and a claim naming one is an error.
	volumeAttributesClass bool
}

func newBinder(objs framework.ObjectLister, volumeAttributesClass bool) *binder {
	return &binder{objs: objs, pvCache: newPVCache(objs), pvcCache: newPVCCache(objs), volumeAttributesClass: volumeAttributesClass}
}

func isPVCFullyBound(pvc *v1.PersistentVolumeClaim) bool {
	return pvc.Spec.VolumeName != "" && metav1.HasAnnotation(pvc.ObjectMeta, volume.AnnBindCompleted)
}

// isVolumeBound reports whether a claim volume (direct or generic
// ephemeral) is fully bound; other volumes count as bound.
func (b *binder) isVolumeBound(pod *v1.Pod, vol *v1.Volume) (bool, *v1.PersistentVolumeClaim, error) {
	var pvcName string
	isEphemeral := false
	switch {
	case vol.PersistentVolumeClaim != nil:
		pvcName = vol.PersistentVolumeClaim.ClaimName
	case vol.Ephemeral != nil:
		pvcName = ephemeral.VolumeClaimName(pod, vol)
		isEphemeral = true
	default:
		return true, nil, nil
	}
	key := pod.Namespace + "/" + pvcName
	pvc, err := b.pvcCache.Get(key)
	if err != nil || pvc == nil {
		return false, nil, fmt.Errorf("error getting PVC %q: %v", key, err)
	}
	if isEphemeral {
		if err := ephemeral.VolumeIsForPod(pod, pvc); err != nil {
			return false, nil, err
		}
	}
	return isPVCFullyBound(pvc), pvc, nil
}

func (b *binder) arePodVolumesBound(pod *v1.Pod) bool {
	for i := range pod.Spec.Volumes {
		if bound, _, _ := b.isVolumeBound(pod, &pod.Spec.Volumes[i]); !bound {
			return false
		}
	}
	return true
}

// isDelayBindingMode is volume.IsDelayBindingMode over the object store.
func (b *binder) isDelayBindingMode(pvc *v1.PersistentVolumeClaim) (bool, error) {
	return volume.IsDelayBindingMode(pvc, b.objs.StorageClass)
}

// GetPodVolumeClaims sorts the pod's claims, in volume order, and lists
// the PVs of the delayed claims' classes.
func (b *binder) GetPodVolumeClaims(pod *v1.Pod) (*PodVolumeClaims, error) {
	c := &PodVolumeClaims{
		boundClaims:               []*v1.PersistentVolumeClaim{},
		unboundClaimsImmediate:    []*v1.PersistentVolumeClaim{},
		unboundClaimsDelayBinding: []*v1.PersistentVolumeClaim{},
	}
	for i := range pod.Spec.Volumes {
		bound, pvc, err := b.isVolumeBound(pod, &pod.Spec.Volumes[i])
		if err != nil {
			return c, err
		}
		if pvc == nil {
			continue
		}
		if bound {
			c.boundClaims = append(c.boundClaims, pvc)
			continue
		}
		delay, err := b.isDelayBindingMode(pvc)
		if err != nil {
			return c, err
		}
		// A claim pre-bound to a PV by name is the PV controller's job,
		// whatever its class says.
		if delay && pvc.Spec.VolumeName == "" {
			c.unboundClaimsDelayBinding = append(c.unboundClaimsDelayBinding, pvc)
		} else {
			c.unboundClaimsImmediate = append(c.unboundClaimsImmediate, pvc)
		}
	}
	c.unboundVolumesDelayBinding = map[string][]*v1.PersistentVolume{}
	for _, pvc := range c.unboundClaimsDelayBinding {
		class := volume.GetPersistentVolumeClaimClass(pvc)
		c.unboundVolumesDelayBinding[class] = listPVs(b.objs, b.pvCache, class)
	}
	return c, nil
}

// FindPodVolumes decides whether the pod's claims can be satisfied on the
// node and how. Reasons come out in upstream's fixed order.
func (b *binder) FindPodVolumes(pod *v1.Pod, claims *PodVolumeClaims, node *v1.Node) (podVolumes *PodVolumes, reasons ConflictReasons, err error) {
	podVolumes = &PodVolumes{}
	unboundSatisfied, boundSatisfied, sufficientStorage, boundPVsFound := true, true, true, true
	var static []*BindingInfo
	var dynamic []*DynamicProvision
	defer func() {
		if len(static) > 0 {
			podVolumes.StaticBindings = static
		}
		if len(dynamic) > 0 {
			podVolumes.DynamicProvisions = dynamic
		}
		if err != nil {
			return
		}
		if !boundSatisfied {
			reasons = append(reasons, ErrReasonNodeConflict)
		}
		if !unboundSatisfied {
			reasons = append(reasons, ErrReasonBindConflict)
		}
		if !sufficientStorage {
			reasons = append(reasons, ErrReasonNotEnoughSpace)
		}
		if !boundPVsFound {
			reasons = append(reasons, ErrReasonPVNotExist)
		}
	}()
	if claims == nil {
		return
	}

	if len(claims.boundClaims) > 0 {
		if boundSatisfied, boundPVsFound, err = b.checkBoundClaims(claims.boundClaims, node); err != nil {
			return
		}
	}
	if len(claims.unboundClaimsDelayBinding) == 0 {
		return
	}
	var toMatch, toProvision []*v1.PersistentVolumeClaim
	for _, pvc := range claims.unboundClaimsDelayBinding {
		if selected, ok := pvc.Annotations[volume.AnnSelectedNode]; ok {
			if selected != node.Name {
				// Provisioning already started for another node.
				unboundSatisfied = false
				return
			}
			toProvision = append(toProvision, pvc)
		} else {
			toMatch = append(toMatch, pvc)
		}
	}
	if len(toMatch) > 0 {
		var unmatched []*v1.PersistentVolumeClaim
		if unboundSatisfied, static, unmatched, err = b.findMatchingVolumes(toMatch, claims.unboundVolumesDelayBinding, node); err != nil {
			return
		}
		toProvision = append(toProvision, unmatched...)
	}
	if len(toProvision) > 0 {
		// Provisioning decides for the claims no PV matched, so its verdict
		// replaces the matching one.
		unboundSatisfied, sufficientStorage, dynamic, err = b.checkVolumeProvisions(toProvision, node)
	}
	return
}

// checkBoundClaims checks each bound PV's node affinity (after CSI
// translation for migrated in-tree PVs). It returns (affinity satisfied,
// PVs found, error); a missing PV stops the check.
func (b *binder) checkBoundClaims(claims []*v1.PersistentVolumeClaim, node *v1.Node) (bool, bool, error) {
	csiNode, err := b.objs.CSINode(node.Name)
	if err != nil {
		csiNode = nil
	}
	for _, pvc := range claims {
		pv, err := b.pvCache.Get(pvc.Spec.VolumeName)
		if err != nil {
			if apierrors.IsNotFound(err) {
				err = nil
			}
			return true, false, err
		}
		if pv, err = tryTranslatePVToCSI(pv, csiNode); err != nil {
			return false, true, err
		}
		if volume.CheckNodeAffinity(pv, node.Labels) != nil {
			return false, true, nil
		}
	}
	return true, true, nil
}

// findMatchingVolumes binds claims, smallest request first, to the
// smallest fitting PV each, never choosing a PV twice. Claims without a
// match are returned for provisioning.
func (b *binder) findMatchingVolumes(claims []*v1.PersistentVolumeClaim, pvsByClass map[string][]*v1.PersistentVolume, node *v1.Node) (bool, []*BindingInfo, []*v1.PersistentVolumeClaim, error) {
	// sort.Sort, not a stable sort: equal requests end up in the order
	// upstream's identical call leaves them.
	sort.Sort(byPVCSize(claims))
	chosen := map[string]*v1.PersistentVolume{}
	found := true
	var bindings []*BindingInfo
	var unmatched []*v1.PersistentVolumeClaim
	for _, pvc := range claims {
		pvs := pvsByClass[volume.GetPersistentVolumeClaimClass(pvc)]
		pv, err := volume.FindMatchingVolume(pvc, pvs, node, chosen, true, b.volumeAttributesClass)
		if err != nil {
			return false, nil, nil, err
		}
		if pv == nil {
			unmatched = append(unmatched, pvc)
			found = false
			continue
		}
		chosen[pv.Name] = pv
		bindings = append(bindings, &BindingInfo{pv: pv, pvc: pvc})
	}
	return found, bindings, unmatched, nil
}

type byPVCSize []*v1.PersistentVolumeClaim

func (a byPVCSize) Len() int      { return len(a) }
func (a byPVCSize) Swap(i, j int) { a[i], a[j] = a[j], a[i] }
func (a byPVCSize) Less(i, j int) bool {
	iSize := a[i].Spec.Resources.Requests[v1.ResourceStorage]
	jSize := a[j].Spec.Resources.Requests[v1.ResourceStorage]
	return iSize.Cmp(jSize) == -1
}
