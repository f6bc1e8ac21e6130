package dynamicresources

// The allocator's inputs kept across scheduling cycles, and its answers
// per node.
//
// Upstream's allocator converts the node's ResourceSlices and searches its
// pools on every Allocate call, and its constructor indexes every slice by
// node: at thousands of nodes that was most of a DRA attempt here. Allocate
// for one node reads only
//   - the node object,
//   - the slices of the pools the node can see (its own slices, the slices
//     without spec.nodeName, the slices with shared counters, and the other
//     slices of those pools, which the allocator consults for pool
//     completeness and counters),
//   - the devices already taken in those pools,
//   - the device classes, the claims' specs and the features,
// and returns the same answer for the same inputs (no clock, no
// randomness, except the share IDs of consumable capacity). So each miss
// calls upstream's allocator with exactly those slices (in store order) and
// those taken devices, and an answer is reused while the node object, every
// slice, taint rule and class, and the taken devices of the node's pools
// are the same objects as when it was computed. TestAllocationCacheMatchesAllocator
// checks this against an allocator over everything, as upstream builds it.

import (
	"context"
	"slices"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/dynamic-resource-allocation/structured"

	"github.com/schedtui/schedtui/scheduler/framework"
)

// maxAnswers bounds the answers kept; past it they are all dropped.
const maxAnswers = 1 << 16

type poolKey struct{ driver, pool string }

// contribKey names a claim whose allocation takes devices: a stored claim
// by namespace and name, an in-flight one by UID.
type contribKey struct {
	namespace, name string
	inFlight        types.UID
}

// contribution is what one claim's allocation takes, as upstream's
// GatherAllocatedState counts it (see newContribution).
type contribution struct {
	claim    *resourcev1.ResourceClaim
	devices  []structured.DeviceID
	shared   []structured.SharedDeviceID
	consumed []structured.DeviceConsumedCapacity
	pools    []poolKey
	seen     uint64
}

// poolState is who takes devices in a pool, and a version that changes
// with them.
type poolState struct {
	version  uint64
	contribs map[contribKey]*contribution
}

// nodeView is what the allocator is given for one node: the pools it can
// see and all their slices, in store order.
type nodeView struct {
	pools  []poolKey
	states []*poolState // of pools
	slices []*resourcev1.ResourceSlice
}

// answer is the allocator's answer for one node and claims.
type answer struct {
	claims   string // claimsKey
	gen      uint64
	node     *v1.Node
	versions []uint64 // of the view's pools, in order
	result   []resourcev1.AllocationResult
}

// nodeEntry is what the cache holds for one node.
type nodeEntry struct {
	view    *nodeView
	answers []*answer
}

// allocationCache is the plugin's; sync updates it in PreFilter, Filter
// reads it (in parallel) under mu.
type allocationCache struct {
	mu sync.Mutex

	// The store's slices, taint rules and classes as last synced, by
	// pointer (stored objects are replaced, never mutated); gen counts
	// their changes, each of which drops every answer.
	storeSlices  []*resourcev1.ResourceSlice
	storeRules   []*resourcev1.DeviceTaintRule
	storeClasses []*resourcev1.DeviceClass
	synced       bool
	devicesRev   uint64 // framework.DRARevisions', when synced
	claimsRev    uint64
	gen          uint64
	slices       []*resourcev1.ResourceSlice // with the taint rules applied
	poolSlices   map[poolKey][]int           // indices into slices
	nodePools    map[string][]poolKey        // pools of slices with spec.nodeName
	globalPools  []poolKey                   // pools every node may see
	nodes        map[string]*nodeEntry
	answers      int // in nodes

	// The claims' contributions, and per pool which claims contribute and
	// a version that changes with them.
	stored   []*resourcev1.ResourceClaim // as last synced
	inFlight []contribKey                // as last synced
	contribs map[contribKey]*contribution
	pools    map[poolKey]*poolState
	clock    uint64
	epoch    uint64
}

func newAllocationCache() *allocationCache {
	return &allocationCache{
		contribs: map[contribKey]*contribution{},
		pools:    map[poolKey]*poolState{},
	}
}

// sync brings the cache up to the store and the in-flight claims.
func (c *allocationCache) sync(objs framework.ObjectLister, inFlight []*resourcev1.ResourceClaim, withRules, consumable bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	// The store's revisions spare listing thousands of objects that did
	// not change.
	revs, _ := objs.(framework.DRARevisions)
	if revs == nil || !c.synced || revs.DevicesRevision() != c.devicesRev {
		c.syncSlices(objs, withRules)
		if revs != nil {
			c.devicesRev = revs.DevicesRevision()
		}
	}
	if revs == nil || c.stored == nil || revs.ResourceClaimsRevision() != c.claimsRev {
		c.syncClaims(objs.ResourceClaims(), inFlight, consumable)
		if revs != nil {
			c.claimsRev = revs.ResourceClaimsRevision()
		}
		return
	}
	c.syncInFlight(inFlight, consumable)
}

func (c *allocationCache) syncSlices(objs framework.ObjectLister, withRules bool) {
	all := objs.ResourceSlices()
	var rules []*resourcev1.DeviceTaintRule
	if withRules {
		rules = objs.DeviceTaintRules()
	}
	classes := objs.DeviceClasses()
	if c.synced && slices.Equal(all, c.storeSlices) && slices.Equal(rules, c.storeRules) && slices.Equal(classes, c.storeClasses) {
		return
	}
	c.synced = true
	c.gen++
	c.storeSlices, c.storeRules, c.storeClasses = all, rules, classes
	c.slices = all
	if len(rules) > 0 {
		c.slices = make([]*resourcev1.ResourceSlice, len(all))
		for i, s := range all {
			c.slices[i] = applyTaintRules(s, rules)
		}
	}
	c.poolSlices = map[poolKey][]int{}
	c.nodePools = map[string][]poolKey{}
	c.globalPools = nil
	for i, s := range c.slices {
		p := poolKey{s.Spec.Driver, s.Spec.Pool.Name}
		c.poolSlices[p] = append(c.poolSlices[p], i)
		node := ""
		if s.Spec.NodeName != nil {
			node = *s.Spec.NodeName
		}
		// The stable allocator takes every slice with shared counters,
		// whatever node it names.
		if (node == "" || len(s.Spec.SharedCounters) > 0) && !slices.Contains(c.globalPools, p) {
			c.globalPools = append(c.globalPools, p)
		}
		if node != "" && !slices.Contains(c.nodePools[node], p) {
			c.nodePools[node] = append(c.nodePools[node], p)
		}
	}
	c.nodes = map[string]*nodeEntry{}
	c.answers = 0
}

func (c *allocationCache) syncClaims(stored, inFlight []*resourcev1.ResourceClaim, consumable bool) {
	// The store lists claims in insertion order and replaces a claim in
	// its place: with the same names at the same places as last time,
	// only the replaced claims need a look.
	if len(stored) == len(c.stored) && c.sameNames(stored) {
		for i, claim := range stored {
			if c.stored[i] != claim {
				c.visit(contribKey{namespace: claim.Namespace, name: claim.Name}, claim, consumable)
			}
		}
		c.stored = stored
		c.syncInFlight(inFlight, consumable)
		return
	}
	c.stored = stored
	c.epoch++
	for _, claim := range stored {
		c.visit(contribKey{namespace: claim.Namespace, name: claim.Name}, claim, consumable)
	}
	c.syncInFlight(inFlight, consumable)
	for k, old := range c.contribs {
		if old.seen != c.epoch {
			c.detach(k, old)
			delete(c.contribs, k)
		}
	}
}

func (c *allocationCache) sameNames(stored []*resourcev1.ResourceClaim) bool {
	for i, claim := range stored {
		if old := c.stored[i]; old != claim && (old.Namespace != claim.Namespace || old.Name != claim.Name) {
			return false
		}
	}
	return true
}

func (c *allocationCache) syncInFlight(inFlight []*resourcev1.ResourceClaim, consumable bool) {
	keys := make([]contribKey, 0, len(inFlight))
	for _, claim := range inFlight {
		k := contribKey{inFlight: claim.UID}
		keys = append(keys, k)
		c.visit(k, claim, consumable)
	}
	for _, k := range c.inFlight {
		if old := c.contribs[k]; old != nil && !slices.Contains(keys, k) {
			c.detach(k, old)
			delete(c.contribs, k)
		}
	}
	c.inFlight = keys
}

// visit brings the claim's contribution up to date and marks it seen.
func (c *allocationCache) visit(k contribKey, claim *resourcev1.ResourceClaim, consumable bool) {
	old := c.contribs[k]
	if old != nil {
		old.seen = c.epoch
		if old.claim == claim {
			return
		}
	}
	n := newContribution(claim, consumable)
	n.seen = c.epoch
	if old != nil && old.sameDevices(n) {
		old.claim = claim
		return
	}
	if old != nil {
		c.detach(k, old)
	}
	c.contribs[k] = n
	c.attach(k, n)
}

// pool is the pool's state, made on first use; c.mu is held.
func (c *allocationCache) pool(p poolKey) *poolState {
	ps := c.pools[p]
	if ps == nil {
		ps = &poolState{contribs: map[contribKey]*contribution{}}
		c.pools[p] = ps
	}
	return ps
}

func (c *allocationCache) attach(k contribKey, n *contribution) {
	for _, p := range n.pools {
		ps := c.pool(p)
		ps.contribs[k] = n
		c.bump(ps)
	}
}

func (c *allocationCache) detach(k contribKey, old *contribution) {
	for _, p := range old.pools {
		ps := c.pool(p)
		delete(ps.contribs, k)
		c.bump(ps)
	}
}

func (c *allocationCache) bump(ps *poolState) {
	c.clock++
	ps.version = c.clock
}

// newContribution is upstream's GatherAllocatedState (DRAConsumableCapacity
// on) or ListAllAllocatedDevices (off) for one claim: admin-access results
// never count; shared results (a shareID) count by share and consumed
// capacity when consumable capacity is on, as whole devices when it is off.
func newContribution(claim *resourcev1.ResourceClaim, consumable bool) *contribution {
	n := &contribution{claim: claim}
	if claim.Status.Allocation == nil {
		return n
	}
	for _, r := range claim.Status.Allocation.Devices.Results {
		if r.AdminAccess != nil && *r.AdminAccess {
			continue
		}
		if p := (poolKey{r.Driver, r.Pool}); !slices.Contains(n.pools, p) {
			n.pools = append(n.pools, p)
		}
		id := structured.MakeDeviceID(r.Driver, r.Pool, r.Device)
		if consumable && r.ShareID != nil {
			n.shared = append(n.shared, structured.MakeSharedDeviceID(id, r.ShareID))
			if r.ConsumedCapacity != nil {
				n.consumed = append(n.consumed, structured.NewDeviceConsumedCapacity(id, r.ConsumedCapacity))
			}
			continue
		}
		n.devices = append(n.devices, id)
	}
	return n
}

// sameDevices: the two take the same devices (consumed capacity is not
// compared; any makes them differ).
func (n *contribution) sameDevices(o *contribution) bool {
	return slices.Equal(n.devices, o.devices) && slices.Equal(n.shared, o.shared) &&
		len(n.consumed) == 0 && len(o.consumed) == 0
}

// node is the node's entry; c.mu is held.
func (c *allocationCache) node(node string) *nodeEntry {
	if e := c.nodes[node]; e != nil {
		return e
	}
	v := &nodeView{pools: slices.Clone(c.nodePools[node])}
	for _, p := range c.globalPools {
		if !slices.Contains(v.pools, p) {
			v.pools = append(v.pools, p)
		}
	}
	var idx []int
	for _, p := range v.pools {
		idx = append(idx, c.poolSlices[p]...)
	}
	slices.Sort(idx)
	v.states = make([]*poolState, len(v.pools))
	for i, p := range v.pools {
		v.states[i] = c.pool(p)
	}
	v.slices = make([]*resourcev1.ResourceSlice, len(idx))
	for i, j := range idx {
		v.slices[i] = c.slices[j]
	}
	e := &nodeEntry{view: v}
	c.nodes[node] = e
	return e
}

// allocatedState is what the claims take in the view's pools, the only
// devices the allocator asks about for the node; c.mu is held.
func (c *allocationCache) allocatedState(v *nodeView) structured.AllocatedState {
	st := structured.AllocatedState{
		AllocatedDevices:         sets.New[structured.DeviceID](),
		AllocatedSharedDeviceIDs: sets.New[structured.SharedDeviceID](),
		AggregatedCapacity:       structured.NewConsumedCapacityCollection(),
	}
	inPool := func(id structured.DeviceID, p poolKey) bool {
		return id.Driver.String() == p.driver && id.Pool.String() == p.pool
	}
	for i, p := range v.pools {
		for _, n := range v.states[i].contribs {
			for _, id := range n.devices {
				if inPool(id, p) {
					st.AllocatedDevices.Insert(id)
				}
			}
			for _, id := range n.shared {
				if inPool(id.GetDeviceID(), p) {
					st.AllocatedSharedDeviceIDs.Insert(id)
				}
			}
			for _, cc := range n.consumed {
				if inPool(cc.DeviceID, p) {
					st.AggregatedCapacity.Insert(cc)
				}
			}
		}
	}
	return st
}

// cycleAllocation is one scheduling cycle's allocation of the pod's
// unallocated claims, node by node.
type cycleAllocation struct {
	claims []*resourcev1.ResourceClaim
	key    string // claimsKey(claims)
}

// claimsKey identifies the claims' specs (the only part of a claim the
// allocator reads besides names in error messages, which are not kept).
func claimsKey(claims []*resourcev1.ResourceClaim) (string, error) {
	var key []byte
	for _, c := range claims {
		b, err := c.Spec.Marshal()
		if err != nil {
			return "", err
		}
		key = append(key, byte(len(b)>>24), byte(len(b)>>16), byte(len(b)>>8), byte(len(b)))
		key = append(key, b...)
	}
	return string(key), nil
}

// allocate is the allocator's answer for the claims on the node (key is
// claimsKey(claims)): a kept one, or upstream's allocator called over the
// node's view (timeout, if positive, bounds that call, as upstream's
// filterTimeout).
func (pl *DynamicResources) allocate(ctx context.Context, node *v1.Node, claims []*resourcev1.ResourceClaim, key string, timeout time.Duration) ([]resourcev1.AllocationResult, error) {
	c := pl.cache
	c.mu.Lock()
	ne := c.node(node.Name)
	v := ne.view
	for _, e := range ne.answers {
		if e.claims == key && e.gen == c.gen && e.node == node && c.versionsMatch(v, e.versions) {
			c.mu.Unlock()
			return e.result, nil
		}
	}
	gen := c.gen
	versions := make([]uint64, len(v.states))
	for i, ps := range v.states {
		versions[i] = ps.version
	}
	st := c.allocatedState(v)
	c.mu.Unlock()

	alloc, err := structured.NewAllocator(ctx, AllocatorFeatures(pl.fts), st, classLister{pl.h.Objects()}, v.slices, pl.celCache)
	if err != nil {
		return nil, err
	}
	if timeout > 0 {
		c, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		ctx = c
	}
	result, err := alloc.Allocate(ctx, node, claims)
	if err != nil || hasShareID(result) {
		return result, err
	}
	c.mu.Lock()
	if c.gen == gen {
		c.keep(ne, &answer{claims: key, gen: gen, node: node, versions: versions, result: result})
	}
	c.mu.Unlock()
	return result, nil
}

// keep stores the answer in place of an older one for the same claims;
// c.mu is held.
func (c *allocationCache) keep(ne *nodeEntry, a *answer) {
	if i := slices.IndexFunc(ne.answers, func(e *answer) bool { return e.claims == a.claims }); i >= 0 {
		ne.answers[i] = a
		return
	}
	if c.answers >= maxAnswers {
		for _, e := range c.nodes {
			e.answers = nil
		}
		c.answers = 0
	}
	ne.answers = append(ne.answers, a)
	c.answers++
}

func (c *allocationCache) versionsMatch(v *nodeView, versions []uint64) bool {
	for i, ps := range v.states {
		if ps.version != versions[i] {
			return false
		}
	}
	return true
}

// hasShareID: consumable capacity's share IDs are random, unique per
// allocation, so such an answer is never reused.
func hasShareID(result []resourcev1.AllocationResult) bool {
	for _, r := range result {
		for _, d := range r.Devices.Results {
			if d.ShareID != nil {
				return true
			}
		}
	}
	return false
}
