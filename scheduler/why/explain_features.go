package why

import (
	"fmt"
	"sort"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/version"
	ndf "k8s.io/component-helpers/nodedeclaredfeatures"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/record"
)

// NodeDeclaredFeatures: the features the pod needs against those the node
// declares (status.declaredFeatures).

var nodeDeclaredFeaturesExplainer = explainer{
	purpose: "rejects nodes that do not declare the features the pod needs.",
	detail:  featuresDetail,
	fixes:   featureFixes,
}

// featuresVersion is the scheduler version inference targets (as the
// NodeDeclaredFeatures plugin).
var featuresVersion = version.MustParseSemantic("v1.37.1")

func featuresDetail(in Input, g group) string {
	f := ndf.DefaultFramework
	reqs, err := f.InferForPodScheduling(&ndf.PodInfo{Spec: &in.Pod.Spec}, featuresVersion)
	if err != nil {
		return ""
	}
	var b byValue
	for _, n := range g.nodes {
		ni := in.nodeInfo(n)
		if ni == nil {
			continue
		}
		m, err := f.MatchNode(reqs, ni.Node())
		if err != nil || m.IsMatch {
			continue
		}
		b.add(strings.Join(m.UnsatisfiedRequirements, ", "), n)
	}
	if len(b.order) == 0 {
		return ""
	}
	return "missing node feature " + b.String() + " (status.declaredFeatures)."
}

// featureFixes declares the missing features on the node.
func featureFixes(in Input, _ record.Status, ni *framework.NodeInfo) [][]change {
	pod, node := in.Pod, ni.Name()
	reqs, err := ndf.DefaultFramework.InferForPodScheduling(&ndf.PodInfo{Spec: &pod.Spec}, featuresVersion)
	if err != nil {
		return nil
	}
	m, err := ndf.DefaultFramework.MatchNode(reqs, ni.Node())
	if err != nil || m.IsMatch {
		return nil
	}
	missing := m.UnsatisfiedRequirements
	return [][]change{{{desc: fmt.Sprintf("declare feature %s on %s", strings.Join(missing, ", "), node), node: node, onNode: func(n *v1.Node) {
		n.Status.DeclaredFeatures = append(n.Status.DeclaredFeatures, missing...)
		sort.Strings(n.Status.DeclaredFeatures)
	}}}}
}
