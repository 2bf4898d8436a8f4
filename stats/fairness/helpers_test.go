package fairness

import (
	"errors"
	"strings"
	"testing"
)

// cellsSpec is a group's confusion counts for building test rows.
type cellsSpec struct {
	group          string
	tn, fp, fn, tp int
}

// rowsOf returns one attribute's values and the predictions and labels that
// give each group the given counts, groups one after another.
func rowsOf(specs ...cellsSpec) (values []string, pred, truth []bool) {
	add := func(g string, n int, p, t bool) {
		for range n {
			values, pred, truth = append(values, g), append(pred, p), append(truth, t)
		}
	}
	for _, s := range specs {
		add(s.group, s.tn, false, false)
		add(s.group, s.fp, true, false)
		add(s.group, s.fn, false, true)
		add(s.group, s.tp, true, true)
	}
	return values, pred, truth
}

// audited audits one attribute named "a" built by rowsOf, with labels.
func audited(t *testing.T, edit func(*Input), specs ...cellsSpec) Report {
	t.Helper()
	v, p, l := rowsOf(specs...)
	in := Input{Attributes: []Attribute{{Name: "a", Values: v}}, Pred: p, Truth: l}
	if edit != nil {
		edit(&in)
	}
	rep, err := Audit(in)
	if err != nil {
		t.Fatalf("Audit: %v", err)
	}
	return rep
}

// resultOf returns the result of metric m for attribute 0.
func resultOf(t *testing.T, rep Report, m Metric) Result {
	t.Helper()
	for _, r := range rep.Attributes[0].Results {
		if r.Metric == m {
			return r
		}
	}
	t.Fatalf("no result for %s", m)
	return Result{}
}

// wantInvalid checks that err wraps ErrInvalid and mentions every fragment.
func wantInvalid(t *testing.T, err error, fragments ...string) {
	t.Helper()
	if !errors.Is(err, ErrInvalid) {
		t.Fatalf("error: got %v, want one wrapping ErrInvalid", err)
	}
	for _, f := range fragments {
		if !strings.Contains(err.Error(), f) {
			t.Errorf("error %q: want it to mention %q", err, f)
		}
	}
}
