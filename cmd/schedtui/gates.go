package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/schedtui/schedtui/internal/docread"
	"github.com/schedtui/schedtui/scheduler/features"
	"github.com/schedtui/schedtui/snapshot"
)

// gateFlags are kube-scheduler's --emulated-version,
// --min-compatibility-version and --feature-gates, with its names and
// syntax; each may repeat, as kube-scheduler's do.
type gateFlags struct {
	emulatedVersion         []string
	minCompatibilityVersion []string
	featureGates            []string
}

func (g *gateFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringArrayVar(&g.emulatedVersion, "emulated-version", nil, "the kube-scheduler version to simulate, as kube-scheduler's flag: "+
		"X.Y or kube=X.Y, 1.34 to 1.37 (default: 1.37, or what the cluster's scheduler is known to run); gates take their defaults at that version")
	cmd.Flags().StringArrayVar(&g.minCompatibilityVersion, "min-compatibility-version", nil, "kube-scheduler's --min-compatibility-version: X.Y or kube=X.Y, "+
		"between 1.34 and the emulated version (default: the emulated version minus one)")
	cmd.Flags().StringArrayVar(&g.featureGates, "feature-gates", nil, "kube-scheduler's --feature-gates: comma-separated [kube:]Gate=true|false pairs "+
		"(AllAlpha and AllBeta too); repeatable. Every gate kube-scheduler 1.37 knows is accepted, with its errors")
}

// given says whether any of the flags was given.
func (g *gateFlags) given() bool {
	return len(g.emulatedVersion)+len(g.minCompatibilityVersion)+len(g.featureGates) > 0
}

// names are the flags given, as an error names them ("" for none).
func (g *gateFlags) names() string {
	var given []string
	for _, f := range []struct {
		name string
		set  []string
	}{{"--emulated-version", g.emulatedVersion}, {"--min-compatibility-version", g.minCompatibilityVersion}, {"--feature-gates", g.featureGates}} {
		if len(f.set) > 0 {
			given = append(given, f.name)
		}
	}
	return strings.Join(given, " and ")
}

// values are the flags as kube-scheduler reads them: a repeated flag's
// values joined with commas (component-base then refuses a repeated
// version, as kube-scheduler does, and applies gates in order).
func (g *gateFlags) values() schedulerVersionFlags {
	return schedulerVersionFlags{
		emulatedVersion:         strings.Join(g.emulatedVersion, ","),
		minCompatibilityVersion: strings.Join(g.minCompatibilityVersion, ","),
		featureGates:            strings.Join(g.featureGates, ","),
	}
}

// resolveGiven resolves the version and gate flags given, alone.
func (g *gateFlags) resolveGiven() (*features.Resolved, error) {
	v := g.values()
	return resolveGates(snapshot.SchedulerSettings{EmulatedVersion: v.emulatedVersion,
		MinCompatibilityVersion: v.minCompatibilityVersion, FeatureGates: v.featureGates})
}

// validationGates are the gates a snapshot's objects are validated under,
// as an API server with them would: the flags' (the snapshot cannot say
// what its cluster runs with before it is read: underSimulatedGates reads
// it again once it has), or v1.37's defaults when they do not resolve
// (resolveSchedulerSettings reports why).
func (g *gateFlags) validationGates() features.Features {
	r, err := g.resolveGiven()
	if err != nil {
		return features.Default()
	}
	return r.Features
}

// underSimulatedGates is o, opened under the flags' gates
// (validationGates), opened again when the gates schedtui simulates
// validate otherwise: those of its capture header or its cluster's
// kube-scheduler (under the flags), which are known only once it is read,
// are the gates of the API server that took its objects. Opened again
// once, so that the loader's report printed is the final one; w hears of
// it only when that report changes. When the simulated gates do not
// resolve, o stays (resolveSchedulerSettings says why).
func underSimulatedGates(ctx context.Context, f *sourceFlags, o *snapshot.Opened, w io.Writer) (*snapshot.Opened, error) {
	loadedUnder := f.gates.validationGates()
	simulated, err := resolveGates(mergeSchedulerFlags(withRecordedFlags(o.SchedulerSettings(), o.Header), f.gates.values(), ""))
	if err != nil || snapshot.ValidationUnder(simulated.Features) == snapshot.ValidationUnder(loadedUnder) {
		return o, nil
	}
	again, err := openSnapshot(ctx, f.snapshot, simulated.Features, w)
	if err != nil {
		return nil, err
	}
	if !sameProblems(o.Report, again.Report) {
		fmt.Fprintf(w, "note: %s read again to validate its objects as an API server with the gates simulated would: %s\n",
			f.snapshot, simulated.Summary())
	}
	return again, nil
}

// sameProblems says whether two loader reports say the same.
func sameProblems(a, b *docread.Report) bool {
	if a == nil || b == nil {
		return a == b
	}
	if len(a.Problems) != len(b.Problems) {
		return false
	}
	for i := range a.Problems {
		if a.Problems[i].String() != b.Problems[i].String() {
			return false
		}
	}
	return true
}

// recordSettings writes the version and gates a scheduler built from
// this source runs with into a capture's header, so that reading the
// capture simulates the same scheduler.
func recordSettings(h *snapshot.Header, s snapshot.SchedulerSettings) {
	h.EmulatedVersion, h.MinCompatibilityVersion, h.FeatureGates = s.EmulatedVersion, s.MinCompatibilityVersion, s.FeatureGates
}

// withRecordedFlags are the settings a capture written by schedtui gives:
// the version and gates its scheduler ran with, as recordSettings wrote
// them, replace what the capture's server version and kube-scheduler pod
// suggest.
func withRecordedFlags(s snapshot.SchedulerSettings, h *snapshot.Header) snapshot.SchedulerSettings {
	if h == nil || h.EmulatedVersion == "" && h.MinCompatibilityVersion == "" && h.FeatureGates == "" {
		return s
	}
	var flags []string
	for _, f := range []snapshot.Flag{{Name: "emulated-version", Value: h.EmulatedVersion},
		{Name: "min-compatibility-version", Value: h.MinCompatibilityVersion}, {Name: "feature-gates", Value: h.FeatureGates}} {
		if f.Value != "" {
			flags = append(flags, f.String())
		}
	}
	if h.EmulatedVersion != "" {
		s.EmulatedVersion = h.EmulatedVersion
	}
	s.MinCompatibilityVersion, s.FeatureGates, s.ClusterFlags = h.MinCompatibilityVersion, h.FeatureGates, nil
	s.Source = "the capture's header"
	s.Version = fmt.Sprintf("simulating kube-scheduler %s (the flags the capture was made with: %s)",
		strings.TrimPrefix(s.EmulatedVersion, "kube="), strings.Join(flags, " "))
	return s
}
