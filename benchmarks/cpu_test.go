package benchmarks

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// cpuClock reads CPU time spent so far: by this process (Vigil and the
// benchmark's client, which share it) and by the whole machine (the
// engines too: Kafka, ClickHouse, PostgreSQL, Redis).
type cpuClock struct{ process, machine time.Duration }

func readCPU(b *testing.B) cpuClock {
	b.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	c := cpuClock{process: time.Duration(ru.Utime.Nano() + ru.Stime.Nano())}
	stat, err := os.ReadFile("/proc/stat")
	if err != nil {
		return c // not Linux: the machine figure is left out
	}
	line, _, _ := strings.Cut(string(stat), "\n")
	for i, f := range strings.Fields(line)[1:] {
		if i == 3 || i == 4 { // idle, iowait
			continue
		}
		n, _ := strconv.ParseInt(f, 10, 64)
		c.machine += time.Duration(n) * 10 * time.Millisecond // USER_HZ is 100 on Linux
	}
	return c
}

// reportCPUPerMillion reports the CPU seconds spent since start per
// million events.
func reportCPUPerMillion(b *testing.B, start cpuClock, events float64) {
	end := readCPU(b)
	per := 1e6 / events
	b.ReportMetric((end.process-start.process).Seconds()*per, "process-cpu-s/M")
	if end.machine > 0 {
		b.ReportMetric((end.machine-start.machine).Seconds()*per, "machine-cpu-s/M")
	}
}

// reportCPUPerOp reports this process's CPU seconds spent since start per
// iteration: on a shared machine, what the work cost whatever share of the
// cores it got.
func reportCPUPerOp(b *testing.B, start cpuClock) {
	b.ReportMetric((readCPU(b).process-start.process).Seconds()/float64(b.N), "cpu-s/op")
}
