package evaluation

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"
)

// binaryRows returns n rows of a noisy binary problem: labels, hard
// predictions and positive-class probabilities.
func binaryRows(n int) (yt, yp, score []float64) {
	r := rand.New(rand.NewPCG(7, 11))
	yt, yp, score = make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range yt {
		if r.Float64() < 0.3 {
			yt[i] = 1
		}
		z := r.NormFloat64() + 1.5*(2*yt[i]-1)
		score[i] = 1 / (1 + math.Exp(-z))
		if score[i] > 0.5 {
			yp[i] = 1
		}
	}
	return yt, yp, score
}

// BenchmarkCompute1MBinary computes all ten metrics on one million binary
// rows (regression metrics on the 0/1 labels).
func BenchmarkCompute1MBinary(b *testing.B) {
	yt, yp, score := binaryRows(1_000_000)
	req := Request{YTrue: Numbers(yt...), YPred: Numbers(yp...), YScore: score, Metrics: MetricNames}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Compute(req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkComputeMetric1MBinary times each metric alone on the same rows.
func BenchmarkComputeMetric1MBinary(b *testing.B) {
	yt, yp, score := binaryRows(1_000_000)
	for _, m := range MetricNames {
		b.Run(m, func(b *testing.B) {
			req := Request{YTrue: Numbers(yt...), YPred: Numbers(yp...), YScore: score, Metrics: []string{m}}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Compute(req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkParseRequest1MBinary times decoding the JSON body of the same
// request, which the API pays before Compute.
func BenchmarkParseRequest1MBinary(b *testing.B) {
	yt, yp, score := binaryRows(1_000_000)
	body, err := json.Marshal(Request{YTrue: Numbers(yt...), YPred: Numbers(yp...), YScore: score, Metrics: MetricNames})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseRequest(body); err != nil {
			b.Fatal(err)
		}
	}
}
