package evaluation

import (
	"errors"
	"strings"
	"testing"
)

func nums(v ...float64) Column     { return Numbers(v...) }
func strs(v ...string) Column      { return Strings(v...) }
func lbl(v float64) *Label         { l := NumberLabel(v); return &l }
func slbl(s string) *Label         { l := StringLabel(s); return &l }
func metrics(m ...string) []string { return m }

// seq returns 0, 1, ..., n-1 (n distinct labels).
func seq(n int) Column {
	v := make([]float64, n)
	for i := range v {
		v[i] = float64(i)
	}
	return Numbers(v...)
}

func TestComputeValidationErrors(t *testing.T) {
	bigRow := make([]float64, 1000)
	bigRow[0] = 1
	tooManyCells := make([][]float64, MaxProbCells/1000+1)
	for i := range tooManyCells {
		tooManyCells[i] = bigRow // aliased rows: cheap
	}
	tests := []struct {
		name   string
		req    Request
		field  string
		metric string
		reason string // substring of the reason
	}{
		{"no metrics", Request{YTrue: nums(0, 1), YPred: nums(0, 1)}, "metric_types", "", "at least one"},
		{"unknown metric", Request{YTrue: nums(0, 1), YPred: nums(0, 1), Metrics: metrics("accuracy", "auc")}, "metric_types", "", `element 1: unknown metric "auc"`},
		{"y_true missing", Request{YPred: nums(0, 1), Metrics: metrics(Accuracy)}, "y_true", "", "is required"},
		{"y_true empty", Request{YTrue: nums(), YPred: nums(), Metrics: metrics(Accuracy)}, "y_true", "", "must not be empty"},
		{"too many rows", Request{YTrue: Numbers(make([]float64, MaxRows+1)...), YPred: Numbers(make([]float64, MaxRows+1)...), Metrics: metrics(Accuracy)}, "y_true", "", "got 1000001, want at most 1000000"},
		{"y_pred missing", Request{YTrue: nums(0, 1), Metrics: metrics(ROCAUC, F1Score)}, "y_pred", "", "required by f1_score"},
		{"y_pred missing regression", Request{YTrue: nums(0, 1), Metrics: metrics(MSE)}, "y_pred", "", "required by mse"},
		{"length mismatch", Request{YTrue: nums(0, 1, 1, 0), YPred: nums(0, 1, 1), Metrics: metrics(Accuracy)}, "y_pred", "", "same length as y_true (got 3, want 4)"},
		{"y_true NaN", Request{YTrue: nums(0, nan()), YPred: nums(0, 1), Metrics: metrics(MSE)}, "y_true", "", "element 1 is NaN"},
		{"y_pred Inf", Request{YTrue: nums(0, 1), YPred: nums(inf(), 1), Metrics: metrics(MAE)}, "y_pred", "", "element 0 is +Inf"},
		{"mixed kinds", Request{YTrue: strs("a", "b"), YPred: nums(0, 1), Metrics: metrics(Accuracy)}, "y_pred", "", "mix of label input types"},
		{"unknown average", Request{YTrue: nums(0, 1), YPred: nums(0, 1), Average: "samples", Metrics: metrics(Precision)}, "average", "", `unknown average "samples"`},
		{"labels empty", Request{YTrue: nums(0, 1), YPred: nums(0, 1), Labels: nums(), Metrics: metrics(Precision)}, "labels", "", "must not be empty"},
		{"labels unsorted", Request{YTrue: nums(0, 1), YPred: nums(0, 1), Labels: nums(1, 0), Metrics: metrics(Precision)}, "labels", "", "sorted ascending"},
		{"labels duplicated", Request{YTrue: strs("a"), YPred: strs("a"), Labels: strs("a", "a"), Metrics: metrics(Precision)}, "labels", "", "without duplicates"},
		{"labels kind", Request{YTrue: nums(0, 1), YPred: nums(0, 1), Labels: strs("0", "1"), Metrics: metrics(Precision)}, "labels", "", "mix of label input types"},
		{"labels too many", Request{YTrue: nums(0), YPred: nums(0), Labels: seq(MaxClasses + 1), Metrics: metrics(Accuracy)}, "labels", "", "got 1001, want at most 1000"},
		{"y_true outside labels", Request{YTrue: nums(0, 2), YPred: nums(0, 1), Labels: nums(0, 1), Metrics: metrics(Accuracy)}, "y_true", "", "element 1 is 2, which is not in labels"},
		{"y_pred outside labels", Request{YTrue: nums(0, 1), YPred: nums(0, 5), Labels: nums(0, 1), Metrics: metrics(Recall)}, "y_pred", "", "element 1 is 5"},
		{"too many classes", Request{YTrue: seq(MaxClasses + 1), YPred: seq(MaxClasses + 1), Metrics: metrics(Accuracy)}, "y_true", "", "want at most 1000"},
		{"too many classes via y_pred", Request{YTrue: Numbers(make([]float64, MaxClasses+1)...), YPred: seq(MaxClasses + 1), Metrics: metrics(Accuracy)}, "y_pred", "", "want at most 1000"},
		{"continuous both", Request{YTrue: nums(0.5, 1.5), YPred: nums(0.5, 1.5), Metrics: metrics(Accuracy)}, "y_true", Accuracy, "continuous targets are not supported"},
		{"continuous y_pred", Request{YTrue: nums(0, 1), YPred: nums(0.2, 1), Metrics: metrics(F1Score)}, "y_pred", F1Score, "element 0 is 0.2"},
		{"continuous y_true", Request{YTrue: nums(0.2, 1), YPred: nums(0, 1), Metrics: metrics(Precision)}, "y_true", Precision, "mix of continuous"},
		{"continuous huge", Request{YTrue: nums(1e20, 0), YPred: nums(1e20, 0), Metrics: metrics(Accuracy)}, "y_true", Accuracy, "element 0 is 1e+20"},
		{"continuous prob", Request{YTrue: nums(0.2, 1), YScore: []float64{0.1, 0.9}, Metrics: metrics(ROCAUC)}, "y_true", ROCAUC, "continuous"},
		{"pos_label kind", Request{YTrue: nums(0, 1), YPred: nums(0, 1), PosLabel: slbl("1"), Metrics: metrics(Precision)}, "pos_label", "", "is a string but y_true holds numbers"},
		{"pos_label not present", Request{YTrue: nums(0, 1), YPred: nums(0, 1), PosLabel: lbl(2), Metrics: metrics(Precision)}, "pos_label", Precision, "2 is not a valid label, want one of [0 1]"},
		{"pos_label not declared", Request{YTrue: nums(0, 1), YPred: nums(0, 1), Labels: nums(0, 1), PosLabel: lbl(3), Metrics: metrics(Recall)}, "pos_label", Recall, "not in labels"},
		{"pos_label needed for single string", Request{YTrue: strs("ham", "ham"), YPred: strs("ham", "ham"), Metrics: metrics(Precision)}, "pos_label", Precision, `single label ["ham"]`},
		{"binary on multiclass", Request{YTrue: nums(0, 1, 2), YPred: nums(0, 1, 1), Average: AverageBinary, Metrics: metrics(F1Score)}, "average", F1Score, "got 3 [0 1 2]"},
		{"score and prob", Request{YTrue: nums(0, 1), YScore: []float64{0, 1}, YProb: [][]float64{{1, 0}, {0, 1}}, Metrics: metrics(ROCAUC)}, "y_prob", "", "together with y_score"},
		{"no scores", Request{YTrue: nums(0, 1), YPred: nums(0, 1), Metrics: metrics(ROCAUC)}, "y_score", ROCAUC, "is required (or y_prob)"},
		{"y_score length", Request{YTrue: nums(0, 1), YScore: []float64{0.5}, Metrics: metrics(ROCAUC)}, "y_score", "", "(got 1, want 2)"},
		{"y_score NaN", Request{YTrue: nums(0, 1), YScore: []float64{0.5, nan()}, Metrics: metrics(LogLoss)}, "y_score", "", "element 1 is NaN"},
		{"y_prob rows", Request{YTrue: nums(0, 1), YProb: [][]float64{{1, 0}}, Metrics: metrics(LogLoss)}, "y_prob", "", "got 1 rows, want 2"},
		{"y_prob ragged", Request{YTrue: nums(0, 1, 2), YProb: [][]float64{{1, 0, 0}, {0, 1}, {0, 0, 1}}, Metrics: metrics(LogLoss)}, "y_prob", "", "row 1 has 2 columns, want 3"},
		{"y_prob one column", Request{YTrue: nums(0, 1), YProb: [][]float64{{1}, {0}}, Metrics: metrics(LogLoss)}, "y_prob", "", "at least 2 (got 1)"},
		{"y_prob NaN", Request{YTrue: nums(0, 1), YProb: [][]float64{{1, 0}, {0, nan()}}, Metrics: metrics(LogLoss)}, "y_prob", "", "row 1 column 1 is NaN"},
		{"y_prob too many columns", Request{YTrue: nums(0), YProb: [][]float64{make([]float64, MaxClasses+1)}, Metrics: metrics(LogLoss)}, "y_prob", "", "got 1001, want at most 1000"},
		{"y_prob too many cells", Request{YTrue: Numbers(make([]float64, len(tooManyCells))...), YProb: tooManyCells, Metrics: metrics(LogLoss)}, "y_prob", "", "want at most 10000000 values"},
		{"y_prob columns vs classes", Request{YTrue: nums(0, 1, 2), YProb: [][]float64{{1, 0}, {0, 1}, {0, 1}}, Metrics: metrics(LogLoss)}, "y_prob", LogLoss, "has 2 columns but there are 3 classes [0 1 2]"},
		{"y_score multiclass", Request{YTrue: nums(0, 1, 2), YScore: []float64{0.1, 0.2, 0.3}, Metrics: metrics(ROCAUC)}, "y_score", ROCAUC, "there are 3 classes"},
		{"roc_auc single class", Request{YTrue: nums(1, 1), YScore: []float64{0.1, 0.2}, Metrics: metrics(ROCAUC)}, "y_true", ROCAUC, "single class (got only 1)"},
		{"roc_auc single class declared", Request{YTrue: nums(1, 1), YScore: []float64{0.1, 0.2}, Labels: nums(0, 1), Metrics: metrics(ROCAUC)}, "y_true", ROCAUC, "single class (got only 1)"},
		{"roc_auc multiclass binary average", Request{YTrue: nums(0, 1, 2), YProb: [][]float64{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, Average: AverageBinary, Metrics: metrics(ROCAUC)}, "average", ROCAUC, "binary does not apply to 3 classes"},
		{"roc_auc macro absent class", Request{YTrue: nums(0, 1, 1), YProb: [][]float64{{1, 0, 0}, {0, 1, 0}, {0, 1, 0}}, Labels: nums(0, 1, 2), Metrics: metrics(ROCAUC)}, "y_true", ROCAUC, "class 2, which does not occur in y_true"},
		{"roc_auc unnormalised", Request{YTrue: nums(0, 1, 2), YProb: [][]float64{{0.5, 0, 0}, {0, 1, 0}, {0, 0, 1}}, Metrics: metrics(ROCAUC)}, "y_prob", ROCAUC, "row 0 sums to 0.5"},
		{"roc_auc pos_label not a class", Request{YTrue: nums(0, 1), YScore: []float64{0.1, 0.2}, PosLabel: lbl(7), Metrics: metrics(ROCAUC)}, "pos_label", ROCAUC, "7 is not one of the classes [0 1]"},
		{"log_loss single label", Request{YTrue: strs("a", "a"), YScore: []float64{0.1, 0.2}, Metrics: metrics(LogLoss)}, "y_true", LogLoss, `single label ("a")`},
		{"log_loss above one", Request{YTrue: nums(0, 1), YScore: []float64{0.1, 1.5}, Metrics: metrics(LogLoss)}, "y_score", LogLoss, "greater than 1 (max 1.5)"},
		{"log_loss above one", Request{YTrue: nums(0, 1), YProb: [][]float64{{1.1, -0.1}, {0, 1}}, Metrics: metrics(LogLoss)}, "y_prob", LogLoss, "greater than 1 (max 1.1)"},
		{"log_loss negative", Request{YTrue: nums(0, 1), YProb: [][]float64{{0.9, -0.1}, {0, 1}}, Metrics: metrics(LogLoss)}, "y_prob", LogLoss, "lower than 0 (min -0.1)"},
		{"regression on strings", Request{YTrue: strs("1", "2"), YPred: strs("1", "2"), Metrics: metrics(MSE)}, "y_true", MSE, "need numbers, got strings"},
		{"r2 one row", Request{YTrue: nums(1), YPred: nums(2), Metrics: metrics(MSE, R2)}, "y_true", R2, "got 1, want at least 2"},
		{"mse overflow", Request{YTrue: nums(1e308, -1e308), YPred: nums(-1e308, 1e308), Metrics: metrics(MSE)}, "y_pred", MSE, "overflows float64 (got +Inf)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Compute(tt.req)
			if err == nil {
				t.Fatalf("got %v, want an error on %s", res.Metrics, tt.field)
			}
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("error %v does not wrap ErrInvalid", err)
			}
			var fe *FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("got %T %v, want *FieldError", err, err)
			}
			if fe.Field != tt.field || fe.Metric != tt.metric {
				t.Errorf("got field %q metric %q, want field %q metric %q (%v)", fe.Field, fe.Metric, tt.field, tt.metric, err)
			}
			if !strings.Contains(fe.Reason, tt.reason) {
				t.Errorf("got reason %q, want it to contain %q", fe.Reason, tt.reason)
			}
		})
	}
}

func TestFieldErrorMessage(t *testing.T) {
	tests := []struct {
		err  *FieldError
		want string
	}{
		{&FieldError{Field: "y_pred", Reason: "must have the same length as y_true (got 3, want 4)"}, "y_pred: must have the same length as y_true (got 3, want 4)"},
		{&FieldError{Field: "y_true", Metric: "r2", Reason: "too short"}, "r2: y_true: too short"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("got %q, want %q", got, tt.want)
		}
	}
}

// TestLimitsAccepted checks that the documented limits themselves pass.
func TestLimitsAccepted(t *testing.T) {
	req := Request{YTrue: seq(MaxClasses), YPred: seq(MaxClasses), Metrics: metrics(Accuracy, F1Score)}
	res, err := Compute(req)
	if err != nil {
		t.Fatalf("%d classes: got error %v, want success", MaxClasses, err)
	}
	if got := res.Metrics[Accuracy]; got != 1 {
		t.Errorf("accuracy: got %v, want 1", got)
	}
	rows := Numbers(make([]float64, MaxRows)...)
	if _, err := Compute(Request{YTrue: rows, YPred: rows, Metrics: metrics(MSE)}); err != nil {
		t.Errorf("%d rows: got error %v, want success", MaxRows, err)
	}
}

func TestMetricNamesAllAccepted(t *testing.T) {
	for _, m := range MetricNames {
		req := Request{YTrue: nums(0, 1, 1, 0), YPred: nums(0, 1, 0, 0), YScore: []float64{0.1, 0.8, 0.4, 0.3}, Metrics: metrics(m, m)}
		res, err := Compute(req)
		if err != nil {
			t.Errorf("%s: got error %v, want success", m, err)
			continue
		}
		if len(res.Metrics) != 1 {
			t.Errorf("%s twice: got %d metrics, want 1", m, len(res.Metrics))
		}
	}
}
