package compare

import (
	"strings"
	"testing"
)

func TestParseSpec(t *testing.T) {
	for _, c := range []struct {
		in      string
		want    Spec
		wantErr string
	}{
		{in: "", want: Spec{}},
		{in: " defaults ", want: Spec{}},
		{in: "packing.yaml", want: Spec{Config: "packing.yaml"}},
		{in: "--config packing.yaml", want: Spec{Config: "packing.yaml"}},
		{in: "--config=a.yaml --emulated-version=1.35 --feature-gates=A=true,B=false", want: Spec{Config: "a.yaml", EmulatedVersion: "1.35", FeatureGates: "A=true,B=false"}},
		{in: "--feature-gates=A=true --feature-gates B=false", want: Spec{FeatureGates: "A=true,B=false"}},
		{in: "--min-compatibility-version=1.34 --emulated-version kube=1.35", want: Spec{EmulatedVersion: "kube=1.35", MinCompatibilityVersion: "1.34"}},
		{in: "a.yaml b.yaml", wantErr: "give one configuration file"},
		{in: "--config=a.yaml extra", wantErr: `unexpected "extra"`},
		{in: "--seed=3", wantErr: "unknown flag: --seed"},
		{in: `--feature-gates="A=true"`, wantErr: "quotes are not understood"},
	} {
		got, err := ParseSpec(c.in)
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("%q: err %v, want %q", c.in, err, c.wantErr)
			}
			continue
		}
		c.want.Raw = c.in
		if err != nil || got != c.want {
			t.Errorf("%q: %+v, %v; want %+v", c.in, got, err, c.want)
		}
	}
}

func TestResolveNamed(t *testing.T) {
	named := []Named{{Name: "packing", Data: []byte("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\npercentageOfNodesToScore: 50\n")}}
	r, err := Spec{Config: "packing", EmulatedVersion: "1.35"}.Resolve(named)
	if err != nil {
		t.Fatal(err)
	}
	if r.Config == nil || r.Config.PercentageOfNodesToScore == nil || *r.Config.PercentageOfNodesToScore != 50 {
		t.Errorf("the named configuration was not loaded: %+v", r.Config)
	}
	if got := r.Describe(); got != "kube-scheduler 1.35, packing" {
		t.Errorf("Describe = %q", got)
	}
	if _, err := (Spec{Config: "./packing"}).Resolve(named); err == nil || !strings.Contains(err.Error(), "./packing") {
		t.Errorf("./packing is a file, which does not exist: %v", err)
	}
	if _, err := (Spec{Raw: "--emulated-version=1.2", EmulatedVersion: "1.2"}).Resolve(nil); err == nil || !strings.Contains(err.Error(), "--emulated-version=1.2") {
		t.Errorf("a bad version names the side: %v", err)
	}
}
