package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/schedtui/schedtui/internal/extendertest"
)

// An extender the snapshot's configuration names but that cannot be
// reached fails the attempts that reach it, as upstream's does; an
// ignorable one is skipped; --skip-extenders leaves it out and says so.
func TestRunWithUnreachableExtender(t *testing.T) {
	url, err := extendertest.UnreachableURL()
	if err != nil {
		t.Fatal(err)
	}
	config := func(ignorable bool) string {
		p := filepath.Join(t.TempDir(), "config.yaml")
		body := "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nextenders:\n" +
			"- urlPrefix: " + url + "\n  filterVerb: filter\n  httpTimeout: 2s\n"
		if ignorable {
			body += "  ignorable: true\n"
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	checkCmd(t, newRunCommand, []string{"--demo", "--config", config(false), "--until", "1m", "-o", "json"}, cmdWant{
		stdout: []string{`"pod":"default/frontend-1","outcome":"Error"`, `"message":"Post \"` + url + `/filter\": dial tcp`}})
	checkCmd(t, newRunCommand, []string{"--demo", "--config", config(true), "--until", "1m", "-o", "json"}, cmdWant{
		stdout: []string{`"pod":"default/frontend-1","outcome":"Scheduled","node":"node-a1"`}})
	checkCmd(t, newRunCommand, []string{"--demo", "--config", config(false), "--skip-extenders", "--until", "1m", "-o", "json"}, cmdWant{
		stdout:    []string{`"pod":"default/frontend-1","outcome":"Scheduled","node":"node-a1"`},
		stderr:    []string{"--skip-extenders: leaving out 1 scheduler extender(s) of the configuration (" + url + "); the answers may differ from the cluster's"},
		notStderr: []string{"dial tcp"},
	})
}
