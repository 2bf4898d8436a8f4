package ingest

import "github.com/vigilhq/vigil/platform/web"

// MaxLatencyMS is the largest latency_ms an event may report: about 11.6
// days. The rollups add latencies up; without a bound, a few values near
// the largest float64 overflow a minute's sum to infinity, which no
// statistic can be computed from or answered in JSON.
const MaxLatencyMS = 1e9

// checkLatency records a problem when a reported latency is negative or
// above MaxLatencyMS.
func checkLatency(v *web.Problems, ms *float64) {
	if ms != nil && (*ms < 0 || *ms > MaxLatencyMS) {
		v.Add("latency_ms", "must be between 0 and 1e9 (milliseconds)")
	}
}
