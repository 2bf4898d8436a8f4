package bias

import (
	"context"
	"errors"
	"fmt"

	"github.com/vigilhq/vigil/analytics"
	"github.com/vigilhq/vigil/stats/fairness"
)

// Execute computes an audit: the label-supplied form from the plan's
// arrays, the logged-predictions form from qs. It records the rows
// audited (and predictions skipped) in sum. A fairness.ErrInvalid error is
// a reason to fail the audit for the caller to read; other errors are
// backend failures.
func Execute(ctx context.Context, qs analytics.Store, orgID string, p Plan, sum *Summary) (*Result, fairness.Report, error) {
	in := p.Input
	var notes []string
	if p.Summary.Form == FormPredictions {
		if qs == nil {
			return nil, fairness.Report{}, errors.New("no analytical store to read logged predictions from")
		}
		l, err := ReadLogged(ctx, qs, orgID, p)
		if err != nil {
			return nil, fairness.Report{}, err
		}
		in.Attributes, in.Pred, in.Truth = l.Attributes, l.Pred, l.Truth
		sum.Skipped = l.Skipped
		notes = loggedNotes(l, p)
		if len(in.Pred) == 0 {
			return nil, fairness.Report{}, fmt.Errorf("%w: no logged predictions of the model with output_data.%s in the requested range",
				fairness.ErrInvalid, p.Summary.PredictionField)
		}
	}
	sum.Rows = int64(len(in.Pred))
	rep, err := fairness.Audit(in)
	if err != nil {
		return nil, rep, err
	}
	res := NewResult(rep)
	res.Recommendations = append(res.Recommendations, notes...)
	return &res, rep, nil
}

// loggedNotes says what the logged-predictions form left out.
func loggedNotes(l Logged, p Plan) []string {
	s := p.Summary
	var notes []string
	if l.Skipped > 0 {
		notes = append(notes, fmt.Sprintf("%d logged predictions without output_data.%s were left out", l.Skipped, s.PredictionField))
	}
	if n := int64(len(l.Pred)); l.Labelled > 0 && l.Labelled < n {
		notes = append(notes, fmt.Sprintf("only %d of %d predictions carry a label (%v in metadata or input_data): "+
			"label-based metrics need every audited prediction labelled; narrow start_date/end_date to labelled ones", l.Labelled, n, s.LabelFields))
	}
	if limit := p.rowLimit(); len(l.Pred) == limit {
		notes = append(notes, fmt.Sprintf("the audit read the newest %d predictions, its limit; narrow start_date/end_date to audit older ones", limit))
	}
	return notes
}
