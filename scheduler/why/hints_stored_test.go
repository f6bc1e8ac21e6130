package why

import (
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
)

// TestRequestHintIsWhatIsStored is issue 23's first case and its kin: the
// pod's request is cut across its containers so that the hint's pod, as
// the API server stores it (a container with limits only gets its
// requests from them), requests what the hint says and fits where the
// hint says. Lowering only the first container and dropping the others'
// requests was proven on a pod that defaulting turns back into one that
// does not fit.
func TestRequestHintIsWhatIsStored(t *testing.T) {
	envoy := "{name: envoy, image: envoy, resources: {limits: {cpu: 500m, memory: 128Mi}}}"
	for _, tc := range []struct {
		name string
		// node is node-a's allocatable cpu; a bound pod takes 2500m of it.
		node string
		spec string
		// extra objects (a RuntimeClass, ...)
		extra string
		res   v1.ResourceName
		want  string
	}{{
		name: "limits-only sidecar container",
		node: "4",
		spec: "containers: [{name: app, image: app, resources: {requests: {cpu: 1500m}}}, " + envoy + "]",
		res:  v1.ResourceCPU, want: "lower the pod's cpu request to 1500m (from 2000m)",
	}, {
		name: "restartable init container before a larger init container",
		node: "4500m",
		spec: "initContainers: [{name: proxy, image: proxy, restartPolicy: Always, resources: {limits: {cpu: 500m}}}, {name: migrate, image: m, resources: {requests: {cpu: 2500m}}}]\n" +
			"    containers: [{name: app, image: app, resources: {requests: {cpu: 1000m}}}]",
		res: v1.ResourceCPU, want: "lower the pod's cpu request to 2000m (from 3000m)",
	}, {
		name: "restartable init container after a larger init container",
		node: "3500m",
		spec: "initContainers: [{name: migrate, image: m, resources: {requests: {cpu: 2500m}}}, {name: proxy, image: proxy, restartPolicy: Always, resources: {limits: {cpu: 500m}}}]\n" +
			"    containers: [{name: app, image: app, resources: {requests: {cpu: 1000m}}}]",
		res: v1.ResourceCPU, want: "lower the pod's cpu request to 1000m (from 2500m)",
	}, {
		name: "pod-level resources",
		node: "3700m",
		spec: "resources: {requests: {cpu: '2'}, limits: {cpu: '4'}}\n" +
			"    containers: [{name: app, image: app, resources: {requests: {cpu: '1'}}}, " + envoy + "]",
		res: v1.ResourceCPU, want: "lower the pod's cpu request to 1200m (from 2000m)",
	}, {
		name:  "overhead",
		node:  "4",
		extra: "- {apiVersion: node.k8s.io/v1, kind: RuntimeClass, metadata: {name: gvisor}, handler: runsc, overhead: {podFixed: {cpu: 250m}}}\n",
		spec:  "runtimeClassName: gvisor\n    containers: [{name: app, image: app, resources: {requests: {cpu: 1500m}}}, " + envoy + "]",
		res:   v1.ResourceCPU, want: "lower the pod's cpu request to 1500m (from 2250m)",
	}, {
		name: "extended resource, limits only",
		node: "4",
		spec: "containers: [{name: app, image: app, resources: {limits: {example.com/gpu: '2'}}}]",
		res:  "example.com/gpu", want: "lower the pod's example.com/gpu request to 1 (from 2)",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			y := header + tc.extra +
				strings.Replace(node("node-a", tc.node, "", "", ""), "pods: '110'}", "pods: '110', example.com/gpu: '1'}", 1) +
				pod("busy", "2500m", "", "node-a", "") +
				"- apiVersion: v1\n  kind: Pod\n  metadata: {name: web, namespace: default, uid: uid-web}\n  spec:\n    " + tc.spec + "\n"
			e := run(t, y)
			in := stuck(t, e, "default/web")
			res, err := Hints(in, Options{})
			if err != nil {
				t.Fatal(err)
			}
			t.Log(strings.Join(res.Lines(), "\n"))
			var hint *Hint
			for i := range res.Hints {
				if res.Hints[i].Summary == tc.want {
					hint = &res.Hints[i]
				}
			}
			if hint == nil {
				t.Fatalf("no hint %q", tc.want)
			}
			if len(hint.Objects) != 1 {
				t.Fatalf("hint objects %v", hint.Objects)
			}
			shown, ok := hint.Objects[0].(*v1.Pod)
			if !ok {
				t.Fatalf("hint object %T", hint.Objects[0])
			}
			stored := asStored(t, shown)
			before := requests(in, in.Pod)
			after := requests(in, stored)
			if got := qty(tc.res, after.Amount(tc.res)); !strings.Contains(tc.want, "to "+got+" ") {
				t.Errorf("the stored pod requests %s of %s, the hint says %q", got, tc.res, tc.want)
			}
			for _, other := range []v1.ResourceName{v1.ResourceCPU, v1.ResourceMemory, "example.com/gpu"} {
				if other != tc.res && after.Amount(other) != before.Amount(other) {
					t.Errorf("the hint changes the pod's %s request too: %d, was %d", other, after.Amount(other), before.Amount(other))
				}
			}
			verify(t, e, in, *hint)
		})
	}
}

// TestSpreadHintIsValid: making a constraint soft drops its minDomains
// (which the API server takes only with DoNotSchedule), and is not offered
// when the pod has a soft constraint on the same key already (the API
// server takes one per key and whenUnsatisfiable). verify checks each
// hint's pod passes validation.
func TestSpreadHintIsValid(t *testing.T) {
	const zoneA, zoneB = ", topology.kubernetes.io/zone: zone-a", ", topology.kubernetes.io/zone: zone-b"
	hard := "{maxSkew: 1, minDomains: 2, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: web}}}"
	soft := "{maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: ScheduleAnyway, labelSelector: {matchLabels: {app: web}}}"
	for _, tc := range []struct {
		name, constraints string
		soft              bool // the ScheduleAnyway hint is offered
	}{
		{"hard only", "[" + hard + "]", true},
		{"hard and soft on the same key", "[" + hard + ", " + soft + "]", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			y := header + node("node-a", "4", zoneA, "", "") + node("node-b", "1", zoneB, "", "") +
				pod("web-0", "100m", "app: web", "node-a", "") + pod("web-1", "100m", "app: web", "node-a", "") +
				pod("web-2", "900m", "app: web", "node-b", "") +
				pod("p", "500m", "app: web", "", "    topologySpreadConstraints: "+tc.constraints+"\n")
			e := run(t, y)
			in := stuck(t, e, "default/p")
			res, err := Hints(in, Options{})
			if err != nil {
				t.Fatal(err)
			}
			t.Log(strings.Join(res.Lines(), "\n"))
			offered := false
			for _, h := range res.Hints {
				offered = offered || strings.Contains(h.Summary, "ScheduleAnyway")
				verify(t, e, in, h)
			}
			if offered != tc.soft {
				t.Errorf("ScheduleAnyway hint offered: %v, want %v", offered, tc.soft)
			}
		})
	}
}
