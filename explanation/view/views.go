package view

import (
	"cmp"
	"math"
	"slices"
)

// Importance is one feature's global importance over a set of
// explanations.
type Importance struct {
	Feature string `json:"feature"`
	// MeanAbs is the mean of |weight| over every explanation of the set (a
	// feature an explanation does not name weighs 0 there); Mean the mean
	// of the weights.
	MeanAbs float64 `json:"mean_abs_weight"`
	Mean    float64 `json:"mean_weight"`
	// Count is how many explanations of the set name the feature.
	Count int `json:"explanations"`
}

// GlobalImportance ranks the features of a set of feature weights by
// mean |weight|, largest first (ties by name): for SHAP values, the
// global feature importance shap's summary plots show.
func GlobalImportance(weights []map[string]float64) []Importance {
	sum, abs, count := map[string]float64{}, map[string]float64{}, map[string]int{}
	for _, w := range weights {
		for f, v := range w {
			sum[f] += v
			abs[f] += math.Abs(v)
			count[f]++
		}
	}
	out := make([]Importance, 0, len(sum))
	n := float64(len(weights))
	for f := range sum {
		out = append(out, Importance{Feature: f, MeanAbs: abs[f] / n, Mean: sum[f] / n, Count: count[f]})
	}
	slices.SortFunc(out, func(a, b Importance) int {
		return cmp.Or(cmp.Compare(b.MeanAbs, a.MeanAbs), cmp.Compare(a.Feature, b.Feature))
	})
	return out
}

// union is the features named by any of ws, sorted.
func union(ws ...map[string]float64) []string {
	seen := map[string]bool{}
	var out []string
	for _, w := range ws {
		for f := range w {
			if !seen[f] {
				seen[f] = true
				out = append(out, f)
			}
		}
	}
	slices.Sort(out)
	return out
}

// vector is w over features, 0 where w names none.
func vector(w map[string]float64, features []string) []float64 {
	out := make([]float64, len(features))
	for i, f := range features {
		out[i] = w[f]
	}
	return out
}

// Cosine is the cosine similarity of x and y; nil when either is all
// zeros.
func Cosine(x, y []float64) *float64 {
	var xy, xx, yy float64
	for i := range x {
		xy, xx, yy = xy+x[i]*y[i], xx+x[i]*x[i], yy+y[i]*y[i]
	}
	if xx == 0 || yy == 0 {
		return nil
	}
	c := xy / math.Sqrt(xx*yy)
	return &c
}

// ranks are the average ranks of x (1 for the smallest; ties share the
// mean of their ranks), as scipy.stats.rankdata's "average".
func ranks(x []float64) []float64 {
	idx := make([]int, len(x))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(x[a], x[b]) })
	out := make([]float64, len(x))
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && x[idx[j+1]] == x[idx[i]] {
			j++
		}
		r := float64(i+j)/2 + 1
		for k := i; k <= j; k++ {
			out[idx[k]] = r
		}
		i = j + 1
	}
	return out
}

// Spearman is the rank correlation of x and y (Pearson's of their
// average ranks, as scipy.stats.spearmanr); nil when either is constant
// or has fewer than 2 values.
func Spearman(x, y []float64) *float64 {
	if len(x) < 2 {
		return nil
	}
	rx, ry := ranks(x), ranks(y)
	var mx, my float64
	for i := range rx {
		mx, my = mx+rx[i], my+ry[i]
	}
	mx, my = mx/float64(len(rx)), my/float64(len(ry))
	var sxy, sxx, syy float64
	for i := range rx {
		dx, dy := rx[i]-mx, ry[i]-my
		sxy, sxx, syy = sxy+dx*dy, sxx+dx*dx, syy+dy*dy
	}
	if sxx == 0 || syy == 0 {
		return nil
	}
	r := sxy / math.Sqrt(sxx*syy)
	return &r
}

// topFeatures names the k features of w with the largest |weight| (ties
// by name).
func topFeatures(w map[string]float64, k int) []string {
	fs := union(w)
	slices.SortStableFunc(fs, func(a, b string) int { return cmp.Compare(math.Abs(w[b]), math.Abs(w[a])) })
	return fs[:min(k, len(fs))]
}

// Agreement is how far two explanations' weights agree.
type Agreement struct {
	// Spearman is the rank correlation of the weights over the union of
	// their features (null when either is constant).
	Spearman *float64 `json:"spearman_rank_correlation"`
	// TopKOverlap is the share of the K features with the largest |weight|
	// of one that are among the other's K, K = min(5, features).
	TopKOverlap float64 `json:"top_k_overlap"`
	K           int     `json:"k"`
	// SignAgreement is the share of the features whose weights have the
	// same sign (-, 0, +) in both.
	SignAgreement float64 `json:"sign_agreement"`
}

// Agree compares two sets of weights.
func Agree(a, b map[string]float64) Agreement {
	fs := union(a, b)
	var g Agreement
	g.Spearman = Spearman(vector(a, fs), vector(b, fs))
	g.K = min(5, len(fs))
	if g.K > 0 {
		inA := map[string]bool{}
		for _, f := range topFeatures(a, g.K) {
			inA[f] = true
		}
		both := 0
		for _, f := range topFeatures(b, g.K) {
			if inA[f] {
				both++
			}
		}
		g.TopKOverlap = float64(both) / float64(g.K)
		same := 0
		for _, f := range fs {
			if sign(a[f]) == sign(b[f]) {
				same++
			}
		}
		g.SignAgreement = float64(same) / float64(len(fs))
	}
	return g
}

func sign(v float64) int {
	switch {
	case v > 0:
		return 1
	case v < 0:
		return -1
	}
	return 0
}

// Distance is the Euclidean distance between two instances over the
// features both hold as numbers; nil when they share none.
func Distance(a, b map[string]any) *float64 {
	var sum float64
	n := 0
	for f, x := range a {
		xv, ok := x.(float64)
		yv, ok2 := b[f].(float64)
		if ok && ok2 {
			sum += (xv - yv) * (xv - yv)
			n++
		}
	}
	if n == 0 {
		return nil
	}
	d := math.Sqrt(sum)
	return &d
}
