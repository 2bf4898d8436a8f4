package benchmarks

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vigilhq/vigil/drift"
	"github.com/vigilhq/vigil/stats/stattest"
)

// driftShape is the size of BenchmarkDriftDetect's request: values per
// feature in the reference and the current data, and features.
type driftShape struct{ ref, cur, features int }

// driftShapes are the shapes measured: a small one by default, and the
// issue's target (1M reference × 100k current × 50 features, a 1 GB body)
// when VIGIL_BENCH_DRIFT_SHAPE=full, or any REFxCURxFEATURES.
func driftShapes(b *testing.B) []driftShape {
	switch s := os.Getenv("VIGIL_BENCH_DRIFT_SHAPE"); s {
	case "":
		return []driftShape{{100_000, 10_000, 10}}
	case "full":
		return []driftShape{{1_000_000, 100_000, 50}}
	default:
		var d driftShape
		if _, err := fmt.Sscanf(s, "%dx%dx%d", &d.ref, &d.cur, &d.features); err != nil {
			b.Fatalf("VIGIL_BENCH_DRIFT_SHAPE=%q: want full or REFxCURxFEATURES: %v", s, err)
		}
		return []driftShape{d}
	}
}

// driftBody writes a detect request of shape: numeric features from
// normal distributions, every other one shifted in the current data, with
// Go's shortest float text (as Python's json module writes floats).
func driftBody(shape driftShape) []byte {
	r := rand.New(rand.NewPCG(42, 7))
	var buf bytes.Buffer
	buf.Grow(shape.features * (shape.ref + shape.cur) * 20)
	side := func(name string, n int, shift bool) {
		buf.WriteString(`"` + name + `": {`)
		for f := range shape.features {
			if f > 0 {
				buf.WriteString(", ")
			}
			buf.WriteString(`"feature_` + strconv.Itoa(f) + `": [`)
			mean := 0.0
			if shift && f%2 == 1 {
				mean = 0.05
			}
			var num []byte
			for i := range n {
				if i > 0 {
					buf.WriteByte(',')
				}
				num = strconv.AppendFloat(num[:0], mean+r.NormFloat64(), 'g', -1, 64)
				buf.Write(num)
			}
			buf.WriteByte(']')
		}
		buf.WriteByte('}')
	}
	buf.WriteString(`{"model_id": "bench-model", `)
	side("reference_data", shape.ref, false)
	buf.WriteString(", ")
	side("current_data", shape.cur, true)
	buf.WriteString(`}`)
	return buf.Bytes()
}

// driftCase is one body BenchmarkDriftDetect measures.
type driftCase struct {
	name string
	body []byte
	// values counts the elements of every array, features the features.
	values, features int
}

// driftCases are the bodies measured: the body in the file
// VIGIL_BENCH_DRIFT_BODY when set (as benchmarks/drift_compare.py writes
// it, so that Vigil, SciPy and Evidently read the same data), else one
// written here per shape of driftShapes.
func driftCases(b *testing.B) []driftCase {
	if path := os.Getenv("VIGIL_BENCH_DRIFT_BODY"); path != "" {
		body, err := os.ReadFile(path)
		if err != nil {
			b.Fatalf("VIGIL_BENCH_DRIFT_BODY: %v", err)
		}
		req, err := drift.ParseRequest(body)
		if err != nil {
			b.Fatalf("VIGIL_BENCH_DRIFT_BODY=%s: %v", path, err)
		}
		values := 0
		for _, f := range req.Features {
			values += bytes.Count(f.Reference, []byte{','}) + bytes.Count(f.Current, []byte{','}) + 2
		}
		b.Logf("%s: body %.1f MB, %d features, %d values", path, float64(len(body))/1e6, len(req.Features), values)
		return []driftCase{{name: "file", body: body, values: values, features: len(req.Features)}}
	}
	var cases []driftCase
	for _, shape := range driftShapes(b) {
		began := time.Now()
		body := driftBody(shape)
		name := fmt.Sprintf("%dx%dx%d", shape.ref, shape.cur, shape.features)
		b.Logf("%s: body %.1f MB, written in %v", name, float64(len(body))/1e6, time.Since(began).Round(time.Millisecond))
		cases = append(cases, driftCase{name: name, body: body,
			values: shape.features * (shape.ref + shape.cur), features: shape.features})
	}
	return cases
}

// BenchmarkDriftDetect measures the core of POST /drift/detect, the body
// already in memory as the server holds it: ParseRequest (the shape) and
// Detect (reading every array and the default ks_test per feature, in
// parallel on GOMAXPROCS cores), without HTTP, authentication or the model
// lookup. The phases run alone too: "parse-only" is ParseRequest, and
// "tests-only" the statistics (stattest.TakeNumeric and KS per feature,
// GOMAXPROCS features at once) on columns read beforehand; reading the
// arrays is the rest. See RESULTS.md.
func BenchmarkDriftDetect(b *testing.B) {
	for _, c := range driftCases(b) {
		values := float64(c.values)
		det := drift.Detector{MaxValues: c.values}
		for _, method := range []string{"ks_test", "psi"} {
			b.Run(c.name+"/"+method, func(b *testing.B) {
				cfg := drift.Default("bench-org", "bench-model")
				if method == "psi" {
					for f := range c.features {
						cfg.Features["feature_"+strconv.Itoa(f)] = drift.FeatureConfig{Method: drift.PSI}
					}
				}
				b.SetBytes(int64(len(c.body)))
				var res drift.Result
				cpu := readCPU(b)
				for b.Loop() {
					req, err := drift.ParseRequest(c.body)
					if err != nil {
						b.Fatal(err)
					}
					if res, err = det.Detect(context.Background(), req, cfg); err != nil {
						b.Fatal(err)
					}
				}
				reportCPUPerOp(b, cpu)
				b.ReportMetric(values*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mvalues/s")
				if len(res.Features) != c.features || (method == "ks_test" && !res.DriftDetected) {
					b.Fatalf("got %d features, drift %v, want %d and drift in the shifted ones", len(res.Features), res.DriftDetected, c.features)
				}
			})
		}
		b.Run(c.name+"/parse-only", func(b *testing.B) {
			b.SetBytes(int64(len(c.body)))
			cpu := readCPU(b)
			for b.Loop() {
				if _, err := drift.ParseRequest(c.body); err != nil {
					b.Fatal(err)
				}
			}
			reportCPUPerOp(b, cpu)
		})
		b.Run(c.name+"/tests-only", func(b *testing.B) { benchDriftTests(b, c.body) })
	}
}

// benchDriftTests times what Detect does after reading the arrays of a
// numeric body: stattest.TakeNumeric and KS per feature, GOMAXPROCS
// features at once, on copies of the columns made outside the timer.
func benchDriftTests(b *testing.B, body []byte) {
	var cols [][2][]float64
	var req struct {
		Ref map[string][]float64 `json:"reference_data"`
		Cur map[string][]float64 `json:"current_data"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		b.Fatal(err)
	}
	for name, ref := range req.Ref {
		cols = append(cols, [2][]float64{ref, req.Cur[name]})
	}
	work := make([][2][]float64, len(cols))
	for i, c := range cols {
		work[i] = [2][]float64{make([]float64, len(c[0])), make([]float64, len(c[1]))}
	}
	var cpu time.Duration
	for b.Loop() {
		b.StopTimer()
		for i, c := range cols {
			copy(work[i][0], c[0])
			copy(work[i][1], c[1])
		}
		b.StartTimer()
		began := readCPU(b).process
		var next atomic.Int64
		var wg sync.WaitGroup
		for range runtime.GOMAXPROCS(0) {
			wg.Go(func() {
				for i := int(next.Add(1) - 1); i < len(work); i = int(next.Add(1) - 1) {
					d, err := stattest.TakeNumeric(work[i][0], work[i][1])
					if err == nil {
						_, err = d.KS(stattest.ModeAuto, stattest.TwoSided)
					}
					if err != nil {
						b.Error(err)
					}
				}
			})
		}
		wg.Wait()
		cpu += readCPU(b).process - began
	}
	b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
}
