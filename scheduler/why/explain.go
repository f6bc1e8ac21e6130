package why

import (
	"fmt"
	"strconv"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/klog/v2"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/plugins/names"
	"github.com/schedtui/schedtui/scheduler/record"
)

var noLog = klog.Logger{}

// explainer is all schedtui says about one plugin, in one place: the
// verdict line's naming of the objects behind a rejection (Verdict), the
// teaching text and arithmetic for a Filter or Score cell (the TUI's
// teaching pane), and the candidate changes that would clear a rejection
// (Hints). Every part is optional: a plugin schedtui knows nothing about
// gets the generic text.
type explainer struct {
	// purpose is one sentence: what the plugin checks or prefers.
	purpose string
	// short names the plugin in a narrow score column ("" is the name).
	short string
	// filter is the arithmetic behind the plugin's Filter verdict st on
	// ni: the inputs it compared, recomputed from the fork.
	filter func(in Input, st record.Status, ni *framework.NodeInfo) []string
	// score is a score cell's formula with its inputs.
	score func(in Input, c ScoreCell, ni *framework.NodeInfo) []string
	// detail names the objects behind a group of nodes the plugin
	// rejected for one reason: the verdict line's tail ("" when there is
	// nothing to name).
	detail func(in Input, g group) string
	// fixes lists the alternatives that clear the plugin's rejection (st)
	// of ni; each alternative is one or more changes. None: schedtui
	// knows no change for it (a PV pinned elsewhere, too many pods, ...).
	fixes func(in Input, st record.Status, ni *framework.NodeInfo) [][]change
}

// explainers holds every plugin schedtui explains, by its upstream name.
var explainers = map[string]explainer{
	names.NodeUnschedulable:               nodeUnschedulableExplainer,
	names.NodeName:                        nodeNameExplainer,
	names.TaintToleration:                 taintTolerationExplainer,
	names.NodeAffinity:                    nodeAffinityExplainer,
	names.NodePorts:                       nodePortsExplainer,
	names.NodeResourcesFit:                fitExplainer,
	names.NodeResourcesBalancedAllocation: balancedExplainer,
	names.VolumeRestrictions:              volumeRestrictionsExplainer,
	names.NodeVolumeLimits:                nodeVolumeLimitsExplainer,
	names.VolumeBinding:                   volumeBindingExplainer,
	names.VolumeZone:                      volumeZoneExplainer,
	names.PodTopologySpread:               spreadExplainer,
	names.InterPodAffinity:                interPodAffinityExplainer,
	names.ImageLocality:                   imageLocalityExplainer,
	names.DynamicResources:                dynamicResourcesExplainer,
	names.NodeDeclaredFeatures:            nodeDeclaredFeaturesExplainer,
	names.SchedulingGates:                 schedulingGatesExplainer,
	names.DefaultPreemption:               defaultPreemptionExplainer,
	names.GangScheduling:                  gangSchedulingExplainer,
	names.PodGroupPodsCount:               podGroupPodsCountExplainer,
	names.TopologyPlacementGenerator:      topologyPlacementExplainer,
}

// Purpose is one sentence on what plugin checks or prefers ("" for a
// plugin schedtui does not explain).
func Purpose(plugin string) string { return explainers[plugin].purpose }

// ShortName names plugin in a narrow score column; the full name is in
// the header line and the teaching pane.
func ShortName(plugin string) string {
	if s := explainers[plugin].short; s != "" {
		return s
	}
	return plugin
}

// computing stands for the arithmetic while the fork is being made.
const computing = "(computing the cluster as this attempt saw it…)"

// ExplainFilter is the teaching text of plugin's Filter verdict st on
// node: what the plugin does, the verdict, and the numbers that went into
// it, recomputed from the cluster as the attempt saw it (in.Sched, the
// fork, and in.Pod; while they are nil the text says they are coming).
func ExplainFilter(in Input, plugin string, st record.Status, node string) []string {
	var out []string
	e := explainers[plugin]
	if e.purpose != "" {
		out = append(out, plugin+" "+e.purpose, "")
	}
	if st.Code == record.CodeSuccess {
		out = append(out, "Verdict: passed.")
	} else {
		out = append(out, fmt.Sprintf("Verdict: %s — %s", st.Code, strings.Join(st.Reasons, "; ")))
		if st.Code == record.CodeUnschedulableAndUnresolvable {
			out = append(out, "UnschedulableAndUnresolvable: preemption cannot help on this node.")
		}
	}
	ni := in.nodeInfo(node)
	if in.Pod == nil || ni == nil {
		return append(out, "", computing)
	}
	out = append(out, "")
	if e.filter != nil {
		out = append(out, e.filter(in, st, ni)...)
	}
	return out
}

// ScoreCell is one Score plugin's score of one node, with its column's
// context.
type ScoreCell struct {
	Plugin string
	Node   string
	Weight int32
	// Raw is the plugin's score, Normalized after NormalizeScore.
	Raw, Normalized int64
	// MinRaw and MaxRaw are the column's range over the feasible nodes.
	MinRaw, MaxRaw int64
	// Normalizes: the plugin has a NormalizeScore step.
	Normalizes bool
	// NumNodes is how many nodes the cluster has (ImageLocality spreads
	// an image's size over them).
	NumNodes int
}

// ExplainScore is the teaching text of a score cell: what the plugin
// prefers and its formula with the inputs, recomputed from the fork (see
// ExplainFilter).
func ExplainScore(in Input, c ScoreCell) []string {
	out := []string{}
	e := explainers[c.Plugin]
	if e.purpose != "" {
		out = append(out, c.Plugin+" "+e.purpose, "")
	}
	out = append(out, fmt.Sprintf("raw %d → normalized %d × weight %d = %d", c.Raw, c.Normalized, c.Weight, c.Normalized*int64(c.Weight)))
	ni := in.nodeInfo(c.Node)
	if in.Pod == nil || ni == nil {
		return append(out, "", computing)
	}
	out = append(out, "")
	if e.score != nil {
		out = append(out, e.score(in, c, ni)...)
	}
	if c.Normalizes {
		out = append(out, fmt.Sprintf("column range: raw min %d, max %d", c.MinRaw, c.MaxRaw))
	}
	return out
}

// Amount renders an amount of a resource as the teaching text counts it:
// cpu in millicores ("0" for none), memory and storage in binary units,
// anything else as a plain count (qty, the verdict's and the hints' form,
// is the API's quantity).
func Amount(name string, v int64) string {
	switch v1.ResourceName(name) {
	case v1.ResourceCPU:
		if v == 0 {
			return "0"
		}
		return strconv.FormatInt(v, 10) + "m"
	case v1.ResourceMemory, v1.ResourceEphemeralStorage:
		return resource.NewQuantity(v, resource.BinarySI).String()
	}
	return strconv.FormatInt(v, 10)
}

// quantity renders an amount of a resource as the API would.
func quantity(name v1.ResourceName, n int64) resource.Quantity {
	switch name {
	case v1.ResourceCPU:
		return *resource.NewMilliQuantity(n, resource.DecimalSI)
	case v1.ResourceMemory, v1.ResourceEphemeralStorage:
		return *resource.NewQuantity(n, resource.BinarySI)
	}
	return *resource.NewQuantity(n, resource.DecimalSI)
}

// qty is an amount as the verdict and the hints print it: the API's
// quantity, cpu always in millicores.
func qty(name v1.ResourceName, n int64) string {
	if name == v1.ResourceCPU {
		return fmt.Sprintf("%dm", n)
	}
	q := quantity(name, n)
	return q.String()
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// Plugins with nothing to recompute: their purpose (and the node
// NodeName wants).
var (
	nodeNameExplainer = explainer{
		purpose: "rejects every node but the one spec.nodeName names.",
		detail: func(in Input, _ group) string {
			return fmt.Sprintf("spec.nodeName is %q.", in.Pod.Spec.NodeName)
		},
	}
	schedulingGatesExplainer = explainer{
		purpose: "keeps the pod out of the active queue while spec.schedulingGates is not empty.",
	}
	defaultPreemptionExplainer = explainer{
		purpose: "when no node fits, looks for a node where evicting lower-priority pods would make room.",
	}
)
