package evaluation

import "fmt"

// labeled is y_true and y_pred encoded as ids into a sorted class set: the
// declared labels, or the union of the values of both columns.
type labeled struct {
	classes   classSet
	declared  bool
	yTrue     []int32
	yPred     []int32 // nil when only y_true was encoded
	trueCount []int
	predCount []int
}

// encodeLabels encodes y_true and (if non-nil) y_pred for classification,
// after scikit-learn's target-type checks. metric names the metric in errors.
func encodeLabels(req *Request, withPred bool, metric string) (*labeled, error) {
	if !req.YTrue.isStr {
		t := firstContinuous(req.YTrue.nums)
		p := -1
		if withPred {
			p = firstContinuous(req.YPred.nums)
		}
		switch {
		case t >= 0 && (p >= 0 || !withPred):
			return nil, metricErr(metric, "y_true", "continuous targets are not supported by classification metrics (element %d is %v, want integral class labels)", t, req.YTrue.nums[t])
		case t >= 0:
			return nil, metricErr(metric, "y_true", "classification metrics can't handle a mix of continuous y_true and class-label y_pred (element %d is %v)", t, req.YTrue.nums[t])
		case p >= 0:
			return nil, metricErr(metric, "y_pred", "classification metrics can't handle a mix of class-label y_true and continuous y_pred (element %d is %v, want integral class labels)", p, req.YPred.nums[p])
		}
	}
	enc := newEncoder(req.YTrue.isStr)
	l := &labeled{declared: req.Labels.Present()}
	if l.declared {
		enc.declare(req.Labels)
	}
	var err error
	if l.yTrue, err = enc.encode("y_true", req.YTrue); err != nil {
		return nil, err
	}
	if withPred {
		if l.yPred, err = enc.encode("y_pred", req.YPred); err != nil {
			return nil, err
		}
	}
	l.classes = enc.finish(l.yTrue, l.yPred)
	k := l.classes.len()
	l.trueCount = make([]int, k)
	for _, c := range l.yTrue {
		l.trueCount[c]++
	}
	if withPred {
		l.predCount = make([]int, k)
		for _, c := range l.yPred {
			l.predCount[c]++
		}
	}
	return l, nil
}

// present counts the classes occurring in y_true or y_pred.
func (l *labeled) present() (n, last int) {
	last = -1
	for c := range l.trueCount {
		if l.trueCount[c] > 0 || (l.predCount != nil && l.predCount[c] > 0) {
			n, last = n+1, c
		}
	}
	return n, last
}

// presentSet lists the classes occurring in y_true or y_pred.
func (l *labeled) presentSet() classSet {
	keep := make([]bool, l.classes.len())
	for c := range keep {
		keep[c] = l.trueCount[c] > 0 || (l.predCount != nil && l.predCount[c] > 0)
	}
	s, _ := l.classes.subset(keep)
	return s
}

// accuracy is the fraction of rows with y_pred == y_true.
func (l *labeled) accuracy() float64 {
	hits := 0
	for i, t := range l.yTrue {
		if l.yPred[i] == t {
			hits++
		}
	}
	return float64(hits) / float64(len(l.yTrue))
}

// averaging is the resolved average for precision/recall/f1_score.
type averaging struct {
	mode     string
	pos      int    // binary: class id of the positive label, -1 if absent
	posLabel *Label // binary: the positive label
}

// resolveAverage applies the default average and positive label and the
// checks scikit-learn makes in _check_set_wise_labels.
func (l *labeled) resolveAverage(req *Request, metric string) (averaging, []string, error) {
	nPresent, lastPresent := l.present()
	a := averaging{mode: req.Average, pos: -1}
	if a.mode == "" {
		a.mode = AverageWeighted
		if (l.declared && l.classes.len() <= 2) || (!l.declared && nPresent <= 2) {
			a.mode = AverageBinary
		}
	}
	if a.mode != AverageBinary {
		var warns []string
		if req.PosLabel != nil {
			warns = append(warns, fmt.Sprintf("pos_label (%s) is ignored when average is %s", req.PosLabel, a.mode))
		}
		return a, warns, nil
	}
	if nPresent > 2 {
		return a, nil, metricErr(metric, "average", "binary needs at most two labels, got %d %s; want macro, micro or weighted", nPresent, l.presentSet())
	}
	if p := req.PosLabel; p != nil {
		a.posLabel = p
		a.pos = l.classes.index(*p)
		if l.declared && a.pos < 0 {
			return a, nil, metricErr(metric, "pos_label", "%s is not in labels %s", p, l.classes)
		}
		if a.pos < 0 || (l.trueCount[a.pos] == 0 && l.predCount[a.pos] == 0) {
			a.pos = -1
			if nPresent == 2 {
				return a, nil, metricErr(metric, "pos_label", "%s is not a valid label, want one of %s", p, l.presentSet())
			}
		}
		return a, nil, nil
	}
	switch {
	case l.declared && l.classes.len() == 2:
		a.pos = 1
	case nPresent == 2:
		a.pos = lastPresent
	case !l.classes.isStr:
		// A single label: scikit-learn's own default, pos_label=1.
		one := NumberLabel(1)
		a.posLabel = &one
		a.pos = l.classes.index(one)
		return a, nil, nil
	default:
		return a, nil, metricErr(metric, "pos_label", "is required: y_true and y_pred hold the single label %s, so the positive class cannot be inferred; send pos_label or labels", l.presentSet())
	}
	pl := l.classes.label(a.pos)
	a.posLabel = &pl
	return a, nil, nil
}

// prf returns precision, recall and F1 under the averaging, with
// zero_division=0, exactly as precision_recall_fscore_support computes them,
// and scikit-learn's UndefinedMetricWarning texts.
func (l *labeled) prf(a averaging) (p, r, f float64, warns prfWarnings) {
	k := l.classes.len()
	tp := make([]float64, k)
	for i, t := range l.yTrue {
		if l.yPred[i] == t {
			tp[t]++
		}
	}
	var ids []int
	switch a.mode {
	case AverageBinary:
		ids = []int{a.pos} // -1: the positive label never occurs
	default:
		ids = make([]int, k)
		for c := range ids {
			ids[c] = c
		}
	}
	tps := make([]float64, len(ids))
	preds := make([]float64, len(ids))
	trues := make([]float64, len(ids))
	for j, c := range ids {
		if c >= 0 {
			tps[j], preds[j], trues[j] = tp[c], float64(l.predCount[c]), float64(l.trueCount[c])
		}
	}
	if a.mode == AverageMicro {
		tps = []float64{pairwiseSum(tps)}
		preds = []float64{pairwiseSum(preds)}
		trues = []float64{pairwiseSum(trues)}
		ids = []int{-1}
	}
	ps := make([]float64, len(ids))
	rs := make([]float64, len(ids))
	fs := make([]float64, len(ids))
	for j := range ids {
		ps[j] = divideOrZero(tps[j], preds[j], &warns.precision, l, ids[j])
		rs[j] = divideOrZero(tps[j], trues[j], &warns.recall, l, ids[j])
		fs[j] = divideOrZero(2*tps[j], trues[j]+preds[j], &warns.fscore, l, ids[j])
	}
	warns.many = len(ids) > 1
	if a.mode == AverageWeighted {
		return weightedMean(ps, trues), weightedMean(rs, trues), weightedMean(fs, trues), warns
	}
	return mean(ps), mean(rs), mean(fs), warns
}

// divideOrZero is _prf_divide with zero_division=0, noting the label.
func divideOrZero(num, den float64, undefined *[]string, l *labeled, c int) float64 {
	if den == 0 {
		name := "(all)"
		if c >= 0 {
			name = l.classes.label(c).String()
		}
		*undefined = append(*undefined, name)
		return 0
	}
	return num / den
}

// weightedMean is np.average(a, weights=w); all-zero weights fall back to
// the plain mean, as scikit-learn's _nanaverage does.
func weightedMean(a, w []float64) float64 {
	aw := make([]float64, len(a))
	for i := range a {
		aw[i] = a[i] * w[i]
	}
	scale := pairwiseSum(w)
	if scale == 0 {
		return mean(a)
	}
	return pairwiseSum(aw) / scale
}

// prfWarnings lists the labels whose precision, recall or F-score was
// ill-defined (a zero denominator).
type prfWarnings struct {
	precision, recall, fscore []string
	many                      bool
}

// messages renders scikit-learn's UndefinedMetricWarning for metric.
func (w prfWarnings) messages(metric string) []string {
	var labels []string
	var what, modifier string
	switch metric {
	case Precision:
		labels, what, modifier = w.precision, "Precision", "predicted"
	case Recall:
		labels, what, modifier = w.recall, "Recall", "true"
	default:
		labels, what, modifier = w.fscore, "F-score", "true nor predicted"
	}
	if len(labels) == 0 {
		return nil
	}
	if !w.many {
		return []string{fmt.Sprintf("%s: %s is ill-defined and being set to 0.0 due to no %s samples", metric, what, modifier)}
	}
	return []string{fmt.Sprintf("%s: %s is ill-defined and being set to 0.0 in labels with no %s samples: %v", metric, what, modifier, labels)}
}
