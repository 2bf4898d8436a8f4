//go:build unix

package quantile

import (
	"syscall"
	"time"
)

// processCPU returns the CPU time the test process has used, for the
// cpu-ns/op metric, which a loaded machine distorts less than ns/op.
func processCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
