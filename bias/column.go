package bias

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/vigilhq/vigil/platform/web"
	"github.com/vigilhq/vigil/stats/fairness"
)

// labelOf renders a JSON scalar as a group label: strings as they are,
// numbers in their shortest form, booleans as true/false; null is "" (a
// missing value). ok is false for an object or an array.
func labelOf(v any) (string, bool) {
	switch x := v.(type) {
	case nil:
		return "", true
	case string:
		return x, true
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), true
	case bool:
		return strconv.FormatBool(x), true
	}
	return "", false
}

// Outcome decides whether one prediction or label is the favourable
// outcome. With favourable set (a string, number or boolean), a value is
// favourable exactly when it equals it, of the same JSON type; every other
// value is unfavourable. Without, 1 and true are favourable, 0 and false
// unfavourable, and any other value is an error.
func Outcome(v, favourable any) (bool, error) {
	if favourable != nil {
		return v == favourable, nil
	}
	switch v {
	case true, 1.0:
		return true, nil
	case false, 0.0:
		return false, nil
	}
	s, _ := labelOf(v)
	if v == nil {
		s = "null"
	}
	return false, fmt.Errorf("%w: got %q, want 0/1 or true/false (or declare favourable_label)", fairness.ErrInvalid, s)
}

// outcomes converts an array of the label-supplied form, naming the first
// bad element in a problem of field.
func outcomes(v *web.Problems, field string, vals []any, favourable any) []bool {
	out := make([]bool, len(vals))
	for i, x := range vals {
		ok, err := Outcome(x, favourable)
		if err != nil {
			v.Add(field, fmt.Sprintf("element %d: %v", i, err))
			return nil
		}
		out[i] = ok
	}
	return out
}

// labelData checks the label-supplied form's arrays and fills the Input:
// y_pred sets the row count, every other array must match it.
func (b body) labelData(v *web.Problems, p *Plan) {
	n := len(b.YPred)
	if n == 0 {
		v.Add("y_pred", "is required: one prediction per row")
		return
	}
	p.Summary.Rows = int64(n)
	length := func(field string, got int) bool {
		if got != n {
			v.Add(field, fmt.Sprintf("got %d values, want %d (one per y_pred value)", got, n))
		}
		return got == n
	}
	p.Input.Pred = outcomes(v, "y_pred", b.YPred, b.FavourableLabel)
	if b.YTrue != nil && length("y_true", len(b.YTrue)) {
		p.Input.Truth = outcomes(v, "y_true", b.YTrue, b.FavourableLabel)
	}
	for _, name := range b.SensitiveAttributes {
		field := "group_data." + name
		col, ok := b.GroupData[name]
		if !ok {
			v.Add(field, "is required: every sensitive attribute needs its column")
			continue
		}
		if !length(field, len(col)) {
			continue
		}
		a := fairness.Attribute{Name: name, Values: make([]string, n)}
		for i, x := range col {
			l, ok := labelOf(x)
			if !ok {
				v.Add(field, fmt.Sprintf("element %d: want a string, number, boolean or null", i))
				break
			}
			a.Values[i] = l
		}
		p.Input.Attributes = append(p.Input.Attributes, a)
	}
	for name := range b.GroupData {
		if !slices.Contains(b.SensitiveAttributes, name) {
			v.Add("group_data."+name, "is not one of sensitive_attributes")
		}
	}
}
