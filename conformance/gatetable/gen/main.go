// Command gen writes scheduler/features/zz_generated_gates.go: the feature
// gates kube-scheduler v1.37.1 registers, as schedtui builds its gate from.
//
//	cd conformance && go run ./gatetable/gen ../scheduler/features/zz_generated_gates.go
package main

import (
	"fmt"
	"os"

	"github.com/schedtui/schedtui/conformance/gatetable"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: gen OUTPUT.go")
		os.Exit(2)
	}
	src, err := gatetable.Render(gatetable.Reference())
	if err == nil {
		err = os.WriteFile(os.Args[1], src, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
