//go:build !unix

package main

import "time"

// cpuNow falls back to the wall clock where getrusage is missing.
func cpuNow() float64 { return float64(time.Now().UnixNano()) * 1e-9 }
