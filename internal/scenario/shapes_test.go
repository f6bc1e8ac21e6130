package scenario

import (
	"strings"
	"testing"

	resourcehelper "k8s.io/component-helpers/resource"
)

// TestResourceShapes: scenarios with Options.ResourceShapes load through
// schedtui's loader without a problem, their pods' pod-level requests
// cover their containers' (as the API server's validation wants), and
// together they have every shape.
func TestResourceShapes(t *testing.T) {
	seen := map[string]int{}
	for seed := int64(0); seed < 6; seed++ {
		s := Generate(seed, Options{ResourceShapes: true, MaxNodes: 40})
		loadClean(t, s.Name, dumpBytes(t, s))
		for _, p := range s.Cluster.Pods {
			shapes, ok := p.Annotations[ShapesAnnotation]
			if !ok {
				continue
			}
			for _, shape := range strings.Split(shapes, ",") {
				seen[shape]++
			}
			if p.Spec.Resources == nil {
				continue
			}
			agg := resourcehelper.AggregateContainerRequests(p, resourcehelper.PodResourcesOptions{})
			for name, q := range p.Spec.Resources.Requests {
				if c := agg[name]; c.Cmp(q) > 0 {
					t.Errorf("%s: pod %s/%s requests %s of %s at pod level, less than its containers' %s", s.Name, p.Namespace, p.Name, q.String(), name, c.String())
				}
			}
		}
	}
	t.Logf("shapes: %v", seen)
	for _, shape := range []string{ShapeLimitsOnly, ShapeSidecar, ShapePodLevel, ShapeOverhead} {
		if seen[shape] == 0 {
			t.Errorf("no pod has shape %s", shape)
		}
	}
}
