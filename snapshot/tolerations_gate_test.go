package snapshot

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/watch"

	"github.com/schedtui/schedtui/internal/docread"
	"github.com/schedtui/schedtui/scheduler/features"
)

// loadUnder loads data as a snapshot validated under the default gates
// with TaintTolerationComparisonOperators set to on.
func loadUnder(t *testing.T, on bool, data string) (*Cluster, *docread.Report) {
	t.Helper()
	gates := features.Default()
	gates.EnableTaintTolerationComparisonOperators = on
	l := NewLoader()
	l.ValidateUnder(gates)
	if err := l.LoadData("t.yaml", []byte(data)); err != nil {
		t.Fatal(err)
	}
	return l.Finish()
}

func tolerating(name, meta, tolerations string) string {
	return "apiVersion: v1\nkind: Pod\nmetadata: {name: " + name + meta + "}\nspec:\n  containers: [{name: c, image: img}]\n  tolerations: " + tolerations + "\n"
}

// wantProblems checks that r's errors are exactly want, each a
// substring of one problem, in order.
func wantProblems(t *testing.T, r *docread.Report, want ...string) {
	t.Helper()
	var got []string
	for _, p := range r.Problems {
		if p.Severity == docread.Error {
			got = append(got, p.String())
		}
	}
	if len(got) != len(want) {
		t.Fatalf("got %d errors, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i := range want {
		if !strings.Contains(got[i], want[i]) {
			t.Errorf("error %d:\n got %s\nwant it to contain %s", i, got[i], want[i])
		}
	}
}

// TestTolerationComparisonOperators checks that Lt and Gt tolerations
// are validated as an API server with the TaintTolerationComparisonOperators
// gate does: refused with it off, their value checked with it on, and
// kept in objects read back from an API server whatever the gate.
func TestTolerationComparisonOperators(t *testing.T) {
	comparing := tolerating("cmp", "", "[{key: gpu-mem, operator: Lt, value: \"32\", effect: NoSchedule}, {key: tier, operator: Gt, value: \"-3\"}]")
	daemonSet := `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: ds}
spec:
  selector: {matchLabels: {a: b}}
  template:
    metadata: {labels: {a: b}}
    spec:
      containers: [{name: c, image: img}]
      tolerations: [{key: tier, operator: Gt, value: "3"}]
`
	runtimeClass := "apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata: {name: rc}\nhandler: h\nscheduling:\n  tolerations: [{key: k, operator: Lt, value: \"5\"}]\n"
	// Read back from an API server (a resourceVersion), bound.
	stored := tolerating("stored", ", resourceVersion: \"7\", uid: u-stored", "[{key: tier, operator: Lt, value: \"5\"}]") + "  nodeName: n1\n"
	storedBad := tolerating("stored-bad", ", resourceVersion: \"8\", uid: u-bad", "[{key: tier, operator: Lt, value: five}]") + "  nodeName: n1\n"
	all := strings.Join([]string{nodeN1, comparing, daemonSet, runtimeClass, stored, storedBad}, "---\n")
	const notSupported = `Unsupported value: "%s": supported values: "Equal", "Exists", "Lt", "Gt"`
	unsupported := func(op string) string { return strings.Replace(notSupported, "%s", op, 1) }

	t.Run("gate off", func(t *testing.T) {
		c, r := loadUnder(t, false, all)
		wantProblems(t, r,
			"Pod default/cmp: spec.tolerations[0].operator: "+unsupported("Lt"),
			"Pod default/cmp: spec.tolerations[1].operator: "+unsupported("Gt"),
			"DaemonSet default/ds: spec.template.spec.tolerations[0].operator: "+unsupported("Gt"),
			"RuntimeClass rc: scheduling.tolerations[0].operator: "+unsupported("Lt"),
			`Pod default/stored-bad: spec.tolerations[0].value: Invalid value: "five": must be a valid decimal integer in canonical form`,
			`Pod default/stored-bad: spec.tolerations[0].value: Invalid value: "five": strconv.ParseInt: parsing "five": invalid syntax`,
		)
		if got := podNames(c); len(got) != 1 || got[0] != "default/stored" {
			t.Errorf("pods %v, want only default/stored (read back from an API server)", got)
		}
		if len(c.DaemonSets) != 0 || len(c.RuntimeClasses) != 0 {
			t.Errorf("%d DaemonSets, %d RuntimeClasses loaded, want none", len(c.DaemonSets), len(c.RuntimeClasses))
		}
	})
	t.Run("gate on", func(t *testing.T) {
		c, r := loadUnder(t, true, all)
		wantProblems(t, r,
			"RuntimeClass rc: scheduling.tolerations[0].operator: "+unsupported("Lt"),
			`Pod default/stored-bad: spec.tolerations[0].value: Invalid value: "five": must be a valid decimal integer in canonical form`,
			`Pod default/stored-bad: spec.tolerations[0].value: Invalid value: "five": strconv.ParseInt: parsing "five": invalid syntax`,
		)
		if got := podNames(c); len(got) != 2 || got[0] != "default/cmp" || got[1] != "default/stored" {
			t.Errorf("pods %v, want default/cmp and default/stored", got)
		}
		if len(c.DaemonSets) != 1 {
			t.Errorf("the DaemonSet did not load")
		}
	})
	t.Run("values with the gate on", func(t *testing.T) {
		var docs []string
		for _, v := range []string{`""`, "abc", `"007"`, `"-0"`, `"+7"`, `"1.5"`, `"99999999999999999999"`, `"0"`, `"-9223372036854775808"`} {
			docs = append(docs, tolerating("p"+string(rune('a'+len(docs))), "", "[{key: k, operator: Gt, value: "+v+"}]"))
		}
		c, r := loadUnder(t, true, strings.Join(docs, "---\n"))
		const at = "spec.tolerations[0].value: Invalid value: "
		wantProblems(t, r,
			`Pod default/pa: `+at+`"": must be non-empty`,
			`Pod default/pa: `+at+`"": strconv.ParseInt: parsing "": invalid syntax`,
			`Pod default/pb: `+at+`"abc": must be a valid decimal integer in canonical form`,
			`Pod default/pb: `+at+`"abc": strconv.ParseInt: parsing "abc": invalid syntax`,
			`Pod default/pc: `+at+`"007": must be a valid decimal integer in canonical form`,
			`Pod default/pd: `+at+`"-0": must be a valid decimal integer in canonical form`,
			`Pod default/pe: `+at+`"+7": must be a valid decimal integer in canonical form`,
			`Pod default/pf: `+at+`"1.5": must be a valid decimal integer in canonical form`,
			`Pod default/pf: `+at+`"1.5": strconv.ParseInt: parsing "1.5": invalid syntax`,
			`Pod default/pg: `+at+`"99999999999999999999": strconv.ParseInt: parsing "99999999999999999999": value out of range`,
		)
		if got := podNames(c); len(got) != 2 {
			t.Errorf("pods %v, want default/ph and default/pi", got)
		}
	})
}

// TestOpenUnderGates checks that OpenUnder's gates reach every reader:
// YAML, protobuf (decoded ahead on other goroutines) and a recording's
// changes.
func TestOpenUnderGates(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src.yaml")
	if err := os.WriteFile(src, []byte(nodeN1+"---\n"+tolerating("cmp", "", "[{key: k, operator: Lt, value: \"5\"}]")), 0o600); err != nil {
		t.Fatal(err)
	}
	nowish := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	on := features.Default()
	on.EnableTaintTolerationComparisonOperators = true
	o, err := OpenUnder(src, nil, on)
	if err != nil || len(o.Cluster.Pods) != 1 {
		t.Fatalf("%v %v", err, o.Report)
	}
	pb := filepath.Join(dir, "s.pb")
	if _, err := WriteFile(pb, o.Cluster, Header{}); err != nil {
		t.Fatal(err)
	}
	rec := filepath.Join(dir, "r.yaml")
	rw, err := CreateRecording(rec, &Cluster{Nodes: o.Cluster.Nodes}, Header{RecordingStarted: nowish})
	if err != nil {
		t.Fatal(err)
	}
	if err := rw.Add(nowish, watch.Added, o.Cluster.Pods[0]); err != nil {
		t.Fatal(err)
	}
	if err := rw.Close(nowish); err != nil {
		t.Fatal(err)
	}
	count := func(o *Opened) int { return len(o.Cluster.Pods) + len(o.Changes) }
	for _, path := range []string{src, pb, rec} {
		for _, gateOn := range []bool{false, true} {
			gates := features.Default()
			gates.EnableTaintTolerationComparisonOperators = gateOn
			o, err := OpenUnder(path, nil, gates)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := count(o), map[bool]int{false: 0, true: 1}[gateOn]; got != want {
				t.Errorf("%s with the gate %v: %d pods and changes, want %d\n%s", filepath.Base(path), gateOn, got, want, o.Report)
			}
		}
	}
}
