package why

import (
	"strings"
	"testing"
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
