package quantile

import (
	"math"
	"math/rand/v2"
	"testing"
)

// cpuPerOp starts counting CPU time; the function it returns reports it per
// iteration as cpu-ns/op. Call it right before the timed loop:
// defer cpuPerOp(b)().
func cpuPerOp(b *testing.B) func() {
	start, ok := processCPU()
	return func() {
		end, _ := processCPU()
		if ok && b.N > 0 {
			b.ReportMetric(float64(end-start)/float64(b.N), "cpu-ns/op")
		}
	}
}

// latencies returns n lognormal latencies in seconds (median 80 ms).
func latencies(seed uint64, n int) []float64 {
	return generate(datasets[2], seed, n)
}

func BenchmarkAdd(b *testing.B) {
	vs := latencies(1, 1<<16)
	s := mustNew(b, DefaultAlpha)
	b.ResetTimer()
	defer cpuPerOp(b)()
	for i := 0; b.Loop(); i++ {
		s.Add(vs[i&(1<<16-1)])
	}
}

func BenchmarkAddN(b *testing.B) {
	vs := latencies(1, 1<<16)
	s := mustNew(b, DefaultAlpha)
	b.ResetTimer()
	defer cpuPerOp(b)()
	for i := 0; b.Loop(); i++ {
		s.AddN(vs[i&(1<<16-1)], 3)
	}
}

// fullSketch has 2048 positive buckets in use.
func fullSketch(b *testing.B, seed uint64) *Sketch {
	s := mustNew(b, DefaultAlpha)
	r := rand.New(rand.NewPCG(seed, 1))
	bottom, top := s.m.value(0), s.m.value(MaxBuckets-1) // mid-bucket values
	s.Add(bottom)
	s.Add(top)
	for range 100_000 {
		s.Add(logUniform(r, bottom, top))
	}
	if n := len(s.pos.used()); n != MaxBuckets {
		b.Fatalf("%d buckets, want %d", n, MaxBuckets)
	}
	return s
}

// BenchmarkMerge2048 merges a sketch of 2048 buckets into another of 2048
// buckets over the same range.
func BenchmarkMerge2048(b *testing.B) {
	x, y := fullSketch(b, 1), fullSketch(b, 2)
	b.ResetTimer()
	defer cpuPerOp(b)()
	for b.Loop() {
		if err := x.Merge(y); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMerge2048IntoEmpty resets a sketch and merges two sketches of
// 2048 buckets into it (a copy, then a merge).
func BenchmarkMerge2048IntoEmpty(b *testing.B) {
	x, y := fullSketch(b, 1), fullSketch(b, 2)
	dst := mustNew(b, DefaultAlpha)
	b.ResetTimer()
	defer cpuPerOp(b)()
	for b.Loop() {
		dst.Reset()
		if err := dst.Merge(x); err != nil {
			b.Fatal(err)
		}
		if err := dst.Merge(y); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkQuantile(b *testing.B) {
	s := sketchOf(b, DefaultAlpha, latencies(1, 100_000))
	qs := []float64{0.5, 0.95, 0.99}
	b.ResetTimer()
	defer cpuPerOp(b)()
	for i := 0; b.Loop(); i++ {
		if _, err := s.Quantile(qs[i%3]); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMarshal(b *testing.B) {
	s := sketchOf(b, DefaultAlpha, latencies(1, 1000))
	b.ResetTimer()
	defer cpuPerOp(b)()
	for b.Loop() {
		if _, err := s.MarshalBinary(); err != nil {
			b.Fatal(err)
		}
	}
	data, _ := s.MarshalBinary()
	b.ReportMetric(float64(len(data)), "bytes")
}

func BenchmarkUnmarshal(b *testing.B) {
	data, _ := sketchOf(b, DefaultAlpha, latencies(1, 1000)).MarshalBinary()
	var s Sketch
	b.ResetTimer()
	defer cpuPerOp(b)()
	for b.Loop() {
		if err := s.UnmarshalBinary(data); err != nil {
			b.Fatal(err)
		}
	}
}

// minuteSketches builds one sketch of ~1000 latencies per minute for 30
// days, the median drifting over the day as real traffic does.
func minuteSketches(b *testing.B) []*Sketch {
	const minutes = 30 * 24 * 60
	r := rand.New(rand.NewPCG(42, 43))
	ss := make([]*Sketch, minutes)
	for i := range ss {
		s := mustNew(b, DefaultAlpha)
		median := 0.08 * (1 + 0.5*math.Sin(float64(i)*2*math.Pi/1440))
		for range 900 + r.IntN(200) {
			s.Add(math.Exp(math.Log(median) + 0.9*r.NormFloat64()))
		}
		ss[i] = s
	}
	return ss
}

// BenchmarkMerge30DaysOfMinutes merges 43,200 minute sketches into one and
// reads p50, p95 and p99.
func BenchmarkMerge30DaysOfMinutes(b *testing.B) {
	ss := minuteSketches(b)
	b.ResetTimer()
	defer cpuPerOp(b)()
	for b.Loop() {
		s := mustNew(b, DefaultAlpha)
		for _, m := range ss {
			if err := s.Merge(m); err != nil {
				b.Fatal(err)
			}
		}
		for _, q := range []float64{0.5, 0.95, 0.99} {
			if _, err := s.Quantile(q); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(len(ss)), "sketches")
}

// BenchmarkDecodeMerge30DaysOfMinutes is the query path from storage:
// decode 43,200 encoded minute sketches and merge them.
func BenchmarkDecodeMerge30DaysOfMinutes(b *testing.B) {
	ss := minuteSketches(b)
	enc := make([][]byte, len(ss))
	total := 0
	for i, s := range ss {
		enc[i], _ = s.MarshalBinary()
		total += len(enc[i])
	}
	b.ResetTimer()
	defer cpuPerOp(b)()
	for b.Loop() {
		s := mustNew(b, DefaultAlpha)
		var m Sketch
		for _, e := range enc {
			if err := m.UnmarshalBinary(e); err != nil {
				b.Fatal(err)
			}
			if err := s.Merge(&m); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(total)/float64(len(enc)), "bytes/sketch")
}
