package volumebinding

import (
	"fmt"
	"strings"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"

	volume "github.com/schedtui/schedtui/scheduler/plugins/helper/storage"
	"github.com/schedtui/schedtui/scheduler/plugins/nodevolumelimits/csimigration"
)

// checkVolumeProvisions checks that every claim can be provisioned for the
// node: a class with a real provisioner, allowed topologies matching the
// node, and storage capacity. It returns (provisionable, enough storage,
// provisions); the provisions are nil unless both hold.
func (b *binder) checkVolumeProvisions(claims []*v1.PersistentVolumeClaim, node *v1.Node) (bool, bool, []*DynamicProvision, error) {
	var provisions []*DynamicProvision
	for _, claim := range claims {
		className := volume.GetPersistentVolumeClaimClass(claim)
		if className == "" {
			return false, false, nil, fmt.Errorf("no class for claim %q", pvcKey(claim))
		}
		class, err := b.objs.StorageClass(className)
		if err != nil {
			return false, false, nil, fmt.Errorf("failed to find storage class %q", className)
		}
		provisioner := class.Provisioner
		if provisioner == "" || provisioner == volume.NotSupportedProvisioner {
			return false, true, nil, nil
		}
		if !matchTopologySelectorTerms(class.AllowedTopologies, labels.Set(node.Labels)) {
			return false, true, nil, nil
		}
		sufficient, capacity, err := b.hasEnoughCapacity(provisioner, claim, class, node)
		if err != nil {
			return false, false, nil, err
		}
		if !sufficient {
			return true, false, nil, nil
		}
		provisions = append(provisions, &DynamicProvision{PVC: claim, NodeCapacity: capacity})
	}
	return true, true, provisions, nil
}

// hasEnoughCapacity looks for a CSIStorageCapacity of the class, reachable
// from the node, with room for the claim. Only drivers that opted into
// capacity tracking are checked; a claim without a storage request always
// fits. The first suitable capacity in store order is returned (upstream's
// lister order is random).
func (b *binder) hasEnoughCapacity(provisioner string, claim *v1.PersistentVolumeClaim, class *storagev1.StorageClass, node *v1.Node) (bool, *storagev1.CSIStorageCapacity, error) {
	quantity, ok := claim.Spec.Resources.Requests[v1.ResourceStorage]
	if !ok {
		return true, nil, nil
	}
	driver, err := b.objs.CSIDriver(provisioner)
	if err != nil {
		if apierrors.IsNotFound(err) {
			return true, nil, nil
		}
		return false, nil, err
	}
	if driver.Spec.StorageCapacity == nil || !*driver.Spec.StorageCapacity {
		return true, nil, nil
	}
	size := quantity.Value()
	for _, capacity := range b.objs.CSIStorageCapacities() {
		if capacity != nil && capacity.StorageClassName == class.Name && capacitySufficient(capacity, size) && nodeHasAccess(node, capacity) {
			return true, capacity, nil
		}
	}
	return false, nil, nil
}

func capacitySufficient(capacity *storagev1.CSIStorageCapacity, size int64) bool {
	limit := volumeLimit(capacity)
	return limit != nil && limit.Value() >= size
}

// volumeLimit prefers maximumVolumeSize, the more precise bound.
func volumeLimit(capacity *storagev1.CSIStorageCapacity) *resource.Quantity {
	if capacity.MaximumVolumeSize != nil {
		return capacity.MaximumVolumeSize
	}
	return capacity.Capacity
}

// nodeHasAccess matches the capacity's node topology selector against the
// node's labels; no topology means unavailable.
func nodeHasAccess(node *v1.Node, capacity *storagev1.CSIStorageCapacity) bool {
	if capacity.NodeTopology == nil {
		return false
	}
	selector, err := metav1.LabelSelectorAsSelector(capacity.NodeTopology)
	if err != nil {
		return false
	}
	return selector.Matches(labels.Set(node.Labels))
}

// matchTopologySelectorTerms ORs the terms; an empty list matches every
// node, an empty term none, and each term ANDs "key In values".
func matchTopologySelectorTerms(terms []v1.TopologySelectorTerm, lbls labels.Set) bool {
	if len(terms) == 0 {
		return true
	}
	for _, term := range terms {
		if len(term.MatchLabelExpressions) == 0 {
			continue
		}
		selector := labels.NewSelector()
		ok := true
		for _, expr := range term.MatchLabelExpressions {
			r, err := labels.NewRequirement(expr.Key, selection.In, expr.Values)
			if err != nil {
				ok = false
				break
			}
			selector = selector.Add(*r)
		}
		if ok && selector.Matches(lbls) {
			return true
		}
	}
	return false
}

// tryTranslatePVToCSI translates a PV of a migrated in-tree plugin, but
// only when the node's CSINode lists the plugin in its migrated-plugins
// annotation; otherwise the PV is checked as it is.
func tryTranslatePVToCSI(pv *v1.PersistentVolume, csiNode *storagev1.CSINode) (*v1.PersistentVolume, error) {
	if !csimigration.IsPVMigratable(pv) {
		return pv, nil
	}
	plugin, err := csimigration.InTreePluginNameFromPV(pv)
	if err != nil {
		return nil, fmt.Errorf("could not get plugin name from pv: %v", err)
	}
	switch plugin {
	case csimigration.AWSEBSInTreePluginName, csimigration.GCEPDInTreePluginName, csimigration.AzureDiskInTreePluginName,
		csimigration.CinderInTreePluginName, csimigration.PortworxVolumePluginName:
	default:
		return pv, nil
	}
	if !isPluginMigratedToCSIOnNode(plugin, csiNode) {
		return pv, nil
	}
	translated, err := csimigration.TranslateInTreePVToCSI(pv)
	if err != nil {
		return nil, fmt.Errorf("could not translate pv: %v", err)
	}
	return translated, nil
}

// isPluginMigratedToCSIOnNode reads the comma-separated (untrimmed)
// migrated-plugins annotation of the CSINode.
func isPluginMigratedToCSIOnNode(plugin string, csiNode *storagev1.CSINode) bool {
	if csiNode == nil {
		return false
	}
	mpa := csiNode.Annotations[v1.MigratedPluginsAnnotationKey]
	if mpa == "" {
		return false
	}
	for _, p := range strings.Split(mpa, ",") {
		if p == plugin {
			return true
		}
	}
	return false
}
