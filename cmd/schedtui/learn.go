package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/schedtui/schedtui/scheduler/features"
	"github.com/schedtui/schedtui/snapshot"
	"github.com/schedtui/schedtui/testdata"
	"github.com/schedtui/schedtui/tui"
)

// embeddedScenario is a snapshot or a recording compiled into the binary
// (a lesson's).
type embeddedScenario struct {
	name string
	data []byte
}

// open reads the scenario: a recording (schedtui record's format, its
// changes replayed in virtual time, its extenders answered from the
// answers it holds) or a snapshot.
func (e *embeddedScenario) open(gates *features.Features) (*snapshot.Opened, error) {
	if snapshot.IsRecording(e.data) {
		return snapshot.ReadRecording(e.name, e.data)
	}
	c, r, err := snapshot.LoadUnder(e.name, e.data, gates)
	if err != nil {
		return nil, err
	}
	return &snapshot.Opened{Cluster: c, Report: r}, nil
}

// settings are the scheduler settings the scenario runs under: like the
// demo's, the newest version schedtui simulates, said to be the lesson's.
func (e *embeddedScenario) settings(c *snapshot.Cluster) snapshot.SchedulerSettings {
	s := snapshot.DetectSchedulerSettings(c, "", snapshot.FromDemo)
	s.Version = fmt.Sprintf("simulating kube-scheduler %s (the lesson's scenario, %s)", s.EmulatedVersion, e.name)
	return s
}

// learnProgress is what schedtui learn remembers between runs: the IDs of
// the lessons solved. Nothing else is written (no paths, no cluster).
type learnProgress struct {
	Done []string `json:"done"`
}

func (p *learnProgress) done(id string) bool {
	for _, d := range p.Done {
		if d == id {
			return true
		}
	}
	return false
}

// learnProgressPath is the progress file: schedtui/learn.json in the
// user's configuration directory ($XDG_CONFIG_HOME, ~/.config).
func learnProgressPath() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("where to keep the lessons' progress: %w", err)
	}
	return filepath.Join(dir, "schedtui", "learn.json"), nil
}

// readLearnProgress reads the progress file; a missing one is no progress.
func readLearnProgress(path string) (*learnProgress, error) {
	p := &learnProgress{}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return p, nil
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(data, p); err != nil {
		return nil, fmt.Errorf("%s: %w (schedtui learn --reset starts over)", path, err)
	}
	return p, nil
}

// write saves the progress (created with the umask's permissions).
func (p *learnProgress) write(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
		return err
	}
	data, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o666)
}

func newLearnCommand() *cobra.Command {
	var list, reset bool
	cmd := &cobra.Command{
		Use:   "learn [N]",
		Short: "A guided tour of the scheduler: lessons answered by doing in the debugger",
		Long: `learn opens the debugger on a lesson: a small embedded scenario (a snapshot, or a
recording replayed in virtual time), a question
about it shown above the views, the keys to press, and a check that you found
the answer (a view reached, a cell selected, or a value typed after A). Once
solved the lesson explains itself with the teaching pane's texts and is
remembered (in schedtui/learn.json under your configuration directory).

With no N it opens the first lesson not yet solved; --list prints them all;
--reset forgets the progress.`,
		Args:          cobra.MaximumNArgs(1),
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			path, err := learnProgressPath()
			if err != nil {
				return err
			}
			if reset {
				if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
					return err
				}
				if !list && len(args) == 0 {
					_, err := fmt.Fprintln(cmd.OutOrStdout(), "schedtui learn: progress cleared")
					return err
				}
			}
			progress, err := readLearnProgress(path)
			if err != nil {
				return err
			}
			lessons := tui.Lessons()
			if list {
				return listLessons(cmd.OutOrStdout(), lessons, progress)
			}
			n, err := lessonNumber(args, lessons, progress)
			if err != nil {
				return err
			}
			return openLesson(cmd, lessons, n, progress, path)
		},
	}
	cmd.Flags().BoolVar(&list, "list", false, "print the lessons (✓ solved) and exit")
	cmd.Flags().BoolVar(&reset, "reset", false, "forget which lessons are solved")
	return cmd
}

func listLessons(w io.Writer, lessons []tui.Lesson, p *learnProgress) error {
	for i, l := range lessons {
		mark := " "
		if p.done(l.ID) {
			mark = "✓"
		}
		if _, err := fmt.Fprintf(w, "%s %2d. %-28s %s\n", mark, i+1, l.Title, l.Question); err != nil {
			return err
		}
	}
	_, err := fmt.Fprintln(w, "\nschedtui learn N opens lesson N; schedtui learn, the first not solved.")
	return err
}

// lessonNumber is the lesson asked for (1-based), else the first not
// solved, else the first.
func lessonNumber(args []string, lessons []tui.Lesson, p *learnProgress) (int, error) {
	if len(args) == 1 {
		n, err := strconv.Atoi(args[0])
		if err != nil || n < 1 || n > len(lessons) {
			return 0, fmt.Errorf("lesson %q: want a number from 1 to %d (schedtui learn --list)", args[0], len(lessons))
		}
		return n, nil
	}
	for i, l := range lessons {
		if !p.done(l.ID) {
			return i + 1, nil
		}
	}
	return 1, nil
}

// openLesson runs the debugger on lesson n's scenario; solving it is
// recorded in the progress file at path.
func openLesson(cmd *cobra.Command, lessons []tui.Lesson, n int, p *learnProgress, path string) error {
	l := lessons[n-1]
	data, err := testdata.Learn.ReadFile("learn/" + l.Scenario)
	if err != nil {
		return fmt.Errorf("lesson %d: its scenario %s: %w", n, l.Scenario, err)
	}
	var src sourceFlags
	// The defaults every flag of the debugger has.
	src.register(&cobra.Command{})
	src.demo = true
	// A recording is simulated: schedtui schedules its pods as its
	// changes arrive (no cluster's scheduler to judge).
	src.simulate = true
	src.scenario = &embeddedScenario{name: "learn/" + l.Scenario, data: data}
	if l.FeatureGates != "" {
		src.gates.featureGates = []string{l.FeatureGates}
	}
	var saveErr error
	src.lesson = &tui.LessonRun{Lesson: l, Number: n, Total: len(lessons), Done: func() {
		if !p.done(l.ID) {
			p.Done = append(p.Done, l.ID)
		}
		saveErr = p.write(path)
	}}
	// The root's output is the terminal itself (execute wraps the
	// subcommands' to catch write errors, which hides the terminal from
	// Bubble Tea).
	if err := openTUI(cmd.Context(), &src, cmd.InOrStdin(), cmd.Root().OutOrStdout(), cmd.ErrOrStderr()); err != nil {
		return err
	}
	if saveErr != nil {
		return fmt.Errorf("saving the lessons' progress: %w", saveErr)
	}
	return nil
}
