//go:build !unix

package symbolic

import "time"

// cpuTime falls back to wall time where getrusage is missing.
func cpuTime() time.Duration { return time.Duration(time.Now().UnixNano()) }
