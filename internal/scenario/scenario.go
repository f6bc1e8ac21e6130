// Package scenario produces cluster snapshots for schedtui's differential
// conformance suite: a seeded random generator (Generate) whose output mixes
// every default scheduler plugin's interesting inputs, hand-built scenarios
// aimed at one subtle behaviour each (Curated), and a YAML writer (Dump) so a
// failing scenario can be saved and replayed with `schedtui run --snapshot`.
//
// Every object is built in the form the API server would have stored it:
// defaulted (v1.37 defaulting functions), mutated by the default admission
// plugins that touch scheduling inputs (Priority, DefaultTolerationSeconds,
// RuntimeClass, ServiceAccount) and by the registry's PrepareForCreate
// (scheduling-gated condition, matchLabelKeys merged into selectors,
// pod-level resource defaulting, QoS class). UIDs are derived from the
// scenario name and object identity; timestamps from a fixed epoch. Pods
// go through snapshot/apiserver, the defaulting, admission and
// PrepareForCreate the snapshot loader applies, so the two cannot drift.
package scenario

import (
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/schedtui/schedtui/snapshot"
)

// Scenario is one generated or curated cluster snapshot.
type Scenario struct {
	Name string
	// Seed is the generator seed (0 for curated scenarios).
	Seed    int64
	Cluster *snapshot.Cluster
	// Features lists, sorted, the behaviours this scenario exercises. For
	// generated scenarios every entry is one of AllFeatures; curated
	// scenarios may add names of their own for the targeted behaviour
	// (e.g. "FitError/lexicographic-reason-sort").
	Features []string
	// Doc describes what a curated scenario checks ("" for generated ones).
	Doc string
	// LatePodGroups are PodGroups the API server gets only after every
	// pod of Cluster (their pods wait for them in the meantime): a runner
	// creates them once the scheduling queue has nothing left to pop.
	LatePodGroups []*schedulingv1beta1.PodGroup
	// LateCompositePodGroups are CompositePodGroups the API server gets
	// after the LatePodGroups (their hierarchies' members wait for them).
	LateCompositePodGroups []*schedulingv1alpha3.CompositePodGroup
}

// Late are the objects a runner creates once the queue has nothing left
// to pop, in order: LatePodGroups, then LateCompositePodGroups.
func (s *Scenario) Late() []runtime.Object {
	var out []runtime.Object
	for _, pg := range s.LatePodGroups {
		out = append(out, pg)
	}
	for _, cpg := range s.LateCompositePodGroups {
		out = append(out, cpg)
	}
	return out
}

// Options tunes Generate.
type Options struct {
	// MinNodes and MaxNodes bound the node count (defaults 10 and 120).
	MinNodes, MaxNodes int
	// Preemption biases the scenario toward preemption: clusters full of
	// lower-priority pods, PDBs, high-priority pending pods that do not fit.
	Preemption bool
	// ResourceShapes gives every pending pod a large request and pod
	// shapes whose requests take upstream's arithmetic to count (see
	// ShapesAnnotation); RuntimeClasses always exist.
	ResourceShapes bool
}

func (o Options) withDefaults() Options {
	if o.MinNodes <= 0 {
		o.MinNodes = 10
	}
	if o.MaxNodes <= 0 {
		o.MaxNodes = 120
	}
	if o.MaxNodes < o.MinNodes {
		o.MaxNodes = o.MinNodes
	}
	return o
}

// Feature names reported in Scenario.Features. The prefix names the plugin
// (or area) whose code path the feature exercises.
const (
	// Cluster shape.
	FeatMultiZone          = "cluster/multi-zone"
	FeatMultiRegion        = "cluster/multi-region"
	FeatNodesWithoutZone   = "cluster/nodes-without-zone"
	FeatBetaZoneLabels     = "cluster/beta-zone-labels"
	FeatBetaOnlyZoneLabels = "cluster/beta-only-zone-labels"
	FeatNodesGroupedByZone = "cluster/nodes-listed-zone-by-zone"
	FeatCordonedNode       = "cluster/cordoned-node"
	FeatNotReadyNode       = "cluster/not-ready-node"
	FeatTaintNoSchedule    = "cluster/taint-noschedule"
	FeatTaintNoExecute     = "cluster/taint-noexecute"
	FeatTaintPreferNo      = "cluster/taint-prefernoschedule"
	FeatHugePagesNodes     = "cluster/hugepages-nodes"
	FeatGPUNodes           = "cluster/extended-resource-nodes"
	FeatNodeImages         = "cluster/node-images"
	FeatCSINodeLimits      = "cluster/csinode-allocatable"
	FeatDeclaredFeatures   = "cluster/node-declared-features"
	FeatGlobalDefaultPC    = "cluster/global-default-priorityclass"
	FeatRuntimeClass       = "cluster/runtimeclass"
	FeatArm64Nodes         = "cluster/arm64-nodes"

	// Existing (bound) pods.
	FeatBoundNoRequests     = "bound/no-requests"
	FeatBoundInit           = "bound/init-containers"
	FeatBoundSidecar        = "bound/sidecars"
	FeatBoundOverhead       = "bound/overhead"
	FeatBoundPodLevel       = "bound/pod-level-resources"
	FeatBoundHostPorts      = "bound/host-ports"
	FeatBoundReqAntiAff     = "bound/required-anti-affinity"
	FeatBoundReqAff         = "bound/required-affinity"
	FeatBoundPrefAff        = "bound/preferred-pod-affinity"
	FeatBoundPVC            = "bound/pvc"
	FeatBoundTerminating    = "bound/terminating"
	FeatBoundStatuses       = "bound/container-statuses"
	FeatBoundOvercommitted  = "bound/overcommitted-node"
	FeatBoundAtPodLimit     = "bound/node-at-pod-limit"
	FeatBoundMissingNode    = "bound/pod-on-missing-node"
	FeatBoundDaemonSet      = "bound/daemonset-pods"
	FeatBoundResizeInFlight = "bound/resize-status-resources"

	// Pending pods, per plugin.
	FeatTolerateUnschedulable = "NodeUnschedulable/tolerates-unschedulable"
	FeatTolExists             = "TaintToleration/exists"
	FeatTolEqual              = "TaintToleration/equal"
	FeatTolEmptyKey           = "TaintToleration/empty-key-tolerates-all"
	FeatTolEmptyEffect        = "TaintToleration/empty-effect"
	FeatTolEmptyOperator      = "TaintToleration/empty-operator"
	FeatTolNoExecuteSeconds   = "TaintToleration/noexecute-seconds"
	FeatTolPreferNoSchedule   = "TaintToleration/prefernoschedule-tolerated"
	FeatNodeSelector          = "NodeAffinity/node-selector"
	FeatNAIn                  = "NodeAffinity/in"
	FeatNANotIn               = "NodeAffinity/notin"
	FeatNAExists              = "NodeAffinity/exists"
	FeatNADoesNotExist        = "NodeAffinity/does-not-exist"
	FeatNAGt                  = "NodeAffinity/gt"
	FeatNALt                  = "NodeAffinity/lt"
	FeatNAMatchFields         = "NodeAffinity/match-fields-in"
	FeatNAMatchFieldsNotIn    = "NodeAffinity/match-fields-notin"
	FeatNAMultiTerm           = "NodeAffinity/multiple-terms"
	FeatNAPreferred           = "NodeAffinity/preferred"
	FeatHostPort              = "NodePorts/host-port"
	FeatHostPortUDP           = "NodePorts/udp"
	FeatHostPortSCTP          = "NodePorts/sctp"
	FeatHostPortHostIP        = "NodePorts/host-ip"
	FeatHostPortConflict      = "NodePorts/conflict-with-bound"
	FeatFitLarge              = "NodeResourcesFit/large-request"
	FeatFitExceedsAlloc       = "NodeResourcesFit/exceeds-allocatable"
	FeatFitNoRequests         = "NodeResourcesFit/no-requests"
	FeatFitEphemeral          = "NodeResourcesFit/ephemeral-storage"
	FeatFitHugePages          = "NodeResourcesFit/hugepages"
	FeatFitExtended           = "NodeResourcesFit/extended-resource"
	FeatFitInit               = "NodeResourcesFit/init-containers"
	FeatFitSidecar            = "NodeResourcesFit/sidecars"
	FeatFitOverhead           = "NodeResourcesFit/overhead"
	FeatFitPodLevel           = "NodeResourcesFit/pod-level-resources"
	FeatFitTooManyPods        = "NodeResourcesFit/too-many-pods"
	FeatRWOPInUse             = "VolumeRestrictions/rwop-in-use"
	FeatRWOPFree              = "VolumeRestrictions/rwop-unused"
	FeatDiskConflict          = "VolumeRestrictions/inline-disk-conflict"
	FeatVolLimitCount         = "NodeVolumeLimits/exceeds-count"
	FeatVolLimitDriverMissing = "NodeVolumeLimits/driver-not-installed"
	FeatVolLimitAttachments   = "NodeVolumeLimits/volume-attachments"
	FeatVBBoundAffinity       = "VolumeBinding/bound-pv-node-affinity"
	FeatVBUnboundImmediate    = "VolumeBinding/unbound-immediate"
	FeatVBWFFCMatch           = "VolumeBinding/wffc-matching-pv"
	FeatVBWFFCNoPV            = "VolumeBinding/wffc-no-matching-pv"
	FeatVBWFFCProvision       = "VolumeBinding/wffc-provisioning"
	FeatVBStorageCapacity     = "VolumeBinding/csi-storage-capacity"
	// A claim bound to a PV that does not exist. Note that in the default
	// profile VolumeZone's PreFilter rejects such a pod first (U&U with the
	// NotFound error text), before VolumeBinding's Filter could.
	FeatVBMissingPV          = "VolumeBinding/bound-to-missing-pv"
	FeatVBMissingSC          = "VolumeBinding/missing-storage-class"
	FeatVBMissingPVC         = "VolumeBinding/missing-pvc"
	FeatVolumeZone           = "VolumeZone/zone-labels"
	FeatVolumeZoneBeta       = "VolumeZone/beta-labels"
	FeatVolumeZoneMulti      = "VolumeZone/multi-zone-value"
	FeatPTSHard              = "PodTopologySpread/hard"
	FeatPTSSoft              = "PodTopologySpread/soft"
	FeatPTSMinDomains        = "PodTopologySpread/min-domains"
	FeatPTSAffinityPolicy    = "PodTopologySpread/node-affinity-policy"
	FeatPTSTaintsPolicy      = "PodTopologySpread/node-taints-policy"
	FeatPTSMatchLabelKeys    = "PodTopologySpread/match-label-keys"
	FeatPTSCustomKey         = "PodTopologySpread/custom-topology-key"
	FeatPTSEmptySelector     = "PodTopologySpread/empty-selector"
	FeatPTSDefaultService    = "PodTopologySpread/system-default-service"
	FeatPTSDefaultRS         = "PodTopologySpread/system-default-replicaset"
	FeatPTSDefaultSS         = "PodTopologySpread/system-default-statefulset"
	FeatPTSDefaultRC         = "PodTopologySpread/system-default-replicationcontroller"
	FeatIPAReqAffinity       = "InterPodAffinity/required-affinity"
	FeatIPAReqAnti           = "InterPodAffinity/required-anti-affinity"
	FeatIPAPrefAffinity      = "InterPodAffinity/preferred-affinity"
	FeatIPAPrefAnti          = "InterPodAffinity/preferred-anti-affinity"
	FeatIPANamespaces        = "InterPodAffinity/namespaces"
	FeatIPANamespaceSelector = "InterPodAffinity/namespace-selector"
	FeatIPANSSelectorAll     = "InterPodAffinity/namespace-selector-all"
	FeatIPAExistingAnti      = "InterPodAffinity/existing-anti-affinity"
	FeatIPAFirstOfGroup      = "InterPodAffinity/first-pod-of-group"
	FeatIPAMatchLabelKeys    = "InterPodAffinity/match-label-keys"
	FeatImagePresent         = "ImageLocality/present-images"
	FeatImageUntagged        = "ImageLocality/untagged-image"
	FeatImageVolume          = "ImageLocality/image-volume"
	FeatBalancedRequests     = "NodeResourcesBalancedAllocation/requests"
	FeatBalancedBestEffort   = "NodeResourcesBalancedAllocation/best-effort"
	FeatGated                = "SchedulingGates/gated"
	FeatNominatedHigher      = "Nominated/higher-or-equal-priority"
	FeatNominatedLower       = "Nominated/lower-priority"
	FeatNominatedTerminating = "Nominated/terminating-victim-on-node"
	FeatResourceClaims       = "DynamicResources/resource-claims"
	FeatDeclaredFeaturePod   = "NodeDeclaredFeatures/requires-feature"
	FeatPriorityClasses      = "Priority/classes"
	FeatPreemptNever         = "Priority/preemption-policy-never"
	FeatPendingDaemon        = "DaemonSet/pending-daemon-pod"

	// Preemption.
	FeatPreemptFull        = "Preemption/full-cluster"
	FeatPDB                = "Preemption/pdb"
	FeatPDBDisrupted       = "Preemption/pdb-disrupted-pods"
	FeatPDBEmptySelector   = "Preemption/pdb-empty-selector"
	FeatStartTimes         = "Preemption/varied-start-times"
	FeatHighPriorityNoFit  = "Preemption/high-priority-does-not-fit"
	FeatPreemptLowerVictim = "Preemption/lower-priority-victims"
)

// AllFeatures lists every feature Generate can report, in a stable order.
var AllFeatures = []string{
	FeatMultiZone, FeatMultiRegion, FeatNodesWithoutZone, FeatBetaZoneLabels, FeatBetaOnlyZoneLabels,
	FeatNodesGroupedByZone, FeatCordonedNode, FeatNotReadyNode, FeatTaintNoSchedule, FeatTaintNoExecute,
	FeatTaintPreferNo, FeatHugePagesNodes, FeatGPUNodes, FeatNodeImages, FeatCSINodeLimits, FeatDeclaredFeatures,
	FeatGlobalDefaultPC, FeatRuntimeClass, FeatArm64Nodes,

	FeatBoundNoRequests, FeatBoundInit, FeatBoundSidecar, FeatBoundOverhead, FeatBoundPodLevel, FeatBoundHostPorts,
	FeatBoundReqAntiAff, FeatBoundReqAff, FeatBoundPrefAff, FeatBoundPVC, FeatBoundTerminating, FeatBoundStatuses,
	FeatBoundOvercommitted, FeatBoundAtPodLimit, FeatBoundMissingNode, FeatBoundDaemonSet, FeatBoundResizeInFlight,

	FeatTolerateUnschedulable, FeatTolExists, FeatTolEqual, FeatTolEmptyKey, FeatTolEmptyEffect, FeatTolEmptyOperator,
	FeatTolNoExecuteSeconds, FeatTolPreferNoSchedule,
	FeatNodeSelector, FeatNAIn, FeatNANotIn, FeatNAExists, FeatNADoesNotExist, FeatNAGt, FeatNALt, FeatNAMatchFields,
	FeatNAMatchFieldsNotIn, FeatNAMultiTerm, FeatNAPreferred,
	FeatHostPort, FeatHostPortUDP, FeatHostPortSCTP, FeatHostPortHostIP, FeatHostPortConflict,
	FeatFitLarge, FeatFitExceedsAlloc, FeatFitNoRequests, FeatFitEphemeral, FeatFitHugePages, FeatFitExtended,
	FeatFitInit, FeatFitSidecar, FeatFitOverhead, FeatFitPodLevel, FeatFitTooManyPods,
	FeatRWOPInUse, FeatRWOPFree, FeatDiskConflict,
	FeatVolLimitCount, FeatVolLimitDriverMissing, FeatVolLimitAttachments,
	FeatVBBoundAffinity, FeatVBUnboundImmediate, FeatVBWFFCMatch, FeatVBWFFCNoPV, FeatVBWFFCProvision,
	FeatVBStorageCapacity, FeatVBMissingPV, FeatVBMissingSC, FeatVBMissingPVC,
	FeatVolumeZone, FeatVolumeZoneBeta, FeatVolumeZoneMulti,
	FeatPTSHard, FeatPTSSoft, FeatPTSMinDomains, FeatPTSAffinityPolicy, FeatPTSTaintsPolicy, FeatPTSMatchLabelKeys,
	FeatPTSCustomKey, FeatPTSEmptySelector, FeatPTSDefaultService, FeatPTSDefaultRS, FeatPTSDefaultSS, FeatPTSDefaultRC,
	FeatIPAReqAffinity, FeatIPAReqAnti, FeatIPAPrefAffinity, FeatIPAPrefAnti, FeatIPANamespaces,
	FeatIPANamespaceSelector, FeatIPANSSelectorAll, FeatIPAExistingAnti, FeatIPAFirstOfGroup, FeatIPAMatchLabelKeys,
	FeatImagePresent, FeatImageUntagged, FeatImageVolume,
	FeatBalancedRequests, FeatBalancedBestEffort,
	FeatGated, FeatNominatedHigher, FeatNominatedLower, FeatNominatedTerminating,
	FeatResourceClaims, FeatDeclaredFeaturePod, FeatPriorityClasses, FeatPreemptNever, FeatPendingDaemon,

	FeatPreemptFull, FeatPDB, FeatPDBDisrupted, FeatPDBEmptySelector, FeatStartTimes, FeatHighPriorityNoFit,
	FeatPreemptLowerVictim,
}
