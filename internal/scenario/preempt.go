package scenario

import (
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// genPDBs adds PodDisruptionBudgets over bound workloads (most scenarios in
// preemption mode, a few otherwise), some listing pods in
// status.disruptedPods, some with an empty selector.
func (g *gen) genPDBs() {
	p, hi := 0.15, 2
	if g.opts.Preemption {
		p, hi = 0.9, 4
	}
	if !g.chance(p) {
		return
	}
	for range g.between(1, hi) {
		var pods []*v1.Pod
		w := pick(g, g.workloads)
		if w.kind == "DaemonSet" {
			continue
		}
		for _, b := range g.bound {
			if b.Namespace == w.ns && b.Labels["app"] == w.app {
				pods = append(pods, b)
			}
		}
		if len(pods) == 0 {
			continue
		}
		g.seq++
		name := fmt.Sprintf("%s-pdb-%d", w.app, g.seq)
		sel := &metav1.LabelSelector{MatchLabels: map[string]string{"app": w.app}}
		expected := int32(len(pods))
		allowed := int32(g.between(0, min(2, len(pods))))
		var minA, maxU *intstr.IntOrString
		if g.chance(0.5) {
			minA = ptrTo(intstr.FromInt32(expected - allowed))
		} else if g.chance(0.5) {
			maxU = ptrTo(intstr.FromInt32(allowed))
		} else {
			maxU = ptrTo(intstr.FromString("25%"))
		}
		var disrupted map[string]metav1.Time
		if g.chance(0.35) {
			disrupted = map[string]metav1.Time{}
			for _, d := range sample(g, pods, g.between(1, min(2, len(pods)))) {
				disrupted[d.Name] = metav1.NewTime(d.CreationTimestamp.Add(90 * time.Second))
			}
			g.feat(FeatPDBDisrupted)
		}
		g.addPDB(w.ns, name, sel, minA, maxU, allowed, expected, expected-allowed, expected, disrupted)
		g.feat(FeatPDB)
	}
	if g.chance(0.3) {
		// Empty selector: matches nothing for the scheduler in 1.37.
		ns := pick(g, g.userNS)
		g.seq++
		g.addPDB(ns, fmt.Sprintf("all-pods-pdb-%d", g.seq), &metav1.LabelSelector{}, nil, ptrTo(intstr.FromInt32(0)), 0, 0, 0, 0, nil)
		g.feat(FeatPDB, FeatPDBEmptySelector)
	}
}
