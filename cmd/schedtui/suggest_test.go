package main

import (
	"strings"
	"testing"
)

// TestMistypedCommandsAndFlags: a mistyped command or flag is refused with the names
// it was probably meant as; a word near nothing gets no suggestion.
func TestMistypedCommandsAndFlags(t *testing.T) {
	for _, tc := range []struct {
		args     []string
		want     string // the suggestion, "" for none
		errStart string
	}{
		{[]string{"explian"}, "\texplain", `unknown command "explian" for "schedtui"`},
		{[]string{"snap"}, "\tsnapshot", `unknown command "snap"`},
		{[]string{"frobnicate"}, "", `unknown command "frobnicate"`},
		{[]string{"--snpashot", "x"}, "\t--snapshot", "unknown flag: --snpashot"},
		{[]string{"explain", "--snpashot=x"}, "\t--snapshot", "unknown flag: --snpashot"},
		{[]string{"run", "--kubecnfig", "x"}, "\t--kubeconfig", "unknown flag: --kubecnfig"},
		{[]string{"run", "--zzzzzzzz"}, "", "unknown flag: --zzzzzzzz"},
	} {
		_, _, err := runCmd(t, rootCmd, tc.args...)
		if err == nil {
			t.Errorf("%v: no error", tc.args)
			continue
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, tc.errStart) {
			t.Errorf("%v: error %q, want it to start %q", tc.args, msg, tc.errStart)
		}
		has := strings.Contains(msg, "Did you mean this?")
		if tc.want == "" && has || tc.want != "" && !strings.Contains(msg, "Did you mean this?\n"+tc.want) {
			t.Errorf("%v: error %q, want suggestion %q", tc.args, msg, tc.want)
		}
	}
}
