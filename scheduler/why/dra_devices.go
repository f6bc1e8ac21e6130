package why

// Devices per node and, per request of the pod's claims, which devices
// its class and selectors match and which of those are taken: what the
// teaching pane, the Nodes view and the DynamicResources verdict show.
// The selectors are evaluated with upstream's CEL environment
// (k8s.io/dynamic-resource-allocation/cel), as the allocator evaluates
// them; the allocator itself decides the verdict (the plugin), this only
// names what it saw.

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	v1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	dracel "k8s.io/dynamic-resource-allocation/cel"
)

// Device is one device a ResourceSlice publishes, and who holds it.
type Device struct {
	Driver, Pool, Name string
	Attributes         map[resourcev1.QualifiedName]resourcev1.DeviceAttribute
	Capacity           map[resourcev1.QualifiedName]resourcev1.DeviceCapacity
	// HeldBy names the claims whose allocation holds the device, each
	// with the pods it is reserved for ("ns/claim (pod ns/pod)").
	HeldBy []string
}

// ID is driver/pool/device, as allocation results name a device.
func (d Device) ID() string { return d.Driver + "/" + d.Pool + "/" + d.Name }

// AttributesString is "model=a100, ..." in name order.
func (d Device) AttributesString() string {
	var out []string
	for k, a := range d.Attributes {
		out = append(out, string(k)+"="+attributeValue(a))
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

// CapacityString is "memory=80Gi, ..." in name order.
func (d Device) CapacityString() string {
	var out []string
	for k, c := range d.Capacity {
		out = append(out, string(k)+"="+c.Value.String())
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

func attributeValue(a resourcev1.DeviceAttribute) string {
	switch {
	case a.StringValue != nil:
		return *a.StringValue
	case a.IntValue != nil:
		return fmt.Sprint(*a.IntValue)
	case a.BoolValue != nil:
		return fmt.Sprint(*a.BoolValue)
	case a.VersionValue != nil:
		return *a.VersionValue
	}
	return "?"
}

// Holders maps driver/pool/device to the claims holding it, each as
// "ns/claim (pod ns/pod, ...)". Admin access holds nothing, as for the
// allocator.
func Holders(claims []*resourcev1.ResourceClaim) map[string][]string {
	out := map[string][]string{}
	for _, c := range claims {
		a := c.Status.Allocation
		if a == nil {
			continue
		}
		holder := c.Namespace + "/" + c.Name
		var pods []string
		for _, r := range c.Status.ReservedFor {
			pods = append(pods, c.Namespace+"/"+r.Name)
		}
		if len(pods) > 0 {
			holder += " (pod " + Names(pods) + ")"
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

// sliceOnNode reports whether a slice's devices are reachable from node:
// published for it by name, for all nodes, or by a node selector it
// matches.
func sliceOnNode(s *resourcev1.ResourceSlice, node *v1.Node) bool {
	switch {
	case s.Spec.NodeName != nil:
		return *s.Spec.NodeName == node.Name
	case s.Spec.AllNodes != nil && *s.Spec.AllNodes:
		return true
	case s.Spec.NodeSelector != nil:
		sel, err := nodeaffinity.NewNodeSelector(s.Spec.NodeSelector)
		return err == nil && sel.Match(node)
	}
	return false
}

// slicesByNode indexes the slices published for one node by its name;
// shared are the rest (all nodes, a node selector), which every node
// must check.
func slicesByNode(slices []*resourcev1.ResourceSlice) (byNode map[string][]*resourcev1.ResourceSlice, shared []*resourcev1.ResourceSlice) {
	byNode = map[string][]*resourcev1.ResourceSlice{}
	for _, s := range slices {
		if s.Spec.NodeName != nil {
			byNode[*s.Spec.NodeName] = append(byNode[*s.Spec.NodeName], s)
		} else {
			shared = append(shared, s)
		}
	}
	return byNode, shared
}

// NodeDevices lists the devices reachable from node, in slice and device
// order, with their holders (from Holders).
func NodeDevices(slices []*resourcev1.ResourceSlice, holders map[string][]string, node *v1.Node) []Device {
	var out []Device
	for _, s := range slices {
		if !sliceOnNode(s, node) {
			continue
		}
		for _, d := range s.Spec.Devices {
			dev := Device{Driver: s.Spec.Driver, Pool: s.Spec.Pool.Name, Name: d.Name, Attributes: d.Attributes, Capacity: d.Capacity}
			dev.HeldBy = holders[dev.ID()]
			out = append(out, dev)
		}
	}
	return out
}

// selectorCache compiles selectors once, as the plugin's cache does; it
// is made on first use (its CEL compiler took 0.6 ms of every process's
// start, a headless run's included).
var selectorCache = sync.OnceValue(func() *dracel.Cache {
	return dracel.NewCache(64, dracel.Features{EnableConsumableCapacity: true, EnableListTypeAttributes: true})
})

// matcher memoizes selector results by the device's driver, attributes
// and capacity, which are all a selector sees: a cluster of thousands of
// nodes publishes few kinds of device, so few evaluations are made.
type matcher struct {
	memo map[string]matchResult
}

type matchResult struct {
	ok  bool
	err error
}

// signature is what a selector sees of a device.
func (d Device) signature() string {
	return d.Driver + "\x01" + d.AttributesString() + "\x01" + d.CapacityString()
}

func (m *matcher) matches(selectors []string, d Device) (bool, error) {
	return m.matchesSig(selectors, d, d.signature())
}

func (m *matcher) matchesSig(selectors []string, d Device, sig string) (bool, error) {
	if len(selectors) == 0 {
		return true, nil
	}
	if m.memo == nil {
		m.memo = map[string]matchResult{}
	}
	k := strings.Join(selectors, "\x00") + "\x01" + sig
	r, ok := m.memo[k]
	if !ok {
		r.ok, r.err = matches(selectors, d)
		m.memo[k] = r
	}
	return r.ok, r.err
}

// matches evaluates CEL selectors on a device; an expression that does
// not compile or evaluate counts as no match and is returned as the error.
func matches(selectors []string, d Device) (bool, error) {
	for _, expr := range selectors {
		r := selectorCache().GetOrCompile(expr)
		if r.Error != nil {
			return false, r.Error
		}
		ok, _, err := r.DeviceMatches(context.Background(), dracel.Device{Driver: d.Driver, Attributes: d.Attributes, Capacity: d.Capacity})
		if err != nil || !ok {
			return false, err
		}
	}
	return true, nil
}

// requestCheck is one request of a claim the pod needs allocated (one
// choice of a prioritized list each).
type requestCheck struct {
	claim     string // ns/name
	request   string // "gpus", "gpu, choice l4"
	class     string
	missing   bool     // the class does not exist
	classSel  []string // the class's CEL selectors
	selectors []string // the request's
	count     int64
	all       bool
}

func (r requestCheck) want() string {
	if r.all {
		return "all of " + r.class
	}
	return fmt.Sprintf("%d × %s", r.count, r.class)
}

// requestChecks lists the requests of the pod's claims that still need
// an allocation; allocated claims are listed in allocated.
func requestChecks(in Input) (checks []requestCheck, allocated []*resourcev1.ResourceClaim) {
	found, _ := podClaims(in)
	for _, c := range found {
		if c.Status.Allocation != nil {
			allocated = append(allocated, c)
			continue
		}
		add := func(name, class string, mode resourcev1.DeviceAllocationMode, count int64, sel []resourcev1.DeviceSelector) {
			rc := requestCheck{claim: c.Namespace + "/" + c.Name, request: name, class: class, count: count, all: mode == resourcev1.DeviceAllocationModeAll}
			for _, s := range sel {
				if s.CEL != nil {
					rc.selectors = append(rc.selectors, s.CEL.Expression)
				}
			}
			dc, err := in.Sched.Objects().DeviceClass(class)
			if err != nil {
				rc.missing = true
			} else {
				for _, s := range dc.Spec.Selectors {
					if s.CEL != nil {
						rc.classSel = append(rc.classSel, s.CEL.Expression)
					}
				}
			}
			checks = append(checks, rc)
		}
		for _, r := range c.Spec.Devices.Requests {
			if e := r.Exactly; e != nil {
				add(r.Name, e.DeviceClassName, e.AllocationMode, e.Count, e.Selectors)
				continue
			}
			for _, sub := range r.FirstAvailable {
				add(r.Name+", choice "+sub.Name, sub.DeviceClassName, sub.AllocationMode, sub.Count, sub.Selectors)
			}
		}
	}
	return checks, allocated
}

// tally is what one request finds among some devices.
type tally struct {
	inClass, matching []Device
	free              []Device
	err               error
}

func (r requestCheck) tally(m *matcher, devs []Device) tally {
	var t tally
	for _, d := range devs {
		sig := d.signature()
		ok, err := m.matchesSig(r.classSel, d, sig)
		if err != nil && t.err == nil {
			t.err = err
		}
		if !ok {
			continue
		}
		t.inClass = append(t.inClass, d)
		ok, err = m.matchesSig(r.selectors, d, sig)
		if err != nil && t.err == nil {
			t.err = err
		}
		if !ok {
			continue
		}
		t.matching = append(t.matching, d)
		if len(d.HeldBy) == 0 {
			t.free = append(t.free, d)
		}
	}
	return t
}

// attrEquals recognises the common selector form
// device.attributes["domain"].name == "value".
var attrEquals = regexp.MustCompile(`^\s*device\.attributes\["([^"]+)"\]\.([A-Za-z0-9_]+)\s*==\s*"([^"]*)"\s*$`)

// noMatchSentence says that no device of the class matches the request's
// selectors anywhere, naming the values present for the common
// attribute-equality form: "no device of class gpu.example.com has model
// h100; the models present are a100, l4".
func (r requestCheck) noMatchSentence(m *matcher, inClass []Device) string {
	for _, expr := range r.selectors {
		sub := attrEquals.FindStringSubmatch(expr)
		if sub == nil {
			continue
		}
		seen := map[string]bool{}
		for _, d := range inClass {
			// With one selector, no device of the class matches it
			// (the caller's case): only several need checking one by one.
			if len(r.selectors) > 1 {
				if ok, _ := m.matches([]string{expr}, d); ok {
					continue
				}
			}
			for name, a := range d.Attributes {
				n := string(name)
				if n == sub[2] || n == sub[1]+"/"+sub[2] {
					seen[attributeValue(a)] = true
				}
			}
		}
		if len(seen) == 0 {
			return fmt.Sprintf("no device of class %s has %s %s (no device has that attribute)", r.class, sub[2], sub[3])
		}
		return fmt.Sprintf("no device of class %s has %s %s; the %ss present are %s", r.class, sub[2], sub[3], sub[2], strings.Join(sortedKeys(seen), ", "))
	}
	return fmt.Sprintf("no device of class %s matches %s", r.class, strings.Join(r.selectors, " && "))
}

// draHints are the DynamicResources verdict's sentences, cluster-wide per
// request: a class that does not exist, a selector no device matches, or
// per node with matching devices how many are free of those requested and
// who holds the rest (noting a holder of lower priority: upstream never
// preempts for devices).
func draHints(in Input) []string {
	checks, _ := requestChecks(in)
	if len(checks) == 0 {
		return nil
	}
	objs := in.Sched.Objects()
	holders := Holders(objs.ResourceClaims())
	byNode, shared := slicesByNode(objs.ResourceSlices())
	type nodeDevs struct {
		node string
		devs []Device
	}
	var nodes []nodeDevs
	for _, ni := range in.Sched.Snapshot().List() {
		n := ni.Node()
		devs := NodeDevices(append(byNode[n.Name][:len(byNode[n.Name]):len(byNode[n.Name])], shared...), holders, n)
		if len(devs) > 0 {
			nodes = append(nodes, nodeDevs{n.Name, devs})
		}
	}
	m := &matcher{}
	prio := corev1helpers.PodPriority(in.Pod)
	var out []string
	for _, r := range checks {
		head := "claim " + r.claim + " request " + r.request + " (" + r.want() + ")"
		if r.missing {
			out = append(out, head+": device class "+r.class+" does not exist")
			continue
		}
		type onNode struct {
			node string
			t    tally
		}
		// The cluster's tally is the sum of the nodes'.
		var matched []onNode
		var t tally
		for _, n := range nodes {
			nt := r.tally(m, n.devs)
			t.inClass = append(t.inClass, nt.inClass...)
			t.matching = append(t.matching, nt.matching...)
			t.free = append(t.free, nt.free...)
			if t.err == nil {
				t.err = nt.err
			}
			if len(nt.matching) > 0 {
				matched = append(matched, onNode{n.node, nt})
			}
		}
		switch {
		case t.err != nil:
			out = append(out, head+": selector error: "+t.err.Error())
		case len(t.inClass) == 0:
			out = append(out, head+": no node has a device of class "+r.class)
		case len(t.matching) == 0:
			out = append(out, head+": "+r.noMatchSentence(m, t.inClass))
		default:
			// "node-a2 has 0 free of 2 requested (gpu-0, gpu-1 held by
			// ns/claim (pod ns/pod))", the first few nodes by name.
			const show = 3
			var per []string
			lower := false
			for k, n := range matched {
				if k == show {
					per = append(per, fmt.Sprintf("%d more nodes with matching devices", len(matched)-show))
					break
				}
				held := map[string][]string{}
				var order []string
				for _, d := range n.t.matching {
					for _, h := range d.HeldBy {
						if _, ok := held[h]; !ok {
							order = append(order, h)
						}
						held[h] = append(held[h], d.Name)
					}
				}
				desc := fmt.Sprintf("%s has %d free of %d requested", n.node, len(n.t.free), r.count)
				if r.all {
					desc = fmt.Sprintf("%s has %d free of all %d", n.node, len(n.t.free), len(n.t.matching))
				}
				var hs []string
				for _, h := range order {
					hs = append(hs, strings.Join(held[h], ", ")+" held by "+h)
					lower = lower || holderBelow(in, h, prio)
				}
				if len(hs) > 0 {
					desc += " (" + strings.Join(hs, "; ") + ")"
				}
				per = append(per, desc)
			}
			s := head + ": " + strings.Join(per, "; ")
			if lower {
				s += "; a lower-priority holder is never preempted for devices (DynamicResources rejects UnschedulableAndUnresolvable)"
			}
			out = append(out, s)
		}
	}
	return out
}

// holderBelow reports whether a holder ("ns/claim (pod ns/a, ns/b)")
// names a pod of lower priority than prio.
func holderBelow(in Input, holder string, prio int32) bool {
	_, pods, ok := strings.Cut(holder, " (pod ")
	if !ok {
		return false
	}
	for _, p := range strings.Split(strings.TrimSuffix(pods, ")"), ", ") {
		ns, name, _ := strings.Cut(p, "/")
		for _, ni := range in.Sched.Snapshot().List() {
			for _, pi := range ni.Pods {
				if pi.Pod.Namespace == ns && pi.Pod.Name == name && corev1helpers.PodPriority(pi.Pod) < prio {
					return true
				}
			}
		}
	}
	return false
}

// DeviceLines is the teaching pane's account of DynamicResources on one
// node: per request of the pod's unallocated claims, its class and
// selectors, how many of the node's devices the class and the selectors
// match, and which matching devices are taken, by which claim and pod;
// per allocated claim, its devices and the nodes it is usable on.
func DeviceLines(in Input, node *v1.Node) []string {
	if in.Sched == nil || in.Pod == nil || node == nil {
		return nil
	}
	found, missing := podClaims(in)
	var out []string
	for _, m := range missing {
		out = append(out, "missing: "+m)
	}
	if len(found) == 0 {
		return append(out, "The pod has no ResourceClaim to allocate.")
	}
	objs := in.Sched.Objects()
	devs := NodeDevices(objs.ResourceSlices(), Holders(objs.ResourceClaims()), node)
	out = append(out, fmt.Sprintf("%s publishes %d device(s) in ResourceSlices.", node.Name, len(devs)))
	checks, allocated := requestChecks(in)
	for _, c := range allocated {
		out = append(out, "", describeDeviceClaim(c))
		if ns := c.Status.Allocation.NodeSelector; ns != nil {
			sel, err := nodeaffinity.NewNodeSelector(ns)
			usable := err == nil && sel.Match(node)
			var terms []string
			for _, t := range ns.NodeSelectorTerms {
				terms = append(terms, NodeSelectorTermString(t))
			}
			out = append(out, fmt.Sprintf("  allocated for nodes matching %s: %s %s", strings.Join(terms, " or "), node.Name, map[bool]string{true: "matches", false: "does not match (resourceclaim not available on the node)"}[usable]))
		}
	}
	for _, r := range checks {
		out = append(out, "", "claim "+r.claim+" · request "+r.request+": "+r.want())
		if r.missing {
			out = append(out, "  device class "+r.class+" does not exist")
			continue
		}
		for _, s := range r.classSel {
			out = append(out, "  class "+r.class+" selects: "+s)
		}
		for _, s := range r.selectors {
			out = append(out, "  request selects: "+s)
		}
		t := r.tally(&matcher{}, devs)
		want := fmt.Sprint(r.count)
		if r.all {
			want = "all"
		}
		out = append(out, fmt.Sprintf("  on %s: %d device(s) of the class, %d match the selectors, %d free (%s requested)", node.Name, len(t.inClass), len(t.matching), len(t.free), want))
		switch {
		case t.err != nil:
			out = append(out, "  selector error: "+t.err.Error())
		case len(t.inClass) > 0 && len(t.matching) == 0:
			out = append(out, "  the request's selector matches none of them")
		}
		for _, d := range t.matching {
			state := "free"
			if len(d.HeldBy) > 0 {
				state = "taken by claim " + strings.Join(d.HeldBy, ", claim ")
			}
			out = append(out, fmt.Sprintf("    %s/%s (%s): %s", d.Pool, d.Name, d.AttributesString(), state))
		}
	}
	if hs := draHints(in); len(hs) > 0 {
		out = append(out, "", "Across the cluster:")
		for _, h := range hs {
			out = append(out, "  "+h+".")
		}
	}
	return out
}
