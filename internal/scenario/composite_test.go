package scenario

import (
	"bytes"
	"slices"
	"testing"

	corev1helpers "k8s.io/component-helpers/scheduling/corev1"

	"github.com/schedtui/schedtui/scheduler/features"
	"github.com/schedtui/schedtui/snapshot"
)

// TestCompositeScenarios checks what GenerateCompositeGangs promises: the
// same scenario for the same seed, every kind of hierarchy within the
// seeds the conformance suite runs (0..15), objects the loader takes as they are
// (with the gates on), and members of its root's priority, as
// kube-scheduler requires.
func TestCompositeScenarios(t *testing.T) {
	r, err := features.Resolve("", "", "GenericWorkload=true,TopologyAwareWorkloadScheduling=true,CompositePodGroup=true")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for seed := int64(0); seed < 16; seed++ {
		s := GenerateCompositeGangs(seed)
		data := dumpBytes(t, s)
		if !bytes.Equal(data, dumpBytes(t, GenerateCompositeGangs(seed))) {
			t.Errorf("seed %d: two generations differ", seed)
		}
		for _, f := range s.Features {
			seen[f] = true
		}
		c, rep, err := snapshot.LoadUnder(s.Name, data, &r.Features)
		if err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		for _, p := range rep.Problems {
			t.Errorf("%s: %s", s.Name, p.String())
		}
		if len(s.LateCompositePodGroups) > 0 {
			// The cluster once the late ones exist loads clean too.
			all := &Scenario{Name: s.Name, Cluster: s.Cluster.DeepCopy()}
			all.Cluster.CompositePodGroups = append(all.Cluster.CompositePodGroups, s.LateCompositePodGroups...)
			if _, rep, err := snapshot.LoadUnder(s.Name, dumpBytes(t, all), &r.Features); err != nil || len(rep.Problems) > 0 {
				t.Errorf("%s with its late CompositePodGroups: %v %v", s.Name, err, rep)
			}
		}
		if len(c.CompositePodGroups) != len(s.Cluster.CompositePodGroups) || len(c.PodGroups) != len(s.Cluster.PodGroups) {
			t.Errorf("%s: loaded %d CompositePodGroups and %d PodGroups of %d and %d", s.Name,
				len(c.CompositePodGroups), len(c.PodGroups), len(s.Cluster.CompositePodGroups), len(s.Cluster.PodGroups))
		}
		// Each member's priority is its root's (every group of a
		// hierarchy has the root's).
		prio := map[string]int32{}
		for _, g := range append(slices.Clone(s.Cluster.CompositePodGroups), s.LateCompositePodGroups...) {
			prio["cpg/"+g.Name] = *g.Spec.Priority
		}
		for _, g := range s.Cluster.PodGroups {
			prio[g.Name] = *g.Spec.Priority
			if parent := g.Spec.ParentCompositePodGroupName; parent != nil && prio["cpg/"+*parent] != *g.Spec.Priority {
				t.Errorf("%s: PodGroup %s has priority %d, its parent %d", s.Name, g.Name, *g.Spec.Priority, prio["cpg/"+*parent])
			}
		}
		for _, p := range s.Cluster.Pods {
			if g := p.Spec.SchedulingGroup; g != nil && prio[*g.PodGroupName] != corev1helpers.PodPriority(p) {
				t.Errorf("%s: pod %s has priority %d, its PodGroup %d", s.Name, p.Name, corev1helpers.PodPriority(p), prio[*g.PodGroupName])
			}
		}
	}
	for _, f := range []string{FeatCompositeTwoLevel, FeatCompositeThreeLevel, FeatCompositeChildFails, FeatCompositeTopology, FeatCompositeBasic, FeatCompositeLate,
		FeatCompositePreempt, FeatCompositeVictimAll, FeatCompositeVictimOne} {
		if !seen[f] {
			t.Errorf("no scenario of seeds 0..15 has %s", f)
		}
	}
}
