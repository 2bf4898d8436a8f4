package evaluation

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestResolvedAverageAndPosLabel checks the defaults Result reports.
func TestResolvedAverageAndPosLabel(t *testing.T) {
	prf := metrics(Precision, Recall, F1Score)
	tests := []struct {
		name    string
		req     Request
		average string
		pos     string // Label.String(), "" for none
	}{
		{"binary 0/1", Request{YTrue: nums(0, 1, 1), YPred: nums(0, 1, 0), Metrics: prf}, AverageBinary, "1"},
		{"binary 1/2 takes the larger", Request{YTrue: nums(1, 2), YPred: nums(1, 1), Metrics: prf}, AverageBinary, "2"},
		{"binary strings", Request{YTrue: strs("spam", "ham"), YPred: strs("ham", "ham"), Metrics: prf}, AverageBinary, `"spam"`},
		{"single numeric label", Request{YTrue: nums(0, 0), YPred: nums(0, 0), Metrics: prf}, AverageBinary, "1"},
		{"declared two labels", Request{YTrue: strs("a", "a"), YPred: strs("a", "a"), Labels: strs("a", "b"), Metrics: prf}, AverageBinary, `"b"`},
		{"explicit pos_label", Request{YTrue: nums(0, 1), YPred: nums(0, 1), PosLabel: lbl(0), Metrics: prf}, AverageBinary, "0"},
		{"multiclass", Request{YTrue: nums(0, 1, 2), YPred: nums(0, 1, 1), Metrics: prf}, AverageWeighted, ""},
		{"label only in y_pred makes it multiclass", Request{YTrue: nums(0, 1, 1), YPred: nums(0, 1, 2), Metrics: prf}, AverageWeighted, ""},
		{"declared three labels", Request{YTrue: nums(0, 1), YPred: nums(0, 1), Labels: nums(0, 1, 2), Metrics: prf}, AverageWeighted, ""},
		{"roc_auc only", Request{YTrue: strs("x", "y"), YScore: []float64{0.2, 0.8}, Metrics: metrics(ROCAUC)}, "", `"y"`},
		{"accuracy only", Request{YTrue: nums(0, 1), YPred: nums(0, 1), Metrics: metrics(Accuracy)}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Compute(tt.req)
			if err != nil {
				t.Fatalf("Compute: %v", err)
			}
			pos := ""
			if res.PosLabel != nil {
				pos = res.PosLabel.String()
			}
			if res.Average != tt.average || pos != tt.pos {
				t.Errorf("got average %q pos_label %q, want %q %q", res.Average, pos, tt.average, tt.pos)
			}
		})
	}
}

func TestWarnings(t *testing.T) {
	tests := []struct {
		name string
		req  Request
		want []string // substrings, one warning each, in order
	}{
		{"no positive prediction", Request{YTrue: nums(0, 1), YPred: nums(0, 0), Metrics: metrics(Precision, Recall)},
			[]string{"precision: Precision is ill-defined and being set to 0.0 due to no predicted samples"}},
		{"macro with absent labels", Request{YTrue: nums(0, 1, 2), YPred: nums(0, 1, 1), Labels: nums(0, 1, 2, 3), Average: AverageMacro, Metrics: metrics(Precision, Recall, F1Score)},
			[]string{"in labels with no predicted samples: [2 3]", "in labels with no true samples: [3]", "in labels with no true nor predicted samples: [3]"}},
		{"pos_label ignored", Request{YTrue: nums(0, 1), YPred: nums(0, 1), PosLabel: lbl(0), Average: AverageMacro, Metrics: metrics(F1Score)},
			[]string{"pos_label (0) is ignored when average is macro"}},
		{"unnormalised log_loss", Request{YTrue: nums(0, 1), YProb: [][]float64{{0.4, 0.4}, {0.1, 0.9}}, Metrics: metrics(LogLoss)},
			[]string{"row 0 sums to 0.8"}},
		{"none", Request{YTrue: nums(0, 1), YPred: nums(0, 1), Metrics: metrics(Precision, Recall, F1Score)}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Compute(tt.req)
			if err != nil {
				t.Fatalf("Compute: %v", err)
			}
			if len(res.Warnings) != len(tt.want) {
				t.Fatalf("got %d warnings %q, want %d", len(res.Warnings), res.Warnings, len(tt.want))
			}
			for i, w := range tt.want {
				if !strings.Contains(res.Warnings[i], w) {
					t.Errorf("warning %d: got %q, want it to contain %q", i, res.Warnings[i], w)
				}
			}
		})
	}
}

// TestComputeDoesNotModifyRequest guards the caller's slices.
func TestComputeDoesNotModifyRequest(t *testing.T) {
	yt, yp := []float64{2, 0, 1, 2}, []float64{2, 1, 1, 0}
	prob := [][]float64{{0.1, 0.2, 0.7}, {0.5, 0.3, 0.2}, {0.2, 0.6, 0.2}, {0.3, 0.3, 0.4}}
	req := Request{YTrue: Numbers(yt...), YPred: Numbers(yp...), YProb: prob, Metrics: MetricNames}
	before := []any{slices.Clone(yt), slices.Clone(yp), [][]float64{slices.Clone(prob[0]), slices.Clone(prob[1]), slices.Clone(prob[2]), slices.Clone(prob[3])}}
	if _, err := Compute(req); err != nil {
		t.Fatalf("Compute: %v", err)
	}
	after := []any{yt, yp, prob}
	for i := range before {
		if !equalAny(before[i], after[i]) {
			t.Errorf("input %d modified: got %v, want %v", i, after[i], before[i])
		}
	}
}

func equalAny(a, b any) bool {
	switch a := a.(type) {
	case []float64:
		return slices.Equal(a, b.([]float64))
	case [][]float64:
		return slices.EqualFunc(a, b.([][]float64), slices.Equal)
	}
	return false
}

// TestPairwiseSumOf checks the streaming sum against the slice sum, which
// golden.json checks against NumPy.
func TestPairwiseSumOf(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 7, 8, 9, 127, 128, 129, 130, 1000, 4097, 100_003} {
		a := make([]float64, n)
		for i := range a {
			a[i] = r.NormFloat64() * float64(1+i%97)
		}
		got := pairwiseSumOf(n, func(dst []float64, off int) { copy(dst, a[off:off+len(dst)]) })
		if want := pairwiseSum(a); got != want {
			t.Errorf("n=%d: got %v, want %v", n, got, want)
		}
	}
}

func TestSortFloats(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	gens := map[string]func() float64{
		"normal": func() float64 { return r.NormFloat64() },
		"wide":   func() float64 { return r.NormFloat64() * float64(int64(1)<<r.IntN(60)) },
		"ties":   func() float64 { return float64(r.IntN(7)) / 10 },
		"zeros":  func() float64 { return []float64{0, negZero(), 1e-310, -1e-310}[r.IntN(4)] },
		"extremes": func() float64 {
			return []float64{math.MaxFloat64, -math.MaxFloat64, math.SmallestNonzeroFloat64, 0.5}[r.IntN(4)]
		},
	}
	for name, gen := range gens {
		for _, n := range []int{0, 1, 100, 4095, 4096, 50_000} {
			a := make([]float64, n)
			for i := range a {
				a[i] = gen()
			}
			want := slices.Clone(a)
			for i := range want {
				want[i] += 0 // -0 + 0 = +0
			}
			slices.Sort(want)
			sortFloats(a)
			if !slices.Equal(a, want) {
				t.Errorf("%s n=%d: radix sort differs from slices.Sort", name, n)
			}
			for i, v := range a {
				if v == 0 && math.Signbit(v) {
					t.Errorf("%s n=%d: element %d is -0, want +0", name, n, i)
					break
				}
			}
		}
	}
}
