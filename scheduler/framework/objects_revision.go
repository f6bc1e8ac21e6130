package framework

import "sync/atomic"

// revisions numbers every change of every ObjectStore's kinds, so that a
// kind's revision never comes back, even when CopyFrom restores older
// contents.
var revisions atomic.Uint64

func (s *store[T]) changed() { s.rev = revisions.Add(1) }

// DRARevisions is an ObjectLister that tells whether the objects the DRA
// allocator reads changed: each revision differs from the last one read
// whenever the kinds it covers changed since.
type DRARevisions interface {
	// ResourceClaimsRevision covers the ResourceClaims.
	ResourceClaimsRevision() uint64
	// DevicesRevision covers the ResourceSlices, DeviceClasses and
	// DeviceTaintRules.
	DevicesRevision() uint64
}

var _ DRARevisions = &ObjectStore{}

func (o *ObjectStore) ResourceClaimsRevision() uint64 { return o.claims.rev }

func (o *ObjectStore) DevicesRevision() uint64 {
	return max(o.slices.rev, o.devClasses.rev, o.taintRules.rev)
}

// VolumeRevisions is an ObjectLister that tells whether the objects that
// say which volumes a pod attaches changed: the revision differs from the
// last one read whenever PersistentVolumeClaims, PersistentVolumes,
// StorageClasses, CSINodes or CSIDrivers changed since.
type VolumeRevisions interface {
	VolumesRevision() uint64
}

var _ VolumeRevisions = &ObjectStore{}

func (o *ObjectStore) VolumesRevision() uint64 {
	return max(o.pvcs.rev, o.pvs.rev, o.classes.rev, o.csiNodes.rev, o.csiDrivers.rev)
}
