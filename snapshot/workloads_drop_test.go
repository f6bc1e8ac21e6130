package snapshot

import (
	"fmt"
	"strings"
	"testing"

	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"

	"github.com/schedtui/schedtui/internal/docread"
	"github.com/schedtui/schedtui/scheduler/features"
)

// gatedFieldsCluster sets every field of the workload kinds behind
// TopologyAwareWorkloadScheduling, CompositePodGroup or
// PodGroupPreemptionPolicy (each preemptionPolicy Never, which no gate
// defaults to; the groups' priority class says Never too, as priority
// admission wants): a Workload with PodGroup templates, one with a tree
// of composite templates, a PodGroup, a CompositePodGroup.
const gatedFieldsCluster = `apiVersion: scheduling.k8s.io/v1beta1
kind: Workload
metadata: {name: flat, namespace: ml}
spec:
  podGroupTemplates:
  - name: workers
    schedulingPolicy: {gang: {minCount: 2}}
    schedulingConstraints: {topology: [{key: topology.kubernetes.io/zone}]}
    preemptionPolicy: Never
---
apiVersion: scheduling.k8s.io/v1beta1
kind: Workload
metadata: {name: tree, namespace: ml}
spec:
  compositePodGroupTemplates:
  - name: job
    schedulingPolicy: {gang: {minGroupCount: 1}}
    preemptionPolicy: Never
    compositePodGroupTemplates:
    - name: stage
      schedulingPolicy: {basic: {}}
      preemptionPolicy: Never
      podGroupTemplates:
      - name: inner
        schedulingPolicy: {gang: {minCount: 2}}
        schedulingConstraints: {topology: [{key: topology.kubernetes.io/zone}]}
        preemptionPolicy: Never
    podGroupTemplates:
    - name: workers
      schedulingPolicy: {gang: {minCount: 2}}
      schedulingConstraints: {topology: [{key: topology.kubernetes.io/zone}]}
      preemptionPolicy: Never
---
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: workers, namespace: ml}
spec:
  parentCompositePodGroupName: tree-job
  workloadRef: {workloadName: tree, templateName: workers}
  schedulingPolicy: {gang: {minCount: 2}}
  schedulingConstraints: {topology: [{key: topology.kubernetes.io/zone}]}
  priorityClassName: batch
  preemptionPolicy: Never
---
apiVersion: scheduling.k8s.io/v1alpha3
kind: CompositePodGroup
metadata: {name: tree-job, namespace: ml}
spec:
  workloadRef: {workloadName: tree, templateName: job}
  schedulingPolicy: {gang: {minGroupCount: 1}}
  priorityClassName: batch
  preemptionPolicy: Never
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: batch}
value: 100
preemptionPolicy: Never
`

// gatedFieldsKept lists, per object of c, the gated fields it holds.
func gatedFieldsKept(c *Cluster) []string {
	var out []string
	add := func(obj string, fields ...string) {
		out = append(out, obj+":"+strings.Join(fields, ""))
	}
	pgTemplate := func(p string, t *schedulingv1beta1.PodGroupTemplate) (fields []string) {
		if t.SchedulingConstraints != nil {
			fields = append(fields, " "+p+".schedulingConstraints")
		}
		if t.PreemptionPolicy != nil {
			fields = append(fields, " "+p+".preemptionPolicy")
		}
		return fields
	}
	var composite func(p string, t *schedulingv1beta1.CompositePodGroupTemplate) []string
	composite = func(p string, t *schedulingv1beta1.CompositePodGroupTemplate) (fields []string) {
		if t.PreemptionPolicy != nil {
			fields = append(fields, " "+p+".preemptionPolicy")
		}
		for i := range t.CompositePodGroupTemplates {
			fields = append(fields, composite(fmt.Sprintf("%s.compositePodGroupTemplates[%d]", p, i), &t.CompositePodGroupTemplates[i])...)
		}
		for i := range t.PodGroupTemplates {
			fields = append(fields, pgTemplate(fmt.Sprintf("%s.podGroupTemplates[%d]", p, i), &t.PodGroupTemplates[i])...)
		}
		return fields
	}
	for _, w := range c.Workloads {
		var fields []string
		for i := range w.Spec.PodGroupTemplates {
			fields = append(fields, pgTemplate(fmt.Sprintf("podGroupTemplates[%d]", i), &w.Spec.PodGroupTemplates[i])...)
		}
		for i := range w.Spec.CompositePodGroupTemplates {
			fields = append(fields, composite(fmt.Sprintf("compositePodGroupTemplates[%d]", i), &w.Spec.CompositePodGroupTemplates[i])...)
		}
		add("Workload "+w.Name, fields...)
	}
	for _, pg := range c.PodGroups {
		var fields []string
		if pg.Spec.ParentCompositePodGroupName != nil {
			fields = append(fields, " parentCompositePodGroupName")
		}
		if pg.Spec.SchedulingConstraints != nil {
			fields = append(fields, " schedulingConstraints")
		}
		if pg.Spec.PreemptionPolicy != nil {
			fields = append(fields, " preemptionPolicy")
		}
		add("PodGroup "+pg.Name, fields...)
	}
	for _, cpg := range c.CompositePodGroups {
		var fields []string
		if cpg.Spec.PreemptionPolicy != nil {
			fields = append(fields, " preemptionPolicy")
		}
		add("CompositePodGroup "+cpg.Name, fields...)
	}
	return out
}

// TestWorkloadGatedFieldsDropped: a new object loses each gated field
// whose gate is off, however deep in a Workload's template tree, as the
// API server's strategies drop it before validating (a Workload left
// without templates is then refused as one without any), and each field
// dropped is warned about, naming its gate. An
// object read back from an API server keeps every field whatever the
// gates.
func TestWorkloadGatedFieldsDropped(t *testing.T) {
	all := []string{
		"Workload flat: podGroupTemplates[0].schedulingConstraints podGroupTemplates[0].preemptionPolicy",
		"Workload tree: compositePodGroupTemplates[0].preemptionPolicy" +
			" compositePodGroupTemplates[0].compositePodGroupTemplates[0].preemptionPolicy" +
			" compositePodGroupTemplates[0].compositePodGroupTemplates[0].podGroupTemplates[0].schedulingConstraints" +
			" compositePodGroupTemplates[0].compositePodGroupTemplates[0].podGroupTemplates[0].preemptionPolicy" +
			" compositePodGroupTemplates[0].podGroupTemplates[0].schedulingConstraints" +
			" compositePodGroupTemplates[0].podGroupTemplates[0].preemptionPolicy",
		"PodGroup workers: parentCompositePodGroupName schedulingConstraints preemptionPolicy",
		"CompositePodGroup tree-job: preemptionPolicy",
	}
	treeRefused := `gated.yaml:11: Workload ml/tree: spec: Invalid value: "": must specify one of: ` + "`podGroupTemplates`, `compositePodGroupTemplates`"
	for _, tc := range []struct {
		name    string
		gates   func(*features.Features)
		refused []string
		want    []string
		// dropped is how many fields are warned about as dropped.
		dropped int
	}{{
		name:  "every workload gate on",
		gates: func(g *features.Features) { *g = workloadGates(true) },
		want:  all,
	}, {
		name:    "GenericWorkload only",
		gates:   func(g *features.Features) { g.EnableGenericWorkload = true },
		refused: []string{treeRefused},
		dropped: 7,
		want: []string{
			"Workload flat:",
			"PodGroup workers:",
			"CompositePodGroup tree-job:",
		},
	}, {
		name: "without PodGroupPreemptionPolicy",
		gates: func(g *features.Features) {
			*g = workloadGates(true)
			g.EnablePodGroupPreemptionPolicy = false
		},
		dropped: 7,
		want: []string{
			"Workload flat: podGroupTemplates[0].schedulingConstraints",
			"Workload tree: compositePodGroupTemplates[0].compositePodGroupTemplates[0].podGroupTemplates[0].schedulingConstraints" +
				" compositePodGroupTemplates[0].podGroupTemplates[0].schedulingConstraints",
			"PodGroup workers: parentCompositePodGroupName schedulingConstraints",
			"CompositePodGroup tree-job:",
		},
	}, {
		name: "PodGroupPreemptionPolicy without TopologyAwareWorkloadScheduling and CompositePodGroup",
		gates: func(g *features.Features) {
			g.EnableGenericWorkload = true
			g.EnablePodGroupPreemptionPolicy = true
		},
		refused: []string{treeRefused},
		dropped: 4,
		want: []string{
			"Workload flat: podGroupTemplates[0].preemptionPolicy",
			"PodGroup workers: preemptionPolicy",
			"CompositePodGroup tree-job: preemptionPolicy",
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			g := features.Default()
			tc.gates(&g)
			load := func(name, data string) (*Cluster, *docread.Report) {
				l := NewLoader()
				l.ValidateUnder(g)
				if err := l.LoadData(name, []byte(data)); err != nil {
					t.Fatal(err)
				}
				return l.Finish()
			}
			c, r := load("gated.yaml", gatedFieldsCluster)
			wantProblems(t, r, tc.refused...)
			dropped := 0
			for _, p := range r.Problems {
				if p.Severity == docread.Warning {
					if !strings.Contains(p.String(), "dropped, as the API server drops it from a new") {
						t.Errorf("warning %s", p)
					}
					dropped++
				}
			}
			if dropped != tc.dropped {
				t.Errorf("%d fields warned about as dropped, want %d:\n%s", dropped, tc.dropped, r)
			}
			if got := gatedFieldsKept(c); strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("kept:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}

			stored := strings.ReplaceAll(gatedFieldsCluster, "namespace: ml}", `namespace: ml, resourceVersion: "3"}`)
			c, r = load("stored.yaml", stored)
			if len(r.Problems) > 0 {
				t.Errorf("stored objects: %s", r)
			}
			if got := gatedFieldsKept(c); strings.Join(got, "\n") != strings.Join(all, "\n") {
				t.Errorf("stored objects kept:\n%s\nwant every field", strings.Join(got, "\n"))
			}
		})
	}
}
