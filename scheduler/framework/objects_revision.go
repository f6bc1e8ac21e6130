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
