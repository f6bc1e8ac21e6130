package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"
)

func TestParseRef(t *testing.T) {
	for _, tc := range []struct {
		arg, ns, name, err string
		ds, pg             bool
	}{
		{arg: "default/web-3", ns: "default", name: "web-3"},
		{arg: "web-3", name: "web-3"},
		{arg: "pod/web-3", name: "web-3"},
		{arg: "pods/team-b/batch-116", ns: "team-b", name: "batch-116"},
		{arg: "po/team-b/batch-116", ns: "team-b", name: "batch-116"},
		{arg: "Pod/a/b", ns: "a", name: "b"},
		{arg: "ds/log-agent", name: "log-agent", ds: true},
		{arg: "daemonset/kube-system/node-agent", ns: "kube-system", name: "node-agent", ds: true},
		{arg: "daemonsets.apps/kube-system/node-agent", ns: "kube-system", name: "node-agent", ds: true},
		{arg: "podgroup/default/llm-train-workers", ns: "default", name: "llm-train-workers", pg: true},
		{arg: "podgroups.scheduling.k8s.io/team-a/pg", ns: "team-a", name: "pg", pg: true},
		{arg: "PodGroup/pg", name: "pg", pg: true},
		{arg: "podgroup/", err: "empty"},
		{arg: "deploy/a/b", err: "not a deploy"},
		{arg: "a/b/c/d", err: "is not a pod reference"},
		{arg: "/web", err: "empty"},
		{arg: "pod/", err: "empty"},
		{arg: "default/", err: "empty"},
	} {
		r, err := parseRef(tc.arg)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: err %v, want %q", tc.arg, err, tc.err)
			}
		case err != nil:
			t.Errorf("%s: %v", tc.arg, err)
		case r.namespace != tc.ns || r.name != tc.name || r.daemonSet != tc.ds || r.podGroup != tc.pg:
			t.Errorf("%s: %+v", tc.arg, r)
		}
	}
}

func TestDidYouMean(t *testing.T) {
	known := []string{"team-a/batch-115", "team-b/batch-116", "default/web-3", "default/web-30", "kube-system/coredns"}
	for missing, want := range map[string]string{
		"default/batch-116":    "; did you mean team-b/batch-116?",
		"team-b/batch-16":      "; did you mean team-b/batch-116?",
		"default/web-4":        "; did you mean default/web-3?",
		"default/web3":         "; did you mean default/web-3?",
		"team-c/batch-117":     "; did you mean one of team-a/batch-115, team-b/batch-116?",
		"default/nothing-like": "",
	} {
		if got := didYouMean(missing, known); got != want {
			t.Errorf("%s: %q, want %q", missing, got, want)
		}
	}
}

// TestExplainKubectlHabits: references, -n/-A, -o and their errors on
// the demo.
func TestExplainKubectlHabits(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want cmdWant
	}{
		{"NAME with -n", []string{"--demo", "web-3", "-n", "default"}, cmdWant{stdout: []string{"Pod:        default/web-3", "Attempt 2 of 2"}}},
		{"NAME defaults to the default namespace", []string{"--demo", "pod/web-3"}, cmdWant{stdout: []string{"Pod:        default/web-3"}}},
		{"a history line per attempt", []string{"--demo", "po/default/web-3"}, cmdWant{stdout: []string{
			"1  +0s   UnscheduledPodAdd  Unschedulable  -", "2  +30s  AssignedPodDelete  Scheduled      node-b2"}}},
		{"the preemptor's nomination", []string{"--demo", "default/critical-api", "--attempt", "1"}, cmdWant{stdout: []string{
			"Unschedulable  - (nominated node-b2)", "Nominated:  node-b2", "Victims:    default/job-0, default/web-2", "Preemption:"}}},
		{"wide history", []string{"--demo", "default/critical-api", "-o", "wide"}, cmdWant{stdout: []string{
			"NOMINATED", "default/job-0,default/web-2", "2026-01-01T00:22:00Z"}}},
		{"a gated pod", []string{"--demo", "default/gated-job"}, cmdWant{stdout: []string{
			"History:    no attempt", "not attempted: gated by SchedulingGates: waiting for scheduling gates: [example.com/quota-approval]"}}},
		{"--all diagnoses the attempt's cluster", []string{"--demo", "default/web-3", "--attempt", "1", "--all"}, cmdWant{stdout: []string{
			"Full diagnosis", "node-b2"}}},
		{"-n without a pod", []string{"--demo", "-n", "kube-system"}, cmdWant{stdout: []string{"Pod:        kube-system/log-agent-b1x7k"}}},
		{"a miss in another namespace", []string{"--demo", "team-b/web-3"}, cmdWant{errSubstr: `pod "team-b/web-3" not found; did you mean default/web-3?`}},
		{"a misspelt name", []string{"--demo", "web3"}, cmdWant{errSubstr: `pod "default/web3" not found; did you mean default/web-3?`}},
		{"a bound pod", []string{"--demo", "default/web-0"}, cmdWant{errSubstr: `pod "default/web-0" was already bound to node`}},
		{"--attempt beyond", []string{"--demo", "default/web-3", "--attempt", "3"}, cmdWant{errSubstr: `pod "default/web-3" has 2 attempt(s) in this run: --attempt 3 is beyond its last`}},
		{"--attempt of a gated pod", []string{"--demo", "default/gated-job", "--attempt", "1"}, cmdWant{errSubstr: "was never attempted (gated by SchedulingGates"}},
		{"--attempt 0 is the last, negative is refused", []string{"--demo", "default/web-3", "--attempt", "-1"}, cmdWant{errSubstr: "--attempt counts a pod's attempts from 1"}},
		{"-A with a pod", []string{"--demo", "-A", "default/web-3"}, cmdWant{errSubstr: "-A/--all-namespaces explains every pod: it cannot be combined with"}},
		{"-A with -n", []string{"--demo", "-A", "-n", "default"}, cmdWant{errSubstr: "-A/--all-namespaces and -n/--namespace default contradict each other"}},
		{"-n against the reference", []string{"--demo", "-n", "kube-system", "default/web-3"}, cmdWant{errSubstr: `"default/web-3" names namespace default but -n says kube-system`}},
		{"no pod", []string{"--demo"}, cmdWant{errSubstr: "explain needs a pod"}},
		{"--attempt with -A", []string{"--demo", "-A", "--attempt", "1"}, cmdWant{errSubstr: "--attempt 1 needs one pod"}},
		{"another kind", []string{"--demo", "deploy/default/web"}, cmdWant{errSubstr: "not a deploy"}},
		{"a bad -o", []string{"--demo", "default/web-3", "-o", "xml"}, cmdWant{errSubstr: `--output must be text, wide, json or yaml, not "xml"`}},
		{"a namespace without pods", []string{"--demo", "-n", "nowhere"}, cmdWant{errSubstr: "no pod of namespace nowhere went through the scheduling queue"}},
		{"a DaemonSet in -n", []string{"--demo", "ds/log-agent", "-n", "default"}, cmdWant{errSubstr: `daemonset "default/log-agent" is not in the snapshot`}},
		{"a DaemonSet in JSON", []string{"--demo", "ds/log-agent", "-o", "json"}, cmdWant{errSubstr: "prints text only"}},
	} {
		t.Run(tc.name, func(t *testing.T) { checkCmd(t, newExplainCommand, tc.args, tc.want) })
	}
}

// TestExplainYAML: -o yaml is the JSON object's YAML.
func TestExplainYAML(t *testing.T) {
	out, _, err := runCmd(t, newExplainCommand, "--demo", "default/web-3", "-o", "yaml")
	if err != nil {
		t.Fatal(err)
	}
	var x map[string]any
	if err := yaml.Unmarshal([]byte(out), &x); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"pod", "outcome", "node", "message", "nominatedNode", "victims", "attempts", "verdict", "hints"} {
		if _, ok := x[f]; !ok {
			t.Errorf("no %s in\n%s", f, out)
		}
	}
	if x["node"] != "node-b2" || x["attempts"] != float64(2) || len(x["hints"].([]any)) != 0 {
		t.Errorf("%v", x)
	}
}

func TestRunNamespaceAndWide(t *testing.T) {
	out, _, err := runCmd(t, newRunCommand, "--demo", "-n", "kube-system")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "kube-system/log-agent-b1x7k") || strings.Contains(out, "default/") {
		t.Errorf("run -n kube-system:\n%s", out)
	}
	checkCmd(t, newRunCommand, []string{"--demo", "-n", "default", "-o", "wide"}, cmdWant{stdout: []string{
		"default/critical-api                     Unschedulable -            node-b2      default/job-0,default/web-2    2026-01-01T00:22:00Z  0/6 nodes",
		"pending  default/gated-job"}})
	checkCmd(t, newRunCommand, []string{"--demo", "-A", "-n", "default"}, cmdWant{errSubstr: "contradict each other"})
	checkCmd(t, newRunCommand, []string{"--demo", "-A"}, cmdWant{stdout: []string{"kube-system/log-agent-b1x7k", "default/critical-api"}})
	jsonOut, _, err := runCmd(t, newRunCommand, "--demo", "-n", "kube-system", "-o", "json")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(jsonOut), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatal(err)
		}
		if pod, _ := m["pod"].(string); !strings.HasPrefix(pod, "kube-system/") && m["kind"] != "source" {
			t.Errorf("run -n kube-system -o json printed %s", line)
		}
	}
}

// TestContextNamespace: on a live cluster a NAME is looked up in the
// kubeconfig context's namespace, as kubectl does.
func TestContextNamespace(t *testing.T) {
	fakeCluster(t)
	p := filepath.Join(t.TempDir(), "config")
	cfg := "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: https://127.0.0.1:1\nusers:\n- name: u\n  user: {}\ncontexts:\n- name: fake-ctx\n  context:\n    cluster: c\n    user: u\n    namespace: other\n- name: default-ns\n  context:\n    cluster: c\n    user: u\ncurrent-context: fake-ctx\n"
	if err := os.WriteFile(p, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("KUBECONFIG", p)
	checkCmd(t, newExplainCommand, []string{"live-pod"}, cmdWant{errSubstr: `pod "other/live-pod" not found; did you mean default/live-pod?`})
	checkCmd(t, newExplainCommand, []string{"--context", "default-ns", "live-pod"}, cmdWant{stdout: []string{"Pod:        default/live-pod"}})
	checkCmd(t, newExplainCommand, []string{"-n", "default", "live-pod"}, cmdWant{stdout: []string{"Node:       live-node"}})
}

func TestVersionCommand(t *testing.T) {
	checkCmd(t, newVersionCommand, nil, cmdWant{stdout: []string{"Client Version: dev", "Simulates:      kube-scheduler v1.37 (k8s.io/kubernetes v1.37.1 behaviour)"}})
	out, _, err := runCmd(t, newVersionCommand, "-o", "json")
	if err != nil {
		t.Fatal(err)
	}
	var v versionInfo
	if err := json.Unmarshal([]byte(out), &v); err != nil || v.Scheduler.Behaviour != "k8s.io/kubernetes v1.37.1" || v.ServerVersion != nil {
		t.Errorf("%v: %+v", err, v)
	}
	fakeCluster(t)
	checkCmd(t, newVersionCommand, []string{"--context", "ctx", "-o", "yaml"}, cmdWant{stdout: []string{"serverVersion:", "context: ctx", "gitVersion:"}})
	checkCmd(t, newVersionCommand, []string{"--context", "unreachable"}, cmdWant{errSubstr: `reading the server's version: context "unreachable" does not exist`})
	checkCmd(t, newVersionCommand, []string{"-o", "wide"}, cmdWant{errSubstr: "--output must be text, json or yaml"})
}

// TestPluginName: as kubectl-schedtui, help says kubectl schedtui, and
// with no source and no cluster it refuses rather than open the demo.
func TestPluginName(t *testing.T) {
	for arg0, want := range map[string]string{
		"/usr/local/bin/kubectl-schedtui": pluginName, "kubectl-schedtui.exe": pluginName, "./schedtui": "schedtui", "schedtui": "schedtui",
	} {
		if got := commandName(arg0); got != want {
			t.Errorf("%s: %q, want %q", arg0, got, want)
		}
	}
	plugin := func() *cobra.Command { return newRootCommandAs(pluginName, nil, nil) }
	checkCmd(t, plugin, []string{"explain", "--help"}, cmdWant{stdout: []string{
		"kubectl schedtui explain (NAMESPACE/POD", "  kubectl schedtui explain default/web-3"}})
	checkCmd(t, plugin, []string{"--help"}, cmdWant{stdout: []string{"kubectl schedtui with no command opens the interactive debugger on the current", "kubectl schedtui [command]"}})
	checkCmd(t, plugin, nil, cmdWant{errSubstr: "no cluster to read"})
	checkCmd(t, func() *cobra.Command { return newRootCommand(nil, nil) }, []string{"run", "--help"}, cmdWant{stdout: []string{"  schedtui run --snapshot"}})
}
