//go:build !unix

package quantile

import "time"

func processCPU() (time.Duration, bool) { return 0, false }
