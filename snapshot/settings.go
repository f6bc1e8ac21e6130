package snapshot

// Where the defaults of --emulated-version, --min-compatibility-version and
// --feature-gates come from when the user gives none: the version of the
// cluster's API server (live, or recorded in a capture's header), and the
// flags of the cluster's own kube-scheduler pod when it is visible.

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	v1 "k8s.io/api/core/v1"
	utilversion "k8s.io/apimachinery/pkg/util/version"
)

// The minor versions of Kubernetes 1.x that schedtui can emulate: those
// kube-scheduler v1.37 accepts for --emulated-version (its own and the
// three before it, design notes §4.1).
const (
	OldestEmulatedMinor = 34
	NewestEmulatedMinor = 37
)

// SchedulerSettings are the defaults for the flags that choose the
// scheduler schedtui simulates, as the source shows them, and what to tell
// the user about them. Flags the user gives win over these.
type SchedulerSettings struct {
	// EmulatedVersion is "1.MINOR", always one schedtui can emulate.
	EmulatedVersion string
	// MinCompatibilityVersion and FeatureGates are the values of the
	// cluster's kube-scheduler's flags, "" when it has none (or is not
	// visible); FeatureGates joins repeated flags with commas.
	MinCompatibilityVersion string
	FeatureGates            string
	// Source says where EmulatedVersion came from, as the message says it
	// ("the server's version", "the --emulated-version of pod
	// kube-system/kube-scheduler-cp1"); "" when nothing told (the
	// newest version is then the default).
	Source string
	// ClusterVersion is the cluster's version as read ("1.32"; it may be
	// outside the range schedtui emulates), "" when unknown.
	ClusterVersion string
	// SchedulerPod is the cluster's kube-scheduler pod the flags were read
	// from ("kube-system/kube-scheduler-cp1"), "" when none is visible.
	SchedulerPod string
	// ConfigFile is the --config of the cluster's kube-scheduler: a file
	// on its node, which schedtui cannot read.
	ConfigFile string
	// ConfigUsed names the scheduler configuration schedtui runs with
	// (the user's --config, or the one a snapshot carries), "" for the
	// default one: the line about ConfigFile says which.
	ConfigUsed string
	// ClusterFlags are the version and gate flags of the cluster's
	// kube-scheduler these settings use, as it was given them.
	ClusterFlags []Flag
	// Version is the line that says which kube-scheduler is simulated
	// and why ("simulating kube-scheduler 1.35 (from the server's
	// version)").
	Version string
	// Notes are further lines for the user: several scheduler pods that
	// disagree, the user's flags that replace the cluster's.
	Notes []string
}

// Flag is one command-line flag: its name without dashes, and its value.
type Flag struct{ Name, Value string }

func (f Flag) String() string { return "--" + f.Name + "=" + f.Value }

// Lines are the messages about the settings: Version, the cluster's
// kube-scheduler flags in use, its --config, then the Notes.
func (s SchedulerSettings) Lines() []string {
	out := []string{s.Version}
	if len(s.ClusterFlags) > 0 {
		parts := make([]string, len(s.ClusterFlags))
		for i, f := range s.ClusterFlags {
			parts[i] = f.String()
		}
		out = append(out, fmt.Sprintf("using the cluster's kube-scheduler flags: %s (from pod %s)", strings.Join(parts, " "), s.SchedulerPod))
	}
	switch {
	case s.ConfigFile != "" && s.ConfigUsed == "":
		out = append(out, fmt.Sprintf("the cluster's kube-scheduler (pod %s) runs with --config=%s, a file on its node that schedtui cannot read: "+
			"pass that KubeSchedulerConfiguration with --config, or schedtui uses the default configuration", s.SchedulerPod, s.ConfigFile))
	case s.ConfigFile != "":
		out = append(out, fmt.Sprintf("the cluster's kube-scheduler (pod %s) runs with --config=%s, a file on its node that schedtui cannot read: "+
			"schedtui uses %s and cannot check that they are the same", s.SchedulerPod, s.ConfigFile, s.ConfigUsed))
	}
	return append(out, s.Notes...)
}

// SourceKind says what a server version was read from, for the messages.
type SourceKind int

const (
	// FromLiveServer: the API server, asked now.
	FromLiveServer SourceKind = iota
	// FromSnapshot: a capture's header.
	FromSnapshot
	// FromRecording: a recording's header.
	FromRecording
	// FromDemo: the embedded demo, made for the newest version.
	FromDemo
)

// versionFrom is how a message names where the server version came from.
func (k SourceKind) versionFrom() string {
	switch k {
	case FromSnapshot:
		return "the snapshot's server version"
	case FromRecording:
		return "the recording's server version"
	}
	return "the server's version"
}

// whose is the cluster's API server as a message names it.
func (k SourceKind) whose() string {
	switch k {
	case FromSnapshot:
		return "the snapshot's API server was"
	case FromRecording:
		return "the recording's API server was"
	}
	return "the cluster's API server is"
}

// DetectSchedulerSettings works out the defaults for a cluster whose API
// server reported serverVersion (its GitVersion, "" when unknown), read
// from kind of source. A visible kube-scheduler pod (see
// FindSchedulerPod) gives its flags; its --emulated-version, else the
// version of its image, is then the default version, else the server's.
func DetectSchedulerSettings(c *Cluster, serverVersion string, kind SourceKind) SchedulerSettings {
	var s SchedulerSettings
	s.setVersionFromServer(serverVersion, kind)
	if c == nil {
		return s
	}
	pods := FindSchedulerPods(c)
	if len(pods) == 0 {
		return s
	}
	sp := pods[0]
	s.SchedulerPod = sp.Pod
	s.FeatureGates, s.MinCompatibilityVersion, s.ConfigFile = sp.FeatureGates, sp.MinCompatibilityVersion, sp.ConfigFile
	if minor, ok := kubeVersionOf(sp.MinCompatibilityVersion); ok {
		// "kube=1.35" and "1.35" say the same to kube-scheduler.
		s.MinCompatibilityVersion = fmt.Sprintf("1.%d", minor)
	}
	if sp.EmulatedVersion != "" {
		s.setVersionFrom(sp.EmulatedVersion, "the --emulated-version of pod "+sp.Pod, "the cluster's kube-scheduler emulates", kind)
	} else if minor, ok := imageMinor(sp.Image); ok && fmt.Sprintf("1.%d", minor) != s.ClusterVersion {
		// The scheduler may lag the API server by a minor (an upgrade
		// in progress): its image says which one runs.
		s.setMinor(minor, fmt.Sprintf("the image of pod %s, %s", sp.Pod, sp.Image), "the cluster's kube-scheduler is")
	}
	s.ClusterFlags = sp.flags()
	for _, other := range pods[1:] {
		if other.flagText() != sp.flagText() || other.Image != sp.Image {
			s.Notes = append(s.Notes, fmt.Sprintf("warning: pod %s runs kube-scheduler with other flags or image than pod %s (%s, %s): schedtui follows %s",
				other.Pod, sp.Pod, orNone(other.flagText()), other.Image, sp.Pod))
		}
	}
	return s
}

func orNone(s string) string {
	if s == "" {
		return "no version or gate flags"
	}
	return s
}

// setVersionFromServer sets the version from the server's GitVersion.
func (s *SchedulerSettings) setVersionFromServer(gitVersion string, kind SourceKind) {
	newest := fmt.Sprintf("1.%d", NewestEmulatedMinor)
	s.EmulatedVersion = newest
	switch {
	case kind == FromDemo:
		s.Version = "simulating kube-scheduler " + newest + " (the demo's)"
		return
	case gitVersion == "" && kind == FromLiveServer:
		s.Version = "simulating kube-scheduler " + newest + ": the API server did not say its version"
		return
	case gitVersion == "":
		what := "snapshot"
		if kind == FromRecording {
			what = "recording"
		}
		s.Version = fmt.Sprintf("simulating kube-scheduler %s: the %s records no server version", newest, what)
		return
	}
	v, err := utilversion.ParseGeneric(gitVersion)
	if err != nil || v.Major() != 1 {
		s.Version = fmt.Sprintf("simulating kube-scheduler %s: %s %q is not a Kubernetes 1.x release", newest, kind.versionFrom(), gitVersion)
		return
	}
	s.setMinor(int(v.Minor()), kind.versionFrom(), kind.whose())
}

// setVersionFrom sets the version from a --emulated-version value of the
// cluster's kube-scheduler ("1.35", "kube=1.35", "kube=1.35,other=1.2").
func (s *SchedulerSettings) setVersionFrom(flag, from, whose string, kind SourceKind) {
	v, ok := kubeVersionOf(flag)
	if !ok {
		s.Notes = append(s.Notes, fmt.Sprintf("warning: %s is %q, not a Kubernetes 1.x version: ignored; the version comes from %s", from, flag, kind.versionFrom()))
		return
	}
	s.setMinor(v, from, whose)
}

// setMinor sets the version to 1.minor, or to the nearest one schedtui
// emulates, with the line that says so.
func (s *SchedulerSettings) setMinor(minor int, from, whose string) {
	s.ClusterVersion = fmt.Sprintf("1.%d", minor)
	switch {
	case minor < OldestEmulatedMinor:
		s.EmulatedVersion, s.Source = fmt.Sprintf("1.%d", OldestEmulatedMinor), from
		s.Version = fmt.Sprintf("simulating kube-scheduler %s, the oldest it can emulate; %s %s (from %s)", s.EmulatedVersion, whose, s.ClusterVersion, from)
	case minor > NewestEmulatedMinor:
		s.EmulatedVersion, s.Source = fmt.Sprintf("1.%d", NewestEmulatedMinor), from
		s.Version = fmt.Sprintf("simulating kube-scheduler %s, the newest it can emulate; %s %s, newer (from %s)", s.EmulatedVersion, whose, s.ClusterVersion, from)
	default:
		s.EmulatedVersion, s.Source = s.ClusterVersion, from
		s.Version = fmt.Sprintf("simulating kube-scheduler %s (from %s)", s.EmulatedVersion, from)
	}
}

// KubeVersion is kube's version in an --emulated-version or
// --min-compatibility-version value, as "1.MINOR"; false when it names
// none.
func KubeVersion(flag string) (string, bool) {
	minor, ok := kubeVersionOf(flag)
	if !ok {
		return "", false
	}
	return fmt.Sprintf("1.%d", minor), true
}

// kubeVersionOf is the minor of kube's entry in an --emulated-version
// value: "1.35" or "kube=1.35", maybe among other components' entries.
func kubeVersionOf(flag string) (int, bool) {
	for _, part := range strings.Split(flag, ",") {
		part = strings.TrimSpace(part)
		comp, ver, found := strings.Cut(part, "=")
		if !found {
			ver, comp = comp, "kube"
		}
		if strings.TrimSpace(comp) != "kube" {
			continue
		}
		major, minor, ok := strings.Cut(strings.TrimSpace(ver), ".")
		if !ok || major != "1" {
			return 0, false
		}
		m, err := strconv.Atoi(minor)
		return m, err == nil && m >= 0
	}
	return 0, false
}

// imageMinor is the minor of a kube-scheduler image's version tag
// ("registry.k8s.io/kube-scheduler:v1.35.2"); false for any other tag.
func imageMinor(image string) (int, bool) {
	name, _, _ := strings.Cut(image, "@")
	i := strings.LastIndex(name, ":")
	if i < 0 || strings.Contains(name[i:], "/") {
		return 0, false
	}
	tag := name[i+1:]
	if !strings.HasPrefix(tag, "v") {
		return 0, false
	}
	v, err := utilversion.ParseSemantic(tag)
	if err != nil || v.Major() != 1 {
		return 0, false
	}
	return int(v.Minor()), true
}

// SchedulerPod is what the pod of the cluster's kube-scheduler says about
// how it runs.
type SchedulerPod struct {
	// Pod is "namespace/name".
	Pod string
	// Image is the kube-scheduler container's image.
	Image string
	// The values of its flags ("" when absent): repeated --feature-gates,
	// --emulated-version and --min-compatibility-version flags joined with
	// commas, as kube-scheduler accumulates them.
	FeatureGates, EmulatedVersion, MinCompatibilityVersion string
	// ConfigFile is its --config.
	ConfigFile string
}

// flags are the pod's version and gate flags that are set.
func (p SchedulerPod) flags() []Flag {
	var out []Flag
	for _, f := range []Flag{{"feature-gates", p.FeatureGates}, {"emulated-version", p.EmulatedVersion}, {"min-compatibility-version", p.MinCompatibilityVersion}} {
		if f.Value != "" {
			out = append(out, f)
		}
	}
	return out
}

// flagText is the version and gate flags as the user would write them.
func (p SchedulerPod) flagText() string {
	var parts []string
	for _, f := range p.flags() {
		parts = append(parts, f.String())
	}
	return strings.Join(parts, " ")
}

// FindSchedulerPods finds the cluster's kube-scheduler: pods in
// kube-system labelled component=kube-scheduler (kubeadm's static pods,
// also tier=control-plane) or named kube-scheduler-*, running, sorted by
// name; with several (one per control-plane node) the first speaks for
// them.
func FindSchedulerPods(c *Cluster) []SchedulerPod {
	var pods []*v1.Pod
	for _, p := range c.Pods {
		if p.Namespace != "kube-system" || p.DeletionTimestamp != nil || p.Status.Phase == v1.PodSucceeded || p.Status.Phase == v1.PodFailed {
			continue
		}
		if p.Labels["component"] == "kube-scheduler" || strings.HasPrefix(p.Name, "kube-scheduler-") {
			pods = append(pods, p)
		}
	}
	sort.Slice(pods, func(i, j int) bool { return pods[i].Name < pods[j].Name })
	out := make([]SchedulerPod, 0, len(pods))
	for _, p := range pods {
		ctr := schedulerContainer(p)
		if ctr == nil {
			continue
		}
		sp := SchedulerPod{Pod: p.Namespace + "/" + p.Name, Image: ctr.Image}
		flags := parseFlags(commandLine(ctr))
		join := func(name string) string { return strings.Join(flags[name], ",") }
		sp.FeatureGates, sp.EmulatedVersion, sp.MinCompatibilityVersion = join("feature-gates"), join("emulated-version"), join("min-compatibility-version")
		if cfg := flags["config"]; len(cfg) > 0 {
			sp.ConfigFile = cfg[len(cfg)-1]
		}
		out = append(out, sp)
	}
	return out
}

// schedulerContainer is the pod's kube-scheduler container: the one named
// kube-scheduler, else the first whose command line runs kube-scheduler.
func schedulerContainer(p *v1.Pod) *v1.Container {
	for i := range p.Spec.Containers {
		if p.Spec.Containers[i].Name == "kube-scheduler" {
			return &p.Spec.Containers[i]
		}
	}
	for i := range p.Spec.Containers {
		for _, w := range commandLine(&p.Spec.Containers[i]) {
			if w == "kube-scheduler" || strings.HasSuffix(w, "/kube-scheduler") {
				return &p.Spec.Containers[i]
			}
		}
	}
	return nil
}

// commandLine is the container's command followed by its args, as the
// kubelet runs them; a shell's -c script ("sh -c 'kube-scheduler
// --feature-gates=...'") is split into words as the shell would.
func commandLine(c *v1.Container) []string {
	all := append(append([]string(nil), c.Command...), c.Args...)
	var out []string
	for i := 0; i < len(all); i++ {
		out = append(out, all[i])
		if all[i] == "-c" && i > 0 && isShell(all[i-1]) && i+1 < len(all) {
			out = append(out, shellWords(all[i+1])...)
			i++
		}
	}
	return out
}

func isShell(w string) bool {
	base := w[strings.LastIndex(w, "/")+1:]
	switch base {
	case "sh", "bash", "ash", "dash", "zsh":
		return true
	}
	return false
}

// shellWords splits a shell command line into words, honouring single and
// double quotes and backslashes (no expansions).
func shellWords(s string) []string {
	var words []string
	var cur strings.Builder
	inWord := false
	var quote rune
	escaped := false
	for _, r := range s {
		switch {
		case escaped:
			cur.WriteRune(r)
			escaped = false
		case r == '\\' && quote != '\'':
			escaped, inWord = true, true
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case r == ';' || r == '&' || r == '|':
			// The command ends here; what follows is another one.
			if inWord {
				words = append(words, cur.String())
			}
			return words
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}

// versionFlags are the kube-scheduler flags read from its pod; every one
// takes a value.
var versionFlags = map[string]bool{"feature-gates": true, "emulated-version": true, "min-compatibility-version": true, "config": true}

// parseFlags reads versionFlags from a command line as pflag does:
// "--name=value" or "--name value". Values keep every occurrence, in
// order; surrounding quotes a shell would have removed are removed.
func parseFlags(words []string) map[string][]string {
	out := map[string][]string{}
	for i := 0; i < len(words); i++ {
		w := words[i]
		if w == "--" {
			break
		}
		name, ok := strings.CutPrefix(w, "--")
		if !ok {
			continue
		}
		name, value, hasValue := strings.Cut(name, "=")
		if !versionFlags[name] {
			continue
		}
		if !hasValue {
			if i+1 >= len(words) {
				continue
			}
			i++
			value = words[i]
		}
		out[name] = append(out[name], unquote(value))
	}
	return out
}

// unquote removes one pair of matching surrounding quotes.
func unquote(v string) string {
	if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
		return v[1 : len(v)-1]
	}
	return v
}

// SchedulerSettings are the defaults an opened snapshot gives (see
// DetectSchedulerSettings): from its header's server version (a
// recording's, for a recording) and the kube-scheduler pod it holds.
func (o *Opened) SchedulerSettings() SchedulerSettings {
	kind, version := FromSnapshot, ""
	if o.Header != nil {
		version = o.Header.ServerVersion
		if o.Header.IsRecording() {
			kind = FromRecording
		}
	}
	return DetectSchedulerSettings(o.Cluster, version, kind)
}
