package why

// DynamicResources' groups: the pod's claims with their requests, and,
// per rejected node, its devices and which claims (and pods) hold them.

import (
	"fmt"
	"sort"
	"strings"

	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/dynamic-resource-allocation/resourceclaim"
)

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

// describeDeviceRequest is "gpu: 2 × gpu.example.com where <cel>", a
// prioritized list as its choices joined by " else ".
func describeDeviceRequest(r resourcev1.DeviceRequest) string {
	one := func(class string, mode resourcev1.DeviceAllocationMode, count int64, sel []resourcev1.DeviceSelector) string {
		s := fmt.Sprintf("%d × %s", count, class)
		if mode == resourcev1.DeviceAllocationModeAll {
			s = "all of " + class
		}
		for _, x := range sel {
			if x.CEL != nil {
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
		reqs = append(reqs, describeDeviceRequest(r))
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
			users = append(users, c.Namespace+"/"+r.Name)
		}
		if len(users) > 0 {
			s += ", reserved for " + names(users)
		}
	}
	return s
}

// deviceHolders maps driver/pool/device to the claims holding it (and
// their pods).
func deviceHolders(in Input) map[string][]string {
	out := map[string][]string{}
	for _, c := range in.Sched.Objects().ResourceClaims() {
		a := c.Status.Allocation
		if a == nil {
			continue
		}
		holder := c.Namespace + "/" + c.Name
		if len(c.Status.ReservedFor) > 0 {
			var pods []string
			for _, r := range c.Status.ReservedFor {
				pods = append(pods, c.Namespace+"/"+r.Name)
			}
			holder += " (" + names(pods) + ")"
		}
		for _, r := range a.Devices.Results {
			if r.AdminAccess != nil && *r.AdminAccess {
				continue
			}
			id := r.Driver + "/" + r.Pool + "/" + r.Device
			out[id] = append(out[id], holder)
		}
	}
	return out
}

// draDetail names the pod's claims, then per rejected node its devices:
// how many the node's slices publish and which claims hold them.
func draDetail(in Input, g group) string {
	found, missing := podClaims(in)
	var parts []string
	parts = append(parts, missing...)
	for _, c := range found {
		parts = append(parts, describeDeviceClaim(c))
	}
	parts = append(parts, extendedDetail(in)...)
	holders := deviceHolders(in)
	var b byValue
	for _, n := range g.nodes {
		total := 0
		held := map[string]int{}
		for _, s := range in.Sched.Objects().ResourceSlices() {
			if s.Spec.NodeName == nil || *s.Spec.NodeName != n {
				continue
			}
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
