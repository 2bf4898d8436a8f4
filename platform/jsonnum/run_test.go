package jsonnum

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// readRunPlain is ReadRun written with Read alone, one element at a time.
func readRunPlain(dst []float64, b []byte, i int) ([]float64, int) {
	for {
		v, size, ok := Read(b[i:])
		if !ok || math.IsInf(v, 0) {
			return dst, i
		}
		j := i + size
		if j >= len(b) || b[j] != ',' {
			return dst, i
		}
		dst = append(dst, v)
		for j++; j < len(b) && strings.IndexByte(" \t\n\r", b[j]) >= 0; j++ {
		}
		i = j
	}
}

// sameRun checks that ReadRun reads text from every start as readRunPlain
// does: the same values, bit for bit, and the same stop.
func sameRun(t *testing.T, text string) {
	t.Helper()
	b := []byte(text)
	for i := range len(b) {
		got, gi := ReadRun(nil, b, i)
		want, wi := readRunPlain(nil, b, i)
		if gi != wi || len(got) != len(want) {
			t.Fatalf("ReadRun(%q, %d): got %d values, stop %d, want %d, %d", text, i, len(got), gi, len(want), wi)
		}
		for k := range got {
			if math.Float64bits(got[k]) != math.Float64bits(want[k]) {
				t.Fatalf("ReadRun(%q, %d): value %d got %v (%#x), want %v (%#x)", text, i, k, got[k],
					math.Float64bits(got[k]), want[k], math.Float64bits(want[k]))
			}
		}
	}
}

// TestReadRun: runs of numbers in the forms columns come in, and every way
// a run ends, read as Read reads them one by one.
func TestReadRun(t *testing.T) {
	for _, text := range []string{
		"[1.5, -2.25, 0.0, -0.0, 3, -7, 0.000123, -0.1234567, 1234567.1234567, -9999999.9999999, 12345678.5, 0.12345678, 1]",
		"[1e5, 2E-3, 1.5e2, -0e0, 1.5.5, 2]", "[01, 1]", "[-01, 1]", "[1., 2]", "[-, 1]", "[.5, 1]", "[+1, 2]",
		"[1e400, 2]", "[-1e309, 2]", "[1e-400, 2]", "[NaN, 1]", "[null, 1]", "[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20]",
		"[1 ,2]", "[1,\t2,\n3,\r4,  5,\v6]", "[1,2,]", "[9007199254740993, 1]", "[0.1234567890123456789, 1]",
		"1.5,", "1.5", "-", "", "[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]",
		"[1.5\xff, 2]", "[1.5\x00, 2]", "[-1234567,0.1234567,-1234567.1234567,", "[7777777.7777777,7777777.7777777,7777777.7777777,7777777.7777777]",
	} {
		sameRun(t, text)
	}
	// readShort given up, Read alone for shortPause elements, then
	// readShort again.
	sameRun(t, "["+strings.Repeat("1.5, ", 10)+"0.12345678901234567, "+strings.Repeat("-2.25, ", shortPause+10)+"1e5, "+
		strings.Repeat("3.125, ", 2*shortPause)+"7]")
	r := rand.New(rand.NewPCG(3, 4))
	forms := []func() string{
		func() string { return strconv.FormatFloat(math.Round(r.NormFloat64()*1e6)/1e6, 'g', -1, 64) },
		func() string { return strconv.FormatFloat(r.NormFloat64(), 'g', -1, 64) },
		func() string {
			return strconv.FormatFloat(r.NormFloat64()*math.Pow(10, float64(r.IntN(16)-8)), 'f', r.IntN(10), 64)
		},
		func() string { return strconv.Itoa(r.IntN(1e9) - 5e8) },
		func() string { return strconv.FormatFloat(math.Float64frombits(r.Uint64()), 'g', -1, 64) },
	}
	seps := []string{",", ", ", ",\n  ", ",\t", " ,", ",,", "]"}
	for range 3000 {
		var sb strings.Builder
		sb.WriteByte('[')
		for k := range r.IntN(12) + r.IntN(2)*r.IntN(200) {
			if k > 0 {
				sb.WriteString(seps[r.IntN(len(seps))])
			}
			sb.WriteString(forms[r.IntN(len(forms))]())
		}
		sb.WriteByte(']')
		sameRun(t, sb.String())
	}
}

func FuzzReadRun(f *testing.F) {
	for _, s := range []string{"[1.5, -2.25, 0.0, 3]", "[-0.1234567, 1234567.1234567, 1e5, 2]", "[01, 1]", "[1e400, 2]", "-1.5,2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) { sameRun(t, text) })
}

// BenchmarkReadRun reads a million N(0, 1) values rounded to 6 decimals,
// as json.dumps writes them, in one run.
func BenchmarkReadRun(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	var sb strings.Builder
	for range 1_000_000 {
		sb.WriteString(strconv.FormatFloat(math.Round(r.NormFloat64()*1e6)/1e6, 'g', -1, 64))
		sb.WriteString(", ")
	}
	text := []byte(sb.String() + "0]")
	dst := make([]float64, 0, 1_000_001)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if got, _ := ReadRun(dst[:0], text, 0); len(got) != 1_000_000 {
			b.Fatalf("got %d values, want 1000000", len(got))
		}
	}
}
