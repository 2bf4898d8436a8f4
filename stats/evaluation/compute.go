package evaluation

import "math"

// Compute validates req and computes every requested metric. It returns a
// *FieldError (wrapping ErrInvalid) for any input it rejects; on error no
// metric is returned, even those that could have been computed.
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
