package gatetable

import (
	"bytes"
	"fmt"
	"os"
	"reflect"
	"testing"

	"k8s.io/component-base/featuregate"

	"github.com/schedtui/schedtui/scheduler/features"
)

// TestTableMatchesKubeScheduler pins schedtui's gate table: the gate
// features.NewGate builds must hold exactly the gates, versioned specs and
// dependencies the real kube-scheduler registers, and the generated file
// must be what the generator writes today.
func TestTableMatchesKubeScheduler(t *testing.T) {
	wantSpecs, wantDeps := Reference()
	g := features.NewGate()
	gotSpecs := g.GetAllVersioned()
	delete(gotSpecs, "AllAlpha")
	delete(gotSpecs, "AllBeta")
	for name, want := range wantSpecs {
		got, ok := gotSpecs[name]
		switch {
		case !ok:
			t.Errorf("gate %s: kube-scheduler registers it, schedtui does not", name)
		case !reflect.DeepEqual(specStrings(got), specStrings(want)):
			t.Errorf("gate %s: schedtui has %v, kube-scheduler %v", name, specStrings(got), specStrings(want))
		}
	}
	for name := range gotSpecs {
		if _, ok := wantSpecs[name]; !ok {
			t.Errorf("gate %s: schedtui registers it, kube-scheduler does not", name)
		}
	}
	gotDeps := g.Dependencies()
	for name, want := range wantDeps {
		if got := gotDeps[name]; fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("dependencies of %s: schedtui %v, kube-scheduler %v", name, got, want)
		}
	}
	for name, got := range gotDeps {
		if _, ok := wantDeps[name]; !ok && len(got) > 0 {
			t.Errorf("dependencies of %s: schedtui %v, kube-scheduler none", name, got)
		}
	}

	src, err := Render(wantSpecs, wantDeps)
	if err != nil {
		t.Fatal(err)
	}
	const path = "../../scheduler/features/zz_generated_gates.go"
	have, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(have, src) {
		t.Errorf("%s is not what the generator writes: run `cd conformance && go run ./gatetable/gen ../scheduler/features/zz_generated_gates.go`", path)
	}
}

func specStrings(specs featuregate.VersionedSpecs) []string {
	out := make([]string, len(specs))
	for i, s := range specs {
		out[i] = fmt.Sprintf("{%s default=%t locked=%t %q minCompat=%v}", s.Version, s.Default, s.LockToDefault, s.PreRelease, s.MinCompatibilityVersion)
	}
	return out
}
