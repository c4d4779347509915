//go:build !unix

package petab

import "time"

func cpuTime() time.Duration { return time.Duration(time.Now().UnixNano()) }
