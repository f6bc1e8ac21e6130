package scenario

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"

	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
)

// TestGangScenarios checks what GenerateGangs promises: the same scenario
// for the same seed, every kind of group within the seeds the conformance
// suite runs (0..15), and pods kube-scheduler will take as members (the
// group's priority).
func TestGangScenarios(t *testing.T) {
	seen := map[string]bool{}
	for seed := int64(0); seed < 16; seed++ {
		s := GenerateGangs(seed)
		if !bytes.Equal(gangBytes(t, s), gangBytes(t, GenerateGangs(seed))) {
			t.Errorf("seed %d: two generations differ", seed)
		}
		for _, f := range s.Features {
			seen[f] = true
		}
		groups := map[string]int32{}
		for _, pg := range append(slices.Clone(s.Cluster.PodGroups), s.LatePodGroups...) {
			if pg.Spec.Priority == nil || pg.UID == "" {
				t.Errorf("%s: PodGroup %s has no priority or UID", s.Name, pg.Name)
				continue
			}
			groups[pg.Name] = *pg.Spec.Priority
		}
		members := 0
		for _, p := range s.Cluster.Pods {
			if p.Spec.SchedulingGroup == nil {
				continue
			}
			members++
			prio, ok := groups[*p.Spec.SchedulingGroup.PodGroupName]
			if !ok && !slices.Contains(s.Features, FeatGroupMissing) {
				t.Errorf("%s: pod %s names PodGroup %s, which does not exist", s.Name, p.Name, *p.Spec.SchedulingGroup.PodGroupName)
			}
			if ok && prio != corev1helpers.PodPriority(p) {
				t.Errorf("%s: pod %s has priority %d, its PodGroup %d", s.Name, p.Name, corev1helpers.PodPriority(p), prio)
			}
		}
		if members == 0 {
			t.Errorf("%s: no pod is a member of a group", s.Name)
		}
	}
	for _, f := range []string{FeatGangFits, FeatGangTooBig, FeatGangGPUTooBig, FeatGangPreempt, FeatGroupBasic,
		FeatGroupMissing, FeatGroupLate, FeatGangBelowMinCount, FeatGangDRA, FeatGangVictimSingle, FeatGangVictimAll, FeatGangOrdinaryPods, FeatGangPreemptNever, FeatGangTopology} {
		if !seen[f] {
			t.Errorf("no scenario of seeds 0..15 has %s", f)
		}
	}
}

// gangBytes is the scenario's objects as JSON (the objects of the
// scheduling.k8s.io kinds carry their kind themselves).
func gangBytes(t *testing.T, s *Scenario) []byte {
	t.Helper()
	b, err := json.Marshal(struct {
		Objects  any
		Late     any
		Features []string
	}{s.Cluster.Objects(), s.LatePodGroups, s.Features})
	if err != nil {
		t.Fatal(err)
	}
	return b
}
