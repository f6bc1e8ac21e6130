package why

// DynamicResources' groups: the pod's claims with their requests, and,
// per rejected node, its devices and which claims (and pods) hold them.

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	v1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/dynamic-resource-allocation/resourceclaim"

	"github.com/schedtui/schedtui/scheduler"
	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/record"
)

var dynamicResourcesExplainer = explainer{
	purpose: "allocates devices for the pod's claims and DRA-backed extended resources with upstream's structured allocator: each request needs enough free devices of its DeviceClass that match the class's and the request's CEL selectors. Every rejection is UnschedulableAndUnresolvable: preemption never evicts for devices.",
	filter: func(in Input, _ record.Status, ni *framework.NodeInfo) []string {
		return DeviceLines(in, ni.Node())
	},
	detail: draDetail,
}

// podClaims resolves the pod's claims as DynamicResources does; a claim
// that cannot be found is named by the error.
func podClaims(in Input) (found []*resourcev1.ResourceClaim, missing []string) {
	for i := range in.Pod.Spec.ResourceClaims {
		name, _, err := resourceclaim.Name(in.Pod, &in.Pod.Spec.ResourceClaims[i])
		if err != nil {
			missing = append(missing, err.Error())
			continue
		}
		if name == nil {
			continue
		}
		c, err := in.Sched.Objects().ResourceClaim(in.Pod.Namespace, *name)
		if err != nil {
			missing = append(missing, err.Error())
			continue
		}
		found = append(found, c)
	}
	return found, missing
}

// DescribeDeviceRequest is "gpu: 2 × gpu.example.com where <cel>", a
// prioritized list as its choices joined by " else ".
func DescribeDeviceRequest(r resourcev1.DeviceRequest) string { return describeRequest(r, true) }

// DeviceRequestSummary is DescribeDeviceRequest without the selectors.
func DeviceRequestSummary(r resourcev1.DeviceRequest) string { return describeRequest(r, false) }

func describeRequest(r resourcev1.DeviceRequest, selectors bool) string {
	one := func(class string, mode resourcev1.DeviceAllocationMode, count int64, sel []resourcev1.DeviceSelector) string {
		s := fmt.Sprintf("%d × %s", count, class)
		if mode == resourcev1.DeviceAllocationModeAll {
			s = "all of " + class
		}
		for _, x := range sel {
			if x.CEL != nil && selectors {
				s += " where " + x.CEL.Expression
			}
		}
		return s
	}
	if e := r.Exactly; e != nil {
		s := r.Name + ": " + one(e.DeviceClassName, e.AllocationMode, e.Count, e.Selectors)
		if e.AdminAccess != nil && *e.AdminAccess {
			s += " (admin access)"
		}
		return s
	}
	var alts []string
	for _, sub := range r.FirstAvailable {
		alts = append(alts, sub.Name+" "+one(sub.DeviceClassName, sub.AllocationMode, sub.Count, sub.Selectors))
	}
	return r.Name + ": " + strings.Join(alts, " else ")
}

func describeDeviceClaim(c *resourcev1.ResourceClaim) string {
	var reqs []string
	for _, r := range c.Spec.Devices.Requests {
		reqs = append(reqs, DescribeDeviceRequest(r))
	}
	s := "claim " + c.Namespace + "/" + c.Name + " (" + strings.Join(reqs, "; ") + ")"
	if a := c.Status.Allocation; a != nil {
		var devs []string
		for _, r := range a.Devices.Results {
			devs = append(devs, r.Pool+"/"+r.Device)
		}
		s += " allocated " + strings.Join(devs, ", ")
		var users []string
		for _, r := range c.Status.ReservedFor {
			if r.Resource == "podgroups" {
				users = append(users, "PodGroup "+c.Namespace+"/"+r.Name)
				continue
			}
			users = append(users, c.Namespace+"/"+r.Name)
		}
		if len(users) > 0 {
			s += ", reserved for " + Names(users)
		}
	}
	return s
}

// draDetail says per request what the cluster's devices offer it
// (draHints), then names the pod's claims and, per rejected node, its
// devices: how many the node's slices publish and which claims hold them.
func draDetail(in Input, g group) string {
	found, missing := podClaims(in)
	var parts []string
	parts = append(parts, missing...)
	// What each request finds first: the Pod view shows a group's first
	// lines when it is long.
	parts = append(parts, draHints(in)...)
	pg := MemberPodGroup(in.Sched, in.Pod)
	for _, c := range found {
		d := describeDeviceClaim(c)
		if pg != nil && !ReservedForGroup(c, pg) && groupNamesClaim(pg, c) {
			d += " (PodGroup " + pg.Namespace + "/" + pg.Name + "'s claim)"
		}
		parts = append(parts, d)
	}
	parts = append(parts, extendedDetail(in)...)
	holders := Holders(in.Sched.Objects().ResourceClaims())
	var b byValue
	byNode, _ := slicesByNode(in.Sched.Objects().ResourceSlices())
	for _, n := range g.nodes {
		total := 0
		held := map[string]int{}
		for _, s := range byNode[n] {
			for _, d := range s.Spec.Devices {
				total++
				for _, h := range holders[s.Spec.Driver+"/"+s.Spec.Pool.Name+"/"+d.Name] {
					held[h]++
				}
			}
		}
		desc := fmt.Sprintf("%d devices", total)
		switch total {
		case 0:
			desc = "no devices"
		case 1:
			desc = "1 device"
		}
		if len(held) > 0 {
			var hs []string
			for h, k := range held {
				hs = append(hs, fmt.Sprintf("%d held by %s", k, h))
			}
			sort.Strings(hs)
			desc += ", " + strings.Join(hs, ", ")
		}
		b.add(desc, n)
	}
	if len(b.order) > 0 {
		parts = append(parts, "node devices: "+b.String())
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(parts, "; ") + "."
}

// AllocationString names a claim's allocated devices, one per result:
// "gpu/l4 → gpu.example.com/node-a2/gpu-2 (choice 2 of a100, l4)", the
// choice said for a request with a prioritized list.
func AllocationString(c *resourcev1.ResourceClaim) string {
	if c.Status.Allocation == nil {
		return ""
	}
	var out []string
	for _, r := range c.Status.Allocation.Devices.Results {
		s := r.Request + " → " + r.Driver + "/" + r.Pool + "/" + r.Device
		parent, sub, ok := strings.Cut(r.Request, "/")
		for _, req := range c.Spec.Devices.Requests {
			if !ok || req.Name != parent || len(req.FirstAvailable) == 0 {
				continue
			}
			var choices []string
			n := 0
			for i, fa := range req.FirstAvailable {
				choices = append(choices, fa.Name)
				if fa.Name == sub {
					n = i + 1
				}
			}
			s += fmt.Sprintf(" (choice %d of %s)", n, strings.Join(choices, ", "))
		}
		out = append(out, s)
	}
	return strings.Join(out, ", ")
}

// PodClaimAllocations is, for a bound pod, each of its claims and the
// devices allocated to it, when the claim is reserved for the pod:
// "gpu: default/gpu-inference-gpu gpu/l4 → ... (choice 2 of a100, l4)";
// or for its PodGroup (DRAWorkloadResourceClaims), which the line ends
// with: "(reserved for PodGroup default/train)".
func PodClaimAllocations(s *scheduler.Scheduler, pod *v1.Pod) []string {
	found, _ := podClaims(Input{Sched: s, Pod: pod})
	pg := MemberPodGroup(s, pod)
	var out []string
	for _, c := range found {
		if c.Status.Allocation == nil {
			continue
		}
		line := c.Namespace + "/" + c.Name + ": " + AllocationString(c)
		switch {
		case slices.ContainsFunc(c.Status.ReservedFor, func(r resourcev1.ResourceClaimConsumerReference) bool { return r.UID == pod.UID }):
			out = append(out, line)
		case ReservedForGroup(c, pg):
			out = append(out, line+" (reserved for PodGroup "+pg.Namespace+"/"+pg.Name+")")
		}
	}
	return out
}
