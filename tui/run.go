package tui

import (
	"io"
	"os"

	tea "charm.land/bubbletea/v2"
)

// Run opens the TUI on the terminal and returns when the user quits.
func Run(o Options, in io.Reader, out io.Writer) error {
	if _, set := os.LookupEnv("NO_COLOR"); set && os.Getenv("NO_COLOR") != "" {
		o.NoColor = true
	}
	opts := []tea.ProgramOption{tea.WithInput(in), tea.WithOutput(out)}
	_, err := tea.NewProgram(New(o), opts...).Run()
	return err
}
