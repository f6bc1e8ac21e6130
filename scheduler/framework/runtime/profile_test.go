package runtime

import (
	"reflect"
	"testing"

	configv1 "k8s.io/kube-scheduler/config/v1"
)

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
