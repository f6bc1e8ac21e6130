package tui

// Dynamic resource allocation in the views: the devices each node's
// ResourceSlices publish and the claims holding them (Nodes view), the
// pod's claims with their requests and, after Reserve, their devices (Pod
// view), and the teaching pane's account of DynamicResources on a node
// (package why computes it from the fork).

import (
	"fmt"
	"strings"

	v1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/dynamic-resource-allocation/resourceclaim"

	"github.com/schedtui/schedtui/scheduler"
	"github.com/schedtui/schedtui/scheduler/record"
	"github.com/schedtui/schedtui/scheduler/why"
)

// draState is the DRA objects of a captured cluster. The lists hold the
// store's objects, which the engine replaces rather than changes, so the
// views may read them while the engine goes on. What the views derive
// from them (holders, claims by name) is computed on first use: a capture
// happens after every operation, a view of devices only when asked.
type draState struct {
	slices []*resourcev1.ResourceSlice
	claims []*resourcev1.ResourceClaim

	holders map[string][]string
	byKey   map[string]*resourcev1.ResourceClaim
	// podGroups are the PodGroups whose claims their members share, by
	// namespace/name (DRAWorkloadResourceClaims; nil with it off).
	podGroups map[string]*schedulingv1beta1.PodGroup
}

// captureDRA reads a scheduler's slices and claims; nil when the cluster
// publishes no devices and has no claims. It must run under the backend
// lock.
func captureDRA(s *scheduler.Scheduler) *draState {
	objs := s.Objects()
	d := &draState{slices: objs.ResourceSlices(), claims: objs.ResourceClaims()}
	if len(d.slices) == 0 && len(d.claims) == 0 {
		return nil
	}
	if s.Features().EnableDRAWorkloadResourceClaims {
		d.podGroups = map[string]*schedulingv1beta1.PodGroup{}
		for _, pg := range objs.PodGroups("") {
			d.podGroups[pg.Namespace+"/"+pg.Name] = pg
		}
	}
	return d
}

// podGroup is p's PodGroup, when its claims may be the group's.
func (d *draState) podGroup(p *v1.Pod) *schedulingv1beta1.PodGroup {
	if d == nil || p.Spec.SchedulingGroup == nil || p.Spec.SchedulingGroup.PodGroupName == nil {
		return nil
	}
	return d.podGroups[p.Namespace+"/"+*p.Spec.SchedulingGroup.PodGroupName]
}

func (d *draState) nodeDevices(node *v1.Node) []why.Device {
	if d == nil || len(d.slices) == 0 {
		return nil
	}
	if d.holders == nil {
		d.holders = why.Holders(d.claims)
	}
	return why.NodeDevices(d.slices, d.holders, node)
}

func (d *draState) claim(ns, name string) *resourcev1.ResourceClaim {
	if d == nil {
		return nil
	}
	if d.byKey == nil {
		d.byKey = make(map[string]*resourcev1.ResourceClaim, len(d.claims))
		for _, c := range d.claims {
			d.byKey[c.Namespace+"/"+c.Name] = c
		}
	}
	return d.byKey[ns+"/"+name]
}

// explainDevices is the Nodes view's teaching pane on a node's devices.
const explainDevices = "Devices are what the node's DRA drivers publish in ResourceSlices (a pool is used only when all its slices of the newest generation are present). A device is taken when a ResourceClaim's allocation names it, whatever pods run here: DynamicResources allocates a claim's requests from the free devices its DeviceClass and CEL selectors match, and preemption never evicts for devices."

// deviceLines is the Nodes view's devices section: one line per device
// (driver, pool/device, attributes, capacity, holder), at most limit of
// them, then how many more.
func deviceLines(st *Styles, devs []why.Device, w, limit int) []string {
	if len(devs) == 0 {
		return nil
	}
	free := 0
	for _, d := range devs {
		if len(d.HeldBy) == 0 {
			free++
		}
	}
	out := []string{st.HeadingE.wrap(fmt.Sprintf("devices (%d, %d free)", len(devs), free))}
	for i, d := range devs {
		if i == limit {
			out = append(out, st.Dim.Render(fmt.Sprintf("  … %d more", len(devs)-i)))
			break
		}
		s := fmt.Sprintf("  %s %s/%s", d.Driver, d.Pool, d.Name)
		if a := d.AttributesString(); a != "" {
			s += " " + a
		}
		if c := d.CapacityString(); c != "" {
			s += " · " + c
		}
		if len(d.HeldBy) == 0 {
			out = append(out, fit(s+" · free", w))
			continue
		}
		// The holder on its own line: claim and pod names are long.
		out = append(out, fit(s, w), fit("    held by "+strings.Join(d.HeldBy, ", "), w))
	}
	return out
}

// claimLines is the Pod view's claims: per pod claim its ResourceClaim
// and requests (their selectors are in the Filter view's teaching pane)
// and, once the attempt passed Reserve and the claim holds
// an allocation for the pod (or its PodGroup), the devices allocated; a
// claim that is the member's PodGroup's says so (why.GroupClaimNote).
func (v *attemptView) claimLines(p *v1.Pod, a *record.Attempt) []string {
	if len(p.Spec.ResourceClaims) == 0 {
		return nil
	}
	var dra *draState
	if f := v.c.fork(); f != nil {
		dra = f.dra
	}
	var after *draState
	if v.c.World != nil && a.Phases[record.PhaseReserve].Code == record.CodeSuccess && v.c.revealed(record.PhaseReserve) {
		after = v.c.World.dra
	}
	var out []string
	for i := range p.Spec.ResourceClaims {
		pc := &p.Spec.ResourceClaims[i]
		name, _, err := resourceclaim.Name(p, pc)
		switch {
		case err != nil:
			out = append(out, pc.Name+": "+err.Error())
			continue
		case name == nil:
			continue
		}
		s := pc.Name + ": " + p.Namespace + "/" + *name
		c := dra.claim(p.Namespace, *name)
		if c == nil {
			c = after.claim(p.Namespace, *name)
		}
		if c != nil {
			var reqs []string
			for _, r := range c.Spec.Devices.Requests {
				reqs = append(reqs, why.DeviceRequestSummary(r))
			}
			s += " (" + strings.Join(reqs, "; ") + ")"
		}
		ac := after.claim(p.Namespace, *name)
		pg := dra.podGroup(p)
		if pg == nil {
			pg = after.podGroup(p)
		}
		note := why.GroupClaimNote(pg, p, pc, ac)
		if note == "" {
			note = why.GroupClaimNote(pg, p, pc, c)
		}
		if ac != nil && ac.Status.Allocation != nil && (reservedFor(ac, p) || why.ReservedForGroup(ac, pg)) {
			s += " allocated " + why.AllocationString(ac)
		}
		if note != "" {
			s += " (" + note + ")"
		}
		out = append(out, s)
	}
	return out
}

func reservedFor(c *resourcev1.ResourceClaim, p *v1.Pod) bool {
	for _, r := range c.Status.ReservedFor {
		if r.UID == p.UID {
			return true
		}
	}
	return false
}

// explainDRA is the teaching pane's DynamicResources part for a node.
func explainDRA(f *forkResult, node string) []string {
	ni := f.nodeInfo(node)
	if ni == nil {
		return nil
	}
	return why.DeviceLines(why.Input{Sched: f.sched, Pod: f.pod}, ni.Node())
}
