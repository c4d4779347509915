//go:build !unix

package capi

import "time"

var start = time.Now()

// cpuTime is the wall time since start where the CPU time is not
// available.
func cpuTime() float64 { return time.Since(start).Seconds() }
