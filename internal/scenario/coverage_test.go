package scenario

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// minScenariosPerFeature is how many of the 500 coverage seeds must exercise
// each feature of AllFeatures.
const minScenariosPerFeature = 5

// coverageOptions is the option mix the coverage test (and the conformance
// suite's default sweep) uses: every other seed in preemption mode.
func coverageOptions(seed int64) Options { return Options{Preemption: seed%2 == 1} }

// TestFeatureCoverage generates seeds 0..499 and checks that every feature
// in AllFeatures is exercised by at least minScenariosPerFeature scenarios.
// Run with -v to see the table.
func TestFeatureCoverage(t *testing.T) {
	const seeds = 500
	counts := map[string]int{}
	for seed := int64(0); seed < seeds; seed++ {
		s := Generate(seed, coverageOptions(seed))
		if !slices.IsSorted(s.Features) {
			t.Errorf("seed %d: Features not sorted", seed)
		}
		for _, f := range s.Features {
			counts[f]++
			if !slices.Contains(AllFeatures, f) {
				t.Errorf("seed %d reports unlisted feature %q", seed, f)
			}
		}
	}
	var b strings.Builder
	for _, f := range AllFeatures {
		fmt.Fprintf(&b, "%5d  %s\n", counts[f], f)
		if counts[f] < minScenariosPerFeature {
			t.Errorf("feature %q appears in %d of %d scenarios, want >= %d", f, counts[f], seeds, minScenariosPerFeature)
		}
	}
	t.Logf("scenarios per feature over seeds 0..%d:\n%s", seeds-1, b.String())
}

func TestAllFeaturesUnique(t *testing.T) {
	seen := map[string]bool{}
	for _, f := range AllFeatures {
		if seen[f] {
			t.Errorf("duplicate feature %q", f)
		}
		seen[f] = true
	}
}
