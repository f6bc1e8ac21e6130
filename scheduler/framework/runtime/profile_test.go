package runtime

import (
	"reflect"
	"testing"

	configv1 "k8s.io/kube-scheduler/config/v1"
)

func pluginNames(ps []configv1.Plugin) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Name)
	}
	return out
}

func TestMergePlugins(t *testing.T) {
	w := int32(5)
	custom := &configv1.Plugins{MultiPoint: configv1.PluginSet{
		Enabled:  []configv1.Plugin{{Name: "ImageLocality", Weight: &w}, {Name: "Custom"}},
		Disabled: []configv1.Plugin{{Name: "NodePorts"}},
	}}
	got := MergePlugins(DefaultPlugins(), custom).MultiPoint
	n := pluginNames(got.Enabled)
	if n[len(n)-1] != "Custom" {
		t.Errorf("custom plugins go last: %v", n)
	}
	for _, p := range got.Enabled {
		if p.Name == "NodePorts" {
			t.Error("disabled plugin kept")
		}
		if p.Name == "ImageLocality" && (p.Weight == nil || *p.Weight != 5) {
			t.Error("re-enabled default must take the custom weight in place")
		}
	}
	all := MergePlugins(DefaultPlugins(), &configv1.Plugins{Score: configv1.PluginSet{Disabled: []configv1.Plugin{{Name: "*"}}}})
	if len(all.Score.Enabled) != 0 || len(all.Score.Disabled) != 1 {
		t.Errorf("score disabled *: %+v", all.Score)
	}
}

func TestExpandPointOrder(t *testing.T) {
	multi := []configv1.Plugin{{Name: "A"}, {Name: "B"}, {Name: "C"}, {Name: "NotAFilter"}}
	implements := func(n string) (bool, error) { return n != "NotAFilter", nil }
	tests := []struct {
		name string
		set  configv1.PluginSet
		want []string
	}{
		{"multipoint only", configv1.PluginSet{}, []string{"A", "B", "C"}},
		{"explicit override keeps explicit order first", configv1.PluginSet{Enabled: []configv1.Plugin{{Name: "C"}, {Name: "X"}}}, []string{"C", "A", "B", "X"}},
		{"disabled at the point", configv1.PluginSet{Disabled: []configv1.Plugin{{Name: "B"}}}, []string{"A", "C"}},
		{"all disabled keeps explicit only", configv1.PluginSet{Enabled: []configv1.Plugin{{Name: "X"}}, Disabled: []configv1.Plugin{{Name: "*"}}}, []string{"X"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := expandPoint("FilterPlugin", tc.set, multi, implements)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
	if _, err := expandPoint("FilterPlugin", configv1.PluginSet{Enabled: []configv1.Plugin{{Name: "NotAFilter"}}}, multi, implements); err == nil {
		t.Error("an explicit plugin that does not implement the point must be an error")
	}
}
