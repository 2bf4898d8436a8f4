package benchmarks

import (
	"encoding/json"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/vigilhq/vigil/platform/testenv"
)

// BenchmarkPythonLogger runs sdk_logger.py against the embedded default:
// one Python process logs 200,000 predictions through the SDK's
// BatchLogger (2 sender threads, batches of 1000) and flushes. It reports
// the caller's log() rate, the logger's rate until everything is accepted
// (logger/s), and, as the baseline in the same run and process, the rate
// of a bare httpx client posting the same predictions pre-built in
// batches of 1000 (bare/s); and both per second of the Python process's
// own CPU (logger/cpu-s, bare/cpu-s: what one process sustains when the
// server is not on the same cores). The target is 50,000/s.
func BenchmarkPythonLogger(b *testing.B) {
	py := testenv.URL(b, testenv.SDKPython)
	base := server(b, nil)
	key := apiKey(b, base)
	root := strings.TrimSuffix(base, "/api/v1")
	var log, logger, bare, loggerCPU, bareCPU float64
	for i := range b.N {
		model := post(b, base+"/models", key, map[string]any{"name": "sdk-" + strconv.Itoa(i), "model_type": "classification",
			"framework": "sklearn", "version": "1"})["id"].(string)
		baseline := post(b, base+"/models", key, map[string]any{"name": "bare-" + strconv.Itoa(i), "model_type": "classification",
			"framework": "sklearn", "version": "1"})["id"].(string)
		cmd := exec.Command(py, "sdk_logger.py")
		cmd.Env = append(os.Environ(), "VIGIL_URL="+root, "VIGIL_KEY="+key, "MODEL_ID="+model, "BASELINE_MODEL_ID="+baseline,
			"N=200000", "PYTHONPATH=../sdk/python/src")
		out, err := cmd.Output()
		if err != nil {
			b.Fatalf("sdk_logger.py: %v %s", err, out)
		}
		var r struct {
			Log       float64 `json:"log_calls_per_s"`
			Logger    float64 `json:"logger_per_s"`
			Bare      float64 `json:"bare_per_s"`
			LoggerCPU float64 `json:"logger_per_cpu_s"`
			BareCPU   float64 `json:"bare_per_cpu_s"`
			Logged    int     `json:"logged"`
		}
		if err := json.Unmarshal(out, &r); err != nil || r.Logged != 200000 {
			b.Fatalf("sdk_logger.py printed %q (%v): want all 200000 logged", out, err)
		}
		log, logger, bare = log+r.Log, logger+r.Logger, bare+r.Bare
		loggerCPU, bareCPU = loggerCPU+r.LoggerCPU, bareCPU+r.BareCPU
	}
	n := float64(b.N)
	b.ReportMetric(log/n, "log()/s")
	b.ReportMetric(logger/n, "logger/s")
	b.ReportMetric(bare/n, "bare/s")
	b.ReportMetric(logger/bare, "logger/bare")
	b.ReportMetric(loggerCPU/n, "logger/cpu-s")
	b.ReportMetric(bareCPU/n, "bare/cpu-s")
}
