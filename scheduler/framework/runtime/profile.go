// Package runtime builds a profile's plugins from a KubeSchedulerProfile and
// runs them at each extension point, as kube-scheduler's framework runtime
// does.
package runtime

import (
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/util/sets"
	configv1 "k8s.io/kube-scheduler/config/v1"
)

// pluginSets returns the plugin sets of the extension points the framework
// runs.
func pluginSets(p *configv1.Plugins) []*configv1.PluginSet {
	return []*configv1.PluginSet{
		&p.MultiPoint, &p.PreEnqueue, &p.QueueSort, &p.PreFilter, &p.Filter, &p.PostFilter,
		&p.PreScore, &p.Score, &p.Reserve, &p.Permit, &p.PreBind, &p.Bind, &p.PostBind, &p.PodGroupPostFilter,
		&p.PlacementGenerate, &p.PlacementScore,
	}
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
