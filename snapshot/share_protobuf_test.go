package snapshot

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/schedtui/schedtui/internal/docread"
)

// protobufPodList is a protobuf snapshot (no header) of pods given as
// their encodings.
func protobufPodList(t *testing.T, pods ...[]byte) []byte {
	t.Helper()
	var list v1.List
	for _, raw := range pods {
		u := runtime.Unknown{TypeMeta: runtime.TypeMeta{APIVersion: "v1", Kind: "Pod"}, Raw: raw}
		b, err := u.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		list.Items = append(list.Items, runtime.RawExtension{Raw: append(bytes.Clone(protobufMagic), b...)})
	}
	lb, err := list.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	u := runtime.Unknown{TypeMeta: runtime.TypeMeta{APIVersion: "v1", Kind: "List"}, Raw: lb}
	b, err := u.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return append(bytes.Clone(protobufMagic), b...)
}

func podBytes(t *testing.T, p *v1.Pod) []byte {
	t.Helper()
	b, err := p.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// loadSharing loads data with the pods' parts shared, or not at all.
func loadSharing(t *testing.T, data []byte, share bool) (*Cluster, *docread.Report) {
	t.Helper()
	l := NewLoader()
	if !share {
		l.share = nil
	}
	if err := l.LoadData("pods.pb", data); err != nil {
		t.Fatal(err)
	}
	return l.Finish()
}

// templatePod is a pod of a Deployment's template as an API server
// stores it (resourceVersion set), with every part share_protobuf.go
// shares, none of them defaulted yet.
func templatePod(name string) *v1.Pod {
	q := resource.MustParse
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "team", ResourceVersion: "7", UID: types.UID("uid-" + name),
			Labels:          map[string]string{"app": "web", "pod-template-hash": "abc"},
			Annotations:     map[string]string{"note": "x"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-abc", UID: "rs"}},
			ManagedFields:   []metav1.ManagedFieldsEntry{{Manager: "kube-controller-manager", Operation: "Update", FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:metadata":{}}`)}}},
		},
		Spec: v1.PodSpec{
			NodeName: "n1",
			Volumes:  []v1.Volume{{Name: "scratch"}},
			InitContainers: []v1.Container{{Name: "init", Image: "busybox",
				Resources: v1.ResourceRequirements{Limits: v1.ResourceList{v1.ResourceCPU: q("100m")}}}},
			Containers: []v1.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10",
				Ports:     []v1.ContainerPort{{ContainerPort: 8080}},
				Resources: v1.ResourceRequirements{Limits: v1.ResourceList{v1.ResourceCPU: q("100m"), v1.ResourceMemory: q("500Mi")}}}},
			Tolerations: []v1.Toleration{{Key: "dedicated", Operator: v1.TolerationOpExists}},
			Affinity: &v1.Affinity{PodAntiAffinity: &v1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}, TopologyKey: "kubernetes.io/hostname",
				MatchLabelKeys: []string{"pod-template-hash"}}}}},
			TopologySpreadConstraints: []v1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: v1.DoNotSchedule,
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}, MatchLabelKeys: []string{"pod-template-hash"}}},
			Resources: &v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: q("200m")}},
		},
		Status: v1.PodStatus{
			Phase:              v1.PodRunning,
			Conditions:         []v1.PodCondition{{Type: v1.PodReady, Status: v1.ConditionTrue}},
			HostIPs:            []v1.HostIP{{IP: "10.0.0.1"}},
			AllocatedResources: v1.ResourceList{v1.ResourceCPU: q("100m")},
			Resources:          &v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: q("100m")}},
			ContainerStatuses: []v1.ContainerStatus{{Name: "c", Image: "registry.k8s.io/pause:3.10",
				AllocatedResources: v1.ResourceList{v1.ResourceCPU: q("100m")},
				Resources:          &v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: q("100m")}},
				VolumeMounts:       []v1.VolumeMountStatus{{Name: "scratch", MountPath: "/scratch"}}}},
		},
	}
}

// templatePodVariants are pods of templatePod alike in every way the
// sharing by bytes must tell apart: web-0 to web-127 as they are (enough
// to be decoded on several goroutines); new-0 and new-1 created (no
// resourceVersion) with other labels, so that their affinity and spread
// constraints merge their own label and a scheduling gate adds a
// condition to the shared ones; one named by the loader
// (metadata.generateName: checked as it is added, not ahead); host-0 and
// host-1 on the host's network (the same containers' ports get host
// ports); running-0 and running-1, whose container statuses are their
// own.
func templatePodVariants() []*v1.Pod {
	var pods []*v1.Pod
	for i := range parallelMinItems * 2 {
		pods = append(pods, templatePod(fmt.Sprint("web-", i)))
	}
	for i := range 2 {
		p := templatePod(fmt.Sprint("new-", i))
		p.ResourceVersion = ""
		p.Labels = map[string]string{"app": "web", "pod-template-hash": fmt.Sprint("h", i)}
		p.Spec.SchedulingGates = []v1.PodSchedulingGate{{Name: "wait"}}
		pods = append(pods, p)
	}
	generated := templatePod("")
	generated.GenerateName = "web-"
	pods = append(pods, generated)
	for i := range 2 {
		hn := templatePod(fmt.Sprint("host-", i))
		hn.Spec.HostNetwork = true
		pods = append(pods, hn)
	}
	for i := range 2 {
		p := templatePod(fmt.Sprint("running-", i))
		p.Status.ContainerStatuses[0].ContainerID = fmt.Sprint("containerd://", i)
		pods = append(pods, p)
	}
	return pods
}

// templatePartsShared says, for each part a pod of templatePod has,
// whether pods a and b share it.
func templatePartsShared(a, b *v1.Pod) map[string]bool {
	return map[string]bool{
		"labels": sameMap(a.Labels, b.Labels), "annotations": sameMap(a.Annotations, b.Annotations),
		"owner references": sameArray(a.OwnerReferences, b.OwnerReferences), "managed fields": sameArray(a.ManagedFields, b.ManagedFields),
		"volumes": sameArray(a.Spec.Volumes, b.Spec.Volumes), "containers": sameArray(a.Spec.Containers, b.Spec.Containers),
		"init containers": sameArray(a.Spec.InitContainers, b.Spec.InitContainers), "tolerations": sameArray(a.Spec.Tolerations, b.Spec.Tolerations),
		"security context": a.Spec.SecurityContext == b.Spec.SecurityContext, "affinity": a.Spec.Affinity == b.Spec.Affinity,
		"spread constraints": sameArray(a.Spec.TopologySpreadConstraints, b.Spec.TopologySpreadConstraints), "resources": a.Spec.Resources == b.Spec.Resources,
		"conditions": sameArray(a.Status.Conditions, b.Status.Conditions), "container statuses": sameArray(a.Status.ContainerStatuses, b.Status.ContainerStatuses),
		"host IPs": sameArray(a.Status.HostIPs, b.Status.HostIPs), "allocated resources": sameMap(a.Status.AllocatedResources, b.Status.AllocatedResources),
		"status resources": a.Status.Resources == b.Status.Resources,
	}
}

// TestProtobufSharesPodPartsByBytes loads pods whose parts are alike in
// every way share_protobuf.go must tell apart, and checks that each pod
// is what it is loaded without any sharing, and that the parts that may be
// shared are.
func TestProtobufSharesPodPartsByBytes(t *testing.T) {
	var pods [][]byte
	add := func(p *v1.Pod) { pods = append(pods, podBytes(t, p)) }
	for _, p := range templatePodVariants() {
		add(p)
	}
	// Running, with an unknown field in a container status's resources:
	// the second shares the first's (with the warning about the bytes).
	for i := range 2 {
		p := templatePod(fmt.Sprint("running-unknown-", i))
		p.Status.ContainerStatuses[0].ContainerID = fmt.Sprint("containerd://u", i)
		pods = append(pods, unknownInStatusResources(t, p))
	}
	// Equal quantities written otherwise ("1e-1" for "100m", which an
	// encoder does not write) are not shared: the pod keeps what it was
	// written with.
	pods = append(pods, bytes.ReplaceAll(podBytes(t, templatePod("other-quantity")), []byte("100m"), []byte("1e-1")))
	// The spec in two fields, a container in each, and an unknown field
	// in a container: the pod decodes alike, with the warning about the
	// bytes.
	split := podBytes(t, templatePod("split"))
	pods = append(pods, splitSpec(t, split))
	pods = append(pods, appendToContainer(t, podBytes(t, templatePod("unknown-0"))), appendToContainer(t, podBytes(t, templatePod("unknown-1"))))
	// A pod that does not decode, after the others' parts.
	bad := podBytes(t, templatePod("bad"))
	pods = append(pods, bad[:len(bad)-3])

	data := protobufPodList(t, pods...)
	got, gotReport := loadSharing(t, data, true)
	want, wantReport := loadSharing(t, data, false)
	if len(got.Pods) != len(want.Pods) || len(got.Pods) < 10 {
		t.Fatalf("%d pods loaded, %d without sharing", len(got.Pods), len(want.Pods))
	}
	for i := range want.Pods {
		if !reflect.DeepEqual(got.Pods[i], want.Pods[i]) {
			t.Errorf("pod %s differs from the same pod loaded without sharing:\n%+v\nwant\n%+v", want.Pods[i].Name, got.Pods[i], want.Pods[i])
		}
	}
	if g, w := fmt.Sprint(gotReport.Problems), fmt.Sprint(wantReport.Problems); g != w {
		t.Errorf("problems differ from those without sharing:\n%s\nwant\n%s", g, w)
	}
	if !gotReport.HasErrors() {
		t.Errorf("the pod cut short is not reported")
	}

	byName := map[string]*v1.Pod{}
	for _, p := range got.Pods {
		byName[p.Name] = p
	}
	a, b := byName["web-0"], byName["web-1"]
	shared := templatePartsShared(a, b)
	for part, ok := range map[string]bool{
		"containers of a created pod":        sameArray(a.Spec.Containers, byName["new-0"].Spec.Containers),
		"containers of a running pod":        sameArray(a.Spec.Containers, byName["running-0"].Spec.Containers),
		"containers of a split spec":         sameArray(a.Spec.Containers, byName["split"].Spec.Containers),
		"containers of a host-network pod":   sameArray(byName["host-0"].Spec.Containers, byName["host-1"].Spec.Containers),
		"running containers' resources":      sameMap(byName["running-0"].Status.ContainerStatuses[0].AllocatedResources, byName["running-1"].Status.ContainerStatuses[0].AllocatedResources),
		"running containers' requirements":   byName["running-0"].Status.ContainerStatuses[0].Resources == byName["running-1"].Status.ContainerStatuses[0].Resources,
		"running containers' mounts":         sameArray(byName["running-0"].Status.ContainerStatuses[0].VolumeMounts, byName["running-1"].Status.ContainerStatuses[0].VolumeMounts),
		"requirements with an unknown field": byName["running-unknown-0"].Status.ContainerStatuses[0].Resources == byName["running-unknown-1"].Status.ContainerStatuses[0].Resources,
		"parts with an unknown field":        sameArray(byName["unknown-0"].Spec.Containers, byName["unknown-1"].Spec.Containers),
	} {
		shared[part] = ok
	}
	for part, ok := range shared {
		if !ok {
			t.Errorf("pods of one template do not share their %s", part)
		}
	}
	var named *v1.Pod
	for _, p := range got.Pods {
		if p.GenerateName != "" {
			named = p
		}
	}
	if named == nil || !sameArray(named.Spec.Containers, a.Spec.Containers) {
		t.Errorf("a pod named by the loader does not share its containers")
	}
	if r := a.Spec.Containers[0].Resources.Requests; len(r) != 2 {
		t.Errorf("the shared containers are not defaulted: requests %v", r)
	}
	n0, n1 := byName["new-0"], byName["new-1"]
	if n0.Spec.Affinity == n1.Spec.Affinity || n0.Spec.Affinity == a.Spec.Affinity {
		t.Errorf("created pods with other labels share their merged affinity")
	}
	if len(n0.Status.Conditions) != 2 || len(a.Status.Conditions) != 1 {
		t.Errorf("the scheduling gate's condition went to the shared conditions: %v, %v", n0.Status.Conditions, a.Status.Conditions)
	}
	if h := byName["host-0"].Spec.Containers; sameArray(h, a.Spec.Containers) || h[0].Ports[0].HostPort != 8080 {
		t.Errorf("a host-network pod shares its containers with other pods', or its host port is not defaulted: %+v", h[0].Ports)
	}
	if r0, r1 := byName["running-0"].Status.ContainerStatuses, byName["running-1"].Status.ContainerStatuses; sameArray(r0, r1) || sameArray(r0, a.Status.ContainerStatuses) {
		t.Errorf("running pods share their container statuses")
	}
	if o := byName["other-quantity"].Spec.Containers; sameArray(o, a.Spec.Containers) {
		t.Errorf("containers with a quantity written otherwise are shared")
	}
}

// splitSpec gives the pod's spec in two fields: the first with the
// containers, the second with the rest (the generated Unmarshal merges
// them).
func splitSpec(t *testing.T, pod []byte) []byte {
	t.Helper()
	var out, rest, containers []byte
	for at := 0; at < len(pod); {
		num, typ, n := protowire.ConsumeTag(pod[at:])
		m := protowire.ConsumeFieldValue(num, typ, pod[at+n:])
		if num != podSpec {
			out = append(out, pod[at:at+n+m]...)
			at += n + m
			continue
		}
		spec, _ := protowire.ConsumeBytes(pod[at+n:])
		for in := 0; in < len(spec); {
			fn, ft, k := protowire.ConsumeTag(spec[in:])
			l := protowire.ConsumeFieldValue(fn, ft, spec[in+k:])
			if fn == specContainers {
				containers = append(containers, spec[in:in+k+l]...)
			} else {
				rest = append(rest, spec[in:in+k+l]...)
			}
			in += k + l
		}
		at += n + m
	}
	out = protowire.AppendTag(out, podSpec, protowire.BytesType)
	out = protowire.AppendBytes(out, containers)
	out = protowire.AppendTag(out, podSpec, protowire.BytesType)
	out = protowire.AppendBytes(out, rest)
	if len(out) != len(pod)+2 {
		t.Fatalf("split pod is %d bytes, from %d", len(out), len(pod))
	}
	return out
}

// appendToContainer adds an unknown field (number 999) to the pod's
// first container.
func appendToContainer(t *testing.T, pod []byte) []byte {
	t.Helper()
	var p v1.Pod
	if err := p.Unmarshal(pod); err != nil {
		t.Fatal(err)
	}
	c, err := p.Spec.Containers[0].Marshal()
	if err != nil {
		t.Fatal(err)
	}
	c = protowire.AppendTag(c, 999, protowire.VarintType)
	c = protowire.AppendVarint(c, 1)
	p.Spec.Containers = nil
	spec, err := p.Spec.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	spec = protowire.AppendTag(spec, specContainers, protowire.BytesType)
	spec = protowire.AppendBytes(spec, c)
	p.Spec = v1.PodSpec{}
	out, err := p.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	out = protowire.AppendTag(out, podSpec, protowire.BytesType)
	return protowire.AppendBytes(out, spec)
}

// unknownInStatusResources is p's encoding with an unknown field (number
// 999) in its first container status's resources. The status is 120
// bytes without them: with them its length takes another byte, which the
// warning's count must see.
func unknownInStatusResources(t *testing.T, p *v1.Pod) []byte {
	t.Helper()
	cs := p.Status.ContainerStatuses[0]
	without := cs
	without.Resources = nil
	cs.Image += strings.Repeat("x", 120-without.Size())
	res := mustMarshalProto(t, cs.Resources)
	res = protowire.AppendTag(res, 999, protowire.VarintType)
	res = protowire.AppendVarint(res, 1)
	cs.Resources = nil
	csb := mustMarshalProto(t, &cs)
	csb = protowire.AppendTag(csb, containerResources, protowire.BytesType)
	csb = protowire.AppendBytes(csb, res)
	p.Status.ContainerStatuses = nil
	status := mustMarshalProto(t, &p.Status)
	status = protowire.AppendTag(status, statusContainerStatuses, protowire.BytesType)
	status = protowire.AppendBytes(status, csb)
	p.Status = v1.PodStatus{}
	out := mustMarshalProto(t, p)
	out = protowire.AppendTag(out, podStatus, protowire.BytesType)
	return protowire.AppendBytes(out, status)
}

func mustMarshalProto(t *testing.T, m interface{ Marshal() ([]byte, error) }) []byte {
	t.Helper()
	b, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return b
}
