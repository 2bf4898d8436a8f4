package jsonnum

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// same checks that Read agrees with strconv.ParseFloat on text: the same
// bits when text is a JSON number, read whole; otherwise no number read,
// or a JSON number read from the start of text (the rest left to the
// caller), again with ParseFloat's bits.
func same(t *testing.T, text string) {
	t.Helper()
	got, n, ok := Read([]byte(text))
	whole := isJSONNumber(text)
	switch {
	case whole && (!ok || n != len(text)):
		t.Fatalf("Read(%q): got length %d, ok %v, want %d, true", text, n, ok, len(text))
	case !ok:
		return
	case !whole && (n >= len(text) || !isJSONNumber(text[:n])):
		t.Fatalf("Read(%q): got a number of length %d, want none or a JSON number's prefix", text, n)
	}
	want, _ := strconv.ParseFloat(text[:n], 64)
	if math.Float64bits(got) != math.Float64bits(want) {
		t.Errorf("Read(%q): got %v (%#016x), want %v (%#016x)", text, got, math.Float64bits(got), want, math.Float64bits(want))
	}
}

// isJSONNumber is the JSON number grammar, written as plainly as possible.
func isJSONNumber(s string) bool {
	digits := func() int {
		n := 0
		for n < len(s) && s[n] >= '0' && s[n] <= '9' {
			n++
		}
		s = s[n:]
		return n
	}
	s = strings.TrimPrefix(s, "-")
	switch {
	case strings.HasPrefix(s, "0"):
		s = s[1:]
	case digits() == 0:
		return false
	}
	if strings.HasPrefix(s, ".") {
		s = s[1:]
		if digits() == 0 {
			return false
		}
	}
	if len(s) > 0 && (s[0] == 'e' || s[0] == 'E') {
		s = s[1:]
		if len(s) > 0 && (s[0] == '+' || s[0] == '-') {
			s = s[1:]
		}
		if digits() == 0 {
			return false
		}
	}
	return s == ""
}

func TestRead(t *testing.T) {
	for _, text := range []string{
		// Zeros, signs and small integers.
		"0", "-0", "0.0", "-0.0", "0e0", "-0e-999", "0e99999999999999999999", "1", "-1", "9", "10", "123",
		// The fast path's edges: 2^53 and around, 1e22 and 1e23.
		"9007199254740991", "9007199254740992", "9007199254740993", "18014398509481985",
		"1e22", "1e23", "9007199254740993e22", "1e-22", "1e-23", "4503599627370497e-22",
		// 19 and 20 significant digits, and many more.
		"1234567890123456789", "12345678901234567890", "18446744073709551615", "18446744073709551616",
		"0.1234567890123456789", "0.12345678901234567890", "1.00000000000000000000000000001",
		"0.000000000000000000000000000000000000000000001234567890123456789012",
		"3." + strings.Repeat("1", 800), strings.Repeat("9", 400), "1" + strings.Repeat("0", 400) + "e-400",
		// Shortest representations that take Eisel-Lemire or its fallback.
		"0.1", "0.2", "0.3", "-0.8427312145091234", "1.7976931348623157e308", "2.2250738585072014e-308",
		"4.9406564584124654e-324", "5e-324", "2.4703282292062327e-324", "2.4703282292062328e-324",
		"2.2250738585072011e-308", "1e-320", "-1e-320", "1e-400", "-1e-400",
		// Overflow and its edge.
		"1e308", "1e309", "-1e309", "1.7976931348623158e308", "1.7976931348623159e308", "1e99999999999999999999",
		"179769313486231580793728971405303415079934132710037826936173778980444968292764750946649017977587207096330286416692887910946555547851940402630657488671505820681908902000708383676273854845817711531764475730270069855571366959622842914819860834936475292719074168444365510704342711559699508093042880177904174497791",
		// Halfway cases between float64s.
		"9007199254740993", "9007199254740995", "1.00000000000000011102230246251565404236316680908203125",
		"1.00000000000000011102230246251565404236316680908203124", "7.2057594037927933e16",
		// Exponent forms.
		"1E5", "1e+5", "1e-5", "-2.5E-3", "12.5e1", "0.5e-0", "6.02214076e23", "1.602176634e-19",
		// Not JSON numbers.
		"", "-", "+1", ".5", "1.", "1.e5", "01", "-01", "00", "1e", "1e+", "e5", "0x10", "Infinity", "NaN", "--1", "1_000",
	} {
		same(t, text)
	}
}

// TestReadStopsAtTheNumber: what follows a number is left alone.
func TestReadStopsAtTheNumber(t *testing.T) {
	f := func(text string, wantN int, want float64) {
		t.Helper()
		got, n, ok := Read([]byte(text))
		if !ok || n != wantN || got != want {
			t.Errorf("Read(%q): got %v, %d, %v, want %v, %d, true", text, got, n, ok, want, wantN)
		}
	}
	f("1.5,2", 3, 1.5)
	f("-3]", 2, -3)
	f("7e2 ", 3, 700)
	f("0123", 1, 0)
	f("1.5.5", 3, 1.5)
}

// TestReadShortFractions: a fraction of fewer than 8 digits, read 8 bytes
// at a time, stops at whatever byte follows its digits, with the bytes
// after that of any value (a borrow or carry must not move the stop).
func TestReadShortFractions(t *testing.T) {
	for digits := range 10 {
		for next := range 256 {
			for _, tail := range []string{"", "0", "12345678", "\xff\xff\xff\xff\xff\xff\xff\xff", "\x00\x00\x00\x00\x00\x00\x00"} {
				frac := "9876543210"[:digits]
				same(t, "-0."+frac+string([]byte{byte(next)})+tail)
				same(t, "3."+frac+string([]byte{byte(next)})+tail)
				same(t, "0.00"+frac+string([]byte{byte(next)})+tail)
			}
		}
	}
}

// TestReadRandom compares Read with strconv.ParseFloat on the shortest
// text of random float64 bit patterns and of normal values, the form
// Python's json module writes.
func TestReadRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	n := 200_000
	if testing.Short() {
		n = 20_000
	}
	for range n {
		v := math.Float64frombits(r.Uint64())
		if math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		same(t, strconv.FormatFloat(v, 'g', -1, 64))
		same(t, strconv.FormatFloat(v, 'e', r.IntN(25), 64))
		same(t, strconv.FormatFloat(r.NormFloat64(), 'g', -1, 64))
		same(t, strconv.FormatFloat(r.NormFloat64()*math.Pow(10, float64(r.IntN(40)-20)), 'f', r.IntN(30), 64))
		same(t, strconv.FormatFloat(math.Round(r.NormFloat64()*1e6)/1e6, 'g', -1, 64)+", ")
	}
}

func FuzzRead(f *testing.F) {
	for _, s := range []string{"0", "-0", "1.5", "1e308", "1e309", "5e-324", "2.4703282292062328e-324",
		"9007199254740993", "0.1234567890123456789012", "-0.8427312145091234", "1e", "01", "-"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) { same(t, text) })
}

func BenchmarkRead(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 4))
	texts := make([][]byte, 4096)
	for i := range texts {
		texts[i] = strconv.AppendFloat(nil, r.NormFloat64(), 'g', -1, 64)
	}
	b.Run("jsonnum", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			if _, _, ok := Read(texts[i%len(texts)]); !ok {
				b.Fatal("refused")
			}
		}
	})
	b.Run("strconv", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			if _, err := strconv.ParseFloat(string(texts[i%len(texts)]), 64); err != nil {
				b.Fatal(err)
			}
		}
	})
}
