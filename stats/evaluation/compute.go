package evaluation

import "math"

// Compute validates req and computes every requested metric. It returns a
// *FieldError (wrapping ErrInvalid) for any input it rejects; on error no
// metric is returned, even those that could have been computed.
//
// Metric names: accuracy, precision, recall, f1_score, roc_auc, log_loss,
// mse, mae, rmse, r2.
//
// precision, recall and f1_score use zero_division=0: a 0/0 ratio counts
// as 0.0 (scikit-learn's default "warn" gives the same value) and Result
// carries scikit-learn's warning text. The averaging is average when given,
// else binary when the label set has at most two labels and weighted
// otherwise. The label set is labels when declared, else the union of the
// values in y_true and y_pred, so a label that only y_pred contains is a
// class: it makes a two-label problem multiclass, counts in macro averages
// (precision 0, recall 0/0 = 0) and gets weight 0 in weighted ones.
// Declared labels that occur nowhere count in macro averages the same way.
//
// The positive class of a binary problem is pos_label when given, else the
// larger of the two labels in sorted order (1 for 0/1, "spam" for
// ham/spam). With a single numeric label present it is scikit-learn's
// default 1 (so an all-0 window scores precision = recall = f1 = 0); with a
// single string label pos_label or labels is required.
//
// roc_auc is binary (y_score, or the positive column of a two-column
// y_prob) or one-vs-rest over the y_prob columns, averaged macro unless
// average is macro, weighted or micro. Ties in scores count one half. It is
// computed from exact pair counts, so it can differ from scikit-learn's
// trapezoidal sum in the last bit or two.
//
// log_loss clips every probability to [eps, 1-eps] with eps = 2^-52, the
// float64 machine epsilon, as scikit-learn 1.9 does; probabilities outside
// [0, 1] are an error, rows that do not sum to 1 only warn (they are used
// as given, not renormalised).
//
// r2 uses force_finite=True: with a constant y_true it is 1.0 for a perfect
// prediction and 0.0 otherwise. Sums and means follow NumPy's pairwise
// summation step for step (sum.go), so "constant" is decided exactly as
// NumPy decides it.
//
//   - Undefined values are errors, not NaN: roc_auc with a single class in
//     y_true (or, one-vs-rest macro, a class absent from y_true) and r2 with
//     fewer than two rows, where scikit-learn warns and returns NaN; and any
//     result that overflows float64 (mse of values near 1e308). JSON cannot
//     carry NaN or infinity.
//   - The default positive label is the larger label, where scikit-learn's
//     is 1: for labels {1, 2} Vigil scores 2, and for {0, 2} or string
//     labels, where scikit-learn raises without pos_label, Vigil scores the
//     larger one. For 0/1 and -1/1 the two agree.
//   - pos_label also applies to y_score and roc_auc (scikit-learn's
//     roc_auc_score has no pos_label and always takes the larger label), and
//     a two-column y_prob is accepted for binary roc_auc.
//   - labels must be sorted, unique and contain every value of y_true and
//     y_pred; scikit-learn also accepts a subset for precision/recall/f1.
//   - Strings are labels only: scikit-learn would coerce ["1.5", "2"] to
//     numbers for regression metrics, Vigil refuses them.
//   - Booleans are refused (send 0 and 1), and a column may not mix numbers
//     and strings (NumPy would turn the numbers into strings).
func Compute(req Request) (Result, error) {
	nd, err := parseMetrics(req.Metrics)
	if err != nil {
		return Result{}, err
	}
	if err := validateShape(&req, nd); err != nil {
		return Result{}, err
	}
	res := Result{Metrics: make(map[string]float64, len(nd.metrics))}
	var l *labeled
	if nd.hard || nd.prob {
		if l, err = encodeLabels(&req, nd.hard, firstOf(nd, Accuracy, Precision, Recall, F1Score, ROCAUC, LogLoss)); err != nil {
			return Result{}, err
		}
	}
	if nd.hard {
		if err := computeHard(&req, nd, l, &res); err != nil {
			return Result{}, err
		}
	}
	if nd.prob {
		if err := computeProb(&req, nd, l, &res); err != nil {
			return Result{}, err
		}
	}
	if nd.regression {
		if err := computeRegression(&req, nd, &res); err != nil {
			return Result{}, err
		}
	}
	for _, m := range nd.metrics {
		if v := res.Metrics[m]; math.IsNaN(v) || math.IsInf(v, 0) {
			// Only float64 overflow gets here (e.g. mse of values near 1e308);
			// scikit-learn would return inf or nan, which JSON cannot carry.
			return Result{}, metricErr(m, "y_pred", "the result overflows float64 (got %v): the values are too large", v)
		}
	}
	return res, nil
}

// firstOf returns the first requested metric among names.
func firstOf(nd needs, names ...string) string {
	for _, m := range nd.metrics {
		for _, n := range names {
			if m == n {
				return m
			}
		}
	}
	return ""
}

func computeHard(req *Request, nd needs, l *labeled, res *Result) error {
	if nd.has(Accuracy) {
		res.Metrics[Accuracy] = l.accuracy()
	}
	m := firstOf(nd, Precision, Recall, F1Score)
	if m == "" {
		return nil
	}
	a, warns, err := l.resolveAverage(req, m)
	if err != nil {
		return err
	}
	res.Average, res.PosLabel = a.mode, a.posLabel
	res.Warnings = append(res.Warnings, warns...)
	p, r, f, undefined := l.prf(a)
	for _, name := range []string{Precision, Recall, F1Score} {
		if !nd.has(name) {
			continue
		}
		switch name {
		case Precision:
			res.Metrics[name] = p
		case Recall:
			res.Metrics[name] = r
		default:
			res.Metrics[name] = f
		}
		res.Warnings = append(res.Warnings, undefined.messages(name)...)
	}
	return nil
}

func computeProb(req *Request, nd needs, l *labeled, res *Result) error {
	p := probClasses(l)
	for _, m := range []string{ROCAUC, LogLoss} {
		if !nd.has(m) {
			continue
		}
		if err := p.checkScores(req, m); err != nil {
			return err
		}
		var v float64
		var err error
		var warns []string
		if m == ROCAUC {
			v, err = p.rocAUC(req)
		} else {
			v, warns, err = p.logLoss(req)
		}
		if err != nil {
			return err
		}
		res.Metrics[m] = v
		res.Warnings = append(res.Warnings, warns...)
	}
	if res.PosLabel == nil && p.posLabel != nil && (req.YScore != nil || p.classes.len() == 2) {
		res.PosLabel = p.posLabel
	}
	return nil
}

func computeRegression(req *Request, nd needs, res *Result) error {
	if err := checkRegression(req, firstOf(nd, MSE, MAE, RMSE, R2)); err != nil {
		return err
	}
	r := regression{t: req.YTrue.nums, p: req.YPred.nums}
	for _, m := range nd.metrics {
		switch m {
		case MSE:
			res.Metrics[m] = r.mse()
		case MAE:
			res.Metrics[m] = r.mae()
		case RMSE:
			res.Metrics[m] = r.rmse()
		case R2:
			v, err := r.r2()
			if err != nil {
				return err
			}
			res.Metrics[m] = v
		}
	}
	return nil
}
