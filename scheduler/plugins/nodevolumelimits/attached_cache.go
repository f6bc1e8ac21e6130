package nodevolumelimits

import (
	"sync"

	storagev1 "k8s.io/api/storage/v1"

	"github.com/schedtui/schedtui/scheduler/framework"
)

// attachedCache remembers what Filter works out per node that does not
// depend on the pod being scheduled: the CSI volumes the node's pods
// attach (a claim and its volume looked up for every pod on the node), and
// the CSIDriver objects looked up by name. Filter runs on every node of
// every cycle, and between two cycles a node's pods rarely change: an
// entry holds while the node's NodeInfo.Generation (never reused, a copy
// keeps its original's) is the one it was made at, and the whole cache
// while the objects it read are unchanged (framework.VolumeRevisions). An
// ObjectLister without revisions is not cached.
type attachedCache struct {
	mu      sync.Mutex
	rev     uint64
	nodes   map[string]nodeAttached
	drivers map[string]driverLookup
}

// nodeAttached is filterAttachableVolumes over a node's pods at one
// generation: the volumes ("driver/handle" to driver), or the first
// error.
type nodeAttached struct {
	generation int64
	attached   map[string]string
	err        error
}

// driverLookup is ObjectLister.CSIDriver's answer.
type driverLookup struct {
	driver *storagev1.CSIDriver
	err    error
}

// valid empties the cache if the volume objects changed since it was
// filled, and reports whether it may be used at all. Called with mu held.
func (c *attachedCache) valid(objs framework.ObjectLister) bool {
	revs, ok := objs.(framework.VolumeRevisions)
	if !ok {
		return false
	}
	if rev := revs.VolumesRevision(); rev != c.rev || c.nodes == nil {
		c.rev, c.nodes, c.drivers = rev, map[string]nodeAttached{}, map[string]driverLookup{}
	}
	return true
}

// attachedVolumes is the CSI volumes the pods on the node attach, as
// filterAttachableVolumes adds them up pod by pod; the map must not be
// changed.
func (pl *CSILimits) attachedVolumes(nodeInfo *framework.NodeInfo, csiNode *storagev1.CSINode) (map[string]string, error) {
	c := &pl.cache
	c.mu.Lock()
	cached, rev := c.valid(pl.objs), c.rev
	if e, ok := c.nodes[nodeInfo.Name()]; cached && ok && e.generation == nodeInfo.Generation {
		c.mu.Unlock()
		return e.attached, e.err
	}
	// Worked out without the lock: Filter runs on the nodes in parallel,
	// and a cycle after a change misses on many of them.
	c.mu.Unlock()
	attached := map[string]string{}
	var err error
	for _, existing := range nodeInfo.Pods {
		if existing == nil || existing.Pod == nil {
			continue
		}
		if err = pl.filterAttachableVolumes(existing.Pod, csiNode, false, attached); err != nil {
			break
		}
	}
	if cached {
		c.mu.Lock()
		if c.rev == rev && c.nodes != nil {
			c.nodes[nodeInfo.Name()] = nodeAttached{generation: nodeInfo.Generation, attached: attached, err: err}
		}
		c.mu.Unlock()
	}
	return attached, err
}

// csiDriver is ObjectLister.CSIDriver, remembered while the volume
// objects are unchanged (a driver not found is looked up, and its
// NotFound error built, once rather than on every node).
func (pl *CSILimits) csiDriver(name string) (*storagev1.CSIDriver, error) {
	c := &pl.cache
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.valid(pl.objs) {
		return pl.objs.CSIDriver(name)
	}
	l, ok := c.drivers[name]
	if !ok {
		l.driver, l.err = pl.objs.CSIDriver(name)
		c.drivers[name] = l
	}
	return l.driver, l.err
}
