//go:build unix

package symbolic

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time (user and system) the test process has used so
// far. Scaling tests compare CPU time, not wall time, so that a machine
// busy with other work does not make them fail.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return time.Duration(time.Now().UnixNano())
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
