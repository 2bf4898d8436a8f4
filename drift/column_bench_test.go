package drift

import (
	"bytes"
	"math/rand/v2"
	"strconv"
	"testing"
)

// BenchmarkReadColumn reads a column of a million N(0, 1) values in
// shortest float text with ", " between them, as Python's json module
// writes it.
func BenchmarkReadColumn(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	var buf bytes.Buffer
	buf.WriteByte('[')
	for i := range 1_000_000 {
		if i > 0 {
			buf.WriteString(", ")
		}
		buf.Write(strconv.AppendFloat(nil, r.NormFloat64(), 'g', -1, 64))
	}
	buf.WriteByte(']')
	raw := buf.Bytes()
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		if c, err := readColumn(raw); err != nil || len(c.nums) != 1_000_000 {
			b.Fatalf("got %d values, %v, want 1000000, nil", len(c.nums), err)
		}
	}
}
