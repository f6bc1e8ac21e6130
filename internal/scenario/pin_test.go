package scenario

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"
)

// TestScenariosPinned pins what the generators and the curated cases
// build, object for object: a change to how objects are built (defaulting,
// admission, the split of the package into files) must leave every
// scenario identical, or the conformance suite no longer runs the cases it
// was tuned on. A deliberate change to a scenario updates the sum.
func TestScenariosPinned(t *testing.T) {
	var all []*Scenario
	for seed := int64(0); seed < 12; seed++ {
		all = append(all, Generate(seed, Options{Preemption: seed%2 == 1}))
	}
	all = append(all, GenerateDRA(3), GenerateDRA(8), GenerateDRAExtended(4), GenerateDRAExtended(9))
	for _, s := range Curated() {
		if len(s.Cluster.Nodes) < 1000 {
			all = append(all, s)
		}
	}
	all = append(all, CuratedDRA()...)
	all = append(all, CuratedDRAExtended()...)
	h := sha256.New()
	for _, s := range all {
		h.Write([]byte(s.Name + "\n"))
		h.Write(jsonBytes(t, s))
	}
	const want = "075417a5694263173642a94140e05f536c0ff907be0d22c21622fd885bb3c56a"
	if got := hex.EncodeToString(h.Sum(nil)); got != want {
		t.Errorf("the %d scenarios hash to %s, want %s", len(all), got, want)
	}
}
