package stattest_test

import (
	"errors"
	"fmt"
	"math"

	"github.com/vigilhq/vigil/stats/stattest"
)

func Example() {
	ref := []float64{0.1, 0.4, 0.35, 0.8, math.NaN(), 0.55, 0.2, 0.6}
	cur := []float64{0.5, 0.9, 0.75, 0.95, 0.7, 0.65}
	d, err := stattest.NewNumeric(ref, cur)
	if err != nil {
		panic(err)
	}
	ks, _ := d.KS(stattest.ModeAuto, stattest.TwoSided)
	fmt.Printf("KS D=%.4f p=%.4f (%v), missing ref=%d\n", ks.Statistic, ks.PValue, ks.Method, ks.MissingRef)
	fmt.Printf("Wasserstein %.4f\n", d.Wasserstein().Value)
	bins := d.Bin(4)
	fmt.Printf("PSI %.4f over %d bins\n", bins.PSI(0).Value, bins.Cells())

	_, err = stattest.KS([]float64{math.NaN()}, cur, stattest.ModeAuto)
	err = stattest.WithFeature(err, "latency")
	fmt.Println(err, errors.Is(err, stattest.ErrEmpty))
	// Output:
	// KS D=0.6905 p=0.0676 (exact), missing ref=1
	// Wasserstein 0.3131
	// PSI 3.9602 over 4 bins
	// feature "latency": reference sample: got 0 values after removing 1 missing, want at least 1 true
}
