package lime

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// ErrInvalid is wrapped by every error about input that cannot be fitted:
// an API answers 422 for it.
var ErrInvalid = errors.New("invalid LIME input")

// Input is one perturbation sample and what to fit on it.
type Input struct {
	// Scaled holds the sample's rows in the explainer's scaled space; row 0
	// is the explained instance.
	Scaled [][]float64
	// Labels holds the model's output for each row.
	Labels []float64
	// KernelWidth is the kernel's width (0: 0.75·√features).
	KernelWidth float64
	// NumFeatures is how many features the explanation keeps (0: all).
	NumFeatures int
	// Selection is "auto" (default), "none", "forward_selection" or
	// "highest_weights".
	Selection string
}

// A Weight is one feature's weight in the surrogate.
type Weight struct {
	Feature int
	Weight  float64
}

// An Explanation is the fitted surrogate.
type Explanation struct {
	Intercept float64
	Weights   []Weight // by decreasing |weight|, as lime's local_exp
	Score     float64  // weighted R² of the surrogate on the sample
	LocalPred float64  // the surrogate's prediction at row 0
}

// Explain fits the surrogate.
func Explain(in Input) (Explanation, error) {
	n := len(in.Scaled)
	if n < 2 || len(in.Labels) != n {
		return Explanation{}, fmt.Errorf("%w: %d rows and %d labels; want at least 2 of each, as many", ErrInvalid, n, len(in.Labels))
	}
	m := len(in.Scaled[0])
	for i, r := range in.Scaled {
		if len(r) != m {
			return Explanation{}, fmt.Errorf("%w: row %d has %d features, row 0 %d", ErrInvalid, i, len(r), m)
		}
	}
	width := in.KernelWidth
	if width == 0 {
		width = math.Sqrt(float64(m)) * 0.75
	}
	if !(width > 0) || math.IsInf(width, 0) {
		return Explanation{}, fmt.Errorf("%w: kernel width %v", ErrInvalid, width)
	}
	k := in.NumFeatures
	if k <= 0 || k > m {
		k = m
	}
	w := make([]float64, n)
	for i, r := range in.Scaled {
		d := 0.0
		for j, v := range r {
			d += (v - in.Scaled[0][j]) * (v - in.Scaled[0][j])
		}
		w[i] = math.Sqrt(math.Exp(-d / (width * width)))
	}
	used, err := selectFeatures(in, w, k)
	if err != nil {
		return Explanation{}, err
	}
	fit, err := ridge(in.Scaled, in.Labels, w, used, 1)
	if err != nil {
		return Explanation{}, err
	}
	ex := Explanation{Intercept: fit.intercept, Score: fit.score(in.Scaled, in.Labels, w, used)}
	ex.LocalPred = fit.predict(in.Scaled[0], used)
	for i, f := range used {
		ex.Weights = append(ex.Weights, Weight{Feature: f, Weight: fit.coef[i]})
	}
	slices.SortStableFunc(ex.Weights, func(a, b Weight) int {
		switch x, y := math.Abs(a.Weight), math.Abs(b.Weight); {
		case x > y:
			return -1
		case x < y:
			return 1
		}
		return 0
	})
	return ex, nil
}

// selectFeatures picks k features as lime's feature_selection does.
func selectFeatures(in Input, w []float64, k int) ([]int, error) {
	m := len(in.Scaled[0])
	method := in.Selection
	if method == "" || method == "auto" {
		method = "highest_weights"
		if k <= 6 {
			method = "forward_selection"
		}
	}
	switch method {
	case "none":
		return seq(m), nil
	case "forward_selection":
		var used []int
		for range k {
			best, bestScore := 0, -1e8
			for f := range m {
				if slices.Contains(used, f) {
					continue
				}
				cols := append(slices.Clone(used), f)
				fit, err := ridge(in.Scaled, in.Labels, w, cols, 0)
				if err != nil {
					return nil, err
				}
				if s := fit.score(in.Scaled, in.Labels, w, cols); s > bestScore {
					best, bestScore = f, s
				}
			}
			used = append(used, best)
		}
		return used, nil
	case "highest_weights":
		all := seq(m)
		fit, err := ridge(in.Scaled, in.Labels, w, all, 0.01)
		if err != nil {
			return nil, err
		}
		order := seq(m)
		slices.SortStableFunc(order, func(a, b int) int {
			x, y := math.Abs(fit.coef[a]*in.Scaled[0][a]), math.Abs(fit.coef[b]*in.Scaled[0][b])
			switch {
			case x > y:
				return -1
			case x < y:
				return 1
			}
			return 0
		})
		return order[:k], nil
	}
	return nil, fmt.Errorf("%w: feature selection %q", ErrInvalid, in.Selection)
}

// seq returns 0..n−1.
func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}
