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
// bad element in a problem of field. Each distinct value is judged once.
func outcomes(v *web.Problems, field string, vals *values, favourable any) []bool {
	judged := make([]bool, len(vals.distinct))
	errs := make([]error, len(vals.distinct))
	for j, x := range vals.distinct {
		judged[j], errs[j] = Outcome(x, favourable)
	}
	out := make([]bool, len(vals.codes))
	for i, c := range vals.codes {
		if err := errs[c]; err != nil {
			v.Add(field, fmt.Sprintf("element %d: %v", i, err))
			return nil
		}
		out[i] = judged[c]
	}
	return out
}

// labelData checks the label-supplied form's arrays and fills the Input:
// y_pred sets the row count, every other array must match it.
func (b request) labelData(v *web.Problems, p *Plan) {
	n := b.YPred.size()
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
	if b.YTrue != nil && length("y_true", b.YTrue.size()) {
		p.Input.Truth = outcomes(v, "y_true", b.YTrue, b.FavourableLabel)
	}
	for _, name := range b.SensitiveAttributes {
		field := "group_data." + name
		col, ok := b.GroupData[name]
		if !ok {
			v.Add(field, "is required: every sensitive attribute needs its column")
			continue
		}
		if !length(field, col.size()) {
			continue
		}
		p.Input.Attributes = append(p.Input.Attributes, attribute(v, field, name, col))
	}
	for name := range b.GroupData {
		if !slices.Contains(b.SensitiveAttributes, name) {
			v.Add("group_data."+name, "is not one of sensitive_attributes")
		}
	}
}

// attribute labels the rows of a group_data column in fairness's encoded
// form: each distinct value is labelled once, the labels (but "", a
// missing value) are the levels, and each row is its level's index. The
// first element that is not a scalar is named in a problem of field.
func attribute(v *web.Problems, field, name string, col *values) fairness.Attribute {
	a := fairness.Attribute{Name: name, Levels: []string{}, Codes: make([]int32, len(col.codes))}
	level := make([]int32, len(col.distinct)) // of each distinct value; -1 missing, -2 not a scalar
	index := map[string]int32{}
	for j, x := range col.distinct {
		l, ok := labelOf(x)
		switch {
		case !ok:
			level[j] = -2
		case l == "":
			level[j] = -1
		default:
			k, seen := index[l]
			if !seen {
				k = int32(len(a.Levels))
				index[l] = k
				a.Levels = append(a.Levels, l)
			}
			level[j] = k
		}
	}
	for i, c := range col.codes {
		if level[c] == -2 {
			v.Add(field, fmt.Sprintf("element %d: want a string, number, boolean or null", i))
			return a
		}
		a.Codes[i] = level[c]
	}
	return a
}
