package conformance

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// The end-to-end side of BenchmarkVersusUpstream: `schedtui run` as a user
// runs it, a process of its own on the snapshot file, built once from the
// main module (its go.mod, not this module's: the binary a user gets).

var schedtuiBuild struct {
	once      sync.Once
	dir, path string
	err       error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if schedtuiBuild.dir != "" {
		os.RemoveAll(schedtuiBuild.dir)
	}
	os.Exit(code)
}

// schedtuiBinary builds cmd/schedtui of the main module (the parent
// directory) once per test binary and returns its path.
func schedtuiBinary() (string, error) {
	b := &schedtuiBuild
	b.once.Do(func() {
		root, err := filepath.Abs("..")
		if err != nil {
			b.err = err
			return
		}
		mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
		if err != nil || !bytes.HasPrefix(mod, []byte("module github.com/schedtui/schedtui\n")) {
			b.err = fmt.Errorf("building schedtui: %s is not the main module (go.mod: %v)", root, err)
			return
		}
		if b.dir, b.err = os.MkdirTemp("", "schedtui-versus-"); b.err != nil {
			return
		}
		b.path = filepath.Join(b.dir, "schedtui")
		cmd := exec.Command("go", "build", "-o", b.path, "./cmd/schedtui")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			b.err = fmt.Errorf("building schedtui: %v\n%s", err, out)
		}
	})
	return b.path, b.err
}

// processRun is one `schedtui run` process: its wall-clock time from
// starting it to its exit (the output file then holds every line, the
// last attempt's included), what it says of its phases (--timings), and
// what its output shows it did.
type processRun struct {
	wall    time.Duration
	timings runTimings
	// Counted from the attempt lines of the output.
	attempts, failures, bound int
	// placements digests the attempt lines in order (pod, outcome, node),
	// as runVersus digests the in-process run's attempts.
	placements  uint64
	outputBytes int64
}

// runTimings is what `schedtui run --timings` writes (cmd/schedtui's
// RunTimings): seconds since the command started, per phase.
type runTimings struct {
	LoadSeconds     float64 `json:"loadSeconds"`
	BuildSeconds    float64 `json:"buildSeconds"`
	ScheduleSeconds float64 `json:"scheduleSeconds"`
	CPUSeconds      float64 `json:"cpuSeconds"`
	GCCycles        uint64  `json:"gcCycles"`
	PeakRSSBytes    uint64  `json:"peakRSSBytes"`
}

func (t runTimings) load() time.Duration     { return seconds(t.LoadSeconds) }
func (t runTimings) build() time.Duration    { return seconds(t.BuildSeconds) }
func (t runTimings) schedule() time.Duration { return seconds(t.ScheduleSeconds) }

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// rest is the process's time outside its phases: exec, the runtime's and
// the packages' initialization, flag parsing, exit.
func (p processRun) rest() time.Duration {
	return p.wall - p.timings.load() - p.timings.build() - p.timings.schedule()
}

// runProcess runs `schedtui run --snapshot file -o json --detail detail`
// with its output to a file in dir, timed from starting the process to its
// exit, and reads back what it wrote. With profiles set, the process also
// writes run-cpu.pprof and run-heap.pprof there.
func runProcess(bin, file, detail, dir, profiles string) (processRun, error) {
	var p processRun
	outPath, timingsPath := filepath.Join(dir, "run.jsonl"), filepath.Join(dir, "timings.json")
	out, err := os.Create(outPath)
	if err != nil {
		return p, err
	}
	defer os.Remove(outPath)
	args := []string{"run", "--snapshot", file, "-o", "json", "--detail", detail, "--timings", timingsPath}
	if profiles != "" {
		args = append(args, "--cpuprofile", filepath.Join(profiles, "run-cpu.pprof"), "--memprofile", filepath.Join(profiles, "run-heap.pprof"))
	}
	cmd := exec.Command(bin, args...)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = out, &stderr
	start := time.Now()
	err = cmd.Run()
	p.wall = time.Since(start)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return p, fmt.Errorf("schedtui %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	tb, err := os.ReadFile(timingsPath)
	if err != nil {
		return p, err
	}
	if err := json.Unmarshal(tb, &p.timings); err != nil {
		return p, fmt.Errorf("%s: %w", timingsPath, err)
	}
	return p, p.readOutput(outPath)
}

// readOutput counts and digests the attempt lines of run's -o json output.
func (p *processRun) readOutput(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	p.outputBytes = st.Size()
	placements := fnv.New64a()
	r := bufio.NewReaderSize(f, 1<<20)
	for n := 1; ; n++ {
		line, err := r.ReadBytes('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		if len(line) > 0 {
			var a struct{ Kind, Pod, Outcome, Node string }
			if err := json.Unmarshal(line, &a); err != nil {
				return fmt.Errorf("%s:%d: %w", path, n, err)
			}
			if a.Kind == "attempt" {
				p.attempts++
				if a.Outcome == "Scheduled" {
					p.bound++
				} else {
					p.failures++
				}
				fmt.Fprintf(placements, "%s %s %s\n", a.Pod, a.Outcome, a.Node)
			}
		}
		if err != nil {
			break
		}
	}
	p.placements = placements.Sum64()
	return nil
}
