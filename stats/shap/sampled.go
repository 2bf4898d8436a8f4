package shap

import (
	"fmt"
	"math/rand/v2"

	"github.com/vigilhq/vigil/stats/solver"
)

// sampled estimates the Shapley values from a sample of coalitions, as
// shap.KernelExplainer does: coalition sizes s and M−s are paired; sizes
// are taken whole, smallest first, while the budget covers their share of
// the Shapley kernel's weight; the remaining budget samples coalitions of
// the other sizes (each with its complement) in proportion to that weight;
// then a weighted least-squares fit constrained to add up to f(x) − E[f].
func (g *game) sampled(opt KernelOptions, fx, fnull float64) ([]float64, error) {
	m := len(g.varying)
	if m > 64 {
		return nil, fmt.Errorf("%w: %d features vary; Kernel SHAP takes at most 64", ErrInvalid, m)
	}
	budget := opt.Samples
	if budget <= 0 {
		budget = 2*m + 2048
	}
	sizes := (m + 1) / 2 // sizes 1..sizes, each with its complement size m−s
	weights := make([]float64, sizes)
	total := 0.0
	for i := range weights {
		s := i + 1
		weights[i] = float64(m-1) / float64(s*(m-s))
		if s != m-s {
			weights[i] *= 2
		}
		total += weights[i]
	}
	for i := range weights {
		weights[i] /= total
	}
	var masks []uint64
	var kw []float64
	add := func(mask uint64, w float64) {
		masks = append(masks, mask)
		kw = append(kw, w)
	}
	left, full := budget, 0
	leftWeight := 1.0
	for i := range sizes {
		s := i + 1
		count := binomial(m, s)
		paired := s != m-s
		n := count
		if paired {
			n *= 2
		}
		if float64(left)*weights[i]/leftWeight/n < 1-1e-8 {
			break
		}
		w := weights[i] / count
		if paired {
			w /= 2
		}
		eachSubset(m, s, func(mask uint64) {
			add(mask, w)
			if paired {
				add(^mask&(1<<m-1), w)
			}
		})
		left -= int(n)
		leftWeight -= weights[i]
		full++
	}
	if full < sizes && left > 0 {
		rng := rand.New(rand.NewPCG(opt.Seed, 0x5eed))
		rest := weights[full:]
		seen := map[uint64]int{}
		start := len(masks)
		for left > 0 {
			i := full + pick(rng, rest, leftWeight)
			mask := randomSubset(rng, m, i+1)
			for _, mk := range []uint64{mask, ^mask & (1<<m - 1)} {
				if j, ok := seen[mk]; ok {
					kw[j]++
					continue
				}
				seen[mk] = len(masks)
				add(mk, 1)
			}
			left -= 2
		}
		sum := 0.0
		for _, w := range kw[start:] {
			sum += w
		}
		for j := start; j < len(kw); j++ {
			kw[j] *= leftWeight / sum
		}
	}
	v, err := g.values(masks)
	if err != nil {
		return nil, err
	}
	return constrainedFit(m, masks, kw, v, fx-fnull, fnull)
}

// pick draws an index of weights (which sum to total).
func pick(rng *rand.Rand, weights []float64, total float64) int {
	u := rng.Float64() * total
	for i, w := range weights {
		if u < w {
			return i
		}
		u -= w
	}
	return len(weights) - 1
}

// randomSubset draws a uniform subset of size s of m features.
func randomSubset(rng *rand.Rand, m, s int) uint64 {
	perm := rng.Perm(m)
	var mask uint64
	for _, k := range perm[:s] {
		mask |= 1 << k
	}
	return mask
}

// eachSubset calls fn with every subset of size s of m features.
func eachSubset(m, s int, fn func(uint64)) {
	var rec func(start, left int, mask uint64)
	rec = func(start, left int, mask uint64) {
		if left == 0 {
			fn(mask)
			return
		}
		for k := start; k <= m-left; k++ {
			rec(k+1, left-1, mask|1<<k)
		}
	}
	rec(0, s, 0)
}

// constrainedFit solves min Σ w (v − fnull − z·φ)² subject to Σφ = delta
// by eliminating the last feature.
func constrainedFit(m int, masks []uint64, w, v []float64, delta, fnull float64) ([]float64, error) {
	p := m - 1
	a := make([]float64, p*p)
	b := make([]float64, p)
	row := make([]float64, p)
	for c, mask := range masks {
		last := float64(mask >> (m - 1) & 1)
		for k := range p {
			row[k] = float64(mask>>k&1) - last
		}
		y := v[c] - fnull - last*delta
		for i := range p {
			b[i] += w[c] * row[i] * y
			for j := range p {
				a[i*p+j] += w[c] * row[i] * row[j]
			}
		}
	}
	phi, singular := solver.Solve(a, b, p)
	if len(singular) > 0 {
		return nil, fmt.Errorf("%w: the sampled coalitions do not determine feature %d; sample more", ErrInvalid, singular[0])
	}
	sum := 0.0
	for _, x := range phi {
		sum += x
	}
	return append(phi, delta-sum), nil
}
