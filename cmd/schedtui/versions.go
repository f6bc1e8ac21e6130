package main

// Which kube-scheduler version and feature gates a command simulates:
// the user's flags, else the defaults the source shows (the server's
// version, the cluster's kube-scheduler pod; snapshot.SchedulerSettings).

import (
	"fmt"
	"io"

	"github.com/schedtui/schedtui/scheduler/features"
	"github.com/schedtui/schedtui/scheduler/framework/runtime"
	"github.com/schedtui/schedtui/snapshot"
)

// schedulerVersionFlags are the user's --emulated-version,
// --min-compatibility-version and --feature-gates, "" when not given.
type schedulerVersionFlags struct {
	emulatedVersion, minCompatibilityVersion, featureGates string
}

// mergeSchedulerFlags is the one place where the user's version and gate
// flags meet the defaults the source shows: each flag the user gives wins
// over the cluster's, and the lines say so where they differ. configUsed
// names the scheduler configuration in use ("" for the default one).
func mergeSchedulerFlags(d snapshot.SchedulerSettings, user schedulerVersionFlags, configUsed string) snapshot.SchedulerSettings {
	s := d
	s.ConfigUsed = configUsed
	s.Notes = append([]string(nil), d.Notes...)
	s.ClusterFlags = nil
	for _, f := range d.ClusterFlags {
		var given string
		switch f.Name {
		case "feature-gates":
			given = user.featureGates
		case "min-compatibility-version":
			given = user.minCompatibilityVersion
		case "emulated-version":
			given = user.emulatedVersion
		}
		switch {
		case given == "" && f.Name == "min-compatibility-version" && user.emulatedVersion != "":
			// kube-scheduler derives it from the emulated version: the
			// cluster's goes with the cluster's emulated version.
			s.MinCompatibilityVersion = ""
			s.Notes = append(s.Notes, fmt.Sprintf("the cluster's kube-scheduler's %s (pod %s) is left out: kube-scheduler derives it from your --emulated-version", f, d.SchedulerPod))
		case given == "":
			s.ClusterFlags = append(s.ClusterFlags, f)
		case f.Name == "emulated-version":
			// The version line says it.
		case given != f.Value:
			s.Notes = append(s.Notes, fmt.Sprintf("your --%s=%s replaces the cluster's kube-scheduler's %s (pod %s)", f.Name, given, f, d.SchedulerPod))
		}
	}
	if user.featureGates != "" {
		s.FeatureGates = user.featureGates
	}
	if user.minCompatibilityVersion != "" {
		s.MinCompatibilityVersion = user.minCompatibilityVersion
	}
	if user.emulatedVersion != "" {
		s.EmulatedVersion, s.Source = user.emulatedVersion, "--emulated-version"
		shown := user.emulatedVersion
		if v, ok := snapshot.KubeVersion(user.emulatedVersion); ok {
			shown = v
		}
		s.Version = fmt.Sprintf("simulating kube-scheduler %s (--emulated-version)", shown)
		if d.ClusterVersion != "" && d.ClusterVersion != shown {
			s.Version += fmt.Sprintf("; the cluster's is %s (from %s)", d.ClusterVersion, d.Source)
		}
	}
	return s
}

// resolveSchedulerSettings are the version and gate flags the scheduler
// is built with: the user's, else the defaults src shows, and the gates
// they resolve to as kube-scheduler resolves them. Their lines, and
// kube-scheduler's warnings about them, go to w, once per command.
func resolveSchedulerSettings(src *source, f *sourceFlags, w io.Writer) (snapshot.SchedulerSettings, *features.Resolved, error) {
	s := mergeSchedulerFlags(src.settings, f.gates.values(), src.cfgUsed)
	r, err := resolveGates(s)
	if err != nil {
		if len(s.ClusterFlags) > 0 {
			return s, nil, fmt.Errorf("the cluster's kube-scheduler flags (pod %s) cannot be simulated: %w; "+
				"give --emulated-version, --min-compatibility-version or --feature-gates to choose what schedtui simulates", s.SchedulerPod, err)
		}
		if given := f.gates.names(); given != "" {
			return s, nil, fmt.Errorf("%s: %w", given, err)
		}
		return s, nil, fmt.Errorf("%s: %w", s.Source, err)
	}
	for _, l := range append(s.Lines(), r.Notes...) {
		fmt.Fprintln(w, l)
	}
	return s, r, nil
}

// resolveGates resolves the flags as kube-scheduler does, and refuses the
// gates that turn on what schedtui does not implement: it never runs a
// scheduler without a part kube-scheduler would run.
func resolveGates(s snapshot.SchedulerSettings) (*features.Resolved, error) {
	r, err := features.Resolve(s.EmulatedVersion, s.MinCompatibilityVersion, s.FeatureGates)
	if err != nil {
		return nil, err
	}
	if err := runtime.RefuseUnimplementedGates(r.Features); err != nil {
		return nil, err
	}
	return r, nil
}
