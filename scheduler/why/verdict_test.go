package why

import (
	"fmt"
	"strings"
	"testing"

	"github.com/schedtui/schedtui/scheduler/record"
)

// TestVerdictNamesObjects: per plugin, the verdict names the objects
// behind a rejection, and every hint offered is proven.
func TestVerdictNamesObjects(t *testing.T) {
	const zoneA, zoneB = ", topology.kubernetes.io/zone: zone-a", ", topology.kubernetes.io/zone: zone-b"
	spread := "    topologySpreadConstraints: [{maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: web}}}]\n"
	cases := []struct {
		name, yaml, pod string
		want            []string
		hint            string // a substring of some proven hint ("" for none expected)
	}{{
		name: "taints",
		yaml: node("node-a", "4", "", "taints: [{key: dedicated, value: infra, effect: NoSchedule}]", "") +
			node("node-b", "4", "", "taints: [{key: gpu, value: 'yes', effect: NoExecute}]", "") +
			pod("p", "100m", "", "", ""),
		pod:  "default/p",
		want: []string{"untolerated taint dedicated=infra:NoSchedule (node-a); gpu=yes:NoExecute (node-b)"},
		hint: "tolerate dedicated=infra:NoSchedule",
	}, {
		name: "node ports",
		yaml: node("node-a", "4", "", "", "") +
			strings.Replace(pod("web-0", "100m", "", "node-a", ""), "resources:", "ports: [{containerPort: 80, hostPort: 8080}], resources:", 1) +
			strings.Replace(pod("p", "100m", "", "", ""), "resources:", "ports: [{containerPort: 80, hostPort: 8080}], resources:", 1),
		pod:  "default/p",
		want: []string{"host port TCP/8080 on node-a held by default/web-0"},
		hint: "remove pod default/web-0",
	}, {
		name: "anti-affinity across a zone",
		yaml: node("node-a", "4", zoneA, "", "") + node("node-b", "4", zoneA, "", "") +
			pod("db-0", "100m", "app: db", "node-a", "") +
			pod("p", "100m", "app: api", "", "    affinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{topologyKey: topology.kubernetes.io/zone, labelSelector: {matchLabels: {app: db}}}]}}\n"),
		pod:  "default/p",
		want: []string{"default/db-0 on node-a (matches this pod's anti-affinity app=db in topology.kubernetes.io/zone=zone-a)"},
		hint: "remove pod default/db-0",
	}, {
		name: "topology spread",
		yaml: node("node-a", "4", zoneA, "", "") + node("node-b", "1", zoneB, "", "") +
			pod("web-0", "100m", "app: web", "node-a", "") + pod("web-1", "100m", "app: web", "node-a", "") +
			pod("web-2", "900m", "app: web", "node-b", "") +
			pod("p", "500m", "app: web", "", spread),
		pod:  "default/p",
		want: []string{"per domain zone-a=2, zone-b=1 (min 1)", "zone-a: 2+1-1 = skew 2 > 1, matching pods default/web-0, default/web-1"},
		hint: "maxSkew",
	}, {
		name: "declared features",
		yaml: node("node-a", "4", "", "", "declaredFeatures: []") +
			pod("p", "100m", "", "", "    hostNetwork: true\n    hostUsers: false\n"),
		pod:  "default/p",
		want: []string{"missing node feature UserNamespacesHostNetworkSupport (node-a)"},
		hint: "declare feature UserNamespacesHostNetworkSupport on node-a",
	}, {
		name: "node selector",
		yaml: node("node-a", "4", ", disktype: hdd", "", "") + node("node-b", "4", "", "", "") +
			pod("p", "100m", "", "", "    nodeSelector: {disktype: ssd}\n"),
		pod:  "default/p",
		want: []string{"nodeSelector disktype=ssd: has disktype=hdd (node-a); has no disktype (node-b)"},
		hint: "drop nodeSelector disktype",
	}, {
		name: "cordoned",
		yaml: node("node-a", "4", "", "unschedulable: true", "") + pod("p", "100m", "", "", ""),
		pod:  "default/p",
		want: []string{"cordoned (spec.unschedulable): node-a"},
		hint: "uncordon node-a",
	}, {
		name: "nominated pods",
		yaml: `- apiVersion: scheduling.k8s.io/v1
  kind: PriorityClass
  metadata: {name: high}
  value: 1000
` + node("node-a", "2", "", "", "") + pod("busy", "1", "", "node-a", "") +
			strings.Replace(pod("nom", "800m", "", "", "    priorityClassName: high\n    schedulingGates: [{name: wait}]\n"), "  spec:", "  status: {nominatedNodeName: node-a}\n  spec:", 1) +
			pod("p", "500m", "", "", ""),
		pod:  "default/p",
		want: []string{"node-a fits without the pods nominated to it: default/nom (priority 1000, 800m)"},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := run(t, header+c.yaml)
			in := stuck(t, e, c.pod)
			v := strings.Join(Verdict(in), "\n")
			for _, w := range c.want {
				if !strings.Contains(v, w) {
					t.Errorf("verdict lacks %q:\n%s", w, v)
				}
			}
			res, err := Hints(in, Options{})
			if err != nil {
				t.Fatal(err)
			}
			found := c.hint == ""
			for _, h := range res.Hints {
				found = found || strings.Contains(h.Summary, c.hint)
				verify(t, e, in, h)
			}
			if !found {
				t.Errorf("no proven hint %q:\n%s", c.hint, strings.Join(res.Lines(), "\n"))
			}
			t.Log(v + "\n" + strings.Join(res.Lines(), "\n"))
		})
	}
}

// TestVerdictCapsLongLists: 500 nodes tied at the top score, and a
// preemption with many victims, give short lines (the first names, then
// how many more), not one name per node.
func TestVerdictCapsLongLists(t *testing.T) {
	var y strings.Builder
	for i := 0; i < 500; i++ {
		y.WriteString(node(fmt.Sprintf("node-%03d", i), "4", "", "", ""))
	}
	y.WriteString(pod("p", "100m", "", "", ""))
	e := run(t, y.String())
	in := inputFor(t, e, "default/p")
	if top := in.Attempt.Top(); len(top) < 100 {
		t.Fatalf("%d nodes tied at the top, want at least 100", len(top))
	}
	lines := Verdict(in)
	if len(lines) != 1 || len(lines[0]) > 200 || !strings.Contains(lines[0], "tied at the top score") || !strings.Contains(lines[0], " more)") {
		t.Errorf("verdict %q", lines)
	}
}

// TestVerdictRefs: the pointers to the details name the caller's views
// or sections, and are left out when it names none.
func TestVerdictRefs(t *testing.T) {
	y := node("node-a", "4", "", "", "") + node("node-b", "2", "", "", "") + pod("p", "100m", "", "", "")
	in := inputFor(t, run(t, y), "default/p")
	if got := Verdict(in)[0]; strings.Contains(got, "see") || !strings.HasSuffix(got, "feasible nodes.") {
		t.Errorf("without refs: %q", got)
	}
	in.Refs = Refs{Scores: "Scores below"}
	if got := Verdict(in)[0]; !strings.HasSuffix(got, "feasible nodes (see Scores below).") {
		t.Errorf("with refs: %q", got)
	}
	stuckIn := stuck(t, run(t, node("node-a", "1", "", "", "")+pod("p", "2", "", "", "")), "default/p")
	stuckIn.Sched = nil
	for _, r := range []struct {
		refs Refs
		want string
	}{{Refs{}, "(NodeResourcesFit)."}, {Refs{Filter: "Filter"}, "(NodeResourcesFit): see Filter."}} {
		stuckIn.Refs = r.refs
		lines := Verdict(stuckIn)
		if last := lines[len(lines)-1]; !strings.HasSuffix(last, r.want) {
			t.Errorf("refs %+v: %q, want the suffix %q", r.refs, last, r.want)
		}
	}
}

// TestVerdictPreemptionWaits: a pod its own preemption nominated is not
// called stuck; the verdict says it waits for the victims, with their grace
// periods and the PDB their eviction violates, by name.
func TestVerdictPreemptionWaits(t *testing.T) {
	y := header + `- apiVersion: scheduling.k8s.io/v1
  kind: PriorityClass
  metadata: {name: high}
  value: 1000
- apiVersion: policy/v1
  kind: PodDisruptionBudget
  metadata: {name: web-pdb, namespace: default}
  spec: {minAvailable: 1, selector: {matchLabels: {app: web}}}
  status: {disruptionsAllowed: 0}
` + node("node-a", "2", "", "", "") +
		pod("web-0", "1500m", "app: web", "node-a", "    terminationGracePeriodSeconds: 45\n") +
		pod("p", "1", "", "", "    priorityClassName: high\n")
	e := run(t, y)
	var in Input
	for i, a := range e.Attempts().All() {
		if a.Pod == "default/p" && a.Nominated != "" {
			s, p, err := e.Fork(i)
			if err != nil {
				t.Fatal(err)
			}
			in = Input{Attempt: a, Sched: s, Pod: p, Refs: Refs{Preemption: "Preempt"}}
			break
		}
	}
	if in.Attempt == nil {
		t.Fatal("no attempt of default/p nominated by its preemption")
	}
	lines := Verdict(in)
	v := strings.Join(lines, "\n")
	for _, w := range []string{
		"Waiting for victims to leave: no node fits now (1 node); preemption nominated the pod to node-a, where it fits once they are gone (see Preempt).",
		"Victims: default/web-0 (grace 45s, violates PDB default/web-pdb).",
		"1 × Insufficient cpu (NodeResourcesFit)",
	} {
		if !strings.Contains(v, w) {
			t.Errorf("verdict lacks %q:\n%s", w, v)
		}
	}
	if strings.Contains(v, "Stuck") {
		t.Errorf("a pod waiting for its victims is called stuck:\n%s", v)
	}
}

// TestVictimsNeverHideAPDB: victims violating a PDB come first in the
// short list, and the PDBs of those left out are named still.
func TestVictimsNeverHideAPDB(t *testing.T) {
	c := record.Candidate{Node: "node-a"}
	for i := 0; i < 6; i++ {
		c.Victims = append(c.Victims, record.Victim{Pod: fmt.Sprintf("default/v%d", i)})
	}
	for i := 0; i < 6; i++ {
		c.Victims = append(c.Victims, record.Victim{Pod: fmt.Sprintf("default/db-%d", i), PDBs: []string{fmt.Sprintf("default/pdb-%d", i/2)}})
	}
	got := victims(Input{}, c)
	want := "default/db-0 (violates PDB default/pdb-0), default/db-1 (violates PDB default/pdb-0), default/db-2 (violates PDB default/pdb-1), " +
		"default/db-3 (violates PDB default/pdb-1) and 8 more; the others violate PDB default/pdb-2"
	if got != want {
		t.Errorf("victims\n got %s\nwant %s", got, want)
	}
}
