package config

import (
	"testing"

	"github.com/schedtui/schedtui/scheduler/features"
)

// FuzzLoadConfig checks that no input makes LoadData panic and that it
// returns a report, and a configuration unless it fails.
func FuzzLoadConfig(f *testing.F) {
	for _, s := range []string{
		"", cfgHeader, cfgHeader + "profiles:\n- pluginConfig:\n  - name: NodeResourcesFit\n    args: {scoringStrategy: {type: RequestedToCapacityRatio}}\n",
		cfgHeader + "profiles:\n- pluginConfig:\n  - name: NodeAffinity\n    args: {addedAffinity: {preferredDuringSchedulingIgnoredDuringExecution: [{weight: 1, preference: {matchExpressions: [{key: a, operator: Lt, values: [x]}]}}]}}\n",
		cfgHeader + "profiles:\n- pluginConfig:\n  - name: VolumeBinding\n    args: {shape: []}\n  - {name: DynamicResources, args: {filterTimeout: -1s}}\n",
		cfgHeader + "extenders: [{urlPrefix: x, prioritizeVerb: p, bindVerb: b, managedResources: [{name: cpu}]}, {bindVerb: c}]\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, r, err := LoadData("fuzz.yaml", data, features.Default())
		if r == nil {
			t.Fatal("nil report")
		}
		if err == nil && cfg == nil {
			t.Fatal("nil configuration without an error")
		}
	})
}
