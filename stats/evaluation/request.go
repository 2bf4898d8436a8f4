package evaluation

// Metric names accepted in Request.Metrics (the API's metric_types).
const (
	Accuracy  = "accuracy"
	Precision = "precision"
	Recall    = "recall"
	F1Score   = "f1_score"
	ROCAUC    = "roc_auc"
	LogLoss   = "log_loss"
	MSE       = "mse"
	MAE       = "mae"
	RMSE      = "rmse"
	R2        = "r2"
)

// MetricNames lists every accepted metric name.
var MetricNames = []string{Accuracy, Precision, Recall, F1Score, ROCAUC, LogLoss, MSE, MAE, RMSE, R2}

// Averaging modes for precision, recall, f1_score (and, except binary, for
// multiclass roc_auc).
const (
	AverageBinary   = "binary"
	AverageMacro    = "macro"
	AverageMicro    = "micro"
	AverageWeighted = "weighted"
)

// Limits on one request. MaxRows bounds y_true (and so every parallel
// array); MaxClasses bounds the distinct labels and the columns of y_prob;
// MaxProbCells bounds rows x columns of y_prob.
const (
	MaxRows      = 1_000_000
	MaxClasses   = 1000
	MaxProbCells = 10_000_000
)

// Request is the computation part of POST /metrics/calculate. The JSON names
// are the API's; decode bodies with ParseRequest, which names the offending
// field in its errors and rejects nulls inside numeric arrays.
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
type Request struct {
	// YTrue holds the ground truth: numbers (regression targets or class
	// labels) or strings (class labels). Required.
	YTrue Column `json:"y_true"`
	// YPred holds hard predictions, of the same kind and length as YTrue.
	// Required by every metric except roc_auc and log_loss.
	YPred Column `json:"y_pred"`
	// YScore is, for a binary problem, one score per row for the positive
	// class: a probability for log_loss (in [0, 1]), any real-valued score
	// (probability or decision value) for roc_auc.
	YScore []float64 `json:"y_score,omitempty"`
	// YProb is one row of class probabilities per sample, columns in sorted
	// label order (Labels if given, else the sorted distinct values of
	// YTrue). Multiclass roc_auc and log_loss need it; a binary problem may
	// send two columns instead of YScore. Exclusive with YScore.
	YProb [][]float64 `json:"y_prob,omitempty"`
	// Metrics names the metrics to compute (see MetricNames); duplicates
	// are ignored. Required.
	Metrics []string `json:"metric_types"`
	// Average is the averaging for precision, recall and f1_score: binary,
	// macro, micro or weighted. Default: binary when the problem has two
	// labels (or one), weighted otherwise. Multiclass roc_auc uses macro
	// unless Average is macro, micro or weighted.
	Average string `json:"average,omitempty"`
	// PosLabel is the positive class of a binary problem, for
	// precision/recall/f1_score with average binary and for the meaning of
	// YScore. Default: the larger of the two labels in sorted order.
	PosLabel *Label `json:"pos_label,omitempty"`
	// Labels optionally declares every class, sorted ascending, without
	// duplicates; YTrue and YPred must only hold these values. It fixes the
	// columns of YProb, lets a window lack some classes (log_loss, weighted
	// roc_auc) and makes macro averages include classes absent from the
	// window.
	Labels Column `json:"labels"`
}

// Result holds the computed metrics.
type Result struct {
	// Metrics maps each requested metric name to its value.
	Metrics map[string]float64 `json:"metrics"`
	// Average is the averaging applied to precision/recall/f1_score, or ""
	// when none of them was requested.
	Average string `json:"average,omitempty"`
	// PosLabel is the positive class used for a binary average or binary
	// scores, nil when none was needed.
	PosLabel *Label `json:"pos_label,omitempty"`
	// Warnings repeats scikit-learn's warnings for this input: zero
	// divisions set to 0, probability rows that do not sum to 1, an
	// ignored pos_label.
	Warnings []string `json:"warnings,omitempty"`
}
