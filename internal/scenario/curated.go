package scenario

import (
	"fmt"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Curated returns the hand-built scenarios, each aimed at one subtle
// behaviour of kube-scheduler v1.37 (see each constructor's comment and the
// scenario's Doc). The expected outcomes in the docs are derived from the
// upstream code; the conformance suite compares against upstream anyway.
func Curated() []*Scenario {
	fns := []func() *Scenario{
		curFitErrorSorting,
		curMultiReasonNode,
		curExceedsAllocatable,
		curUnboundImmediatePVC,
		curMatchFieldsPreFilter,
		curNominatedFastPath,
		curNominatedBlocksLower,
		func() *Scenario { return curManyNodes(150) },
		func() *Scenario { return curManyNodes(1000) },
		func() *Scenario { return curManyNodes(5000) },
		curZonesInterleaved,
		curScoreTie,
		curPreferNoScheduleNormalization,
		curMinDomains,
		curMatchLabelKeys,
		curFirstPodOfGroup,
		curExistingAntiAffinity,
		curImageLocality,
		curImageSizeFirstNode,
		curBestEffortBalanced,
		curPodLevelResources,
		curSidecars,
		curHugePages,
		curDaemonSetMatchFields,
		curCordonedTolerated,
		curHostPortIPs,
		curEmptySpreadSelector,
		curVolumeZoneLabels,
		curCSIVolumeLimits,
		curStorageCapacity,
		curRWOPPreemption,
		curPreemptionPDB,
		curTerminatingVictim,
		curNoNodes,
		curSucceededPodsIgnored,
		curDeletingPendingPod,
		curResizeStatusResources,
		curDeclaredFeatures,
		curSingleFeasibleNode,
	}
	out := make([]*Scenario, 0, len(fns))
	for _, f := range fns {
		out = append(out, f())
	}
	return out
}

// ---------------------------------------------------------------------------
// helpers

func curatedBase(name string, namespaces ...string) *builder {
	b := newBuilder("curated/" + name)
	b.addNamespace("default", nil)
	b.addNamespace("kube-system", nil)
	for _, ns := range namespaces {
		parts := strings.SplitN(ns, ":", 2)
		var labels map[string]string
		if len(parts) == 2 {
			labels = map[string]string{}
			for _, kv := range strings.Split(parts[1], ",") {
				k, v, _ := strings.Cut(kv, "=")
				labels[k] = v
			}
		}
		b.addNamespace(parts[0], labels)
	}
	b.addSystemPriorityClasses()
	return b
}

func (b *builder) done(doc string, feats ...string) *Scenario {
	b.feat(feats...)
	return &Scenario{Name: strings.TrimPrefix(b.name, "curated/"), Cluster: b.c, Features: b.features(), Doc: doc}
}

// cnode is a plain node of cpu millicores and mem bytes; zone "" = no zone labels.
func cnode(name, zone string, cpu, mem int64, mods ...func(*nodeSpec)) nodeSpec {
	s := nodeSpec{name: name, cpuMilli: cpu, memBytes: mem, reserveCPU: 100, reserveMem: 256 * mi, instanceType: "m6i.xlarge"}
	if zone != "" {
		s.zone = zone
		s.region = zone[:len(zone)-1]
	}
	for _, m := range mods {
		m(&s)
	}
	return s
}

func withTaints(ts ...v1.Taint) func(*nodeSpec) {
	return func(s *nodeSpec) { s.taints = append(s.taints, ts...) }
}

func withLabels(kv ...string) func(*nodeSpec) {
	return func(s *nodeSpec) {
		if s.labels == nil {
			s.labels = map[string]string{}
		}
		for i := 0; i+1 < len(kv); i += 2 {
			s.labels[kv[i]] = kv[i+1]
		}
	}
}

func withImages(ims ...v1.ContainerImage) func(*nodeSpec) {
	return func(s *nodeSpec) { s.images = append(s.images, ims...) }
}

// bound adds a running pod on node.
func (b *builder) bound(ns, name, node string, labels map[string]string, prio string, ctrs ...v1.Container) *v1.Pod {
	p := newPod(ns, name, labels, ctrs...)
	p.Spec.PriorityClassName = prio
	b.admitPod(p)
	b.bindPod(p, node, metav1.NewTime(p.CreationTimestamp.Add(5*time.Second)), false)
	b.c.Pods = append(b.c.Pods, p)
	return p
}

func (b *builder) pending(p *v1.Pod) *v1.Pod { return b.addPending(p) }

func app(a string) map[string]string { return map[string]string{"app": a} }

const nginx = "docker.io/library/nginx:1.27.4"

// ---------------------------------------------------------------------------

// curFitErrorSorting: FitError reasons are "<count> <reason>" strings sorted
// lexicographically, so "10 Insufficient cpu" sorts before
// "2 node(s) had untolerated taint(s)".
func curFitErrorSorting() *Scenario {
	b := curatedBase("fiterror-reason-sorting")
	for i := 1; i <= 12; i++ {
		var mods []func(*nodeSpec)
		if i > 10 {
			mods = append(mods, withTaints(v1.Taint{Key: "dedicated", Value: "infra", Effect: v1.TaintEffectNoSchedule}))
		}
		b.addNode(cnode(fmt.Sprintf("node-%02d", i), "", 2000, 8*gi, mods...))
	}
	b.pending(newPod("default", "big", app("big"), ctr("big", nginx, "cpu=3", "memory=1Gi")))
	return b.done(`Expected: "0/12 nodes are available: 10 Insufficient cpu, 2 node(s) had untolerated taint(s)." followed by
"preemption: 0/12 nodes are available: 12 Preemption is not helpful for scheduling." (cpu 3 > 2 allocatable is U&U).`,
		"FitError/lexicographic-reason-sort")
}

// curMultiReasonNode: a node short of both cpu and memory contributes one
// count to each reason.
func curMultiReasonNode() *Scenario {
	b := curatedBase("fiterror-multi-reason-node")
	b.addPriorityClass("low", 100, false, "", "")
	b.addNode(cnode("node-a", "", 4000, 8*gi))
	b.addNode(cnode("node-b", "", 4000, 8*gi))
	b.addNode(cnode("node-c", "", 4000, 8*gi))
	b.bound("default", "fill-a", "node-a", app("fill"), "low", ctr("c", nginx, "cpu=3500m", "memory=7Gi"))
	b.bound("default", "fill-b", "node-b", app("fill"), "low", ctr("c", nginx, "cpu=3500m", "memory=1Gi"))
	b.bound("default", "fill-c", "node-c", app("fill"), "low", ctr("c", nginx, "cpu=500m", "memory=7Gi"))
	b.pending(newPod("default", "needs-both", app("web"), ctr("web", nginx, "cpu=1", "memory=2Gi")))
	return b.done(`Expected: "0/3 nodes are available: 2 Insufficient cpu, 2 Insufficient memory." node-a reports both reasons.
The bound pods have priority 100 > 0: "preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod."`,
		"FitError/multi-reason-node")
}

// curExceedsAllocatable: a request larger than a node's allocatable is
// UnschedulableAndUnresolvable there (not a preemption candidate), while a
// node that is merely full is Unschedulable.
func curExceedsAllocatable() *Scenario {
	b := curatedBase("request-exceeds-allocatable")
	b.addPriorityClass("low", 100, false, "", "")
	b.addPriorityClass("high", 10000, false, "", "")
	b.addNode(cnode("node-small", "", 4000, 16*gi))
	b.addNode(cnode("node-big", "", 8000, 16*gi))
	b.bound("default", "filler", "node-big", app("filler"), "low", ctr("c", nginx, "cpu=4", "memory=1Gi"))
	p := newPod("default", "huge", app("huge"), ctr("c", nginx, "cpu=6", "memory=1Gi"))
	p.Spec.PriorityClassName = "high"
	b.pending(p)
	return b.done(`node-small: Insufficient cpu (U&U: 6 > allocatable 4); node-big: Insufficient cpu (Unschedulable).
Preemption only considers node-big and evicts default/filler.`,
		FeatFitExceedsAlloc, FeatPreemptLowerVictim)
}

// curMatchFieldsPreFilter: required terms that all carry matchFields
// metadata.name In narrow the node set in PreFilter; unlisted nodes get the
// "didn't satisfy plugin(s) [NodeAffinity]" status. A single remaining
// feasible node is chosen without scoring.
func curMatchFieldsPreFilter() *Scenario {
	b := curatedBase("nodeaffinity-matchfields-prefilter")
	for i := 1; i <= 5; i++ {
		var mods []func(*nodeSpec)
		if i == 2 {
			mods = append(mods, withTaints(v1.Taint{Key: "dedicated", Value: "db", Effect: v1.TaintEffectNoSchedule}))
		}
		b.addNode(cnode(fmt.Sprintf("node-%d", i), "", 4000, 8*gi, mods...))
	}
	b.bound("default", "filler", "node-4", app("filler"), "", ctr("c", nginx, "cpu=3500m"))
	terms := func(names ...string) *v1.Affinity {
		var ts []v1.NodeSelectorTerm
		for _, n := range names {
			ts = append(ts, v1.NodeSelectorTerm{MatchFields: []v1.NodeSelectorRequirement{{Key: metav1.ObjectNameField, Operator: v1.NodeSelectorOpIn, Values: []string{n}}}})
		}
		return &v1.Affinity{NodeAffinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{NodeSelectorTerms: ts}}}
	}
	p := newPod("default", "pinned-two", app("x"), ctr("c", nginx, "cpu=1"))
	p.Spec.Affinity = terms("node-2", "node-4")
	b.pending(p)
	p = newPod("default", "pinned-one", app("y"), ctr("c", nginx, "cpu=1"))
	p.Spec.Affinity = terms("node-1")
	b.pending(p)
	p = newPod("default", "pinned-none", app("z"), ctr("c", nginx, "cpu=1"))
	p.Spec.Affinity = terms("node-9")
	b.pending(p)
	return b.done(`pinned-two: "0/5 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint(s), 3 node(s) didn't satisfy
plugin(s) [NodeAffinity]." pinned-one: only node-1 is filtered, chosen without scoring. pinned-none: PreFilter result
names only a missing node.`, FeatNAMatchFields, FeatNAMultiTerm)
}

// curManyNodes: percentageOfNodesToScore's adaptive default —
// numFeasibleNodesToFind(150)=100, (1000)=420, (5000)=500. The feasible set a
// cycle finds is a prefix (in parallel-completion order) of the rotated node
// list, so only its size is deterministic upstream.
func curManyNodes(n int) *Scenario {
	b := curatedBase(fmt.Sprintf("percentage-of-nodes-%d", n))
	zones := []string{"us-east-1a", "us-east-1b", "us-east-1c"}
	for i := 0; i < n; i++ {
		b.addNode(cnode(fmt.Sprintf("node-%04d", i+1), zones[i%3], 16000, 64*gi))
	}
	b.pending(newPod("default", "small", app("small"), ctr("c", nginx, "cpu=100m", "memory=128Mi")))
	b.pending(newPod("default", "second", app("small"), ctr("c", nginx, "cpu=100m", "memory=128Mi")))
	want := map[int]int{150: 100, 1000: 420, 5000: 500}[n]
	return b.done(fmt.Sprintf(`All %d nodes are feasible; the Filter search stops after %d feasible nodes. The second pod starts
at nextStartNodeIndex = (0 + found + rejected) %% %d.`, n, want, n), "Filter/percentage-of-nodes-to-score")
}

// curZonesInterleaved: nodes listed zone by zone (uneven zones, a node
// without zone labels, beta labels taking precedence) are visited in the node
// tree's round-robin zone order, which decides which nodes the search finds
// first once more than 100 nodes exist.
func curZonesInterleaved() *Scenario {
	b := curatedBase("zones-interleaved-node-order")
	i := 0
	add := func(count int, zone string, mods ...func(*nodeSpec)) {
		for range count {
			i++
			b.addNode(cnode(fmt.Sprintf("node-%03d", i), zone, 8000, 32*gi, mods...))
		}
	}
	add(120, "us-east-1a")
	add(50, "us-east-1b")
	add(20, "us-east-1c", func(s *nodeSpec) { s.betaLabels = true })
	// beta label says 1d while the GA label says 1c: the node tree groups by the beta label
	add(10, "us-east-1c", func(s *nodeSpec) {
		s.betaLabels = true
		s.annotations = map[string]string{"example.com/note": "beta zone differs"}
		s.labels = map[string]string{labelBetaZone: "us-east-1d"}
	})
	add(5, "")
	b.pending(newPod("default", "a", app("a"), ctr("c", nginx, "cpu=100m")))
	b.pending(newPod("default", "b", app("b"), ctr("c", nginx, "cpu=100m")))
	b.pending(newPod("default", "c", app("c"), ctr("c", nginx, "cpu=100m")))
	return b.done(`205 nodes listed zone by zone: the scheduler iterates zone0[0], zone1[0], zone2[0], zone3[0], ""[0], zone0[1], ...
numFeasibleNodesToFind(205) = 100; consecutive pods start where the previous search stopped.`,
		FeatNodesGroupedByZone, FeatBetaZoneLabels, FeatNodesWithoutZone, FeatMultiZone)
}

// curScoreTie: identical nodes: every node ties at the top score.
func curScoreTie() *Scenario {
	b := curatedBase("score-tie")
	for i := 1; i <= 4; i++ {
		b.addNode(cnode(fmt.Sprintf("node-%d", i), "us-east-1a", 4000, 16*gi))
	}
	b.addNode(cnode("node-5", "us-east-1a", 4000, 16*gi))
	b.bound("default", "load", "node-5", app("load"), "", ctr("c", nginx, "cpu=2", "memory=8Gi"))
	b.pending(newPod("default", "tie", app("tie"), ctr("c", nginx, "cpu=500m", "memory=1Gi")))
	return b.done(`node-1..node-4 tie at the highest total (tie set of 4); node-5 scores lower.`, "Score/tie")
}

// curPreferNoScheduleNormalization: TaintToleration counts untolerated
// PreferNoSchedule taints and normalizes in reverse (100 - 100*s/max); a pod
// tolerating all of them gets 100 everywhere (max 0).
func curPreferNoScheduleNormalization() *Scenario {
	b := curatedBase("taint-prefernoschedule-normalization")
	pns := func(keys ...string) func(*nodeSpec) {
		var ts []v1.Taint
		for _, k := range keys {
			ts = append(ts, v1.Taint{Key: k, Effect: v1.TaintEffectPreferNoSchedule})
		}
		return withTaints(ts...)
	}
	b.addNode(cnode("node-0", "", 4000, 8*gi))
	b.addNode(cnode("node-1", "", 4000, 8*gi, pns("a")))
	b.addNode(cnode("node-2", "", 4000, 8*gi, pns("a", "b")))
	b.addNode(cnode("node-3", "", 4000, 8*gi, pns("a", "b", "c"), withTaints(v1.Taint{Key: "d", Value: "x", Effect: v1.TaintEffectNoSchedule})))
	b.pending(newPod("default", "plain", app("p"), ctr("c", nginx, "cpu=100m")))
	p := newPod("default", "tolerates-b", app("p"), ctr("c", nginx, "cpu=100m"))
	p.Spec.Tolerations = []v1.Toleration{{Key: "b", Operator: v1.TolerationOpExists, Effect: v1.TaintEffectPreferNoSchedule}}
	b.pending(p)
	p = newPod("default", "tolerates-all-prefer", app("p"), ctr("c", nginx, "cpu=100m"))
	p.Spec.Tolerations = []v1.Toleration{{Key: "a", Operator: v1.TolerationOpExists}, {Key: "b", Operator: v1.TolerationOpExists},
		{Key: "c", Operator: v1.TolerationOpExists}, {Key: "d", Operator: v1.TolerationOpEqual, Value: "x"}}
	b.pending(p)
	return b.done(`plain: raw 0/1/2 on node-0..2 (node-3 filtered) → normalized 100/50/0. tolerates-b: raw 0/1/1 → 100/0/0.
tolerates-all-prefer: raw 0 everywhere (node-3 feasible, empty-effect tolerations) → 100 everywhere.`,
		FeatTaintPreferNo, FeatTolPreferNoSchedule, FeatTolEmptyEffect)
}

// curMinDomains: minDomains larger than the number of domains makes the
// global minimum 0.
func curMinDomains() *Scenario {
	b := curatedBase("pts-min-domains")
	zones := []string{"us-east-1a", "us-east-1b", "us-east-1c"}
	for i, z := range zones {
		b.addNode(cnode(fmt.Sprintf("node-%d", i+1), z, 8000, 16*gi))
		b.bound("default", fmt.Sprintf("web-%d", i), fmt.Sprintf("node-%d", i+1), app("web"), "", ctr("c", nginx, "cpu=100m"))
	}
	mk := func(name string, minDomains *int32) {
		p := newPod("default", name, app("web"), ctr("c", nginx, "cpu=100m"))
		p.Spec.TopologySpreadConstraints = []v1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: labelZone,
			WhenUnsatisfiable: v1.DoNotSchedule, LabelSelector: &metav1.LabelSelector{MatchLabels: app("web")}, MinDomains: minDomains}}
		b.pending(p)
	}
	mk("with-min-domains", ptrTo(int32(5)))
	mk("without-min-domains", nil)
	return b.done(`with-min-domains: 3 domains < minDomains 5 → global min 0, skew 1+1-0 = 2 > 1 on every node:
"0/3 nodes are available: 3 node(s) didn't match pod topology spread constraints." without-min-domains fits anywhere.`,
		FeatPTSMinDomains, FeatPTSHard)
}

// curMatchLabelKeys: matchLabelKeys (merged into the selector by the API
// server) restrict spreading to the pod's own ReplicaSet revision.
func curMatchLabelKeys() *Scenario {
	b := curatedBase("pts-match-label-keys")
	zones := []string{"us-east-1a", "us-east-1b"}
	for i, z := range zones {
		b.addNode(cnode(fmt.Sprintf("node-%d", i+1), z, 8000, 16*gi))
	}
	old := map[string]string{"app": "web", "pod-template-hash": "old111"}
	nw := map[string]string{"app": "web", "pod-template-hash": "new222"}
	for i := range 3 {
		b.bound("default", fmt.Sprintf("web-old-%d", i), "node-2", old, "", ctr("c", nginx, "cpu=100m"))
	}
	b.bound("default", "web-new-0", "node-1", nw, "", ctr("c", nginx, "cpu=100m"))
	for _, keys := range []struct {
		name string
		keys []string
	}{{"with-match-label-keys", []string{"pod-template-hash"}}, {"without-match-label-keys", nil}} {
		p := newPod("default", keys.name, nw, ctr("c", nginx, "cpu=100m"))
		p.Spec.TopologySpreadConstraints = []v1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: labelZone,
			WhenUnsatisfiable: v1.DoNotSchedule, LabelSelector: &metav1.LabelSelector{MatchLabels: app("web")}, MatchLabelKeys: keys.keys}}
		b.pending(p)
	}
	return b.done(`with-match-label-keys counts only new222 pods (1 in zone a, 0 in b) → only node-2 passes.
without-match-label-keys counts all web pods (1 vs 3) → only node-1 passes.`, FeatPTSMatchLabelKeys, FeatPTSHard)
}

// curFirstPodOfGroup: required pod affinity with no matching pod anywhere
// passes only if the incoming pod matches its own term.
func curFirstPodOfGroup() *Scenario {
	b := curatedBase("ipa-first-pod-of-group")
	b.addNode(cnode("node-1", "us-east-1a", 4000, 8*gi))
	b.addNode(cnode("node-2", "us-east-1b", 4000, 8*gi))
	b.addNode(cnode("node-3", "", 4000, 8*gi))
	term := v1.PodAffinityTerm{LabelSelector: &metav1.LabelSelector{MatchLabels: app("solo")}, TopologyKey: labelZone}
	p := newPod("default", "self-match", app("solo"), ctr("c", nginx, "cpu=100m"))
	p.Spec.Affinity = &v1.Affinity{PodAffinity: &v1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{term}}}
	b.pending(p)
	p = newPod("default", "no-self-match", app("other"), ctr("c", nginx, "cpu=100m"))
	p.Spec.Affinity = &v1.Affinity{PodAffinity: &v1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{*term.DeepCopy()}}}
	b.pending(p)
	return b.done(`self-match schedules (first pod of its group), but node-3 lacks the zone label and is rejected.
no-self-match: "0/3 nodes are available: 3 node(s) didn't match pod affinity rules." (U&U), unless self-match was bound first
in this run, in which case it must land in self-match's zone.`, FeatIPAFirstOfGroup, FeatIPAReqAffinity)
}

// curExistingAntiAffinity: existing pods' required anti-affinity rejects the
// incoming pod across the term's topology domain.
func curExistingAntiAffinity() *Scenario {
	b := curatedBase("ipa-existing-anti-affinity", "team-a:team=a", "team-b:team=b")
	b.addNode(cnode("node-1", "us-east-1a", 4000, 8*gi))
	b.addNode(cnode("node-2", "us-east-1a", 4000, 8*gi))
	b.addNode(cnode("node-3", "us-east-1b", 4000, 8*gi))
	b.addNode(cnode("node-4", "us-east-1b", 4000, 8*gi))
	b.addNode(cnode("node-5", "", 4000, 8*gi))
	guard := newPod("team-a", "zone-guard", app("db"), ctr("c", "docker.io/library/postgres:17.4", "cpu=100m"))
	guard.Spec.Affinity = &v1.Affinity{PodAntiAffinity: &v1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{
		LabelSelector: &metav1.LabelSelector{MatchLabels: app("noisy")}, TopologyKey: labelZone,
		NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"team": "b"}}}}}}
	b.addBound(guard, "node-1", b.now(), false)
	host := newPod("default", "host-guard", app("cache"), ctr("c", "docker.io/library/redis:7.4.2", "cpu=100m"))
	host.Spec.Affinity = &v1.Affinity{PodAntiAffinity: &v1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{
		LabelSelector: &metav1.LabelSelector{MatchLabels: app("noisy")}, TopologyKey: labelHostname, Namespaces: []string{"team-b", "default"}}}}}
	b.addBound(host, "node-3", b.now(), false)
	b.pending(newPod("team-b", "noisy", app("noisy"), ctr("c", nginx, "cpu=100m")))
	b.pending(newPod("team-a", "noisy-elsewhere", app("noisy"), ctr("c", nginx, "cpu=100m")))
	return b.done(`team-b/noisy: node-1, node-2 (zone a, namespaceSelector team=b) and node-3 (hostname) fail with
"node(s) didn't satisfy existing pods anti-affinity rules"; node-4 and node-5 (no zone label) pass.
team-a/noisy-elsewhere matches neither term's namespaces: all nodes pass.`,
		FeatIPAExistingAnti, FeatIPANamespaceSelector, FeatIPANamespaces)
}

// curImageLocality: ImageLocality sums image sizes scaled by spread; untagged
// names get ":latest"; image volumes count as images.
func curImageLocality() *Scenario {
	b := curatedBase("imagelocality-latest-and-image-volumes")
	weights := image("registry.example.com/ml/weights:v3", 800*mi)
	b.addNode(cnode("node-1", "", 4000, 8*gi, withImages(image("docker.io/library/nginx:latest", 190*mi, "nginx:latest"), weights)))
	b.addNode(cnode("node-2", "", 4000, 8*gi, withImages(image("docker.io/library/nginx:latest", 190*mi, "nginx:latest"))))
	b.addNode(cnode("node-3", "", 4000, 8*gi, withImages(weights, v1.ContainerImage{Names: []string{"nginx"}, SizeBytes: 500 * mi})))
	b.addNode(cnode("node-4", "", 4000, 8*gi))
	p := newPod("default", "untagged", app("web"), ctr("c", "nginx", "cpu=100m"))
	b.pending(p)
	p = newPod("default", "with-image-volume", app("ml"), ctr("c", "nginx:latest", "cpu=100m"))
	p.Spec.Volumes = []v1.Volume{{Name: "weights", VolumeSource: v1.VolumeSource{Image: &v1.ImageVolumeSource{Reference: "registry.example.com/ml/weights:v3"}}}}
	p.Spec.Containers[0].VolumeMounts = []v1.VolumeMount{{Name: "weights", MountPath: "/w", ReadOnly: true}}
	b.pending(p)
	return b.done(`"nginx" is looked up as "nginx:latest": present on node-1 and node-2 (190Mi × 2/4), never as the bare "nginx"
reported by node-3. with-image-volume counts 2 images (container + image volume): node-1 has both.`,
		FeatImageUntagged, FeatImageVolume, FeatImagePresent)
}

// curImageSizeFirstNode: when nodes report different sizes for one image
// name, the cluster-wide image state keeps the size of the first node added.
func curImageSizeFirstNode() *Scenario {
	b := curatedBase("imagelocality-size-from-first-node")
	ref := "ghcr.io/example/api:v1.8.0"
	b.addNode(cnode("node-1", "", 4000, 8*gi, withImages(image(ref, 300*mi))))
	b.addNode(cnode("node-2", "", 4000, 8*gi, withImages(image(ref, 900*mi))))
	b.addNode(cnode("node-3", "", 4000, 8*gi))
	b.pending(newPod("default", "api", app("api"), ctr("c", ref, "cpu=100m")))
	return b.done(`Both node-1 and node-2 score with size 300Mi (first node's report) × 2/3 spread.`, FeatImagePresent, "ImageLocality/size-from-first-node")
}

// curBestEffortBalanced: a best-effort pod makes BalancedAllocation skip at
// PreScore while LeastAllocated uses the 100m/200Mi non-zero defaults; a
// cpu-only pod is balanced against a zero memory request.
func curBestEffortBalanced() *Scenario {
	b := curatedBase("balanced-allocation-best-effort")
	b.addNode(cnode("node-1", "", 4000, 8*gi))
	b.addNode(cnode("node-2", "", 4000, 8*gi))
	b.bound("default", "mem-heavy", "node-1", app("m"), "", ctr("c", nginx, "memory=6Gi"))
	b.bound("default", "cpu-heavy", "node-2", app("c"), "", ctr("c", nginx, "cpu=3"))
	b.pending(newPod("default", "best-effort", app("be"), ctr("c", nginx)))
	b.pending(newPod("default", "cpu-only", app("co"), ctr("c", nginx, "cpu=1")))
	b.pending(newPod("default", "explicit-zero", app("z"), ctr("c", nginx, "cpu=0", "memory=0")))
	return b.done(`best-effort: NodeResourcesBalancedAllocation absent from scores (PreScore Skip). explicit-zero: requests are
explicit zeros — LeastAllocated does not substitute defaults for them, BalancedAllocation skips.`,
		FeatBalancedBestEffort, FeatFitNoRequests, FeatBalancedRequests)
}

// curPodLevelResources: pod-level requests replace the container aggregate
// for cpu/memory in Filter and in scoring.
func curPodLevelResources() *Scenario {
	b := curatedBase("pod-level-resources")
	b.addNode(cnode("node-1", "", 4000, 8*gi))
	b.addNode(cnode("node-2", "", 4000, 8*gi))
	b.bound("default", "load", "node-1", app("l"), "", ctr("c", nginx, "cpu=2500m"))
	p := newPod("default", "pod-level", app("pl"), ctr("a", nginx, "cpu=200m"), ctr("b", nginx))
	p.Spec.Resources = &v1.ResourceRequirements{Requests: rl("cpu=2", "memory=1Gi")}
	b.pending(p)
	p = newPod("default", "pod-level-limits", app("pl"), withLimits(ctr("a", nginx, "cpu=500m", "memory=256Mi"), "cpu=1", "memory=512Mi"))
	p.Spec.Resources = &v1.ResourceRequirements{Requests: rl("cpu=1", "memory=1Gi")}
	b.pending(p)
	return b.done(`pod-level asks cpu 2 at pod level although containers ask 200m: node-1 (1500m free) is Insufficient cpu.
pod-level-limits: the API server defaulted pod-level limits from the containers' limits (max(request, aggregate)).`,
		FeatFitPodLevel)
}

// curSidecars: restartable init containers add to the pod's request and to
// every later init container.
func curSidecars() *Scenario {
	b := curatedBase("sidecar-containers")
	b.addNode(cnode("node-2400", "", 2400, 8*gi))
	b.addNode(cnode("node-2600", "", 2600, 8*gi))
	p := newPod("default", "sidecar-first", app("s"), ctr("main", nginx, "cpu=1"))
	p.Spec.InitContainers = []v1.Container{sidecar(ctr("proxy", "ghcr.io/example/proxy:v1.33.0", "cpu=500m")), ctr("migrate", "docker.io/library/busybox:latest", "cpu=2")}
	b.pending(p)
	p = newPod("default", "sidecar-after", app("s"), ctr("main", nginx, "cpu=1"))
	p.Spec.InitContainers = []v1.Container{ctr("migrate", "docker.io/library/busybox:latest", "cpu=2"), sidecar(ctr("proxy", "ghcr.io/example/proxy:v1.33.0", "cpu=500m"))}
	b.pending(p)
	return b.done(`sidecar-first: max(1000+500, 2000+500) = 2500m → only node-2600 fits.
sidecar-after: max(1500, 2000) = 2000m → fits node-2400 (and node-2600 if sidecar-first was not bound there).`, FeatFitSidecar, FeatFitInit)
}

// curHugePages: hugepages are a scalar resource; nodes report 0 when none
// are configured.
func curHugePages() *Scenario {
	b := curatedBase("hugepages")
	b.addNode(cnode("node-none", "", 4000, 8*gi))
	b.addNode(cnode("node-1gi", "", 4000, 8*gi, func(s *nodeSpec) { s.hugeBytes = 1 * gi }))
	b.addNode(cnode("node-used", "", 4000, 8*gi, func(s *nodeSpec) { s.hugeBytes = 1 * gi }))
	b.bound("default", "huge-user", "node-used", app("h"), "", withReqLim(ctr("c", nginx, "memory=128Mi"), "hugepages-2Mi=768Mi"))
	b.pending(newPod("default", "wants-huge", app("w"), withReqLim(ctr("c", nginx, "memory=128Mi"), "hugepages-2Mi=512Mi")))
	b.pending(newPod("default", "wants-too-much", app("w"), withReqLim(ctr("c", nginx, "memory=128Mi"), "hugepages-2Mi=2Gi")))
	return b.done(`wants-huge: only node-1gi fits ("Insufficient hugepages-2Mi" on the others; U&U on node-none whose
allocatable is 0). wants-too-much exceeds every node's allocatable.`, FeatFitHugePages, FeatHugePagesNodes)
}

// curDaemonSetMatchFields: DaemonSet pods are pinned by matchFields and
// carry the daemon tolerations (incl. node.kubernetes.io/unschedulable).
func curDaemonSetMatchFields() *Scenario {
	b := curatedBase("daemonset-matchfields", "monitoring")
	b.addNode(cnode("node-1", "", 4000, 8*gi))
	b.addNode(cnode("node-2", "", 4000, 8*gi))
	b.addNode(cnode("node-3", "", 4000, 8*gi, func(s *nodeSpec) {
		s.cordoned = true
		s.taints = []v1.Taint{{Key: taintUnschedulable, Effect: v1.TaintEffectNoSchedule}}
	}))
	b.addNode(cnode("node-4", "", 4000, 8*gi, withTaints(v1.Taint{Key: "maintenance", Value: "now", Effect: v1.TaintEffectNoExecute})))
	labels := map[string]string{"app": "agent", appsControllerRevision: "agent-5d9f", "pod-template-generation": "1"}
	spec := v1.PodSpec{Containers: []v1.Container{ctr("agent", "quay.io/prometheus/node-exporter:v1.9.0", "cpu=50m", "memory=64Mi")},
		Tolerations: daemonTolerations()}
	ds := b.addDaemonSet("monitoring", "agent", &metav1.LabelSelector{MatchLabels: app("agent")}, labels, spec, 4)
	for _, n := range []string{"node-3", "node-4"} {
		p := newPod("monitoring", "agent-"+n, labels)
		p.Spec = *spec.DeepCopy()
		p.OwnerReferences = []metav1.OwnerReference{ownerRef("apps/v1", "DaemonSet", ds.Name, ds.UID)}
		p.Spec.Affinity = daemonAffinity(n)
		b.pending(p)
	}
	return b.done(`agent-node-3 schedules onto the cordoned node-3 (tolerates node.kubernetes.io/unschedulable). agent-node-4:
"0/4 nodes are available: 1 node(s) had untolerated taint(s), 3 node(s) didn't satisfy plugin(s) [NodeAffinity]."`,
		FeatPendingDaemon, FeatNAMatchFields, FeatTolerateUnschedulable, FeatCordonedNode)
}

// curCordonedTolerated: spec.unschedulable is checked by NodeUnschedulable
// against a toleration of node.kubernetes.io/unschedulable:NoSchedule, with
// or without the controller's taint present.
func curCordonedTolerated() *Scenario {
	b := curatedBase("cordoned-node-tolerated")
	b.addNode(cnode("node-open", "", 2000, 8*gi))
	b.addNode(cnode("node-cordoned", "", 8000, 8*gi, func(s *nodeSpec) { s.cordoned = true }))
	b.addNode(cnode("node-cordoned-tainted", "", 8000, 8*gi, func(s *nodeSpec) {
		s.cordoned = true
		s.taints = []v1.Taint{{Key: taintUnschedulable, Effect: v1.TaintEffectNoSchedule}}
	}))
	b.pending(newPod("default", "plain", app("p"), ctr("c", nginx, "cpu=1")))
	p := newPod("default", "tolerant", app("t"), ctr("c", nginx, "cpu=3"))
	p.Spec.Tolerations = []v1.Toleration{{Key: taintUnschedulable, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule}}
	b.pending(p)
	p = newPod("default", "tolerates-everything", app("t"), ctr("c", nginx, "cpu=3"))
	p.Spec.Tolerations = []v1.Toleration{{Operator: v1.TolerationOpExists}}
	b.pending(p)
	return b.done(`plain: both cordoned nodes fail with "node(s) were unschedulable". tolerant and tolerates-everything
(cpu 3 does not fit node-open) pass NodeUnschedulable and TaintToleration on the cordoned nodes.`,
		FeatTolerateUnschedulable, FeatTolEmptyKey, FeatCordonedNode)
}

// curHostPortIPs: host port conflicts depend on protocol and host IP
// (0.0.0.0 conflicts with every IP).
func curHostPortIPs() *Scenario {
	b := curatedBase("nodeports-host-ip")
	b.addNode(cnode("node-1", "", 4000, 8*gi))
	b.addNode(cnode("node-2", "", 4000, 8*gi))
	b.bound("default", "local-only", "node-1", app("l"), "", hostPort(ctr("c", nginx, "cpu=100m"), 8080, v1.ProtocolTCP, "127.0.0.1"))
	b.bound("default", "wildcard", "node-2", app("w"), "", hostPort(ctr("c", nginx, "cpu=100m"), 9090, v1.ProtocolTCP, ""))
	for _, tc := range []struct {
		name  string
		port  int32
		proto v1.Protocol
		ip    string
	}{
		{"specific-ip", 8080, v1.ProtocolTCP, "10.0.0.2"},
		{"same-ip", 8080, v1.ProtocolTCP, "127.0.0.1"},
		{"any-ip", 8080, v1.ProtocolTCP, "0.0.0.0"},
		{"udp", 9090, v1.ProtocolUDP, ""},
		{"vs-wildcard", 9090, v1.ProtocolTCP, "10.0.0.3"},
	} {
		b.pending(newPod("default", tc.name, app("hp"), hostPort(ctr("c", nginx, "cpu=100m"), tc.port, tc.proto, tc.ip)))
	}
	return b.done(`specific-ip and udp fit both nodes; same-ip and any-ip conflict on node-1; vs-wildcard conflicts on node-2.
Pods scheduled earlier in the run add their own ports.`, FeatHostPort, FeatHostPortHostIP, FeatHostPortUDP, FeatHostPortConflict)
}

// curEmptySpreadSelector: in 1.37 an empty labelSelector counts no pods.
func curEmptySpreadSelector() *Scenario {
	b := curatedBase("pts-empty-selector")
	b.addNode(cnode("node-1", "us-east-1a", 8000, 16*gi))
	b.addNode(cnode("node-2", "us-east-1b", 8000, 16*gi))
	for i := range 4 {
		b.bound("default", fmt.Sprintf("web-%d", i), "node-1", app("web"), "", ctr("c", nginx, "cpu=100m"))
	}
	p := newPod("default", "empty-selector", app("web"), ctr("c", nginx, "cpu=100m"))
	p.Spec.TopologySpreadConstraints = []v1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: labelZone,
		WhenUnsatisfiable: v1.DoNotSchedule, LabelSelector: &metav1.LabelSelector{}}}
	b.pending(p)
	return b.done(`The empty selector counts 0 pods everywhere (fixed only in 1.38): both nodes pass although zone a holds 4 pods.`,
		FeatPTSEmptySelector, FeatPTSHard)
}

// curResizeStatusResources: a bound pod whose resize is still being actuated
// counts max(spec, allocated, actuated) on its node.
func curResizeStatusResources() *Scenario {
	b := curatedBase("bound-resize-status-resources")
	b.addNode(cnode("node-1", "", 4000, 8*gi))
	b.addNode(cnode("node-2", "", 4000, 8*gi))
	p := newPod("default", "shrinking", app("s"), ctr("c", nginx, "cpu=1", "memory=1Gi"))
	b.admitPod(p)
	b.bindPod(p, "node-1", b.now(), true)
	p.Status.ContainerStatuses[0].Resources.Requests = rl("cpu=3", "memory=1Gi")
	p.Status.ContainerStatuses[0].AllocatedResources = rl("cpu=1", "memory=1Gi")
	p.Status.Conditions = append(p.Status.Conditions, v1.PodCondition{Type: v1.PodResizeInProgress, Status: v1.ConditionTrue, LastTransitionTime: b.now()})
	b.c.Pods = append(b.c.Pods, p)
	b.bound("default", "steady", "node-2", app("t"), "", ctr("c", nginx, "cpu=1500m"))
	b.pending(newPod("default", "newcomer", app("n"), ctr("c", nginx, "cpu=2")))
	return b.done(`node-1 counts 3 cpu for shrinking (actuated) → Insufficient cpu; newcomer goes to node-2.`, FeatBoundResizeInFlight)
}

// curDeclaredFeatures: NodeDeclaredFeatures requires the node to declare the
// features a pod's spec needs (RestartAllContainers restart rules).
func curDeclaredFeatures() *Scenario {
	b := curatedBase("node-declared-features")
	b.addNode(cnode("node-old", "", 4000, 8*gi))
	b.addNode(cnode("node-new", "", 4000, 8*gi, func(s *nodeSpec) {
		s.declared = []string{"InPlacePodLevelResourcesVerticalScaling", "RestartAllContainersOnContainerExits"}
	}))
	c := ctr("c", nginx, "cpu=100m")
	c.RestartPolicy = ptrTo(v1.ContainerRestartPolicyNever)
	c.RestartPolicyRules = []v1.ContainerRestartRule{{Action: v1.ContainerRestartRuleActionRestartAllContainers,
		ExitCodes: &v1.ContainerRestartRuleOnExitCodes{Operator: v1.ContainerRestartRuleOnExitCodesOpIn, Values: []int32{42}}}}
	b.pending(newPod("default", "restart-all", app("r"), c))
	return b.done(`restart-all fits only node-new; node-old: "node(s) didn't match Pod's required features".`,
		FeatDeclaredFeaturePod, FeatDeclaredFeatures)
}
