package csimigration

import (
	"sort"
	"strings"

	v1 "k8s.io/api/core/v1"
)

// translateTopology moves a PV's zone constraint to the CSI driver's
// topology key: an existing zone requirement in the node affinity is
// re-keyed, otherwise one is added from the PV's zone label; a beta region
// requirement is re-keyed to the GA label. This is what lets the scheduler
// match the translated PV against nodes labelled by the CSI driver.
func translateTopology(pv *v1.PersistentVolume, csiTopologyKey string) {
	zoneLabel, regionLabel := topologyLabels(pv)
	if zones := topologyValues(pv, zoneLabel); len(zones) > 0 {
		replaceTopology(pv, zoneLabel, csiTopologyKey)
	} else if label, ok := pv.Labels[zoneLabel]; ok {
		addTopology(pv, csiTopologyKey, strings.Split(label, labelMultiZoneDelimiter))
	}
	if regionLabel == v1.LabelFailureDomainBetaRegion && len(topologyValues(pv, regionLabel)) > 0 {
		replaceTopology(pv, regionLabel, v1.LabelTopologyRegion)
	}
}

// topologyLabels picks GA or beta zone/region labels: node affinity first,
// then PV labels, GA preferred, GA by default.
func topologyLabels(pv *v1.PersistentVolume) (zone, region string) {
	ga := [2]string{v1.LabelTopologyZone, v1.LabelTopologyRegion}
	beta := [2]string{v1.LabelFailureDomainBetaZone, v1.LabelFailureDomainBetaRegion}
	pick := ga
	_, gaLabel := pv.Labels[v1.LabelTopologyZone]
	_, betaLabel := pv.Labels[v1.LabelFailureDomainBetaZone]
	switch {
	case affinityHasKey(pv.Spec.NodeAffinity, v1.LabelTopologyZone):
	case affinityHasKey(pv.Spec.NodeAffinity, v1.LabelFailureDomainBetaZone):
		pick = beta
	case gaLabel:
	case betaLabel:
		pick = beta
	}
	return pick[0], pick[1]
}

func requiredTerms(pv *v1.PersistentVolume) []v1.NodeSelectorTerm {
	na := pv.Spec.NodeAffinity
	if na == nil || na.Required == nil {
		return nil
	}
	return na.Required.NodeSelectorTerms
}

func affinityHasKey(na *v1.VolumeNodeAffinity, key string) bool {
	if na == nil || na.Required == nil {
		return false
	}
	for _, term := range na.Required.NodeSelectorTerms {
		for _, req := range term.MatchExpressions {
			if req.Key == key {
				return true
			}
		}
	}
	return false
}

// topologyValues collects the distinct values of key across all terms,
// sorted.
func topologyValues(pv *v1.PersistentVolume, key string) []string {
	seen := map[string]bool{}
	var out []string
	for _, term := range requiredTerms(pv) {
		for _, req := range term.MatchExpressions {
			if req.Key != key {
				continue
			}
			for _, v := range req.Values {
				if !seen[v] {
					seen[v] = true
					out = append(out, v)
				}
			}
		}
	}
	sort.Strings(out)
	return out
}

func replaceTopology(pv *v1.PersistentVolume, oldKey, newKey string) {
	terms := requiredTerms(pv)
	for i := range terms {
		for j := range terms[i].MatchExpressions {
			if terms[i].MatchExpressions[j].Key == oldKey {
				terms[i].MatchExpressions[j].Key = newKey
			}
		}
	}
}

// addTopology appends "key In zones" to every term (creating one term when
// there is none). Blank zones are dropped; with none left nothing changes.
func addTopology(pv *v1.PersistentVolume, key string, zones []string) {
	set := map[string]bool{}
	var clean []string
	for _, z := range zones {
		if z = strings.TrimSpace(z); z != "" && !set[z] {
			set[z] = true
			clean = append(clean, z)
		}
	}
	if len(clean) == 0 {
		return
	}
	sort.Strings(clean)
	if pv.Spec.NodeAffinity == nil {
		pv.Spec.NodeAffinity = &v1.VolumeNodeAffinity{}
	}
	if pv.Spec.NodeAffinity.Required == nil {
		pv.Spec.NodeAffinity.Required = &v1.NodeSelector{}
	}
	req := pv.Spec.NodeAffinity.Required
	if len(req.NodeSelectorTerms) == 0 {
		req.NodeSelectorTerms = make([]v1.NodeSelectorTerm, 1)
	}
	for i := range req.NodeSelectorTerms {
		req.NodeSelectorTerms[i].MatchExpressions = append(req.NodeSelectorTerms[i].MatchExpressions,
			v1.NodeSelectorRequirement{Key: key, Operator: v1.NodeSelectorOpIn, Values: clean})
	}
}
