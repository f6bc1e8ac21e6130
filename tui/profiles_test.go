package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	v1 "k8s.io/api/core/v1"
	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/schedtui/schedtui/scheduler"
	"github.com/schedtui/schedtui/scheduler/apis/config"
	"github.com/schedtui/schedtui/scheduler/plugins"
)

// profilesHarness is the demo under the given profiles, frontend-1 asking
// for the scheduler named frontendScheduler.
func profilesHarness(t *testing.T, frontendScheduler string, profiles ...string) *harness {
	t.Helper()
	c, gates := loadDemo(t)
	for _, p := range c.Pods {
		if p.Name == "frontend-1" {
			p.Spec.SchedulerName = frontendScheduler
		}
	}
	cfg := &configv1.KubeSchedulerConfiguration{}
	for _, name := range profiles {
		cfg.Profiles = append(cfg.Profiles, configv1.KubeSchedulerProfile{SchedulerName: &name})
	}
	config.SetDefaults(cfg, *gates)
	b, err := NewBackend("demo", c, scheduler.Options{Registry: plugins.NewInTreeRegistry(), Seed: 1, Features: gates, Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	hs := &harness{t: t, m: New(Options{Backend: b, NoColor: true})}
	hs.send(tea.WindowSizeMsg{Width: 200, Height: 50})
	hs.run(hs.m.Init())
	return hs
}

// With several profiles, the attempt names the profile (schedulerName)
// that scheduled the pod; with one, it says nothing of profiles.
func TestAttemptShowsProfile(t *testing.T) {
	hs := profilesHarness(t, "packing", v1.DefaultSchedulerName, "packing")
	hs.keys("n", "2")
	hs.contains("Attempt #1", "profile default-scheduler")
	hs.keys("n", "2")
	hs.contains("Attempt #2", "profile packing")

	one := profilesHarness(t, v1.DefaultSchedulerName, v1.DefaultSchedulerName)
	one.keys("n", "2")
	one.contains("Attempt #1")
	if strings.Contains(one.screen(), "profile default-scheduler") {
		t.Errorf("one profile, yet the attempt names it:\n%s", one.screen())
	}
}
