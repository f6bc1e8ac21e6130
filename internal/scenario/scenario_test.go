package scenario

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
	resourcehelper "k8s.io/component-helpers/resource"
	"sigs.k8s.io/yaml"

	"github.com/schedtui/schedtui/snapshot"
)

func dumpBytes(t *testing.T, s *Scenario) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := Dump(&buf, s); err != nil {
		t.Fatalf("Dump(%s): %v", s.Name, err)
	}
	return buf.Bytes()
}

// jsonBytes is a fast stand-in for Dump when only equality matters.
func jsonBytes(t *testing.T, s *Scenario) []byte {
	t.Helper()
	var buf bytes.Buffer
	for _, o := range objectsOf(t, s.Cluster) {
		b, err := json.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		buf.Write(b)
		buf.WriteByte('\n')
	}
	fmt.Fprintln(&buf, s.Features)
	return buf.Bytes()
}

func TestDeterministicDump(t *testing.T) {
	for _, seed := range []int64{0, 7} {
		for _, pre := range []bool{false, true} {
			a := dumpBytes(t, Generate(seed, Options{Preemption: pre}))
			b := dumpBytes(t, Generate(seed, Options{Preemption: pre}))
			if !bytes.Equal(a, b) {
				t.Errorf("seed %d preemption=%v: Dump differs between two generations", seed, pre)
			}
		}
	}
	if bytes.Equal(jsonBytes(t, Generate(1, Options{})), jsonBytes(t, Generate(2, Options{}))) {
		t.Error("seeds 1 and 2 generated the same scenario")
	}
	for seed := int64(100); seed < 140; seed++ {
		if !bytes.Equal(jsonBytes(t, Generate(seed, Options{})), jsonBytes(t, Generate(seed, Options{}))) {
			t.Errorf("seed %d: not deterministic", seed)
		}
	}
	c1, c2 := Curated(), Curated()
	for i := range c1 {
		if !bytes.Equal(jsonBytes(t, c1[i]), jsonBytes(t, c2[i])) {
			t.Errorf("curated %s: not deterministic", c1[i].Name)
		}
	}
	if testing.Short() {
		return
	}
	for i := range 3 {
		if !bytes.Equal(dumpBytes(t, c1[i]), dumpBytes(t, c2[i])) {
			t.Errorf("curated %s: Dump not deterministic", c1[i].Name)
		}
	}
}

func TestOptionsRespected(t *testing.T) {
	for seed := int64(0); seed < 30; seed++ {
		s := Generate(seed, Options{MinNodes: 3, MaxNodes: 5})
		if n := len(s.Cluster.Nodes); n < 3 || n > 5 {
			t.Errorf("seed %d: %d nodes, want 3..5", seed, n)
		}
		s = Generate(seed, Options{})
		if n := len(s.Cluster.Nodes); n < 10 || n > 120 {
			t.Errorf("seed %d: %d nodes, want 10..120", seed, n)
		}
		pending := 0
		for _, p := range s.Cluster.Pods {
			if p.Spec.NodeName == "" {
				pending++
			}
		}
		if pending < 5 || pending > 30 {
			t.Errorf("seed %d: %d pending pods, want 5..30", seed, pending)
		}
	}
}

// TestDumpRoundTrip checks the YAML is a v1 List whose items carry
// apiVersion/kind and decode back to equal objects.
func TestDumpRoundTrip(t *testing.T) {
	s := Generate(3, Options{Preemption: true})
	raw := dumpBytes(t, s)
	var l struct {
		APIVersion string            `json:"apiVersion"`
		Kind       string            `json:"kind"`
		Items      []json.RawMessage `json:"items"`
	}
	if err := yaml.Unmarshal(raw, &l); err != nil {
		t.Fatal(err)
	}
	if l.APIVersion != "v1" || l.Kind != "List" {
		t.Fatalf("got %s/%s, want v1/List", l.APIVersion, l.Kind)
	}
	objs := objectsOf(t, s.Cluster)
	if len(l.Items) != len(objs) {
		t.Fatalf("%d items, want %d", len(l.Items), len(objs))
	}
	for i, item := range l.Items {
		var tm metav1.TypeMeta
		if err := json.Unmarshal(item, &tm); err != nil || tm.APIVersion == "" || tm.Kind == "" {
			t.Fatalf("item %d lacks apiVersion/kind: %s", i, item[:min(len(item), 200)])
		}
		fresh := reflect.New(reflect.TypeOf(objs[i]).Elem()).Interface()
		if err := json.Unmarshal(item, fresh); err != nil {
			t.Fatalf("item %d: %v", i, err)
		}
		want, _ := json.Marshal(objs[i])
		got, _ := json.Marshal(fresh)
		if !bytes.Equal(want, got) {
			t.Fatalf("item %d (%s) does not round-trip:\nwant %s\ngot  %s", i, tm.Kind, want, got)
		}
	}
	if s.Cluster.Nodes[0].Kind != "" {
		t.Error("Dump/Objects mutated the scenario's objects")
	}
}

func TestUniqueNames(t *testing.T) {
	check := func(s *Scenario) {
		seen := map[string]bool{}
		uids := map[string]string{}
		for _, o := range objectsOf(t, s.Cluster) {
			m, err := metaOf(o)
			if err != nil {
				t.Fatal(err)
			}
			key := o.GetObjectKind().GroupVersionKind().Kind + "/" + m.GetNamespace() + "/" + m.GetName()
			if seen[key] {
				t.Errorf("%s: duplicate %s", s.Name, key)
			}
			seen[key] = true
			if prev, ok := uids[string(m.GetUID())]; ok {
				t.Errorf("%s: %s and %s share UID %s", s.Name, prev, key, m.GetUID())
			}
			uids[string(m.GetUID())] = key
		}
	}
	for seed := int64(0); seed < 40; seed++ {
		check(Generate(seed, Options{Preemption: seed%2 == 1}))
	}
	names := map[string]bool{}
	for _, s := range Curated() {
		check(s)
		if names[s.Name] {
			t.Errorf("duplicate curated scenario name %s", s.Name)
		}
		names[s.Name] = true
	}
}

func metaOf(o runtime.Object) (metav1.Object, error) {
	m, ok := o.(metav1.Object)
	if !ok {
		return nil, fmt.Errorf("%T has no ObjectMeta", o)
	}
	return m, nil
}

func TestCurated(t *testing.T) {
	cs := Curated()
	if len(cs) < 20 {
		t.Fatalf("%d curated scenarios, want at least 20", len(cs))
	}
	for _, s := range cs {
		if s.Doc == "" || len(s.Features) == 0 {
			t.Errorf("%s: missing Doc or Features", s.Name)
		}
		pending := 0
		for _, p := range s.Cluster.Pods {
			if p.Spec.NodeName == "" {
				pending++
			}
		}
		if pending == 0 {
			t.Errorf("%s: no pending pod", s.Name)
		}
	}
	sizes := map[string]int{}
	for _, s := range cs {
		sizes[s.Name] = len(s.Cluster.Nodes)
	}
	for name, want := range map[string]int{"percentage-of-nodes-150": 150, "percentage-of-nodes-1000": 1000, "percentage-of-nodes-5000": 5000} {
		if sizes[name] != want {
			t.Errorf("%s: %d nodes, want %d", name, sizes[name], want)
		}
	}
}

// ---------------------------------------------------------------------------
// Validity spot checks: what an API server would reject.

type validator struct {
	t    *testing.T
	name string
	c    *snapshot.Cluster
	errs int
}

func (v *validator) errorf(format string, args ...any) {
	v.t.Helper()
	v.errs++
	if v.errs <= 20 {
		v.t.Errorf("%s: "+format, append([]any{v.name}, args...)...)
	}
}

func (v *validator) labels(what string, m map[string]string) {
	for k, val := range m {
		if errs := validation.IsQualifiedName(k); len(errs) > 0 {
			v.errorf("%s: label key %q: %v", what, k, errs)
		}
		if errs := validation.IsValidLabelValue(val); len(errs) > 0 {
			v.errorf("%s: label value %q=%q: %v", what, k, val, errs)
		}
	}
}

func (v *validator) selector(what string, s *metav1.LabelSelector) {
	if s == nil {
		return
	}
	v.labels(what+" matchLabels", s.MatchLabels)
	if _, err := metav1.LabelSelectorAsSelector(s); err != nil {
		v.errorf("%s: selector: %v", what, err)
	}
	for _, e := range s.MatchExpressions {
		for _, val := range e.Values {
			if errs := validation.IsValidLabelValue(val); len(errs) > 0 {
				v.errorf("%s: selector value %q: %v", what, val, errs)
			}
		}
	}
}

func (v *validator) quantities(what string, l v1.ResourceList) {
	for name, q := range l {
		p, err := resource.ParseQuantity(q.String())
		if err != nil || p.Cmp(q) != 0 {
			v.errorf("%s: %s=%s does not parse back: %v", what, name, q.String(), err)
		}
		if q.Sign() < 0 {
			v.errorf("%s: %s negative", what, name)
		}
		if q.AsDec().Scale() > 3 {
			v.errorf("%s: %s=%s finer than milli", what, name, q.String())
		}
		if !strings.Contains(string(name), "/") {
			continue
		}
		if q.MilliValue()%1000 != 0 {
			v.errorf("%s: extended resource %s=%s not an integer", what, name, q.String())
		}
	}
}

func (v *validator) nodeSelectorTerm(what string, t v1.NodeSelectorTerm, fields bool) {
	if len(t.MatchExpressions) == 0 && len(t.MatchFields) == 0 {
		v.errorf("%s: empty node selector term", what)
	}
	for _, r := range t.MatchExpressions {
		if errs := validation.IsQualifiedName(r.Key); len(errs) > 0 {
			v.errorf("%s: key %q: %v", what, r.Key, errs)
		}
		switch r.Operator {
		case v1.NodeSelectorOpIn, v1.NodeSelectorOpNotIn:
			if len(r.Values) == 0 {
				v.errorf("%s: %s without values", what, r.Operator)
			}
		case v1.NodeSelectorOpExists, v1.NodeSelectorOpDoesNotExist:
			if len(r.Values) > 0 {
				v.errorf("%s: %s with values", what, r.Operator)
			}
		case v1.NodeSelectorOpGt, v1.NodeSelectorOpLt:
			if len(r.Values) != 1 {
				v.errorf("%s: %s needs one value", what, r.Operator)
			} else if _, err := strconv.ParseInt(r.Values[0], 10, 64); err != nil {
				v.errorf("%s: %s value %q not an integer", what, r.Operator, r.Values[0])
			}
		default:
			v.errorf("%s: operator %q", what, r.Operator)
		}
		for _, val := range r.Values {
			if errs := validation.IsValidLabelValue(val); len(errs) > 0 {
				v.errorf("%s: value %q: %v", what, val, errs)
			}
		}
	}
	for _, r := range t.MatchFields {
		if r.Key != metav1.ObjectNameField {
			v.errorf("%s: matchFields key %q", what, r.Key)
		}
		if (r.Operator != v1.NodeSelectorOpIn && r.Operator != v1.NodeSelectorOpNotIn) || len(r.Values) != 1 {
			v.errorf("%s: matchFields %s with %d values", what, r.Operator, len(r.Values))
		}
	}
}

func (v *validator) affinityTerm(what string, t v1.PodAffinityTerm) {
	if errs := validation.IsQualifiedName(t.TopologyKey); len(errs) > 0 {
		v.errorf("%s: topologyKey %q: %v", what, t.TopologyKey, errs)
	}
	v.selector(what, t.LabelSelector)
	v.selector(what+" namespaceSelector", t.NamespaceSelector)
	if (len(t.MatchLabelKeys) > 0 || len(t.MismatchLabelKeys) > 0) && t.LabelSelector == nil {
		v.errorf("%s: matchLabelKeys without labelSelector", what)
	}
	for _, k := range append(slices.Clone(t.MatchLabelKeys), t.MismatchLabelKeys...) {
		if t.LabelSelector != nil {
			if _, ok := t.LabelSelector.MatchLabels[k]; ok {
				v.errorf("%s: key %q both in matchLabelKeys and matchLabels", what, k)
			}
		}
	}
}

func (v *validator) podSpec(what string, s *v1.PodSpec, isPod bool) {
	names := map[string]bool{}
	hostPorts := map[string]bool{}
	all := append(slices.Clone(s.InitContainers), s.Containers...)
	if len(s.Containers) == 0 {
		v.errorf("%s: no containers", what)
	}
	hasPVC := map[string]bool{}
	for _, vol := range s.Volumes {
		if errs := validation.IsDNS1123Label(vol.Name); len(errs) > 0 {
			v.errorf("%s: volume name %q", what, vol.Name)
		}
		if names["vol/"+vol.Name] {
			v.errorf("%s: duplicate volume %q", what, vol.Name)
		}
		names["vol/"+vol.Name] = true
		if vol.PersistentVolumeClaim != nil {
			hasPVC[vol.Name] = true
		}
	}
	for i, c := range all {
		cw := fmt.Sprintf("%s container %s", what, c.Name)
		if errs := validation.IsDNS1123Label(c.Name); len(errs) > 0 {
			v.errorf("%s: name: %v", cw, errs)
		}
		if names[c.Name] {
			v.errorf("%s: duplicate container name", cw)
		}
		names[c.Name] = true
		if c.Image == "" || strings.TrimSpace(c.Image) != c.Image {
			v.errorf("%s: image %q", cw, c.Image)
		}
		if c.ImagePullPolicy == "" || c.TerminationMessagePath == "" || c.TerminationMessagePolicy == "" {
			v.errorf("%s: not defaulted", cw)
		}
		isInit := i < len(s.InitContainers)
		if c.RestartPolicy != nil && !isInit && len(c.RestartPolicyRules) == 0 {
			v.errorf("%s: restartPolicy on a regular container without rules", cw)
		}
		v.quantities(cw+" requests", c.Resources.Requests)
		v.quantities(cw+" limits", c.Resources.Limits)
		cpuOrMem := false
		for name, req := range c.Resources.Requests {
			if name == v1.ResourceCPU || name == v1.ResourceMemory {
				cpuOrMem = true
			}
			lim, ok := c.Resources.Limits[name]
			overcommit := name == v1.ResourceCPU || name == v1.ResourceMemory || name == v1.ResourceEphemeralStorage
			switch {
			case ok && !overcommit && req.Cmp(lim) != 0:
				v.errorf("%s: %s request != limit", cw, name)
			case ok && req.Cmp(lim) > 0:
				v.errorf("%s: %s request > limit", cw, name)
			case !ok && !overcommit:
				v.errorf("%s: %s needs a limit", cw, name)
			}
			if strings.HasPrefix(string(name), v1.ResourceHugePagesPrefix) && req.Value()%(2*mi) != 0 {
				v.errorf("%s: %s not a multiple of the page size", cw, name)
			}
		}
		for name := range c.Resources.Limits {
			if name == v1.ResourceCPU || name == v1.ResourceMemory {
				cpuOrMem = true
			}
			if isPod {
				if _, ok := c.Resources.Requests[name]; !ok {
					v.errorf("%s: limit %s without request after defaulting", cw, name)
				}
			}
		}
		for name := range c.Resources.Requests {
			if strings.HasPrefix(string(name), v1.ResourceHugePagesPrefix) && !cpuOrMem {
				v.errorf("%s: hugepages require cpu or memory", cw)
			}
		}
		portNames := map[string]bool{}
		for _, p := range c.Ports {
			if p.Protocol == "" {
				v.errorf("%s: port protocol not defaulted", cw)
			}
			if p.Name != "" {
				if errs := validation.IsValidPortName(p.Name); len(errs) > 0 {
					v.errorf("%s: port name %q: %v", cw, p.Name, errs)
				}
				if portNames[p.Name] {
					v.errorf("%s: duplicate port name %q", cw, p.Name)
				}
				portNames[p.Name] = true
			}
			if p.ContainerPort < 1 || p.ContainerPort > 65535 || p.HostPort < 0 || p.HostPort > 65535 {
				v.errorf("%s: port out of range", cw)
			}
			if p.HostIP != "" && len(validation.IsValidIP(nil, p.HostIP)) > 0 {
				v.errorf("%s: hostIP %q", cw, p.HostIP)
			}
			if isPod && s.HostNetwork && p.HostPort != p.ContainerPort {
				v.errorf("%s: hostNetwork port not defaulted", cw)
			}
			if p.HostPort > 0 && !isInit {
				key := fmt.Sprintf("%s/%s/%d", p.Protocol, p.HostIP, p.HostPort)
				if hostPorts[key] {
					v.errorf("%s: duplicate host port %s", cw, key)
				}
				hostPorts[key] = true
			}
		}
		for _, m := range c.VolumeMounts {
			if !names["vol/"+m.Name] {
				v.errorf("%s: mount of unknown volume %q", cw, m.Name)
			}
		}
	}
	if s.Resources != nil {
		agg := resourcehelper.AggregateContainerRequests(&v1.Pod{Spec: v1.PodSpec{Containers: s.Containers, InitContainers: s.InitContainers}}, resourcehelper.PodResourcesOptions{})
		for name, q := range agg {
			if pq, ok := s.Resources.Requests[name]; ok && q.Cmp(pq) > 0 {
				v.errorf("%s: pod-level %s request below containers' aggregate", what, name)
			}
		}
		for name, req := range s.Resources.Requests {
			if lim, ok := s.Resources.Limits[name]; ok && req.Cmp(lim) > 0 {
				v.errorf("%s: pod-level %s request > limit", what, name)
			}
		}
		for _, c := range all {
			for name, q := range c.Resources.Limits {
				if pl, ok := s.Resources.Limits[name]; ok && q.Cmp(pl) > 0 {
					v.errorf("%s: container %s limit %s above pod-level limit", what, c.Name, name)
				}
			}
		}
	}
	if s.DNSPolicy == "" || s.RestartPolicy == "" || s.SecurityContext == nil || s.TerminationGracePeriodSeconds == nil || s.SchedulerName != defaultScheduler {
		v.errorf("%s: pod spec not defaulted", what)
	}
	for _, tol := range s.Tolerations {
		if tol.Key != "" {
			if errs := validation.IsQualifiedName(tol.Key); len(errs) > 0 {
				v.errorf("%s: toleration key %q", what, tol.Key)
			}
		}
		switch tol.Operator {
		case v1.TolerationOpExists:
			if tol.Value != "" {
				v.errorf("%s: Exists toleration with value", what)
			}
		case v1.TolerationOpEqual, "":
			if tol.Key == "" {
				v.errorf("%s: empty key needs Exists", what)
			}
			if errs := validation.IsValidLabelValue(tol.Value); len(errs) > 0 {
				v.errorf("%s: toleration value %q", what, tol.Value)
			}
		default:
			v.errorf("%s: toleration operator %q", what, tol.Operator)
		}
		if tol.TolerationSeconds != nil && tol.Effect != v1.TaintEffectNoExecute {
			v.errorf("%s: tolerationSeconds without NoExecute", what)
		}
	}
	v.labels(what+" nodeSelector", s.NodeSelector)
	if a := s.Affinity; a != nil {
		if na := a.NodeAffinity; na != nil {
			if r := na.RequiredDuringSchedulingIgnoredDuringExecution; r != nil {
				if len(r.NodeSelectorTerms) == 0 {
					v.errorf("%s: required node affinity without terms", what)
				}
				for _, t := range r.NodeSelectorTerms {
					v.nodeSelectorTerm(what+" required node affinity", t, true)
				}
			}
			for _, p := range na.PreferredDuringSchedulingIgnoredDuringExecution {
				if p.Weight < 1 || p.Weight > 100 {
					v.errorf("%s: preferred weight %d", what, p.Weight)
				}
				v.nodeSelectorTerm(what+" preferred node affinity", p.Preference, true)
			}
		}
		for _, pa := range []*v1.PodAffinity{a.PodAffinity} {
			if pa == nil {
				continue
			}
			for _, t := range pa.RequiredDuringSchedulingIgnoredDuringExecution {
				v.affinityTerm(what+" pod affinity", t)
			}
			for _, w := range pa.PreferredDuringSchedulingIgnoredDuringExecution {
				if w.Weight < 1 || w.Weight > 100 {
					v.errorf("%s: pod affinity weight %d", what, w.Weight)
				}
				v.affinityTerm(what+" preferred pod affinity", w.PodAffinityTerm)
			}
		}
		if pa := a.PodAntiAffinity; pa != nil {
			for _, t := range pa.RequiredDuringSchedulingIgnoredDuringExecution {
				v.affinityTerm(what+" pod anti-affinity", t)
			}
			for _, w := range pa.PreferredDuringSchedulingIgnoredDuringExecution {
				if w.Weight < 1 || w.Weight > 100 {
					v.errorf("%s: pod anti-affinity weight %d", what, w.Weight)
				}
				v.affinityTerm(what+" preferred pod anti-affinity", w.PodAffinityTerm)
			}
		}
	}
	seen := map[string]bool{}
	for _, c := range s.TopologySpreadConstraints {
		if c.MaxSkew <= 0 || c.TopologyKey == "" {
			v.errorf("%s: bad spread constraint", what)
		}
		key := c.TopologyKey + "/" + string(c.WhenUnsatisfiable)
		if seen[key] {
			v.errorf("%s: duplicate spread constraint %s", what, key)
		}
		seen[key] = true
		if c.MinDomains != nil && (c.WhenUnsatisfiable != v1.DoNotSchedule || *c.MinDomains <= 0) {
			v.errorf("%s: minDomains with %s", what, c.WhenUnsatisfiable)
		}
		v.selector(what+" spread", c.LabelSelector)
		for _, k := range c.MatchLabelKeys {
			if c.LabelSelector == nil {
				v.errorf("%s: matchLabelKeys without selector", what)
			} else if _, ok := c.LabelSelector.MatchLabels[k]; ok {
				v.errorf("%s: matchLabelKeys key %q in matchLabels", what, k)
			}
		}
	}
}

func (v *validator) meta(what string, m metav1.Object, namespaced bool) {
	if m.GetName() == "" || m.GetUID() == "" || m.GetCreationTimestamp().Time.IsZero() {
		v.errorf("%s: name, uid or creationTimestamp missing", what)
	}
	if errs := validation.IsDNS1123Subdomain(m.GetName()); len(errs) > 0 {
		v.errorf("%s: name: %v", what, errs)
	}
	if namespaced != (m.GetNamespace() != "") {
		v.errorf("%s: namespace %q", what, m.GetNamespace())
	}
	if m.GetResourceVersion() != "" {
		v.errorf("%s: resourceVersion set", what)
	}
	v.labels(what, m.GetLabels())
}

func validateScenario(t *testing.T, s *Scenario) int {
	v := &validator{t: t, name: s.Name, c: s.Cluster}
	c := s.Cluster
	nss := map[string]bool{}
	for _, ns := range c.Namespaces {
		v.meta("namespace "+ns.Name, ns, false)
		if ns.Labels[v1.LabelMetadataName] != ns.Name || ns.Status.Phase != v1.NamespaceActive {
			v.errorf("namespace %s not defaulted", ns.Name)
		}
		nss[ns.Name] = true
	}
	pcs := map[string]int32{}
	for _, pc := range c.PriorityClasses {
		v.meta("priorityclass "+pc.Name, pc, false)
		if pc.PreemptionPolicy == nil {
			v.errorf("priorityclass %s: preemptionPolicy not set", pc.Name)
		}
		if !strings.HasPrefix(pc.Name, "system-") && pc.Value > 1000000000 {
			v.errorf("priorityclass %s: value too high", pc.Name)
		}
		pcs[pc.Name] = pc.Value
	}
	for _, pc := range []string{"system-cluster-critical", "system-node-critical"} {
		if _, ok := pcs[pc]; !ok {
			v.errorf("missing built-in PriorityClass %s", pc)
		}
	}
	nodes := map[string]*v1.Node{}
	for _, n := range c.Nodes {
		w := "node " + n.Name
		v.meta(w, n, false)
		nodes[n.Name] = n
		if n.Labels[labelHostname] != n.Name {
			v.errorf("%s: hostname label %q", w, n.Labels[labelHostname])
		}
		v.quantities(w+" allocatable", n.Status.Allocatable)
		v.quantities(w+" capacity", n.Status.Capacity)
		for name, a := range n.Status.Allocatable {
			if cp, ok := n.Status.Capacity[name]; !ok || a.Cmp(cp) > 0 {
				v.errorf("%s: allocatable %s above capacity", w, name)
			}
		}
		for _, r := range []v1.ResourceName{v1.ResourceCPU, v1.ResourceMemory, v1.ResourcePods, v1.ResourceEphemeralStorage} {
			if _, ok := n.Status.Allocatable[r]; !ok {
				v.errorf("%s: allocatable %s missing", w, r)
			}
		}
		keys := map[string]bool{}
		for _, taint := range n.Spec.Taints {
			if errs := validation.IsQualifiedName(taint.Key); len(errs) > 0 {
				v.errorf("%s: taint key %q", w, taint.Key)
			}
			if errs := validation.IsValidLabelValue(taint.Value); len(errs) > 0 {
				v.errorf("%s: taint value %q", w, taint.Value)
			}
			k := taint.Key + "/" + string(taint.Effect)
			if keys[k] {
				v.errorf("%s: duplicate taint %s", w, k)
			}
			keys[k] = true
		}
		if !slices.IsSorted(n.Status.DeclaredFeatures) || len(slices.Compact(slices.Clone(n.Status.DeclaredFeatures))) != len(n.Status.DeclaredFeatures) {
			v.errorf("%s: declaredFeatures not sorted/unique", w)
		}
	}
	scs := map[string]bool{}
	for _, sc := range c.StorageClasses {
		v.meta("storageclass "+sc.Name, sc, false)
		if sc.VolumeBindingMode == nil || sc.ReclaimPolicy == nil {
			v.errorf("storageclass %s not defaulted", sc.Name)
		}
		scs[sc.Name] = true
	}
	for _, d := range c.CSIDrivers {
		v.meta("csidriver "+d.Name, d, false)
		if d.Spec.AttachRequired == nil || d.Spec.StorageCapacity == nil || d.Spec.FSGroupPolicy == nil || d.Spec.PreventPodSchedulingIfMissing == nil {
			v.errorf("csidriver %s not defaulted", d.Name)
		}
	}
	for _, cn := range c.CSINodes {
		v.meta("csinode "+cn.Name, cn, false)
		if nodes[cn.Name] == nil {
			v.errorf("csinode %s without node", cn.Name)
		}
	}
	pvs := map[string]*v1.PersistentVolume{}
	for _, pv := range c.PersistentVolumes {
		w := "pv " + pv.Name
		v.meta(w, pv, false)
		pvs[pv.Name] = pv
		if pv.Spec.VolumeMode == nil || pv.Spec.PersistentVolumeReclaimPolicy == "" || pv.Status.Phase == "" {
			v.errorf("%s not defaulted", w)
		}
		v.quantities(w, pv.Spec.Capacity)
		if pv.Spec.Local != nil && pv.Spec.NodeAffinity == nil {
			v.errorf("%s: local volume without node affinity", w)
		}
		if pv.Spec.StorageClassName != "" && !scs[pv.Spec.StorageClassName] {
			v.errorf("%s: unknown class %s", w, pv.Spec.StorageClassName)
		}
	}
	pvcs := map[string]*v1.PersistentVolumeClaim{}
	for _, pvc := range c.PersistentVolumeClaims {
		w := "pvc " + pvc.Namespace + "/" + pvc.Name
		v.meta(w, pvc, true)
		pvcs[pvc.Namespace+"/"+pvc.Name] = pvc
		if pvc.Spec.VolumeMode == nil || pvc.Spec.StorageClassName == nil || pvc.Status.Phase == "" {
			v.errorf("%s not defaulted", w)
		}
		v.quantities(w, pvc.Spec.Resources.Requests)
		if cls := *pvc.Spec.StorageClassName; cls != "" && !scs[cls] && cls != "fast-nvme" {
			v.errorf("%s: unknown class %q", w, cls)
		}
		if vn := pvc.Spec.VolumeName; vn != "" {
			pv := pvs[vn]
			if pv == nil && !strings.HasPrefix(vn, "pv-deleted-") {
				v.errorf("%s: bound to unknown PV %s", w, vn)
			}
			if pv != nil && (pv.Spec.ClaimRef == nil || pv.Spec.ClaimRef.Name != pvc.Name || pv.Spec.ClaimRef.UID != pvc.UID) {
				v.errorf("%s: PV %s not bound back", w, vn)
			}
		}
		if !nss[pvc.Namespace] {
			v.errorf("%s: unknown namespace", w)
		}
	}
	for _, pv := range c.PersistentVolumes {
		if r := pv.Spec.ClaimRef; r != nil && pvcs[r.Namespace+"/"+r.Name] == nil {
			v.errorf("pv %s: claimRef to unknown claim %s/%s", pv.Name, r.Namespace, r.Name)
		}
	}
	for _, cap := range c.CSIStorageCapacities {
		v.meta("csistoragecapacity "+cap.Name, cap, true)
		v.selector("csistoragecapacity "+cap.Name, cap.NodeTopology)
	}
	for _, va := range c.VolumeAttachments {
		v.meta("volumeattachment "+va.Name, va, false)
		if nodes[va.Spec.NodeName] == nil || va.Spec.Source.PersistentVolumeName == nil || pvs[*va.Spec.Source.PersistentVolumeName] == nil {
			v.errorf("volumeattachment %s: dangling", va.Name)
		}
	}
	for _, svc := range c.Services {
		v.meta("service "+svc.Name, svc, true)
		v.labels("service "+svc.Name+" selector", svc.Spec.Selector)
		if svc.Spec.Type == "" || svc.Spec.SessionAffinity == "" {
			v.errorf("service %s not defaulted", svc.Name)
		}
	}
	owners := map[string]bool{}
	for _, rs := range c.ReplicaSets {
		v.meta("replicaset "+rs.Name, rs, true)
		v.selector("replicaset "+rs.Name, rs.Spec.Selector)
		v.podSpec("replicaset "+rs.Name, &rs.Spec.Template.Spec, false)
		owners["ReplicaSet/"+rs.Namespace+"/"+rs.Name] = true
		if sel, _ := metav1.LabelSelectorAsSelector(rs.Spec.Selector); !sel.Matches(labels.Set(rs.Spec.Template.Labels)) {
			v.errorf("replicaset %s: selector does not match template", rs.Name)
		}
	}
	for _, ss := range c.StatefulSets {
		v.meta("statefulset "+ss.Name, ss, true)
		v.podSpec("statefulset "+ss.Name, &ss.Spec.Template.Spec, false)
		owners["StatefulSet/"+ss.Namespace+"/"+ss.Name] = true
	}
	for _, rc := range c.ReplicationControllers {
		v.meta("replicationcontroller "+rc.Name, rc, true)
		v.podSpec("replicationcontroller "+rc.Name, &rc.Spec.Template.Spec, false)
		owners["ReplicationController/"+rc.Namespace+"/"+rc.Name] = true
	}
	for _, ds := range c.DaemonSets {
		v.meta("daemonset "+ds.Name, ds, true)
		v.podSpec("daemonset "+ds.Name, &ds.Spec.Template.Spec, false)
		owners["DaemonSet/"+ds.Namespace+"/"+ds.Name] = true
	}
	for _, pdb := range c.PodDisruptionBudgets {
		v.meta("pdb "+pdb.Name, pdb, true)
		v.selector("pdb "+pdb.Name, pdb.Spec.Selector)
		if (pdb.Spec.MinAvailable == nil) == (pdb.Spec.MaxUnavailable == nil) {
			v.errorf("pdb %s: need exactly one of minAvailable/maxUnavailable", pdb.Name)
		}
	}
	for _, rc := range c.RuntimeClasses {
		v.meta("runtimeclass "+rc.Name, rc, false)
	}
	rcs := map[string]bool{}
	for _, rc := range c.RuntimeClasses {
		rcs[rc.Name] = true
	}
	for _, p := range c.Pods {
		w := "pod " + p.Namespace + "/" + p.Name
		v.meta(w, p, true)
		if !nss[p.Namespace] {
			v.errorf("%s: unknown namespace", w)
		}
		v.podSpec(w, &p.Spec, true)
		if p.Spec.Priority == nil || p.Spec.PreemptionPolicy == nil || p.Spec.EnableServiceLinks == nil || p.Status.QOSClass == "" || p.Status.Phase == "" {
			v.errorf("%s: priority/preemptionPolicy/enableServiceLinks/qosClass/phase not set", w)
		}
		if n := p.Spec.PriorityClassName; n != "" {
			val, ok := pcs[n]
			if !ok || p.Spec.Priority == nil || *p.Spec.Priority != val {
				v.errorf("%s: priority does not match class %q", w, n)
			}
		}
		if p.Spec.RuntimeClassName != nil && !rcs[*p.Spec.RuntimeClassName] {
			v.errorf("%s: unknown runtime class", w)
		}
		if len(p.Spec.Overhead) > 0 && p.Spec.RuntimeClassName == nil {
			v.errorf("%s: overhead without runtime class", w)
		}
		for _, ref := range p.OwnerReferences {
			switch ref.Kind {
			case "ReplicaSet", "StatefulSet", "ReplicationController", "DaemonSet":
				if !owners[ref.Kind+"/"+p.Namespace+"/"+ref.Name] {
					v.errorf("%s: owner %s/%s missing", w, ref.Kind, ref.Name)
				}
			}
		}
		for _, vol := range p.Spec.Volumes {
			if vol.PersistentVolumeClaim != nil && pvcs[p.Namespace+"/"+vol.PersistentVolumeClaim.ClaimName] == nil &&
				vol.PersistentVolumeClaim.ClaimName != "claim-that-does-not-exist" {
				v.errorf("%s: claim %s missing", w, vol.PersistentVolumeClaim.ClaimName)
			}
		}
		if p.Spec.NodeName != "" && nodes[p.Spec.NodeName] == nil && p.Spec.NodeName != "node-decommissioned" {
			v.errorf("%s: bound to unknown node %s", w, p.Spec.NodeName)
		}
		if p.Status.NominatedNodeName != "" && nodes[p.Status.NominatedNodeName] == nil {
			v.errorf("%s: nominated to unknown node", w)
		}
		if p.DeletionTimestamp != nil && p.DeletionGracePeriodSeconds == nil {
			v.errorf("%s: deletionTimestamp without grace period", w)
		}
		if len(p.Spec.SchedulingGates) > 0 && (p.Spec.NodeName != "" || !slices.ContainsFunc(p.Status.Conditions, func(c v1.PodCondition) bool {
			return c.Type == v1.PodScheduled && c.Reason == v1.PodReasonSchedulingGated
		})) {
			v.errorf("%s: gated pod without SchedulingGated condition", w)
		}
		if qos := podQOS(p); qos != p.Status.QOSClass {
			v.errorf("%s: qosClass %s, want %s", w, p.Status.QOSClass, qos)
		}
	}
	return v.errs
}

func TestObjectsValid(t *testing.T) {
	n := int64(150)
	if testing.Short() {
		n = 30
	}
	for seed := int64(0); seed < n; seed++ {
		for _, pre := range []bool{false, true} {
			if validateScenario(t, Generate(seed, Options{Preemption: pre})) > 0 {
				return
			}
		}
	}
	for _, s := range Curated() {
		validateScenario(t, s)
	}
}
