package podtopologyspread

import (
	"reflect"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/schedtui/schedtui/scheduler/framework/frameworktest"
)

func TestNew(t *testing.T) {
	custom := []v1.TopologySpreadConstraint{{MaxSkew: 2, TopologyKey: "rack", WhenUnsatisfiable: v1.DoNotSchedule}}
	tests := []struct {
		name         string
		args         runtime.Object
		wantErr      string
		wantSystem   bool
		wantDefaults []v1.TopologySpreadConstraint
	}{
		{name: "nil args mean System defaulting", args: nil, wantSystem: true, wantDefaults: systemDefaultConstraints},
		{name: "typed nil args", args: (*configv1.PodTopologySpreadArgs)(nil), wantSystem: true, wantDefaults: systemDefaultConstraints},
		{name: "empty defaultingType is System", args: &configv1.PodTopologySpreadArgs{}, wantSystem: true, wantDefaults: systemDefaultConstraints},
		{name: "System", args: systemArgs(), wantSystem: true, wantDefaults: systemDefaultConstraints},
		{name: "List without constraints", args: listArgs()},
		{name: "List with constraints", args: listArgs(custom...), wantDefaults: custom},
		{
			name:    "wrong args type",
			args:    &configv1.NodeResourcesFitArgs{},
			wantErr: "want args to be of type PodTopologySpreadArgs, got *v1.NodeResourcesFitArgs",
		},
		{
			name:    "System with constraints",
			args:    &configv1.PodTopologySpreadArgs{DefaultingType: configv1.SystemDefaulting, DefaultConstraints: custom},
			wantErr: `defaultingType: Invalid value: "System": when .defaultConstraints are not empty`,
		},
		{
			name:    "constraints without defaultingType default to System and fail",
			args:    &configv1.PodTopologySpreadArgs{DefaultConstraints: custom},
			wantErr: `defaultingType: Invalid value: "System": when .defaultConstraints are not empty`,
		},
		{
			name:    "unknown defaultingType",
			args:    &configv1.PodTopologySpreadArgs{DefaultingType: "Other"},
			wantErr: `defaultingType: Unsupported value: "Other": supported values: "System", "List"`,
		},
		{
			name: "invalid default constraints",
			args: listArgs(
				v1.TopologySpreadConstraint{MaxSkew: 0, TopologyKey: "", WhenUnsatisfiable: "Maybe"},
				v1.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: "rack", WhenUnsatisfiable: v1.ScheduleAnyway, LabelSelector: &metav1.LabelSelector{}},
				v1.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: "rack", WhenUnsatisfiable: v1.ScheduleAnyway},
			),
			wantErr: `[defaultConstraints[0].maxSkew: Invalid value: 0: not in valid range (0, inf), ` +
				`defaultConstraints[0].topologyKey: Required value: can not be empty, ` +
				`defaultConstraints[0].whenUnsatisfiable: Unsupported value: "Maybe": supported values: "DoNotSchedule", "ScheduleAnyway", ` +
				`defaultConstraints[1].labelSelector: Forbidden: constraint must not define a selector, as they deduced for each pod, ` +
				`defaultConstraints[2]: Duplicate value: "{rack, ScheduleAnyway}"]`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := New(tt.args, frameworktest.NewHandle(nil, nil))
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			pl := p.(*PodTopologySpread)
			if pl.Name() != "PodTopologySpread" {
				t.Errorf("Name() = %q", pl.Name())
			}
			if pl.systemDefaulted != tt.wantSystem {
				t.Errorf("systemDefaulted = %v, want %v", pl.systemDefaulted, tt.wantSystem)
			}
			if !reflect.DeepEqual(pl.defaultConstraints, tt.wantDefaults) {
				t.Errorf("defaultConstraints = %v, want %v", pl.defaultConstraints, tt.wantDefaults)
			}
		})
	}
}

func TestSystemDefaultConstraints(t *testing.T) {
	want := []v1.TopologySpreadConstraint{
		{TopologyKey: "kubernetes.io/hostname", WhenUnsatisfiable: v1.ScheduleAnyway, MaxSkew: 3},
		{TopologyKey: "topology.kubernetes.io/zone", WhenUnsatisfiable: v1.ScheduleAnyway, MaxSkew: 5},
	}
	if !reflect.DeepEqual(systemDefaultConstraints, want) {
		t.Errorf("systemDefaultConstraints = %v", systemDefaultConstraints)
	}
}

func TestNoHandleObjects(t *testing.T) {
	// A plugin without a handle must not panic when defaults need the
	// pod's workload: no objects means no selector, hence no constraints.
	pl := &PodTopologySpread{defaultConstraints: listArgs(v1.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: v1.DoNotSchedule}).DefaultConstraints}
	c, err := pl.getConstraints(makePod("p").label("app", "x").obj())
	if err != nil || len(c) != 0 {
		t.Errorf("getConstraints = %v, %v; want none", c, err)
	}
}
