package quantile_test

import (
	"fmt"

	"github.com/vigilhq/vigil/stats/quantile"
)

// Per-minute sketches are encoded for storage; the query side decodes and
// merges them and reads the percentiles.
func Example() {
	var stored [][]byte
	for minute := range 3 {
		s, _ := quantile.New(quantile.DefaultAlpha)
		for i := range 1000 {
			s.Add(0.010 + 0.001*float64((i*7+minute)%100)) // seconds
		}
		b, _ := s.MarshalBinary()
		stored = append(stored, b)
	}

	total, _ := quantile.New(quantile.DefaultAlpha)
	var m quantile.Sketch
	for _, b := range stored {
		if err := m.UnmarshalBinary(b); err != nil {
			panic(err)
		}
		if err := total.Merge(&m); err != nil {
			panic(err)
		}
	}
	p50, _ := total.Quantile(0.50)
	p99, _ := total.Quantile(0.99)
	fmt.Printf("n=%d min=%.3f p50≈%.4f p99≈%.4f max=%.3f\n", total.Count(), total.Min(), p50, p99, total.Max())
	// Output: n=3000 min=0.010 p50≈0.0590 p99≈0.1075 max=0.109
}
