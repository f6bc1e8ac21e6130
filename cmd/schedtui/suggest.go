package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Did-you-mean for mistyped commands and flags. Cobra suggests commands
// only while it treats extra words as commands; the root takes no
// arguments (cobra.NoArgs), so its "unknown command" carries no
// suggestion, and pflag never suggests a flag. Both are added here, with
// the distance cobra uses for commands (SuggestionsMinimumDistance, 2) and
// prefixes counting as matches, as cobra's do.

// suggestionDistance is cobra's default for commands.
const suggestionDistance = 2

// suggestMistypes wires the suggestions into every command below root.
func suggestMistypes(root *cobra.Command) {
	// SuggestionsFor reads the field as it is: cobra sets its default
	// only on its own path to suggestions.
	root.SuggestionsMinimumDistance = suggestionDistance
	root.Args = func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return nil
		}
		msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
		if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
			msg += "\n\nDid you mean this?\n\t" + strings.Join(s, "\n\t")
		}
		return fmt.Errorf("%s\nRun '%s --help' for usage", msg, cmd.CommandPath())
	}
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		name, ok := unknownFlag(err)
		if !ok {
			return err
		}
		if s := flagSuggestions(cmd, name); len(s) > 0 {
			return fmt.Errorf("%w\n\nDid you mean this?\n\t%s", err, strings.Join(s, "\n\t"))
		}
		return err
	})
}

// unknownFlag is the long flag name pflag's "unknown flag: --name" error
// names ("unknown flag: --name=value" too).
func unknownFlag(err error) (string, bool) {
	name, ok := strings.CutPrefix(err.Error(), "unknown flag: --")
	if !ok {
		return "", false
	}
	name, _, _ = strings.Cut(name, "=")
	return name, name != ""
}

// flagSuggestions are cmd's flags (its own and inherited) within cobra's
// suggestion distance of name (editDistance, refs.go), or that name is a
// prefix of.
func flagSuggestions(cmd *cobra.Command, name string) []string {
	var out []string
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		if strings.HasPrefix(f.Name, name) || editDistance(strings.ToLower(name), f.Name) <= suggestionDistance {
			out = append(out, "--"+f.Name)
		}
	})
	return out
}
