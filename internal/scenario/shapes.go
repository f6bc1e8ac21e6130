package scenario

import (
	"fmt"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
)

// The pod shapes whose requests take upstream's arithmetic to count
// (component-helpers' PodRequests after the API server's defaulting), which
// Options.ResourceShapes gives every pending pod, named in its
// ShapesAnnotation.
const (
	// ShapeLimitsOnly: a second container with limits and no requests, as
	// a service mesh injects its proxy; the API server defaults its
	// requests to its limits.
	ShapeLimitsOnly = "limits-only-container"
	// ShapeSidecar: a restartable init container (restartPolicy Always,
	// limits only), before or after a larger regular init container.
	ShapeSidecar = "restartable-init-container"
	// ShapePodLevel: pod-level requests (spec.resources, PodLevelResources).
	ShapePodLevel = "pod-level-resources"
	// ShapeOverhead: a RuntimeClass's overhead.
	ShapeOverhead = "overhead"
)

// ShapesAnnotation lists, comma-separated, the shapes a pod was given; the
// scheduler never reads it.
const ShapesAnnotation = "scenario.schedtui.dev/resource-shapes"

// resourceShapes gives a pending pod a request too large for some nodes
// and at least one of the shapes, recorded in ShapesAnnotation.
func (g *gen) resourceShapes(p *v1.Pod) {
	g.tLargeRequest(p)
	var shapes []string
	for len(shapes) == 0 {
		if g.chance(0.6) {
			envoy := withLimits(ctr("envoy", "docker.io/envoyproxy/envoy:v1.33.0"),
				fmt.Sprintf("cpu=%dm", g.between(1, 10)*100), fmt.Sprintf("memory=%dMi", g.between(1, 4)*64))
			p.Spec.Containers = append(p.Spec.Containers, envoy)
			shapes = append(shapes, ShapeLimitsOnly)
		}
		if g.chance(0.5) {
			g.shapeSidecar(p)
			shapes = append(shapes, ShapeSidecar)
		}
		if g.chance(0.35) && g.tOverhead(p) {
			shapes = append(shapes, ShapeOverhead)
		}
		if p.Spec.Resources == nil && g.chance(0.35) && !hasHugePages(p) {
			g.podLevel(&p.Spec)
			g.feat(FeatFitPodLevel)
			shapes = append(shapes, ShapePodLevel)
		}
	}
	// Pod-level requests cover the containers added.
	g.fixPodLevel(p)
	if p.Annotations == nil {
		p.Annotations = map[string]string{}
	}
	p.Annotations[ShapesAnnotation] = strings.Join(shapes, ",")
}

// shapeSidecar adds a limits-only proxy as a restartable init container,
// before or after a regular init container that may request more than the
// pod's containers together.
func (g *gen) shapeSidecar(p *v1.Pod) {
	proxy := sidecar(withLimits(ctr("proxy", "ghcr.io/example/proxy:v1.33.0"), fmt.Sprintf("cpu=%dm", g.between(1, 5)*100)))
	main := mainCtr(p).Resources.Requests[v1.ResourceCPU]
	migrate := ctr("migrate", "docker.io/library/busybox:latest", fmt.Sprintf("cpu=%dm", main.MilliValue()*int64(g.between(5, 15))/10))
	if g.chance(0.5) {
		p.Spec.InitContainers = append(p.Spec.InitContainers, proxy, migrate)
	} else {
		p.Spec.InitContainers = append(p.Spec.InitContainers, migrate, proxy)
	}
	g.feat(FeatFitSidecar)
	g.feat(FeatFitInit)
}

func hasHugePages(p *v1.Pod) bool {
	return slices.ContainsFunc(append(slices.Clone(p.Spec.InitContainers), p.Spec.Containers...), func(c v1.Container) bool {
		_, ok := c.Resources.Requests[resHugePages]
		return ok
	})
}
