//go:build unix

package peakmem

import (
	"syscall"
	"time"
)

// CPUTime is the process's CPU time so far (user and system). The
// throughput benchmarks report rates per CPU second beside wall-clock
// ones: on a machine shared with other work, wall time says more about
// the neighbours.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
