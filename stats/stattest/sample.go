package stattest

import (
	"errors"
	"fmt"
	"math"
)

// Counts are the sizes behind a result: values used and values removed as
// missing, for the reference and the current sample.
type Counts struct {
	// NRef and NCur count the values each test used.
	NRef, NCur int
	// MissingRef and MissingCur count the values removed as missing (NaN,
	// or "" for categories) before testing.
	MissingRef, MissingCur int
}

// Sample is one numeric column prepared for the tests: its finite values
// sorted ascending, and the number of NaN removed. The zero Sample is empty.
// A Sample can be built once (say, for a model's reference data) and paired
// with many current samples.
type Sample struct {
	// Sorted holds the finite values in ascending order.
	Sorted []float64
	// Missing counts the NaN removed.
	Missing int
}

// NewSample copies col without its NaN, counting them, and sorts the copy.
// A ±Inf is an error (an *InputError wrapping ErrInfinite); an all-NaN or
// empty column is not an error here, but Pair refuses it.
func NewSample(col []float64) (Sample, error) {
	return sample(make([]float64, 0, len(col)), col)
}

// TakeSample is NewSample without the copy, for a column the caller is
// done with: col's NaN are removed in place and the rest sorted in place,
// so Sorted shares col's memory and col's contents are changed.
func TakeSample(col []float64) (Sample, error) {
	return sample(col[:0], col)
}

// sample appends col's values but NaN to out (which may be col[:0]: it is
// written no faster than col is read), refusing ±Inf, and sorts them.
func sample(out, col []float64) (Sample, error) {
	for i, v := range col {
		switch {
		case v != v:
			continue
		case math.IsInf(v, 0):
			return Sample{}, &InputError{Kind: ErrInfinite,
				Reason: fmt.Sprintf("value %d is %v, want a finite number or NaN for missing", i, v)}
		}
		out = append(out, v)
	}
	sortFloats(out)
	return Sample{Sorted: out, Missing: len(col) - len(out)}, nil
}

// Len is the number of non-missing values.
func (s Sample) Len() int { return len(s.Sorted) }

// Numeric is a reference and a current sample of one numeric feature. Every
// numeric test is a method on it, so each column is cleaned and sorted once.
//
// Preparing a column is a copy and a radix sort, O(n). KS, Wasserstein and
// binning then take one merge or a few binary searches; exact KS p-values
// cost O(n_ref + n_cur) for equal sizes and O(max(n)·min(n)·D) otherwise,
// so ModeExact on large samples is slow (ModeAuto avoids it). The
// asymptotic p-value is O(1) except for the Smirnov sum, O(n_eff), taken
// when n_eff·D² >= 2.2 (a detected drift).
type Numeric struct {
	// Ref and Cur are the reference and current samples; neither is empty.
	Ref, Cur Sample
}

// NewNumeric prepares both columns (see NewSample) and pairs them (see Pair).
func NewNumeric(ref, cur []float64) (Numeric, error) {
	return numeric(NewSample, ref, cur)
}

// TakeNumeric is NewNumeric with TakeSample: both columns are cleaned and
// sorted in place.
func TakeNumeric(ref, cur []float64) (Numeric, error) {
	return numeric(TakeSample, ref, cur)
}

// numeric prepares both columns with prepare and pairs them.
func numeric(prepare func([]float64) (Sample, error), ref, cur []float64) (Numeric, error) {
	r, err := prepare(ref)
	if err != nil {
		return Numeric{}, onSide(err, sideRef)
	}
	c, err := prepare(cur)
	if err != nil {
		return Numeric{}, onSide(err, sideCur)
	}
	return Pair(r, c)
}

// Pair checks that neither sample is empty (an *InputError wrapping
// ErrEmpty otherwise) and returns them as a Numeric.
func Pair(ref, cur Sample) (Numeric, error) {
	if ref.Len() == 0 {
		return Numeric{}, emptyError(sideRef, ref.Missing)
	}
	if cur.Len() == 0 {
		return Numeric{}, emptyError(sideCur, cur.Missing)
	}
	return Numeric{Ref: ref, Cur: cur}, nil
}

// Counts returns the sizes and missing counts of the pair.
func (d Numeric) Counts() Counts {
	return Counts{NRef: d.Ref.Len(), NCur: d.Cur.Len(), MissingRef: d.Ref.Missing, MissingCur: d.Cur.Missing}
}

func onSide(err error, side string) error {
	var ie *InputError
	if errors.As(err, &ie) {
		ie.Sample = side
	}
	return err
}
