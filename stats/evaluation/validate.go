package evaluation

import (
	"math"
	"strings"
)

// needs records which inputs the requested metrics use.
type needs struct {
	metrics    []string // requested, deduplicated, in request order
	hard       bool     // accuracy, precision, recall, f1_score
	prob       bool     // roc_auc, log_loss
	regression bool     // mse, mae, rmse, r2
}

func (n needs) has(name string) bool {
	for _, m := range n.metrics {
		if m == name {
			return true
		}
	}
	return false
}

// parseMetrics checks metric_types and sorts the names into families.
func parseMetrics(names []string) (needs, error) {
	var n needs
	if len(names) == 0 {
		return n, fieldErr("metric_types", "must name at least one metric, want some of %s", strings.Join(MetricNames, ", "))
	}
	for i, name := range names {
		switch name {
		case Accuracy, Precision, Recall, F1Score:
			n.hard = true
		case ROCAUC, LogLoss:
			n.prob = true
		case MSE, MAE, RMSE, R2:
			n.regression = true
		default:
			return n, fieldErr("metric_types", "element %d: unknown metric %q, want one of %s", i, name, strings.Join(MetricNames, ", "))
		}
		if !n.has(name) {
			n.metrics = append(n.metrics, name)
		}
	}
	return n, nil
}

// validateShape checks everything that does not depend on the metric:
// presence, lengths, limits, finiteness, kinds and the form of labels,
// average and pos_label.
func validateShape(req *Request, nd needs) error {
	n := req.YTrue.Len()
	switch {
	case !req.YTrue.Present():
		return fieldErr("y_true", "is required")
	case n == 0:
		return fieldErr("y_true", "must not be empty")
	case n > MaxRows:
		return fieldErr("y_true", "too many rows: got %d, want at most %d", n, MaxRows)
	}
	if err := checkFinite("y_true", req.YTrue.nums); err != nil {
		return err
	}
	if nd.hard || nd.regression {
		if !req.YPred.Present() {
			return fieldErr("y_pred", "is required by %s", hardMetrics(nd))
		}
	}
	if req.YPred.Present() {
		if got := req.YPred.Len(); got != n {
			return fieldErr("y_pred", "must have the same length as y_true (got %d, want %d)", got, n)
		}
		if err := checkFinite("y_pred", req.YPred.nums); err != nil {
			return err
		}
		if err := sameKind("y_pred", req.YPred, req.YTrue); err != nil {
			return err
		}
	}
	if err := validateScores(req, n); err != nil {
		return err
	}
	if err := validateLabels(req); err != nil {
		return err
	}
	switch req.Average {
	case "", AverageBinary, AverageMacro, AverageMicro, AverageWeighted:
	default:
		return fieldErr("average", "unknown average %q, want binary, macro, micro or weighted", req.Average)
	}
	if p := req.PosLabel; p != nil {
		if p.isStr != req.YTrue.isStr {
			return fieldErr("pos_label", "is a %s but y_true holds %s", labelKind(*p), req.YTrue.kind())
		}
		if !p.isStr && (math.IsNaN(p.num) || math.IsInf(p.num, 0)) {
			return fieldErr("pos_label", "must be finite, got %v", p.num)
		}
	}
	return nil
}

func hardMetrics(nd needs) string {
	var names []string
	for _, m := range nd.metrics {
		if m != ROCAUC && m != LogLoss {
			names = append(names, m)
		}
	}
	return strings.Join(names, ", ")
}

func labelKind(l Label) string {
	if l.isStr {
		return "string"
	}
	return "number"
}

// sameKind mirrors scikit-learn's "Mix of label input types" check.
func sameKind(field string, c, ref Column) error {
	if c.isStr != ref.isStr {
		return fieldErr(field, "holds %s but y_true holds %s: mix of label input types (string and number)", c.kind(), ref.kind())
	}
	return nil
}

func checkFinite(field string, v []float64) error {
	for i, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fieldErr(field, "element %d is %v, want a finite number", i, x)
		}
	}
	return nil
}

// validateScores checks y_score and y_prob where present.
func validateScores(req *Request, n int) error {
	if req.YScore != nil && req.YProb != nil {
		return fieldErr("y_prob", "cannot be sent together with y_score: send y_score for binary scores or y_prob for class probabilities")
	}
	if req.YScore != nil {
		if got := len(req.YScore); got != n {
			return fieldErr("y_score", "must have the same length as y_true (got %d, want %d)", got, n)
		}
		if err := checkFinite("y_score", req.YScore); err != nil {
			return err
		}
	}
	if req.YProb != nil {
		if got := len(req.YProb); got != n {
			return fieldErr("y_prob", "must have one row per element of y_true (got %d rows, want %d)", got, n)
		}
		k := len(req.YProb[0])
		switch {
		case k < 2:
			return fieldErr("y_prob", "rows must have one column per class, at least 2 (got %d); send binary scores as y_score", k)
		case k > MaxClasses:
			return fieldErr("y_prob", "too many columns: got %d, want at most %d", k, MaxClasses)
		case n*k > MaxProbCells:
			return fieldErr("y_prob", "too many values: got %d rows x %d columns, want at most %d values", n, k, MaxProbCells)
		}
		for i, row := range req.YProb {
			if len(row) != k {
				return fieldErr("y_prob", "row %d has %d columns, want %d like row 0", i, len(row), k)
			}
			for j, x := range row {
				if math.IsNaN(x) || math.IsInf(x, 0) {
					return fieldErr("y_prob", "row %d column %d is %v, want a finite number", i, j, x)
				}
			}
		}
	}
	return nil
}

// validateLabels checks the optional declared label set.
func validateLabels(req *Request) error {
	l := req.Labels
	if !l.Present() {
		return nil
	}
	switch {
	case l.Len() == 0:
		return fieldErr("labels", "must not be empty when given")
	case l.Len() > MaxClasses:
		return fieldErr("labels", "too many labels: got %d, want at most %d", l.Len(), MaxClasses)
	}
	if err := sameKind("labels", l, req.YTrue); err != nil {
		return err
	}
	if err := checkFinite("labels", l.nums); err != nil {
		return err
	}
	for i := 1; i < l.Len(); i++ {
		var ordered bool
		if l.isStr {
			ordered = l.strs[i-1] < l.strs[i]
		} else {
			ordered = l.nums[i-1] < l.nums[i]
		}
		if !ordered {
			return fieldErr("labels", "must be sorted ascending without duplicates: element %d (%s) does not follow element %d (%s)", i, l.At(i), i-1, l.At(i-1))
		}
	}
	return nil
}
