package config

import (
	"strings"
	"testing"

	"github.com/schedtui/schedtui/scheduler/features"
)

const draScoringConfig = `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: MostAllocated
        resources:
        - {name: cpu, weight: 1}
        - {name: example.com/gpu, weight: 2}
  - name: NodeResourcesBalancedAllocation
    args:
      resources:
      - {name: deviceclass.resource.kubernetes.io/gpu, weight: 1}
      - {name: memory, weight: 1}
`

// Scoring resources a DeviceClass may back are named in a warning (with
// DRAExtendedResource on), cpu and memory are not.
func TestDRAScoredResourcesWarned(t *testing.T) {
	_, r, err := LoadData("sched.yaml", []byte(draScoringConfig), features.Default())
	if err != nil {
		t.Fatal(err)
	}
	var warned []string
	for _, p := range r.Problems {
		if strings.Contains(p.String(), "kube-scheduler counts the class's devices") {
			warned = append(warned, p.Field)
		}
	}
	want := []string{
		"profiles[0].pluginConfig[0].args.scoringStrategy.resources[1]",
		"profiles[0].pluginConfig[1].args.resources[0]",
	}
	if strings.Join(warned, ",") != strings.Join(want, ",") {
		t.Errorf("warned about %v, want %v", warned, want)
	}
	off := features.Default()
	off.EnableDRAExtendedResource = false
	_, r, err = LoadData("sched.yaml", []byte(draScoringConfig), off)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range r.Problems {
		if strings.Contains(p.String(), "kube-scheduler counts the class's devices") {
			t.Errorf("warned with DRAExtendedResource off: %s", p)
		}
	}
}
