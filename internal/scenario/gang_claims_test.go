package scenario

import (
	"bytes"
	"testing"

	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/dynamic-resource-allocation/resourceclaim"
)

// TestGroupClaimScenarios checks what GenerateGroupClaimGangs promises:
// the same scenario for the same seed, every kind within the seeds the
// conformance suite runs, and group claims as the resourceclaim
// controller and the scheduler leave them: each member's entry resolves
// to its PodGroup's claim (BindTo names the group), a claim the group
// owns is reserved for the group alone, and on node-0.
func TestGroupClaimScenarios(t *testing.T) {
	seen := map[string]bool{}
	for seed := int64(0); seed < 16; seed++ {
		s := GenerateGroupClaimGangs(seed)
		if !bytes.Equal(gangBytes(t, s), gangBytes(t, GenerateGroupClaimGangs(seed))) {
			t.Errorf("seed %d: two generations differ", seed)
		}
		for _, f := range s.Features {
			seen[f] = true
		}
		claims := map[string]*resourcev1.ResourceClaim{}
		for _, c := range s.Cluster.ResourceClaims {
			claims[c.Name] = c
		}
		groupClaims := 0
		for _, p := range s.Cluster.Pods {
			if p.Spec.SchedulingGroup == nil {
				continue
			}
			for _, pg := range s.Cluster.PodGroups {
				if pg.Name != *p.Spec.SchedulingGroup.PodGroupName || len(pg.Spec.ResourceClaims) == 0 {
					continue
				}
				for i := range p.Spec.ResourceClaims {
					pc := &p.Spec.ResourceClaims[i]
					ref, err := resourceclaim.BindTo(p, pg, pc)
					if err != nil {
						t.Fatalf("%s: %s: %v", s.Name, p.Name, err)
					}
					if ref.Resource != "podgroups" {
						continue
					}
					groupClaims++
					name, _, err := resourceclaim.Name(p, pc)
					if err != nil || name == nil {
						t.Fatalf("%s: %s: the group's claim is not resolved: %v", s.Name, p.Name, err)
					}
					c := claims[*name]
					if c == nil {
						t.Fatalf("%s: %s names claim %s, which does not exist", s.Name, p.Name, *name)
					}
					if err := resourceclaim.IsForPod(p, c, true); pc.ResourceClaimTemplateName != nil && err != nil {
						t.Errorf("%s: %v", s.Name, err)
					}
					if r := c.Status.ReservedFor; len(r) > 0 && (len(r) != 1 || r[0].UID != pg.UID) {
						t.Errorf("%s: claim %s reserved for %v, not its group alone", s.Name, c.Name, r)
					}
					if a := c.Status.Allocation; a != nil && a.Devices.Results[0].Pool != "node-0" {
						t.Errorf("%s: claim %s allocated on %s", s.Name, c.Name, a.Devices.Results[0].Pool)
					}
					if p.Spec.NodeName != "" && p.Spec.NodeName != "node-0" && p.Name == "trainer-old-0" {
						t.Errorf("%s: the claim holder's first member runs on %s", s.Name, p.Spec.NodeName)
					}
				}
			}
		}
		if groupClaims == 0 {
			t.Errorf("%s: no member uses its group's claim", s.Name)
		}
	}
	for _, f := range []string{FeatGroupClaimShared, FeatGroupClaimFresh, FeatGroupClaimUnallocatable, FeatGroupClaimPlusPodClaims, FeatGroupClaimPreempted} {
		if !seen[f] {
			t.Errorf("no scenario of seeds 0..15 has %s", f)
		}
	}
}
