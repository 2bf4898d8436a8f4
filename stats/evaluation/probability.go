package evaluation

import (
	"fmt"
	"math"
)

// probInput is y_true encoded against the classes that index the score
// columns: the declared labels, or the sorted distinct values of y_true
// (scikit-learn's LabelBinarizer order).
type probInput struct {
	classes   classSet
	yTrue     []int32
	trueCount []int
	// posLabel is the positive class when binary scores are used.
	posLabel *Label
}

// probClasses derives the score-column classes from an encoding of y_true.
func probClasses(l *labeled) *probInput {
	if l.declared {
		return &probInput{classes: l.classes, yTrue: l.yTrue, trueCount: l.trueCount}
	}
	keep := make([]bool, l.classes.len())
	for c, n := range l.trueCount {
		keep[c] = n > 0
	}
	set, remap := l.classes.subset(keep)
	p := &probInput{classes: set, yTrue: make([]int32, len(l.yTrue)), trueCount: make([]int, set.len())}
	for i, c := range l.yTrue {
		p.yTrue[i] = remap[c]
	}
	for c, n := range l.trueCount {
		if remap[c] >= 0 {
			p.trueCount[remap[c]] = n
		}
	}
	return p
}

// inTrue counts the classes that occur in y_true.
func (p *probInput) inTrue() int {
	n := 0
	for _, c := range p.trueCount {
		if c > 0 {
			n++
		}
	}
	return n
}

// scoreField names the score input in use.
func scoreField(req *Request) string {
	if req.YProb != nil {
		return "y_prob"
	}
	return "y_score"
}

// checkScores checks that the score input fits the classes, and resolves
// the positive class for binary scores (y_score, or two-column y_prob).
func (p *probInput) checkScores(req *Request, metric string) error {
	k := p.classes.len()
	if req.YScore == nil && req.YProb == nil {
		return metricErr(metric, "y_score", "is required (or y_prob): %s needs scores or probabilities, not y_pred", metric)
	}
	if k < 2 {
		if metric == ROCAUC {
			return metricErr(metric, "y_true", "roc_auc is undefined when y_true holds a single class (got only %s)", p.classes.label(0))
		}
		return metricErr(metric, "y_true", "holds a single label (%s): send every class in labels", p.classes.label(0))
	}
	if req.YScore != nil && k > 2 {
		return metricErr(metric, "y_score", "holds one score per row, for two classes, but there are %d classes %s; send y_prob with one column per class", k, p.classes)
	}
	if req.YProb != nil && len(req.YProb[0]) != k {
		return metricErr(metric, "y_prob", "has %d columns but there are %d classes %s; want one column per class (declare absent classes in labels)", len(req.YProb[0]), k, p.classes)
	}
	if k != 2 {
		return nil
	}
	pos := NumberLabel(0)
	if req.PosLabel != nil {
		pos = *req.PosLabel
		if p.classes.index(pos) < 0 {
			return metricErr(metric, "pos_label", "%s is not one of the classes %s", pos, p.classes)
		}
	} else {
		pos = p.classes.label(1)
	}
	p.posLabel = &pos
	return nil
}

// binaryScores returns the positive-class score of each row and whether
// each row is positive.
func (p *probInput) binaryScores(req *Request) (scores []float64, pos int32) {
	pos = int32(p.classes.index(*p.posLabel))
	if req.YScore != nil {
		return req.YScore, pos
	}
	scores = make([]float64, len(req.YProb))
	for i, row := range req.YProb {
		scores[i] = row[pos]
	}
	return scores, pos
}

// logLoss is scikit-learn's log_loss (1.9): probabilities outside [0, 1] are
// an error, rows that do not sum to 1 only warn (they are not renormalised),
// and every probability is clipped to [eps, 1-eps] with eps the float64
// machine epsilon before the log.
func (p *probInput) logLoss(req *Request) (float64, []string, error) {
	if err := checkUnitInterval(req); err != nil {
		return 0, nil, err
	}
	const eps = 0x1p-52
	var warns []string
	n := len(p.yTrue)
	if req.YScore != nil {
		pos, s := int32(p.classes.index(*p.posLabel)), req.YScore
		return pairwiseSumOf(n, func(dst []float64, off int) {
			for j := range dst {
				q := s[off+j]
				if p.yTrue[off+j] != pos {
					q = 1 - q
				}
				dst[j] = -math.Log(min(max(q, eps), 1-eps))
			}
		}) / float64(n), nil, nil
	}
	if bad := firstUnnormalised(req.YProb, math.Sqrt(eps), 1e-8); bad >= 0 {
		warns = append(warns, fmt.Sprintf("log_loss: y_prob rows do not sum to one (row %d sums to %v); they are used as given", bad, pairwiseSum(req.YProb[bad])))
	}
	return pairwiseSumOf(n, func(dst []float64, off int) {
		for j := range dst {
			q := req.YProb[off+j][p.yTrue[off+j]]
			dst[j] = -math.Log(min(max(q, eps), 1-eps))
		}
	}) / float64(n), warns, nil
}

// checkUnitInterval mirrors log_loss's range checks on the probabilities.
func checkUnitInterval(req *Request) error {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range req.YScore {
		lo, hi = min(lo, v), max(hi, v)
	}
	for _, row := range req.YProb {
		for _, v := range row {
			lo, hi = min(lo, v), max(hi, v)
		}
	}
	field := scoreField(req)
	if hi > 1 {
		return metricErr(LogLoss, field, "contains values greater than 1 (max %v); want probabilities in [0, 1]", hi)
	}
	if lo < 0 {
		return metricErr(LogLoss, field, "contains values lower than 0 (min %v); want probabilities in [0, 1]", lo)
	}
	return nil
}

// firstUnnormalised returns the first row whose sum s fails
// |s - 1| <= atol + rtol*|1|, or -1.
func firstUnnormalised(rows [][]float64, rtol, atol float64) int {
	for i, row := range rows {
		if s := pairwiseSum(row); !(math.Abs(s-1) <= atol+rtol) {
			return i
		}
	}
	return -1
}
