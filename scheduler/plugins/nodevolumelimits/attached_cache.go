package nodevolumelimits

import (
	"sync"

	storagev1 "k8s.io/api/storage/v1"

	"github.com/schedtui/schedtui/scheduler/framework"
)

// attachedCache remembers what Filter works out per node that does not
// depend on the pod being scheduled: the node's CSINode, the CSI volumes
// the node's pods attach (a claim and its volume looked up for every pod
// on the node), and the CSIDriver objects looked up by name. Filter runs
// on every node of every cycle, and between two cycles a node's pods
// rarely change: an entry holds while the node's NodeInfo.Generation
// (never reused, a copy keeps its original's) is the one it was made at,
// and the whole cache while the objects it read are unchanged
// (framework.VolumeRevisions). An ObjectLister without revisions is not
// cached.
type attachedCache struct {
	mu      sync.Mutex
	rev     uint64
	nodes   map[string]*nodeVolumes
	drivers map[string]driverLookup
}

// nodeVolumes is a node at one generation as Filter reads it: its CSINode
// (nil without one) and whether it has limits, and filterAttachableVolumes
// over its pods: the volumes ("driver/handle" to driver), how many of
// each driver, or the first error.
type nodeVolumes struct {
	generation int64
	csiNode    *storagev1.CSINode
	hasLimits  bool
	attached   map[string]string
	perDriver  []driverVolumes
	err        error
}

// driverVolumes is a number of volumes of one driver.
type driverVolumes struct {
	driver string
	count  int
}

// addVolume counts one more volume of driver in counts.
func addVolume(counts []driverVolumes, driver string) []driverVolumes {
	for i := range counts {
		if counts[i].driver == driver {
			counts[i].count++
			return counts
		}
	}
	return append(counts, driverVolumes{driver, 1})
}

// volumesOf is how many volumes of driver counts holds.
func volumesOf(counts []driverVolumes, driver string) int {
	for _, c := range counts {
		if c.driver == driver {
			return c.count
		}
	}
	return 0
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
		c.rev, c.nodes, c.drivers = rev, map[string]*nodeVolumes{}, map[string]driverLookup{}
	}
	return true
}

// nodeVolumes is the node as Filter reads it; it must not be changed.
func (pl *CSILimits) nodeVolumes(nodeInfo *framework.NodeInfo) *nodeVolumes {
	c := &pl.cache
	c.mu.Lock()
	cached, rev := c.valid(pl.objs), c.rev
	if e := c.nodes[nodeInfo.Name()]; cached && e != nil && e.generation == nodeInfo.Generation {
		c.mu.Unlock()
		return e
	}
	// Worked out without the lock: Filter runs on the nodes in parallel,
	// and a cycle after a change misses on many of them.
	c.mu.Unlock()
	e := &nodeVolumes{generation: nodeInfo.Generation, attached: map[string]string{}}
	// A node without a CSINode object has no limits and no drivers.
	if csiNode, err := pl.objs.CSINode(nodeInfo.Name()); err == nil {
		e.csiNode = csiNode
	}
	e.hasLimits = hasVolumeLimits(e.csiNode)
	for _, existing := range nodeInfo.Pods {
		if existing == nil || existing.Pod == nil {
			continue
		}
		if e.err = pl.filterAttachableVolumes(existing.Pod, e.csiNode, false, e.attached); e.err != nil {
			break
		}
	}
	for _, driver := range e.attached {
		e.perDriver = addVolume(e.perDriver, driver)
	}
	if cached {
		c.mu.Lock()
		if c.rev == rev && c.nodes != nil {
			c.nodes[nodeInfo.Name()] = e
		}
		c.mu.Unlock()
	}
	return e
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
