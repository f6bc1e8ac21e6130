// Package nodevolumelimits is the NodeVolumeLimits plugin (upstream's
// CSILimits): the CSI volumes a pod would attach to a node, plus those
// already attached there, must not exceed the per-driver limit the node's
// CSINode reports. With VolumeLimitScaling (beta, on in 1.37) a driver
// that opted in with preventPodSchedulingIfMissing must also be installed
// on the node.
//
// In-tree volumes count when they migrate to CSI: the translation comes
// from the csimigration subpackage (a port of csi-translation-lib).
package nodevolumelimits

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/plugins/names"
	"github.com/schedtui/schedtui/scheduler/plugins/nodevolumelimits/csimigration"
)

const (
	// Name is the plugin's name.
	Name = names.NodeVolumeLimits

	// ErrReasonMaxVolumeCountExceeded: a driver's attach limit is reached.
	ErrReasonMaxVolumeCountExceeded = "node(s) exceed max volume count"

	// unboundVolumePrefix stands in for the volume handle of a claim that
	// is not bound yet. Upstream draws 32 random characters once per
	// plugin instance; only its being constant and unlike any real handle
	// matters, and drawing from the engine's seeded source would shift
	// every later random choice.
	unboundVolumePrefix = "schedtui-unbound-volume"
)

// CSILimits implements PreFilter and Filter.
type CSILimits struct {
	objs framework.ObjectLister
	// enableVolumeLimitScaling is the VolumeLimitScaling gate (beta, on by
	// default in 1.37).
	enableVolumeLimitScaling bool
	cache                    attachedCache
}

var (
	_ framework.PreFilterPlugin   = &CSILimits{}
	_ framework.FilterPlugin      = &CSILimits{}
	_ framework.EnqueueExtensions = &CSILimits{}
)

// New builds the plugin; it takes no args.
func New(_ runtime.Object, h framework.Handle) (framework.Plugin, error) {
	return &CSILimits{objs: h.Objects(), enableVolumeLimitScaling: h.Features().EnableVolumeLimitScaling}, nil
}

// Name returns the plugin's name.
func (pl *CSILimits) Name() string { return Name }

// PreFilter skips Filter for pods without claims, generic ephemeral
// volumes or migratable inline volumes: nothing else can count. Otherwise
// it leaves Filter a place to work out the pod's own volumes once for the
// cycle instead of once per node (podVolumes).
func (pl *CSILimits) PreFilter(_ context.Context, state *framework.CycleState, pod *v1.Pod, _ []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	for i := range pod.Spec.Volumes {
		vol := &pod.Spec.Volumes[i]
		if vol.PersistentVolumeClaim != nil || vol.Ephemeral != nil || csimigration.IsInlineMigratable(vol) {
			if state != nil {
				state.Write(preFilterStateKey, &podVolumes{pod: pod})
			}
			return nil, nil
		}
	}
	return nil, framework.NewStatus(framework.Skip)
}

// PreFilterExtensions: Filter reads the node's pods directly.
func (pl *CSILimits) PreFilterExtensions() framework.PreFilterExtensions { return nil }

const preFilterStateKey framework.StateKey = "PreFilter" + Name

// podVolumes is the CSI volumes the pod being scheduled would attach, as
// Filter works them out for a node, kept for the cycle. They depend on the
// node only through whether it has a CSINode object (in-tree volumes
// count as CSI ones only on a node that has one, isCSIMigrationOn), so
// there are two answers, each worked out by the first Filter that needs
// it (Filter runs on the nodes in parallel).
type podVolumes struct {
	pod  *v1.Pod
	once [2]sync.Once
	sets [2]newVolumes
}

// newVolumes is filterAttachableVolumes' answer for the pod being
// scheduled: its volumes ("driver/handle" to driver) or the error, the
// volumes' keys in order, and ObjectLister.CSIDriver's answer for each
// key's driver (VolumeLimitScaling's check).
type newVolumes struct {
	volumes map[string]string
	keys    []string
	drivers []driverLookup
	err     error
}

// Clone shares the state: nothing changes it but its own once.
func (s *podVolumes) Clone() framework.StateData { return s }

// newVolumes returns the pod's volumes on a node with (or without) a
// CSINode object, from the cycle's state when PreFilter left one for pod.
func (pl *CSILimits) newVolumes(state *framework.CycleState, pod *v1.Pod, csiNode *storagev1.CSINode) *newVolumes {
	i := 0
	if csiNode != nil {
		i = 1
	}
	if state != nil {
		if c, err := state.Read(preFilterStateKey); err == nil {
			if s, ok := c.(*podVolumes); ok && s.pod == pod {
				s.once[i].Do(func() { s.sets[i] = pl.workOutNewVolumes(pod, csiNode) })
				return &s.sets[i]
			}
		}
	}
	v := pl.workOutNewVolumes(pod, csiNode)
	return &v
}

func (pl *CSILimits) workOutNewVolumes(pod *v1.Pod, csiNode *storagev1.CSINode) newVolumes {
	v := newVolumes{volumes: map[string]string{}}
	if v.err = pl.filterAttachableVolumes(pod, csiNode, true, v.volumes); v.err != nil {
		return v
	}
	if pl.enableVolumeLimitScaling {
		// Upstream ranges over a map here, so with several missing drivers
		// its message names a random one; sorted order makes ours stable.
		v.keys = sortedKeys(v.volumes)
		for _, key := range v.keys {
			var l driverLookup
			l.driver, l.err = pl.csiDriver(v.volumes[key])
			v.drivers = append(v.drivers, l)
		}
	}
	return v
}

// Filter counts, per driver, the pod's new volumes against the volumes of
// the node's pods and the node's VolumeAttachments.
func (pl *CSILimits) Filter(_ context.Context, state *framework.CycleState, pod *v1.Pod, nodeInfo *framework.NodeInfo) *framework.Status {
	if len(pod.Spec.Volumes) == 0 {
		return nil
	}
	node := nodeInfo.Node()
	if node == nil {
		return framework.AsStatus(errors.New("node not found"))
	}
	nv := pl.nodeVolumes(nodeInfo)
	csiNode := nv.csiNode
	newVols := pl.newVolumes(state, pod, csiNode)
	if err := newVols.err; err != nil {
		if apierrors.IsNotFound(err) {
			// The pod cannot run until its claim exists.
			return framework.NewStatus(framework.UnschedulableAndUnresolvable, err.Error())
		}
		return framework.AsStatus(err)
	}
	if len(newVols.volumes) == 0 {
		return nil
	}

	if pl.enableVolumeLimitScaling {
		for i, key := range newVols.keys {
			driver := newVols.volumes[key]
			installed, err := driverInstalled(driver, newVols.drivers[i], csiNode)
			if err != nil {
				return framework.AsStatus(err)
			}
			if !installed {
				return framework.NewStatus(framework.Unschedulable, fmt.Sprintf("%s CSI driver is not installed on the node", driver))
			}
		}
	}

	if !nv.hasLimits {
		return nil
	}
	if nv.err != nil {
		return framework.AsStatus(nv.err)
	}
	// A volume already used on the node does not attach again.
	var newCount []driverVolumes
	for unique, driver := range newVols.volumes {
		if _, ok := nv.attached[unique]; !ok {
			newCount = addVolume(newCount, driver)
		}
	}
	attachments := pl.nodeVolumeAttachments(node.Name)
	for _, c := range newCount {
		limit, ok := volumeLimit(csiNode, c.driver)
		if !ok {
			continue
		}
		// Attached: by the node's pods, and by VolumeAttachments for
		// volumes no pod there uses.
		n := volumesOf(nv.perDriver, c.driver)
		for unique, driver := range attachments {
			if _, ok := nv.attached[unique]; !ok && driver == c.driver {
				n++
			}
		}
		if int64(n+c.count) > limit {
			return framework.NewStatus(framework.Unschedulable, ErrReasonMaxVolumeCountExceeded)
		}
	}
	return nil
}

// driverInstalled reports whether the driver is installed, which only
// matters for a CSIDriver that opted in with preventPodSchedulingIfMissing;
// an unknown driver may not be a CSI driver at all and is let through.
// l is ObjectLister.CSIDriver's answer for driver.
func driverInstalled(driver string, l driverLookup, csiNode *storagev1.CSINode) (bool, error) {
	d, err := l.driver, l.err
	if err != nil {
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		return false, fmt.Errorf("error getting CSIDriver for provider %s: %w", driver, err)
	}
	if d.Spec.PreventPodSchedulingIfMissing == nil || !*d.Spec.PreventPodSchedulingIfMissing {
		return true, nil
	}
	if csiNode == nil {
		return false, nil
	}
	for _, nd := range csiNode.Spec.Drivers {
		if nd.Name == driver {
			return true, nil
		}
	}
	return false, nil
}

// volumeLimit is the CSINode's allocatable count for the driver; a driver
// without a count has no limit. Looked up in the CSINode's (short) driver
// list rather than a map built per node: Filter runs on every node. A
// driver listed twice counts by its last entry with a count.
func volumeLimit(csiNode *storagev1.CSINode, driver string) (limit int64, ok bool) {
	if csiNode == nil {
		return 0, false
	}
	for _, d := range csiNode.Spec.Drivers {
		if d.Name == driver && d.Allocatable != nil && d.Allocatable.Count != nil {
			limit, ok = int64(*d.Allocatable.Count), true
		}
	}
	return limit, ok
}

// hasVolumeLimits reports whether any driver of the CSINode has a count.
func hasVolumeLimits(csiNode *storagev1.CSINode) bool {
	if csiNode == nil {
		return false
	}
	for _, d := range csiNode.Spec.Drivers {
		if d.Allocatable != nil && d.Allocatable.Count != nil {
			return true
		}
	}
	return false
}

// nodeVolumeAttachments maps "driver/handle" to driver for the node's
// VolumeAttachments whose PV is a CSI volume.
func (pl *CSILimits) nodeVolumeAttachments(nodeName string) map[string]string {
	vas := pl.objs.VolumeAttachments()
	if len(vas) == 0 {
		return nil
	}
	out := map[string]string{}
	for _, va := range vas {
		if va == nil || va.Spec.NodeName != nodeName || va.Spec.Attacher == "" || va.Spec.Source.PersistentVolumeName == nil {
			continue
		}
		pv, err := pl.objs.PersistentVolume(*va.Spec.Source.PersistentVolumeName)
		if err != nil || pv.Spec.CSI == nil {
			continue
		}
		out[uniqueName(va.Spec.Attacher, pv.Spec.CSI.VolumeHandle)] = va.Spec.Attacher
	}
	return out
}

func uniqueName(driver, handle string) string { return driver + "/" + handle }

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
