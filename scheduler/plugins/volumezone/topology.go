package volumezone

import (
	"fmt"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
)

// topologyLabels are the PV labels that constrain nodes, in the order
// constraints are collected (and so checked).
var topologyLabels = []string{
	v1.LabelFailureDomainBetaZone,
	v1.LabelFailureDomainBetaRegion,
	v1.LabelTopologyZone,
	v1.LabelTopologyRegion,
}

// pvTopology is one PV label: the set of zones (or regions) it allows.
type pvTopology struct {
	pvName string
	key    string
	values sets.Set[string]
}

func translateToGALabel(label string) string {
	switch label {
	case v1.LabelFailureDomainBetaRegion:
		return v1.LabelTopologyRegion
	case v1.LabelFailureDomainBetaZone:
		return v1.LabelTopologyZone
	}
	return label
}

// labelMultiZoneDelimiter separates zones in a multi-zone PV label value
// (k8s.io/cloud-provider/volume).
const labelMultiZoneDelimiter = "__"

// labelZonesToSet parses "zone-a__zone-b" into its zones, trimming
// blanks; an empty element makes the whole value invalid, as in
// cloud-provider's LabelZonesToSet.
func labelZonesToSet(value string) (sets.Set[string], error) {
	out := sets.New[string]()
	for _, zone := range strings.Split(value, labelMultiZoneDelimiter) {
		z := strings.TrimSpace(zone)
		if z == "" {
			return sets.New[string](), fmt.Errorf("%q separated list (%q) must not contain an empty string", labelMultiZoneDelimiter, value)
		}
		out.Insert(z)
	}
	return out, nil
}

// getPVTopologies reads the PV's zone and region labels; a value that does
// not parse is ignored. Node affinity is not consulted: VolumeBinding
// checks it.
func getPVTopologies(pv *v1.PersistentVolume) []pvTopology {
	out := make([]pvTopology, 0)
	for _, key := range topologyLabels {
		value, ok := pv.Labels[key]
		if !ok {
			continue
		}
		zones, err := labelZonesToSet(value)
		if err != nil {
			continue
		}
		out = append(out, pvTopology{pvName: pv.Name, key: key, values: zones})
	}
	return out
}

func equalTopologies(a, b []pvTopology) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].pvName != b[i].pvName || a[i].key != b[i].key || !a[i].values.Equal(b[i].values) {
			return false
		}
	}
	return true
}
