//go:build unix

package capi

import "syscall"

// cpuTime is the process's user + system CPU time in seconds, what
// Python's time.process_time measures too.
func cpuTime() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
