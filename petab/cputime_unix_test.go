//go:build unix

package petab

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time (user and system) of the test process so far:
// the benchmarks report it beside the wall clock, which other work on a
// shared machine inflates.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return time.Duration(time.Now().UnixNano())
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
