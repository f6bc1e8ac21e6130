package main

// schedtui snapshot --at NS/POD[#N]: the cluster exactly as the scheduler
// saw it at the start of one attempt, written so that run over it makes
// that attempt first and gives the same answer.

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/schedtui/schedtui/scheduler/engine"
	"github.com/schedtui/schedtui/scheduler/history"
	"github.com/schedtui/schedtui/snapshot"
)

// parseAt reads --at: NAMESPACE/POD (pod/NAMESPACE/NAME, or NAME in
// namespace default), optionally followed by #N, the pod's Nth attempt
// from 1 (0: its last).
func parseAt(at string) (pod string, n int, err error) {
	ref, num, hasNum := strings.Cut(at, "#")
	if hasNum {
		if n, err = strconv.Atoi(num); err != nil || n < 1 {
			return "", 0, fmt.Errorf("--at %q: the attempt after # counts the pod's attempts from 1", at)
		}
	}
	r, err := parseRef(ref)
	if err != nil {
		return "", 0, fmt.Errorf("--at: %w", err)
	}
	switch {
	case r.daemonSet:
		return "", 0, fmt.Errorf("--at %q: takes a pod, not a DaemonSet", at)
	case r.composite:
		return "", 0, fmt.Errorf("--at %q: takes a pod, not a CompositePodGroup (name one of its members)", at)
	case r.podGroup:
		return "", 0, fmt.Errorf("--at %q: takes a pod, not a PodGroup (name one of its members)", at)
	}
	if r.namespace == "" {
		r.namespace = "default"
	}
	return r.namespace + "/" + r.name, n, nil
}

// captureAt runs the source as run does and writes the cluster as the
// scheduler saw it at the start of the pod's attempt: bound pods, victims
// still terminating, nominations, volume bindings, every other object;
// the header names the pod to pop first and the scheduler's state that
// breaks ties (engine.Resume).
func captureAt(ctx context.Context, f *sourceFlags, at string, until time.Duration, output string, keepEnv bool, stdout, stderr io.Writer) error {
	pod, n, err := parseAt(at)
	if err != nil {
		return err
	}
	if until < 0 {
		return fmt.Errorf("--until must not be negative")
	}
	format, cfgData, err := outputAndConfig(f, output, stderr)
	if err != nil {
		return err
	}
	src, err := loadSource(ctx, f, stderr, false)
	if err != nil {
		return err
	}
	s, err := src.session(ctx, f, stderr)
	if err != nil {
		return err
	}
	e, err := s.run(until)
	if err != nil {
		return err
	}
	c, hd, pa, err := atState(s, e, pod, n)
	if err != nil {
		return err
	}
	hd.SchedtuiVersion, hd.Source, hd.ServerVersion = schedtuiVersion(), src.name, src.serverVersion
	if src.live != nil || src.host != "" {
		hd.Context, hd.Source = src.name, src.host
	}
	switch {
	case cfgData != nil:
		hd.SchedulerConfigFile, hd.SchedulerConfig = f.config, string(cfgData)
	case src.cfgData != nil:
		hd.SchedulerConfigFile, hd.SchedulerConfig = src.cfgFrom, string(src.cfgData)
	}
	hd.EnvValues = envValues(keepEnv, src.header)
	written, where, err := writeCluster(output, stdout, c, hd, format)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "wrote %d objects (%d nodes, %d pods) to %s: the cluster at the start of attempt %d of %s (%s)\n",
		written, len(c.Nodes), len(c.Pods), where, pa.N, pa.Attempt.Pod, engine.FormatTime(pa.Time))
	return nil
}

// atState is the cluster as attempt n of pod (0: its last) saw it, after a
// run of s, and the header fields that say so (the scheduler's version and
// gates among them).
func atState(s *session, e *engine.Engine, pod string, n int) (*snapshot.Cluster, snapshot.Header, *history.PodAttempt, error) {
	var hd snapshot.Header
	h, err := findHistory(s, e.Histories(), pod)
	if err != nil {
		return nil, hd, nil, err
	}
	pa, err := attemptOf(h, n, "#")
	if err != nil {
		return nil, hd, nil, err
	}
	if pa == nil {
		return nil, hd, nil, fmt.Errorf("pod %q was never attempted (%s): there is no attempt to write the cluster at", h.Pod, waiting(h))
	}
	st, err := e.StateAt(pa.Index)
	if err != nil {
		return nil, hd, nil, fmt.Errorf("replaying to attempt %d of %s: %w", pa.N, h.Pod, err)
	}
	hd = snapshot.Header{CapturedAt: st.Time, At: fmt.Sprintf("%s#%d", h.Pod, pa.N), AttemptFirst: st.Resume.First,
		NextStartNodeIndex: strconv.Itoa(st.Resume.NextStartNodeIndex), RandomState: base64.StdEncoding.EncodeToString(st.Resume.RandomState)}
	// A run over the state reproduces the attempt only with the same
	// version and gates (the demo's gang is one with GenericWorkload).
	recordSettings(&hd, s.settings)
	return s.cluster.WithSchedulerState(st.Nodes, st.Pods, st.Objects), hd, pa, nil
}

// resumeOf reads what a state written by snapshot --at says about
// restarting there (nil for any other header).
func resumeOf(h *snapshot.Header) (*engine.Resume, error) {
	if h == nil || h.AttemptFirst == "" {
		return nil, nil
	}
	r := &engine.Resume{First: h.AttemptFirst}
	var err error
	if h.NextStartNodeIndex != "" {
		if r.NextStartNodeIndex, err = strconv.Atoi(h.NextStartNodeIndex); err != nil || r.NextStartNodeIndex < 0 {
			return nil, fmt.Errorf("header next-start-node-index %q is not a node index", h.NextStartNodeIndex)
		}
	}
	if h.RandomState != "" {
		if r.RandomState, err = base64.StdEncoding.DecodeString(h.RandomState); err != nil {
			return nil, fmt.Errorf("header random-state: %w", err)
		}
	}
	return r, nil
}
