// Package runtime builds a profile's plugins from a KubeSchedulerProfile and
// runs them at each extension point, as kube-scheduler's framework runtime
// does.
package runtime

import (
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/util/sets"
	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/schedtui/schedtui/scheduler/plugins/names"
)

// DefaultPlugins is v1.37's default MultiPoint plugin set with the feature
// gates of a default installation applied: NodeDeclaredFeatures appended
// (GA), DynamicResources (weight 2) inserted before DefaultPreemption (GA).
func DefaultPlugins() *configv1.Plugins {
	w := func(n int32) *int32 { return &n }
	return &configv1.Plugins{MultiPoint: configv1.PluginSet{Enabled: []configv1.Plugin{
		{Name: names.SchedulingGates},
		{Name: names.PrioritySort},
		{Name: names.NodeName},
		{Name: names.NodeUnschedulable},
		{Name: names.TaintToleration, Weight: w(3)},
		{Name: names.NodeAffinity, Weight: w(2)},
		{Name: names.NodePorts},
		{Name: names.NodeResourcesFit, Weight: w(1)},
		{Name: names.VolumeRestrictions},
		{Name: names.NodeVolumeLimits},
		{Name: names.VolumeBinding},
		{Name: names.VolumeZone},
		{Name: names.PodTopologySpread, Weight: w(2)},
		{Name: names.InterPodAffinity, Weight: w(2)},
		{Name: names.DynamicResources, Weight: w(2)},
		{Name: names.DefaultPreemption},
		{Name: names.NodeResourcesBalancedAllocation, Weight: w(1)},
		{Name: names.ImageLocality, Weight: w(1)},
		{Name: names.DefaultBinder},
		{Name: names.NodeDeclaredFeatures},
	}}}
}

// MergePlugins overlays a profile's plugins on the defaults as the v1
// config defaulting does: per extension point, disabled defaults drop out
// ("*" drops all), a re-enabled default keeps the default's position with
// the custom settings, other custom plugins follow.
func MergePlugins(defaults, custom *configv1.Plugins) *configv1.Plugins {
	if custom == nil {
		return defaults
	}
	out := *defaults
	for _, p := range pluginSets(&out, custom) {
		*p.dst = mergePluginSet(*p.dst, *p.src)
	}
	return &out
}

type setPair struct{ dst, src *configv1.PluginSet }

func pluginSets(dst, src *configv1.Plugins) []setPair {
	return []setPair{
		{&dst.MultiPoint, &src.MultiPoint}, {&dst.PreEnqueue, &src.PreEnqueue}, {&dst.QueueSort, &src.QueueSort},
		{&dst.PreFilter, &src.PreFilter}, {&dst.Filter, &src.Filter}, {&dst.PostFilter, &src.PostFilter},
		{&dst.PreScore, &src.PreScore}, {&dst.Score, &src.Score}, {&dst.Reserve, &src.Reserve},
		{&dst.Permit, &src.Permit}, {&dst.PreBind, &src.PreBind}, {&dst.Bind, &src.Bind},
		{&dst.PostBind, &src.PostBind},
	}
}

func mergePluginSet(def, custom configv1.PluginSet) configv1.PluginSet {
	disabledNames := sets.New[string]()
	var disabled []configv1.Plugin
	for _, p := range append(slices.Clone(custom.Disabled), def.Disabled...) {
		disabled = append(disabled, configv1.Plugin{Name: p.Name})
		disabledNames.Insert(p.Name)
	}
	customIndex := map[string]int{}
	for i, p := range custom.Enabled {
		customIndex[p.Name] = i
	}
	replaced := sets.New[int]()
	var enabled []configv1.Plugin
	if !disabledNames.Has("*") {
		for _, p := range def.Enabled {
			if disabledNames.Has(p.Name) {
				continue
			}
			if i, ok := customIndex[p.Name]; ok {
				p = custom.Enabled[i]
				replaced.Insert(i)
			}
			enabled = append(enabled, p)
		}
	}
	for i, p := range custom.Enabled {
		if !replaced.Has(i) {
			enabled = append(enabled, p)
		}
	}
	return configv1.PluginSet{Enabled: enabled, Disabled: disabled}
}

// orderedSet is an insertion-ordered set of names.
type orderedSet struct {
	index map[string]struct{}
	list  []string
}

func newOrderedSet() *orderedSet { return &orderedSet{index: map[string]struct{}{}} }

func (o *orderedSet) insert(s string) {
	if _, ok := o.index[s]; !ok {
		o.index[s] = struct{}{}
		o.list = append(o.list, s)
	}
}

func (o *orderedSet) has(s string) bool { _, ok := o.index[s]; return ok }

func (o *orderedSet) delete(s string) {
	if _, ok := o.index[s]; ok {
		delete(o.index, s)
		o.list = slices.DeleteFunc(o.list, func(x string) bool { return x == s })
	}
}

// expandPoint returns the plugin names of one extension point: plugins
// explicitly enabled there that also appear in MultiPoint come first (in
// their explicit order), then MultiPoint's plugins that implement the
// point, then the remaining explicit ones — upstream's expansion order.
// implements tells whether a plugin implements the point.
func expandPoint(point string, set configv1.PluginSet, multi []configv1.Plugin, implements func(name string) (bool, error)) ([]string, error) {
	explicit := newOrderedSet()
	for _, p := range set.Enabled {
		ok, err := implements(p.Name)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, fmt.Errorf("plugin %q does not extend %s plugin", p.Name, point)
		}
		if explicit.has(p.Name) {
			return nil, fmt.Errorf("plugin %q already registered as %q", p.Name, point)
		}
		explicit.insert(p.Name)
	}
	disabled := sets.New[string]()
	for _, p := range set.Disabled {
		disabled.Insert(p.Name)
	}
	if disabled.Has("*") {
		return explicit.list, nil
	}
	fromMulti := newOrderedSet()
	override := newOrderedSet()
	for _, p := range multi {
		ok, err := implements(p.Name)
		if err != nil {
			return nil, err
		}
		if !ok || disabled.Has(p.Name) {
			continue
		}
		if explicit.has(p.Name) {
			override.insert(p.Name)
			continue
		}
		if fromMulti.has(p.Name) {
			return nil, fmt.Errorf("plugin %q already registered as %q", p.Name, point)
		}
		fromMulti.insert(p.Name)
	}
	var out []string
	for _, n := range slices.Clone(explicit.list) {
		if override.has(n) {
			out = append(out, n)
			explicit.delete(n)
		}
	}
	out = append(out, fromMulti.list...)
	return append(out, explicit.list...), nil
}
