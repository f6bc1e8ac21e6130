package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/schedtui/schedtui/scheduler"
	"github.com/schedtui/schedtui/scheduler/features"
	"github.com/schedtui/schedtui/scheduler/plugins"
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

// clusterScheduler is what is known of the flags of the cluster's own
// kube-scheduler, and where it was learned ("the snapshot's header", ...);
// empty when nothing is.
type clusterScheduler struct {
	emulatedVersion, minCompatibilityVersion, featureGates, from string
}

// any says whether anything is known.
func (k clusterScheduler) any() bool {
	return k.emulatedVersion != "" || k.minCompatibilityVersion != "" || k.featureGates != ""
}

// knownFromHeader is what a snapshot's header recorded of the flags.
func knownFromHeader(h *snapshot.Header) clusterScheduler {
	if h == nil {
		return clusterScheduler{}
	}
	return clusterScheduler{emulatedVersion: h.EmulatedVersion, minCompatibilityVersion: h.MinCompatibilityVersion,
		featureGates: h.FeatureGates, from: "the snapshot's header"}
}

// recordIn writes the flags in effect (the known ones with the user's on
// top, as resolveGates combines them) into a header.
func (g *gateFlags) recordIn(h *snapshot.Header, known clusterScheduler) {
	h.EmulatedVersion, h.MinCompatibilityVersion, h.FeatureGates = g.combined(known)
}

// combined is the version, minimum compatibility version and gates the
// scheduler runs with: the user's versions replace the known ones, the
// user's gates apply after the known ones.
func (g *gateFlags) combined(known clusterScheduler) (emulated, minCompat, gates string) {
	emulated = strings.Join(g.emulatedVersion, ",")
	if emulated == "" {
		emulated = known.emulatedVersion
	}
	minCompat = strings.Join(g.minCompatibilityVersion, ",")
	if minCompat == "" && len(g.emulatedVersion) == 0 {
		minCompat = known.minCompatibilityVersion
	}
	var all []string
	if known.featureGates != "" {
		all = append(all, known.featureGates)
	}
	return emulated, minCompat, strings.Join(append(all, g.featureGates...), ",")
}

// resolveGates resolves the gates the scheduler runs with: the cluster's
// scheduler's flags, then the user's on top (--emulated-version and
// --min-compatibility-version replace the cluster's; --feature-gates are
// applied after its gates, so a gate given wins). What is simulated, when
// it is not kube-scheduler 1.37 with its defaults, and kube-scheduler's
// warnings go to w. A gate that turns on a plugin schedtui does not
// implement is refused.
func resolveGates(g *gateFlags, known clusterScheduler, w io.Writer) (*features.Resolved, error) {
	emulated, minCompat, gates := g.combined(known)
	from := gateSources(g, known)
	r, err := features.Resolve(emulated, minCompat, gates)
	if err == nil {
		err = scheduler.CheckImplemented(plugins.NewInTreeRegistry(), r.Features)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", from, err)
	}
	if g.given() || known.any() {
		fmt.Fprintf(w, "simulating %s (from %s)\n", r.Summary(), from)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	return r, nil
}

// gateSources names where the version and gates came from.
func gateSources(g *gateFlags, known clusterScheduler) string {
	var from []string
	if known.any() {
		from = append(from, "the cluster's scheduler flags ("+known.from+")")
	}
	for _, f := range []struct {
		name string
		set  []string
	}{{"--emulated-version", g.emulatedVersion}, {"--min-compatibility-version", g.minCompatibilityVersion}, {"--feature-gates", g.featureGates}} {
		if len(f.set) > 0 {
			from = append(from, f.name)
		}
	}
	if len(from) == 0 {
		return "the default feature gates"
	}
	return strings.Join(from, " and ")
}
