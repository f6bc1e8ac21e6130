// Package compare puts two runs of the scheduler over the same starting
// cluster side by side: two configurations, versions or gate sets, each
// with its own queue engine. It says, per pod, where each side put it and,
// for a pod placed differently, the first attempt where the sides diverged
// and the plugin whose verdict or score made the difference; and, per side,
// what was scheduled, preempted, how tightly the nodes are packed and how
// far each spread-constrained workload is skewed. `schedtui compare` prints
// it; the debugger's compare mode reads the same answers.
package compare

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"
	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/schedtui/schedtui/internal/docread"
	"github.com/schedtui/schedtui/scheduler/apis/config"
	"github.com/schedtui/schedtui/scheduler/features"
)

// Spec is one side of a comparison as the user wrote it: a scheduler
// configuration (a file, or a configuration schedtui ships), and
// kube-scheduler's version and gate flags.
//
// The syntax (ParseSpec) is either a single word — "" or "defaults" for
// kube-scheduler v1.37 with its defaults, the name of a shipped
// configuration (Named), or the path of a KubeSchedulerConfiguration file —
// or kube-scheduler's own flags, as its command line takes them:
//
//	--config=packing.yaml --emulated-version=1.35 --feature-gates=A=true,B=false
type Spec struct {
	// Raw is the text the side was given as.
	Raw string
	// Config is a file path or a shipped configuration's name; "" for the
	// defaults.
	Config string
	// EmulatedVersion, MinCompatibilityVersion and FeatureGates are
	// kube-scheduler's flags ("" when not given).
	EmulatedVersion, MinCompatibilityVersion, FeatureGates string
}

// Defaults is the spec of kube-scheduler v1.37 with its defaults.
const Defaults = "defaults"

// ParseSpec reads one side (see Spec). Errors name the flag or word at
// fault.
func ParseSpec(raw string) (Spec, error) {
	s := Spec{Raw: raw}
	text := strings.TrimSpace(raw)
	if text == "" || text == Defaults {
		return s, nil
	}
	if strings.ContainsAny(text, `"'`) {
		return s, fmt.Errorf("%q: quotes are not understood here: write each flag as --name=value, without spaces in values", raw)
	}
	words := strings.Fields(text)
	if !strings.HasPrefix(words[0], "-") {
		if len(words) > 1 {
			return s, fmt.Errorf("%q: give one configuration file, or kube-scheduler flags (--config=FILE --emulated-version=X.Y --feature-gates=A=true,B=false)", raw)
		}
		s.Config = words[0]
		return s, nil
	}
	fs := pflag.NewFlagSet("side", pflag.ContinueOnError)
	fs.SetOutput(discard{})
	cfg := fs.String("config", "", "")
	emulated := fs.StringArray("emulated-version", nil, "")
	minCompat := fs.StringArray("min-compatibility-version", nil, "")
	gates := fs.StringArray("feature-gates", nil, "")
	if err := fs.Parse(words); err != nil {
		return s, fmt.Errorf("%q: %w (a side takes --config, --emulated-version, --min-compatibility-version and --feature-gates)", raw, err)
	}
	if fs.NArg() > 0 {
		return s, fmt.Errorf("%q: unexpected %q: a side is one configuration file, or kube-scheduler flags only", raw, fs.Arg(0))
	}
	s.Config = *cfg
	s.EmulatedVersion = strings.Join(*emulated, ",")
	s.MinCompatibilityVersion = strings.Join(*minCompat, ",")
	s.FeatureGates = strings.Join(*gates, ",")
	return s, nil
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// Named is a configuration schedtui ships, usable as a side by its name.
type Named struct {
	Name string
	Data []byte
}

// Resolved is a side ready to run: its configuration (nil: the defaults)
// and feature gates.
type Resolved struct {
	Spec     Spec
	Config   *configv1.KubeSchedulerConfiguration
	Features features.Features
	Gates    *features.Resolved
	// Report holds the configuration file's warnings.
	Report *docread.Report
}

// Resolve resolves the side's version and gates as kube-scheduler would
// (same errors), then loads its configuration, defaulted and validated
// under those gates. A Config that names one of
// named is that configuration; a file of the same name is reached as
// ./NAME.
func (s Spec) Resolve(named []Named) (*Resolved, error) {
	gates, err := features.Resolve(s.EmulatedVersion, s.MinCompatibilityVersion, s.FeatureGates)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Label(), err)
	}
	r := &Resolved{Spec: s, Features: gates.Features, Gates: gates}
	if s.Config == "" {
		return r, nil
	}
	for _, n := range named {
		if n.Name == s.Config {
			r.Config, r.Report, err = config.LoadData(n.Name, n.Data, r.Features)
			return r, err
		}
	}
	r.Config, r.Report, err = config.Load(s.Config, r.Features)
	return r, err
}

// Label is the side as the user gave it, for headers and errors:
// "defaults", "packing.yaml", "--emulated-version=1.35".
func (s Spec) Label() string {
	if t := strings.Join(strings.Fields(s.Raw), " "); t != "" {
		return t
	}
	return Defaults
}

// Describe says what the side runs: "kube-scheduler 1.37, packing.yaml",
// "kube-scheduler 1.35 (gates: X=false), the default configuration".
func (r *Resolved) Describe() string {
	cfg := "the default configuration"
	if r.Spec.Config != "" {
		cfg = r.Spec.Config
	}
	return r.Gates.Summary() + ", " + cfg
}
