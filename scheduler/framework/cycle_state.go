package framework

import (
	"errors"

	"k8s.io/apimachinery/pkg/util/sets"
)

// ErrNotFound is returned by CycleState.Read for a missing key.
var ErrNotFound = errors.New("not found")

// StateData is what plugins keep in CycleState between extension points.
type StateData interface {
	Clone() StateData
}

// StateKey names an entry of CycleState.
type StateKey string

// CycleState holds one scheduling cycle's plugin data. The cycle is run on
// one goroutine, so it needs no lock.
type CycleState struct {
	// storage is a short list (one entry per plugin that keeps state, a
	// dozen at most) searched in order: plugins read their state on every
	// node, and comparing a few keys costs less than hashing one.
	storage []stateEntry
	// SkipFilterPlugins and SkipScorePlugins are set through
	// SetSkipFilterPlugins and SetSkipScorePlugins, which keep the plugins
	// left to run beside them.
	SkipFilterPlugins sets.Set[string]
	SkipScorePlugins  sets.Set[string]
	// filterToRun and scoreToRun are the plugins not skipped, in the
	// framework's order: Filter runs on every node, and looking each
	// plugin up in the skip set there would cost a map access per node
	// and plugin.
	filterToRun []FilterPlugin
	scoreToRun  []ScorePlugin
	// podGroupCycle is the pod-group cycle's state a member's cycle runs
	// in (upstream's PodGroupSchedulingCycle), nil outside one and once
	// the member goes to binding.
	podGroupCycle *CycleState
	// podShape names the pod's shape for the framework's verdict memo
	// (PodShape).
	podShape uint64
}

// SetPodShape records the verdict memo's key for the cycle's pod (0: none).
func (c *CycleState) SetPodShape(key uint64) { c.podShape = key }

// PodShape is the framework's verdict memo's key for the cycle's pod, or
// 0: pods with the same non-zero key are alike in every field a
// node-local plugin reads (runtime's samePodShape), and so in their
// requests, so that a plugin may keep what it computed from them (the
// pod's requests) for the next pod of the key.
func (c *CycleState) PodShape() uint64 { return c.podShape }

// ShapeMemo keeps a value a plugin computed from the cycle's pod for the
// next pod of the same shape (CycleState.PodShape): every pod of a
// template asks the same. A plugin's memo is used by one cycle at a time.
type ShapeMemo[T any] struct {
	shape uint64
	value T
}

// Get is the value kept for the cycle's pod shape, or compute's, kept for
// the next pod of that shape when the pod has one.
func (m *ShapeMemo[T]) Get(state *CycleState, compute func() T) T {
	shape := state.PodShape()
	if shape != 0 && shape == m.shape {
		return m.value
	}
	v := compute()
	if shape != 0 {
		m.shape, m.value = shape, v
	}
	return v
}

// SetPodGroupCycle marks the state as a member's in the pod-group cycle
// whose state is pg (nil: not in one).
func (c *CycleState) SetPodGroupCycle(pg *CycleState) { c.podGroupCycle = pg }

// PodGroupCycle is the pod-group cycle's state, nil outside one.
func (c *CycleState) PodGroupCycle() *CycleState { return c.podGroupCycle }

// SetSkipFilterPlugins records the Filter plugins PreFilter skipped and
// the ones left to run, in order.
func (c *CycleState) SetSkipFilterPlugins(skip sets.Set[string], toRun []FilterPlugin) {
	c.SkipFilterPlugins, c.filterToRun = skip, toRun
}

// FilterPluginsToRun is the toRun of SetSkipFilterPlugins; ok is false
// before it was called.
func (c *CycleState) FilterPluginsToRun() (toRun []FilterPlugin, ok bool) {
	return c.filterToRun, c.filterToRun != nil
}

// SetSkipScorePlugins records the Score plugins PreScore skipped and the
// ones left to run, in order.
func (c *CycleState) SetSkipScorePlugins(skip sets.Set[string], toRun []ScorePlugin) {
	c.SkipScorePlugins, c.scoreToRun = skip, toRun
}

// ScorePluginsToRun is the toRun of SetSkipScorePlugins; ok is false
// before it was called.
func (c *CycleState) ScorePluginsToRun() (toRun []ScorePlugin, ok bool) {
	return c.scoreToRun, c.scoreToRun != nil
}

type stateEntry struct {
	key StateKey
	val StateData
}

// NewCycleState returns an empty state.
func NewCycleState() *CycleState {
	return &CycleState{}
}

func (c *CycleState) find(key StateKey) int {
	for i := range c.storage {
		if c.storage[i].key == key {
			return i
		}
	}
	return -1
}

// Read returns the data under key, or ErrNotFound.
func (c *CycleState) Read(key StateKey) (StateData, error) {
	if i := c.find(key); i >= 0 {
		return c.storage[i].val, nil
	}
	return nil, ErrNotFound
}

// Write stores data under key.
func (c *CycleState) Write(key StateKey, val StateData) {
	if i := c.find(key); i >= 0 {
		c.storage[i].val = val
		return
	}
	c.storage = append(c.storage, stateEntry{key, val})
}

// Delete removes key.
func (c *CycleState) Delete(key StateKey) {
	if i := c.find(key); i >= 0 {
		c.storage = append(c.storage[:i], c.storage[i+1:]...)
	}
}

// Clone deep-copies the state through each entry's Clone.
func (c *CycleState) Clone() *CycleState {
	if c == nil {
		return nil
	}
	out := &CycleState{storage: make([]stateEntry, len(c.storage))}
	for i, e := range c.storage {
		out.storage[i].key = e.key
		if e.val != nil {
			out.storage[i].val = e.val.Clone()
		}
	}
	out.podGroupCycle, out.podShape = c.podGroupCycle, c.podShape
	out.SkipFilterPlugins = c.SkipFilterPlugins.Clone()
	out.SkipScorePlugins = c.SkipScorePlugins.Clone()
	// The plugin lists are never changed in place, so copies share them.
	out.filterToRun, out.scoreToRun = c.filterToRun, c.scoreToRun
	return out
}
