package evaluation

import "math"

// aucCounts returns twice the Mann-Whitney U statistic (pairs where the
// positive scores higher count 2, ties count 1) and the number of positive
// and negative scores. It sorts ps and ns in place.
func aucCounts(ps, ns []float64) (twoU, nPos, nNeg int64) {
	sortFloats(ps)
	sortFloats(ns)
	// Walk the positives in ascending order; lo counts negatives strictly
	// below the current score, hi those at or below it.
	lo, hi := 0, 0
	for _, s := range ps {
		for lo < len(ns) && ns[lo] < s {
			lo++
		}
		if hi < lo {
			hi = lo
		}
		for hi < len(ns) && ns[hi] <= s {
			hi++
		}
		twoU += int64(lo) + int64(hi)
	}
	return twoU, int64(len(ps)), int64(len(ns))
}

// binaryAUC is the area under the ROC curve, exactly as roc_auc_score's
// trapezoidal rule over the distinct thresholds (ties score one half), but
// computed from exact pair counts and rounded once. NaN when one side is
// empty (scikit-learn warns and returns NaN).
func binaryAUC(scores []float64, pos func(i int) bool) float64 {
	nPos := 0
	for i := range scores {
		if pos(i) {
			nPos++
		}
	}
	ps, ns := make([]float64, 0, nPos), make([]float64, 0, len(scores)-nPos)
	for i, s := range scores {
		if pos(i) {
			ps = append(ps, s)
		} else {
			ns = append(ns, s)
		}
	}
	return splitAUC(ps, ns)
}

// splitAUC is binaryAUC for scores already split into positives and
// negatives (both sorted in place).
func splitAUC(ps, ns []float64) float64 {
	twoU, p, n := aucCounts(ps, ns)
	if p == 0 || n == 0 {
		return math.NaN()
	}
	return float64(twoU) / float64(2*p*n)
}

// checkProbRows mirrors the multiclass roc_auc check
// np.allclose(1, y_score.sum(axis=1)).
func checkProbRows(rows [][]float64) error {
	for i, row := range rows {
		s := pairwiseSum(row)
		if !(math.Abs(1-s) <= 1e-8+1e-5*math.Abs(s)) {
			return metricErr(ROCAUC, "y_prob", "row %d sums to %v: multiclass roc_auc needs probabilities that sum to 1 over the classes", i, s)
		}
	}
	return nil
}

// rocAUC computes roc_auc: binary from y_score or a two-column y_prob,
// multiclass one-vs-rest (macro by default; weighted and micro on request).
func (p *probInput) rocAUC(req *Request) (float64, error) {
	if p.inTrue() < 2 {
		return 0, metricErr(ROCAUC, "y_true", "roc_auc is undefined when y_true holds a single class (got only %s)", p.classes.label(int(p.yTrue[0])))
	}
	if p.classes.len() == 2 {
		scores, pos := p.binaryScores(req)
		return binaryAUC(scores, func(i int) bool { return p.yTrue[i] == pos }), nil
	}
	avg := req.Average
	switch avg {
	case "":
		avg = AverageMacro
	case AverageBinary:
		return 0, metricErr(ROCAUC, "average", "binary does not apply to %d classes; want macro, weighted or micro", p.classes.len())
	}
	if err := checkProbRows(req.YProb); err != nil {
		return 0, err
	}
	n, k := len(req.YProb), p.classes.len()
	if avg == AverageMicro {
		ps := make([]float64, 0, n)
		ns := make([]float64, 0, n*(k-1))
		for i, row := range req.YProb {
			for c, s := range row {
				if int(p.yTrue[i]) == c {
					ps = append(ps, s)
				} else {
					ns = append(ns, s)
				}
			}
		}
		return splitAUC(ps, ns), nil
	}
	aucs := make([]float64, k)
	weights := make([]float64, k)
	col := make([]float64, n)
	for c := 0; c < k; c++ {
		weights[c] = float64(p.trueCount[c])
		if p.trueCount[c] == 0 && avg == AverageWeighted {
			continue // scikit-learn forces zero-weight scores to 0
		}
		for i, row := range req.YProb {
			col[i] = row[c]
		}
		aucs[c] = binaryAUC(col, func(i int) bool { return int(p.yTrue[i]) == c })
		if math.IsNaN(aucs[c]) {
			return 0, metricErr(ROCAUC, "y_true", "one-vs-rest roc_auc is undefined for class %s, which %s; scikit-learn returns NaN (use average weighted or micro, or a window with every class)", p.classes.label(c), absentOrAll(p.trueCount[c]))
		}
	}
	if avg == AverageWeighted {
		return weightedMean(aucs, weights), nil
	}
	return mean(aucs), nil
}

func absentOrAll(count int) string {
	if count == 0 {
		return "does not occur in y_true"
	}
	return "is every row of y_true"
}
