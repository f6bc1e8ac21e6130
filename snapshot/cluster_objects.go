package snapshot

import v1 "k8s.io/api/core/v1"

// SchedulerObjects returns every object of the cluster other than nodes
// and pods, as the scheduler's object store takes them (it keeps the kinds
// plugins read and ignores the rest).
func (c *Cluster) SchedulerObjects() []any {
	var out []any
	for _, o := range c.Objects() {
		switch o.(type) {
		case *v1.Node, *v1.Pod:
		default:
			out = append(out, o)
		}
	}
	return out
}
