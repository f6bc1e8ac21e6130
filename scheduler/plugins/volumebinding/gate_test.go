package volumebinding

import (
	"testing"

	"github.com/schedtui/schedtui/scheduler/framework/frameworktest"
)

// TestNoScorerWithoutStorageCapacityScoring: with the gate off (emulating
// 1.34-1.36) the default args have no shape and, as upstream, the plugin
// has no scorer: PreScore skips instead of indexing an empty shape.
func TestNoScorerWithoutStorageCapacityScoring(t *testing.T) {
	h := frameworktest.NewHandle(nil, nil)
	h.Gates.EnableStorageCapacityScoring = false
	p, err := New(nil, h)
	if err != nil {
		t.Fatal(err)
	}
	if p.(*VolumeBinding).scorer != nil {
		t.Error("a scorer without StorageCapacityScoring")
	}
	h.Gates.EnableStorageCapacityScoring = true
	if p, err = New(nil, h); err != nil || p.(*VolumeBinding).scorer == nil {
		t.Errorf("no scorer with StorageCapacityScoring: %v", err)
	}
}
