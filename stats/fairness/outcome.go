package fairness

// Predictions and labels reach Audit as []bool, true meaning the favourable
// outcome (a loan granted, a candidate shortlisted). These helpers make such
// a column from what callers hold.

// Binary returns the outcome column of numeric 0/1 values (1 favourable),
// or an error naming the first other value: a column with other values
// needs a declared favourable label (Favourable).
func Binary(field string, v []float64) ([]bool, error) {
	out := make([]bool, len(v))
	for i, x := range v {
		switch x {
		case 1:
			out[i] = true
		case 0:
		default:
			return nil, invalid("%s[%d]: got %v, want 0 or 1 (or declare the favourable label)", field, i, x)
		}
	}
	return out, nil
}

// Favourable returns the outcome column that is true where v equals the
// favourable label (a number or a string); every other label is
// unfavourable. Use it for multi-class predictions and for labels other
// than 0/1.
func Favourable[T comparable](v []T, favourable T) []bool {
	out := make([]bool, len(v))
	for i, x := range v {
		out[i] = x == favourable
	}
	return out
}
