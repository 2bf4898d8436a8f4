package drift

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// BenchmarkReadColumn reads a column of a million N(0, 1) values with ", "
// between them, as Python's json module writes them: in shortest float
// text (17 digits), and rounded to 6 decimals (the big drift body of
// benchmarks/bigbody_test.go).
func BenchmarkReadColumn(b *testing.B) {
	for _, tc := range []struct {
		name  string
		round func(float64) float64
	}{
		{"shortest", func(v float64) float64 { return v }},
		{"6-decimals", func(v float64) float64 { return math.Round(v*1e6) / 1e6 }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			raw := benchColumn(1_000_000, tc.round)
			b.SetBytes(int64(len(raw)))
			for b.Loop() {
				if c, err := readColumn(raw); err != nil || len(c.nums) != 1_000_000 {
					b.Fatalf("got %d values, %v, want 1000000, nil", len(c.nums), err)
				}
			}
		})
	}
}

// benchColumn writes n N(0, 1) values, each through round, as json.dumps
// writes floats.
func benchColumn(n int, round func(float64) float64) []byte {
	r := rand.New(rand.NewPCG(1, 2))
	var buf bytes.Buffer
	buf.WriteByte('[')
	for i := range n {
		if i > 0 {
			buf.WriteString(", ")
		}
		num := strconv.AppendFloat(nil, round(r.NormFloat64()), 'g', -1, 64)
		if bytes.IndexAny(num, ".e") < 0 {
			num = append(num, ".0"...)
		}
		buf.Write(num)
	}
	buf.WriteByte(']')
	return buf.Bytes()
}
