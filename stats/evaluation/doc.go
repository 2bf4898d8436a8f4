// Package evaluation computes model-quality metrics from labels and
// predictions for POST /metrics/calculate, matching scikit-learn 1.9.1
// (the version testdata/golden.json pins).
//
// # API
//
// ParseRequest decodes the request body (it ignores model_id) into a
// Request; Compute returns a Result whose Metrics map holds one value per
// requested name. Every rejected input is a *FieldError naming the JSON field
// (and the metric, when only that metric objects) and wrapping ErrInvalid.
//
//	req, err := evaluation.ParseRequest(body)
//	if err == nil {
//		res, err = evaluation.Compute(req)
//	}
//	var fe *evaluation.FieldError
//	if errors.As(err, &fe) { /* 422 VALIDATION_ERROR, fe.Field, fe.Reason */ }
//
// # Input
//
//	{
//	  "y_true":       [...],          // numbers or strings; required
//	  "y_pred":       [...],          // hard predictions, same kind and length; required
//	                                  // by every metric except roc_auc and log_loss
//	  "y_score":      [0.9, 0.2],     // binary: score of the positive class
//	  "y_prob":       [[0.1, 0.9]],   // class probabilities, columns in sorted label order
//	  "metric_types": ["accuracy", "roc_auc"],
//	  "average":      "macro",        // optional: binary, macro, micro, weighted
//	  "pos_label":    "spam",         // optional: positive class of a binary problem
//	  "labels":       ["ham", "spam"] // optional: every class, sorted, unique
//	}
//
// A column holds numbers or strings, never both, and no booleans or nulls.
// Numeric class labels must be integral (1.0 is the label 1): as in
// scikit-learn's type_of_target, a value that does not survive a cast to
// int64 (0.5, 1e20) makes the column "continuous", which classification
// metrics refuse. Regression metrics (mse, mae, rmse, r2) need numbers.
//
// y_score is one number per row for a binary problem: the probability of the
// positive class for log_loss (in [0, 1]), or any score for roc_auc. y_prob
// has one row per sample and one column per class, the classes being labels
// when given, else the sorted distinct values of y_true (scikit-learn's
// LabelBinarizer order); multiclass roc_auc and log_loss need it, and a
// binary problem may send two columns instead of y_score. Send one or the
// other, not both.
//
// # Semantics
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
// # Limits
//
// MaxRows (1,000,000) rows, MaxClasses (1000) distinct labels or y_prob
// columns, MaxProbCells (10,000,000) y_prob values. One million binary rows
// with all ten metrics take about 0.2 s on a 2-core development machine
// (BenchmarkCompute1MBinary); decoding their 23 MB of JSON with ParseRequest
// takes about 0.7 s more. The HTTP layer should cap the body size to match.
//
// # Where Vigil differs from scikit-learn on purpose
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
//
// # Testing
//
// testdata/generate.py computes testdata/golden.json with scikit-learn (see
// its header for the pinned versions and how to run it); golden_test.go
// checks every case to 1e-9 relative (1e-15 absolute below 1e-6).
//
// It imports nothing of Vigil: the maths tree stands alone.
package evaluation
