package quantile

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// bigSum is the exact sum of vs rounded once to float64.
func bigSum(vs []float64) float64 {
	acc := new(big.Float).SetPrec(4000) // exact for any float64 sum
	for _, v := range vs {
		acc.Add(acc, new(big.Float).SetFloat64(v))
	}
	f, _ := acc.Float64()
	return f
}

func TestSumExact(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 9))
	cases := map[string][]float64{
		"cancellation":   {1e308, 1, -1e308, 1e-300, 3},
		"tiny":           {5e-324, 5e-324, -1e-320, 2.5e-308},
		"overflowing":    {1.7e308, 1.7e308, -1e308},
		"alternating":    {0.1, -0.1, 0.2, -0.30000000000000004, 1e-17},
		"latency":        generate(datasets[2], 1, 10_000),
		"wide":           {},
		"mixed-sign":     generate(datasets[8], 5, 10_000),
		"all-negative":   generate(datasets[7], 6, 1000),
		"single-subnorm": {4.9e-324},
	}
	for range 10_000 {
		cases["wide"] = append(cases["wide"], (r.Float64()-0.5)*math.Pow(10, float64(r.IntN(600)-300)))
	}
	for name, vs := range cases {
		t.Run(name, func(t *testing.T) {
			want := bigSum(vs)
			s := sketchOf(t, DefaultAlpha, vs)
			if got := s.Sum(); got != want {
				t.Errorf("Sum() = %v, want %v", got, want)
			}
			rev := mustNew(t, DefaultAlpha)
			for i := len(vs) - 1; i >= 0; i-- {
				rev.Add(vs[i])
			}
			if got := rev.Sum(); got != want {
				t.Errorf("Sum() of reversed adds = %v, want %v", got, want)
			}
		})
	}
}

func TestSumAddN(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		n    uint64
		want float64
	}{
		{0.1, 10, bigMul(0.1, 10)},
		{-3.5, math.MaxUint64, bigMul(-3.5, math.MaxUint64)},
		{1e308, 1 << 40, math.Inf(1)},
		{5e-324, 3, 1.5e-323},
		{0.001, 1_000_000_007, bigMul(0.001, 1_000_000_007)},
	} {
		s := mustNew(t, DefaultAlpha)
		s.AddN(tc.v, tc.n)
		if got := s.Sum(); got != tc.want {
			t.Errorf("AddN(%v, %d): Sum() = %v, want %v", tc.v, tc.n, got, tc.want)
		}
	}
}

func bigMul(v float64, n uint64) float64 {
	x := new(big.Float).SetPrec(200).SetFloat64(v)
	x.Mul(x, new(big.Float).SetPrec(200).SetUint64(n))
	f, _ := x.Float64()
	return f
}

// TestSumNormalizes crosses the periodic carry normalization many times.
func TestSumNormalizes(t *testing.T) {
	var e exactSum
	const n = 2*normalizeEvery + 12345
	for i := range n {
		if i%3 == 2 {
			e.add(-0.75)
		} else {
			e.add(0.875)
		}
	}
	neg := float64(n / 3)
	want := float64(n-n/3)*0.875 - neg*0.75
	if got := e.float(); got != want {
		t.Errorf("sum = %v, want %v", got, want)
	}
}
