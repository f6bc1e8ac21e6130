package main

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"time"

	"github.com/spf13/cobra"

	"github.com/schedtui/schedtui/internal/peakmem"
)

// runProfile is run's hidden flags for measuring run itself (the
// end-to-end benchmark against upstream, conformance/versus_test.go, and
// docs/performance.md's profiles): a CPU profile of the whole command, a
// heap profile once the scheduler is built, and the time each phase took. They are hidden
// because they are about schedtui, not about the cluster.
type runProfile struct {
	cpuFile, memFile, timingsFile string

	cpu *os.File
	// begun is when the command started (after flag parsing); loaded when
	// the snapshot was read and the configuration resolved; built when
	// the scheduler's cache and queue held the cluster (engine.New);
	// scheduled when the last line was written and flushed.
	begun, loaded, built, scheduled time.Time
	cpu0                            time.Duration
	// memErr is writing the heap profile's error, returned at the end.
	memErr error
}

func (p *runProfile) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&p.cpuFile, "cpuprofile", "", "write a CPU profile of the whole command to this file (go tool pprof)")
	cmd.Flags().StringVar(&p.memFile, "memprofile", "", "write a heap profile to this file once the scheduler is built: "+
		"what run keeps (the cluster, the scheduler's cache and queue), and (-sample_index=alloc_space) what loading and building allocated")
	cmd.Flags().StringVar(&p.timingsFile, "timings", "", "write the time each phase took (load, build, schedule), "+
		"the CPU time, garbage collections and peak RSS to this file as JSON")
	for _, name := range []string{"cpuprofile", "memprofile", "timings"} {
		_ = cmd.Flags().MarkHidden(name)
	}
}

// begin starts the CPU profile, if asked.
func (p *runProfile) begin() error {
	p.begun, p.cpu0 = time.Now(), peakmem.CPUTime()
	if p.cpuFile == "" {
		return nil
	}
	f, err := os.Create(p.cpuFile)
	if err != nil {
		return fmt.Errorf("--cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return fmt.Errorf("--cpuprofile %s: %w", p.cpuFile, err)
	}
	p.cpu = f
	return nil
}

// markLoaded and markBuilt note the end of a phase (nil p: nothing asked).
func (p *runProfile) markLoaded() {
	if p != nil {
		p.loaded = time.Now()
	}
}

// markBuilt also writes the heap profile: once the scheduler is built, the
// state run keeps is all there (run streams each attempt and drops it), so
// the live heap then is the most run holds.
func (p *runProfile) markBuilt() {
	if p == nil {
		return
	}
	p.built = time.Now()
	if p.memFile != "" {
		if err := writeHeapProfile(p.memFile); err != nil {
			p.memErr = fmt.Errorf("--memprofile: %w", err)
		}
	}
}

// RunTimings is what --timings writes: seconds since the command started,
// per phase. The process's start and exit (exec, the runtime's and the
// packages' initialization, flag parsing) are outside: a caller timing
// the process sees them as the rest.
type RunTimings struct {
	// LoadSeconds: reading, decoding, defaulting and validating the
	// snapshot, building the Cluster, resolving the configuration.
	LoadSeconds float64 `json:"loadSeconds"`
	// BuildSeconds: the scheduler's cache and queue over the cluster
	// (engine.New).
	BuildSeconds float64 `json:"buildSeconds"`
	// ScheduleSeconds: every attempt until quiescent (or --until), each
	// line written as it is made, and the output flushed (and writing
	// the heap profile, when asked).
	ScheduleSeconds float64 `json:"scheduleSeconds"`
	// CPUSeconds is the process's CPU time (user and system, every
	// thread) in those phases.
	CPUSeconds   float64 `json:"cpuSeconds"`
	GCCycles     uint64  `json:"gcCycles"`
	PeakRSSBytes uint64  `json:"peakRSSBytes"`
}

// end stops the CPU profile and writes the timings asked for. err is the command's: the files are written either way (a
// profile of a failed run is still a profile), and their own errors come
// after it.
func (p *runProfile) end(err error) error {
	p.scheduled = time.Now()
	cpu := peakmem.CPUTime() - p.cpu0
	if p.cpu != nil {
		pprof.StopCPUProfile()
		if cerr := p.cpu.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("--cpuprofile: %w", cerr)
		}
	}
	if err == nil {
		err = p.memErr
	}
	if p.timingsFile != "" && !p.loaded.IsZero() {
		built := p.built
		if built.IsZero() {
			built = p.loaded
		}
		gc := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
		metrics.Read(gc)
		t := RunTimings{
			LoadSeconds: p.loaded.Sub(p.begun).Seconds(), BuildSeconds: built.Sub(p.loaded).Seconds(),
			ScheduleSeconds: p.scheduled.Sub(built).Seconds(), CPUSeconds: cpu.Seconds(),
			GCCycles: gc[0].Value.Uint64(), PeakRSSBytes: peakmem.PeakRSS(),
		}
		b, _ := json.Marshal(t)
		if werr := os.WriteFile(p.timingsFile, append(b, '\n'), 0o644); werr != nil && err == nil {
			err = fmt.Errorf("--timings: %w", werr)
		}
	}
	return err
}

// writeHeapProfile writes the heap profile as of a collection run now.
func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	runtime.GC()
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
