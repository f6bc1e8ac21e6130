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
	storage           map[StateKey]StateData
	SkipFilterPlugins sets.Set[string]
	SkipScorePlugins  sets.Set[string]
}

// NewCycleState returns an empty state.
func NewCycleState() *CycleState {
	return &CycleState{storage: map[StateKey]StateData{}}
}

// Read returns the data under key, or ErrNotFound.
func (c *CycleState) Read(key StateKey) (StateData, error) {
	if v, ok := c.storage[key]; ok {
		return v, nil
	}
	return nil, ErrNotFound
}

// Write stores data under key.
func (c *CycleState) Write(key StateKey, val StateData) { c.storage[key] = val }

// Delete removes key.
func (c *CycleState) Delete(key StateKey) { delete(c.storage, key) }

// Clone deep-copies the state through each entry's Clone.
func (c *CycleState) Clone() *CycleState {
	if c == nil {
		return nil
	}
	out := &CycleState{storage: make(map[StateKey]StateData, len(c.storage))}
	for k, v := range c.storage {
		if v == nil {
			out.storage[k] = nil
			continue
		}
		out.storage[k] = v.Clone()
	}
	out.SkipFilterPlugins = c.SkipFilterPlugins.Clone()
	out.SkipScorePlugins = c.SkipScorePlugins.Clone()
	return out
}
