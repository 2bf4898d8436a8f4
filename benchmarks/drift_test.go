package benchmarks

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/vigilhq/vigil/drift"
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

// BenchmarkDriftDetect measures the core of POST /drift/detect, the body
// already in memory as the server holds it: ParseRequest (the shape) and
// Detect (reading every array and the default ks_test per feature, in
// parallel on GOMAXPROCS cores), without HTTP, authentication or the model
// lookup. The phases run alone too: "read" is reading the arrays without
// testing, measured through a psi run's share being near; see RESULTS.md.
func BenchmarkDriftDetect(b *testing.B) {
	for _, shape := range driftShapes(b) {
		name := fmt.Sprintf("%dx%dx%d", shape.ref, shape.cur, shape.features)
		began := time.Now()
		body := driftBody(shape)
		b.Logf("%s: body %.1f MB, written in %v", name, float64(len(body))/1e6, time.Since(began).Round(time.Millisecond))
		values := float64(shape.features * (shape.ref + shape.cur))
		det := drift.Detector{MaxValues: int(values)}
		for _, method := range []string{"ks_test", "psi"} {
			b.Run(name+"/"+method, func(b *testing.B) {
				cfg := drift.Default("bench-org", "bench-model")
				if method == "psi" {
					for f := range shape.features {
						cfg.Features["feature_"+strconv.Itoa(f)] = drift.FeatureConfig{Method: drift.PSI}
					}
				}
				b.SetBytes(int64(len(body)))
				var res drift.Result
				for b.Loop() {
					req, err := drift.ParseRequest(body)
					if err != nil {
						b.Fatal(err)
					}
					if res, err = det.Detect(context.Background(), req, cfg); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(values*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mvalues/s")
				if len(res.Features) != shape.features || (method == "ks_test" && !res.DriftDetected) {
					b.Fatalf("got %d features, drift %v, want %d and drift in the shifted ones", len(res.Features), res.DriftDetected, shape.features)
				}
			})
		}
		b.Run(name+"/parse-only", func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				if _, err := drift.ParseRequest(body); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
