package noderesources

import (
	"reflect"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/schedtui/schedtui/scheduler/framework/frameworktest"
)

func TestFitArgsDefaults(t *testing.T) {
	want := &configv1.ScoringStrategy{Type: configv1.LeastAllocated, Resources: defaultResources}
	var typedNil *configv1.NodeResourcesFitArgs
	for name, obj := range map[string]*configv1.NodeResourcesFitArgs{"typed nil": typedNil, "empty": {}} {
		args, err := fitArgs(obj)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(args.ScoringStrategy, want) {
			t.Errorf("%s: strategy = %+v, want %+v", name, args.ScoringStrategy, want)
		}
	}
	if args, err := fitArgs(nil); err != nil || !reflect.DeepEqual(args.ScoringStrategy, want) {
		t.Errorf("nil: %+v, %v", args, err)
	}

	// Empty resources get the default set; zero weights become 1; the
	// caller's args are not modified.
	in := &configv1.NodeResourcesFitArgs{ScoringStrategy: &configv1.ScoringStrategy{Type: configv1.MostAllocated}}
	args, err := fitArgs(in)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(args.ScoringStrategy.Resources, defaultResources) || in.ScoringStrategy.Resources != nil {
		t.Errorf("resources = %+v (input %+v)", args.ScoringStrategy.Resources, in.ScoringStrategy.Resources)
	}
	args, _ = fitArgs(&configv1.NodeResourcesFitArgs{ScoringStrategy: &configv1.ScoringStrategy{
		Type: configv1.LeastAllocated, Resources: []configv1.ResourceSpec{{Name: "cpu"}, {Name: "memory", Weight: 3}},
	}})
	if w := []int64{args.ScoringStrategy.Resources[0].Weight, args.ScoringStrategy.Resources[1].Weight}; !reflect.DeepEqual(w, []int64{1, 3}) {
		t.Errorf("weights = %v", w)
	}

	if _, err := fitArgs(&configv1.NodeResourcesBalancedAllocationArgs{}); err == nil ||
		err.Error() != "want args to be of type NodeResourcesFitArgs, got *v1.NodeResourcesBalancedAllocationArgs" {
		t.Errorf("wrong type: %v", err)
	}
}

// Validation errors of upstream's strategy tests and ValidateNodeResourcesFitArgs.
func TestFitArgsValidation(t *testing.T) {
	shape := func(pts ...configv1.UtilizationShapePoint) *configv1.RequestedToCapacityRatioParam {
		return &configv1.RequestedToCapacityRatioParam{Shape: pts}
	}
	tests := []struct {
		name string
		args configv1.NodeResourcesFitArgs
		want string // substring of the error; "" means valid
	}{
		{"negative weight", configv1.NodeResourcesFitArgs{ScoringStrategy: &configv1.ScoringStrategy{Type: configv1.LeastAllocated,
			Resources: []configv1.ResourceSpec{{Name: "memory", Weight: -1}, {Name: "cpu", Weight: 1}}}},
			"scoringStrategy.resources[0].weight: Invalid value: -1: resource weight of memory not in valid range (0, 100]"},
		{"weight above MaxNodeScore", configv1.NodeResourcesFitArgs{ScoringStrategy: &configv1.ScoringStrategy{Type: configv1.MostAllocated,
			Resources: []configv1.ResourceSpec{{Name: "memory", Weight: 1}, {Name: "cpu", Weight: 101}}}},
			"scoringStrategy.resources[1].weight"},
		{"unsupported type", configv1.NodeResourcesFitArgs{ScoringStrategy: &configv1.ScoringStrategy{Type: "Other"}},
			`scoringStrategy.type: Unsupported value: "Other"`},
		{"rtcr without params", configv1.NodeResourcesFitArgs{ScoringStrategy: &configv1.ScoringStrategy{Type: configv1.RequestedToCapacityRatio}},
			"scoringStrategy.requestedToCapacityRatio: Required value"},
		{"params with other type", configv1.NodeResourcesFitArgs{ScoringStrategy: &configv1.ScoringStrategy{Type: configv1.LeastAllocated,
			RequestedToCapacityRatio: shape()}}, "scoringStrategy.requestedToCapacityRatio: Forbidden"},
		{"empty shape", configv1.NodeResourcesFitArgs{ScoringStrategy: &configv1.ScoringStrategy{Type: configv1.RequestedToCapacityRatio,
			RequestedToCapacityRatio: shape()}}, "at least one point must be specified"},
		{"unsorted shape", configv1.NodeResourcesFitArgs{ScoringStrategy: &configv1.ScoringStrategy{Type: configv1.RequestedToCapacityRatio,
			RequestedToCapacityRatio: shape(configv1.UtilizationShapePoint{Utilization: 50}, configv1.UtilizationShapePoint{Utilization: 50})}},
			"values must be sorted in increasing order"},
		{"shape out of range", configv1.NodeResourcesFitArgs{ScoringStrategy: &configv1.ScoringStrategy{Type: configv1.RequestedToCapacityRatio,
			RequestedToCapacityRatio: shape(configv1.UtilizationShapePoint{Utilization: 0, Score: 11}, configv1.UtilizationShapePoint{Utilization: 101})}},
			"not in valid range [0, 10]"},
		{"valid shape", configv1.NodeResourcesFitArgs{ScoringStrategy: &configv1.ScoringStrategy{Type: configv1.RequestedToCapacityRatio,
			RequestedToCapacityRatio: shape(configv1.UtilizationShapePoint{Utilization: 0, Score: 10}, configv1.UtilizationShapePoint{Utilization: 100})}}, ""},
		{"bad ignored resource", configv1.NodeResourcesFitArgs{IgnoredResources: []string{"-bad-"}}, "ignoredResources[0]"},
		{"group with slash", configv1.NodeResourcesFitArgs{IgnoredResourceGroups: []string{"example.com/aaa"}},
			"ignoredResourceGroups[0]: Invalid value: \"example.com/aaa\": resource group name can't contain '/'"},
		{"valid ignored", configv1.NodeResourcesFitArgs{IgnoredResources: []string{"example.com/aaa"}, IgnoredResourceGroups: []string{"example.com"}}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewFit(&tc.args, frameworktest.NewHandle(nil, nil))
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("unexpected error: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestBalancedAllocationArgs(t *testing.T) {
	args, err := balancedAllocationArgs(nil)
	if err != nil || !reflect.DeepEqual(args.Resources, defaultResources) {
		t.Errorf("nil args: %+v, %v", args, err)
	}
	args, err = balancedAllocationArgs(&configv1.NodeResourcesBalancedAllocationArgs{Resources: []configv1.ResourceSpec{{Name: "cpu"}, {Name: string(v1.ResourceEphemeralStorage)}}})
	if err != nil || args.Resources[0].Weight != 1 || args.Resources[1].Weight != 1 {
		t.Errorf("zero weights: %+v, %v", args, err)
	}
	for _, tc := range []struct {
		res  []configv1.ResourceSpec
		want string
	}{
		{[]configv1.ResourceSpec{{Name: "cpu", Weight: 2}}, "resources[0].weight: Invalid value: 2: must be 1"},
		{[]configv1.ResourceSpec{{Name: "cpu", Weight: 1}, {Name: "cpu", Weight: 1}}, `resources[1].name: Duplicate value: "cpu"`},
	} {
		_, err := NewBalancedAllocation(&configv1.NodeResourcesBalancedAllocationArgs{Resources: tc.res}, frameworktest.NewHandle(nil, nil))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want %q", tc.res, err, tc.want)
		}
	}
	if _, err := NewBalancedAllocation(&configv1.NodeResourcesFitArgs{}, frameworktest.NewHandle(nil, nil)); err == nil {
		t.Error("wrong args type accepted")
	}
}

func TestNames(t *testing.T) {
	p, _ := New(nil, frameworktest.NewHandle(nil, nil))
	if p.Name() != "NodeResourcesFit" || Name != "NodeResourcesFit" || BalancedAllocationName != "NodeResourcesBalancedAllocation" {
		t.Errorf("names: %q %q %q", p.Name(), Name, BalancedAllocationName)
	}
}
