package main

import (
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/schedtui/schedtui/snapshot"
)

// clusterTime is when a cluster stood as it was read: the newest time its
// objects record (an object's creation, a pod's start, a container's, a
// condition's change, a node's heartbeat; not a deletionTimestamp, which
// is the end of a grace period to come). The virtual clock starts there,
// so that ages, start times and run -o json's times read as the
// cluster's, never before the objects they talk of. It is the objects'
// time, not a capture header's: a live cluster read once and the snapshot
// captured from it then start at the same instant, as they hold the same
// objects (in a real cluster the nodes' heartbeats keep it within seconds
// of the capture). Zero when the objects record no time at all.
func clusterTime(c *snapshot.Cluster) time.Time {
	var newest time.Time
	see := func(t time.Time) {
		if t.After(newest) {
			newest = t
		}
	}
	seeMeta := func(t *metav1.Time) {
		if t != nil {
			see(t.Time)
		}
	}
	for _, o := range c.Objects() {
		if m, err := meta.Accessor(o); err == nil {
			see(m.GetCreationTimestamp().Time)
		}
	}
	for _, p := range c.Pods {
		seeMeta(p.Status.StartTime)
		for _, cond := range p.Status.Conditions {
			see(cond.LastTransitionTime.Time)
			see(cond.LastProbeTime.Time)
		}
		for _, cs := range [][]v1.ContainerStatus{p.Status.InitContainerStatuses, p.Status.ContainerStatuses} {
			for _, s := range cs {
				if r := s.State.Running; r != nil {
					see(r.StartedAt.Time)
				}
				if t := s.State.Terminated; t != nil {
					see(t.FinishedAt.Time)
				}
			}
		}
	}
	for _, n := range c.Nodes {
		for _, cond := range n.Status.Conditions {
			see(cond.LastHeartbeatTime.Time)
			see(cond.LastTransitionTime.Time)
		}
	}
	return newest
}
