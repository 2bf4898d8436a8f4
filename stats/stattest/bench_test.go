package stattest

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// benchColumns is a 1M-row reference and a 100k-row current column with a
// small shift, so the KS p-value takes the asymptotic path with a
// detectable drift.
func benchColumns() ([]float64, []float64) {
	rng := rand.New(rand.NewPCG(7, 8))
	ref := make([]float64, 1_000_000)
	cur := make([]float64, 100_000)
	for i := range ref {
		ref[i] = rng.NormFloat64()
	}
	for i := range cur {
		cur[i] = rng.NormFloat64()*1.01 + 0.01
	}
	return ref, cur
}

// BenchmarkKS is the whole KS call on raw columns: NaN scan, copy, sort of
// both columns, merge, p-value.
func BenchmarkKS(b *testing.B) {
	ref, cur := benchColumns()
	b.ResetTimer()
	for b.Loop() {
		if _, err := KS(ref, cur, ModeAuto); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkKSPrepared is KS on already sorted samples (the reference sorted
// once and reused, as POST /drift/detect does across tests).
func BenchmarkKSPrepared(b *testing.B) {
	d := benchNumeric(b)
	for b.Loop() {
		if _, err := d.KS(ModeAuto, TwoSided); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPSI is preparation plus 10 reference-quantile bins plus PSI.
func BenchmarkPSI(b *testing.B) {
	benchRaw(b, func(d Numeric) {
		if v := d.Bin(0).PSI(0).Value; math.IsNaN(v) {
			b.Fatal("NaN PSI")
		}
	})
}

// BenchmarkPSIPrepared is binning and PSI on prepared samples.
func BenchmarkPSIPrepared(b *testing.B) {
	d := benchNumeric(b)
	for b.Loop() {
		d.Bin(0).PSI(0)
	}
}

// BenchmarkPrepare is NewNumeric alone: the cost shared by every test.
func BenchmarkPrepare(b *testing.B) { benchRaw(b, func(Numeric) {}) }

// BenchmarkWassersteinPrepared is the Wasserstein merge on prepared samples.
func BenchmarkWassersteinPrepared(b *testing.B) {
	d := benchNumeric(b)
	for b.Loop() {
		d.Wasserstein()
	}
}

func benchNumeric(b *testing.B) Numeric {
	b.Helper()
	ref, cur := benchColumns()
	d, err := NewNumeric(ref, cur)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	return d
}

// BenchmarkFeature is one numeric feature of POST /drift/detect: prepare
// both columns, then KS, Wasserstein, and PSI, Jensen-Shannon and
// Hellinger on 10 reference-quantile bins.
func BenchmarkFeature(b *testing.B) {
	benchRaw(b, func(d Numeric) {
		if _, err := d.KS(ModeAuto, TwoSided); err != nil {
			b.Fatal(err)
		}
		d.Wasserstein()
		t := d.Bin(0)
		t.PSI(0)
		t.JensenShannon()
		t.Hellinger()
	})
}

// benchRaw times NewNumeric on the raw benchmark columns followed by fn.
func benchRaw(b *testing.B, fn func(Numeric)) {
	ref, cur := benchColumns()
	b.ResetTimer()
	for b.Loop() {
		d, err := NewNumeric(ref, cur)
		if err != nil {
			b.Fatal(err)
		}
		fn(d)
	}
}

func sortInput() []float64 {
	rng := rand.New(rand.NewPCG(7, 8))
	a := make([]float64, 1_000_000)
	for i := range a {
		a[i] = rng.NormFloat64()
	}
	return a
}

// BenchmarkSortRadix is the sort behind NewSample on a million values.
func BenchmarkSortRadix(b *testing.B) {
	a := sortInput()
	c := make([]float64, len(a))
	for b.Loop() {
		copy(c, a)
		sortFloats(c)
	}
}

// BenchmarkSortSlices is slices.Sort on the same values, for comparison.
func BenchmarkSortSlices(b *testing.B) {
	a := sortInput()
	c := make([]float64, len(a))
	for b.Loop() {
		copy(c, a)
		slices.Sort(c)
	}
}

// BenchmarkSortRadixRounded sorts the reference column of
// benchmarks/bigbody_test.go's drift body: 200,000 N(0, 1) values rounded
// to 6 decimals.
func BenchmarkSortRadixRounded(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 8))
	a := make([]float64, 200_000)
	for i := range a {
		a[i] = math.Round(rng.NormFloat64()*1e6) / 1e6
	}
	c := make([]float64, len(a))
	for b.Loop() {
		copy(c, a)
		sortFloats(c)
	}
}
