package scenario

// Pending pods' traits that place them relative to other pods: topology
// spread constraints (PodTopologySpread) and pod (anti-)affinity
// (InterPodAffinity).

import (
	"fmt"
	"slices"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ---------------------------------------------------------------------------
// PodTopologySpread.

func (g *gen) topologyKey() string {
	switch g.weighted(45, 30, 10, 15) {
	case 0:
		return labelZone
	case 1:
		return labelHostname
	case 2:
		return labelRegion
	default:
		if g.hasRack {
			g.feat(FeatPTSCustomKey)
			return "example.com/rack"
		}
		return labelZone
	}
}

func (g *gen) spreadSelector(p *v1.Pod) *metav1.LabelSelector {
	switch g.weighted(70, 20, 5, 5) {
	case 0:
		return &metav1.LabelSelector{MatchLabels: map[string]string{"app": p.Labels["app"]}}
	case 1:
		return &metav1.LabelSelector{MatchLabels: map[string]string{"app": pick(g, appNames)}}
	case 2:
		g.feat(FeatPTSEmptySelector)
		return &metav1.LabelSelector{}
	default:
		return &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: "app", Operator: metav1.LabelSelectorOpIn, Values: []string{p.Labels["app"], pick(g, appNames)}}}}
	}
}

func (g *gen) addSpread(p *v1.Pod, c v1.TopologySpreadConstraint) bool {
	for _, x := range p.Spec.TopologySpreadConstraints {
		if x.TopologyKey == c.TopologyKey && x.WhenUnsatisfiable == c.WhenUnsatisfiable {
			return false
		}
	}
	if g.chance(0.15) && c.LabelSelector != nil {
		// matchLabelKeys must name keys absent from the selector
		for _, k := range []string{"pod-template-hash", "version", "tier"} {
			_, inML := c.LabelSelector.MatchLabels[k]
			inME := slices.ContainsFunc(c.LabelSelector.MatchExpressions, func(e metav1.LabelSelectorRequirement) bool { return e.Key == k })
			if !inML && !inME {
				c.MatchLabelKeys = []string{k}
				g.feat(FeatPTSMatchLabelKeys)
				break
			}
		}
	}
	p.Spec.TopologySpreadConstraints = append(p.Spec.TopologySpreadConstraints, c)
	return true
}

func (g *gen) tSpreadHard(p *v1.Pod) bool {
	c := v1.TopologySpreadConstraint{MaxSkew: int32(g.between(1, 2)), TopologyKey: g.topologyKey(),
		WhenUnsatisfiable: v1.DoNotSchedule, LabelSelector: g.spreadSelector(p)}
	if g.chance(0.3) {
		c.MinDomains = ptrTo(int32(g.between(2, 6)))
		g.feat(FeatPTSMinDomains)
	}
	if g.chance(0.25) {
		c.NodeAffinityPolicy = ptrTo(pick(g, []v1.NodeInclusionPolicy{v1.NodeInclusionPolicyHonor, v1.NodeInclusionPolicyIgnore}))
		g.feat(FeatPTSAffinityPolicy)
	}
	if g.chance(0.25) {
		c.NodeTaintsPolicy = ptrTo(pick(g, []v1.NodeInclusionPolicy{v1.NodeInclusionPolicyHonor, v1.NodeInclusionPolicyIgnore}))
		g.feat(FeatPTSTaintsPolicy)
	}
	if !g.addSpread(p, c) {
		return false
	}
	g.feat(FeatPTSHard)
	return true
}

func (g *gen) tSpreadSoft(p *v1.Pod) bool {
	c := v1.TopologySpreadConstraint{MaxSkew: int32(g.between(1, 5)), TopologyKey: g.topologyKey(),
		WhenUnsatisfiable: v1.ScheduleAnyway, LabelSelector: g.spreadSelector(p)}
	if g.chance(0.2) {
		c.NodeTaintsPolicy = ptrTo(v1.NodeInclusionPolicyHonor)
		g.feat(FeatPTSTaintsPolicy)
	}
	if !g.addSpread(p, c) {
		return false
	}
	g.feat(FeatPTSSoft)
	return true
}

// ---------------------------------------------------------------------------
// InterPodAffinity.

// boundAppIn returns an app with bound pods in ns, or "".
func (g *gen) boundAppIn(ns string) string {
	var apps []string
	for _, p := range g.bound {
		if p.Namespace == ns && p.Labels["app"] != "" && !slices.Contains(apps, p.Labels["app"]) {
			apps = append(apps, p.Labels["app"])
		}
	}
	if len(apps) == 0 {
		return ""
	}
	return pick(g, apps)
}

func (g *gen) affinityTerm(p *v1.Pod, anti bool) v1.PodAffinityTerm {
	t := v1.PodAffinityTerm{TopologyKey: pick(g, []string{labelHostname, labelZone, labelZone, labelRegion})}
	app := g.boundAppIn(p.Namespace)
	switch {
	case anti && g.chance(0.4):
		app = p.Labels["app"]
	case !anti && g.chance(0.15):
		// a group nobody belongs to yet: the pod may start it only
		// because it matches its own term
		g.seq++
		group := fmt.Sprintf("group-%d", g.seq)
		p.Labels["group"] = group
		t.LabelSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"group": group}}
		g.feat(FeatIPAFirstOfGroup)
		return t
	case !anti && app == "":
		app = p.Labels["app"]
	case app == "":
		app = pick(g, appNames)
	}
	t.LabelSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}
	switch g.weighted(70, 12, 10, 8) {
	case 1:
		t.Namespaces = sample(g, g.userNS, g.between(1, len(g.userNS)))
		g.feat(FeatIPANamespaces)
	case 2:
		t.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"team": pick(g, []string{"a", "b"})}}
		g.feat(FeatIPANamespaceSelector)
		if g.chance(0.4) {
			t.Namespaces = []string{p.Namespace}
			g.feat(FeatIPANamespaces)
		}
	case 3:
		t.NamespaceSelector = &metav1.LabelSelector{}
		g.feat(FeatIPANSSelectorAll)
	}
	if g.chance(0.1) {
		for _, k := range []string{"version", "tier"} {
			if _, ok := p.Labels[k]; ok {
				if anti && g.chance(0.5) {
					t.MismatchLabelKeys = []string{k}
				} else {
					t.MatchLabelKeys = []string{k}
				}
				g.feat(FeatIPAMatchLabelKeys)
				break
			}
		}
	}
	return t
}

func ensureAffinity(p *v1.Pod) *v1.Affinity {
	if p.Spec.Affinity == nil {
		p.Spec.Affinity = &v1.Affinity{}
	}
	return p.Spec.Affinity
}

func (g *gen) tPodAffinity(p *v1.Pod) bool {
	a := ensureAffinity(p)
	if a.PodAffinity == nil {
		a.PodAffinity = &v1.PodAffinity{}
	}
	a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution = append(a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution, g.affinityTerm(p, false))
	g.feat(FeatIPAReqAffinity)
	return true
}

func (g *gen) tPodAntiAffinity(p *v1.Pod) bool {
	a := ensureAffinity(p)
	if a.PodAntiAffinity == nil {
		a.PodAntiAffinity = &v1.PodAntiAffinity{}
	}
	a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution = append(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution, g.affinityTerm(p, true))
	g.feat(FeatIPAReqAnti)
	return true
}

func (g *gen) tPreferredPodAffinity(p *v1.Pod) bool {
	a := ensureAffinity(p)
	for range g.between(1, 2) {
		anti := g.chance(0.5)
		wt := v1.WeightedPodAffinityTerm{Weight: int32(g.between(1, 100)), PodAffinityTerm: g.affinityTerm(p, anti)}
		if anti {
			if a.PodAntiAffinity == nil {
				a.PodAntiAffinity = &v1.PodAntiAffinity{}
			}
			a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution = append(a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution, wt)
			g.feat(FeatIPAPrefAnti)
		} else {
			if a.PodAffinity == nil {
				a.PodAffinity = &v1.PodAffinity{}
			}
			a.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution = append(a.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution, wt)
			g.feat(FeatIPAPrefAffinity)
		}
	}
	return true
}
