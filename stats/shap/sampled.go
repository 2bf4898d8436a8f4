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
	weights := sizeWeights(m)
	var c coalitions
	full, left, leftWeight := c.enumerate(m, weights, budget)
	if full < len(weights) && left > 0 {
		rng := rand.New(rand.NewPCG(opt.Seed, 0x5eed))
		c.sample(rng, m, weights[full:], full, left, leftWeight)
	}
	v, err := g.values(c.masks)
	if err != nil {
		return nil, err
	}
	return constrainedFit(m, c.masks, c.kw, v, fx-fnull, fnull)
}

// sizeWeights is the Shapley kernel's weight of each coalition size s in
// 1..⌈(m−1)/2⌉ together with its complement size m−s, the weights
// summing to 1.
func sizeWeights(m int) []float64 {
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
	return weights
}

// coalitions are the coalitions a Kernel SHAP fit evaluates, as masks of
// the m features, with their kernel weights.
type coalitions struct {
	masks []uint64
	kw    []float64
}

func (c *coalitions) add(mask uint64, w float64) {
	c.masks = append(c.masks, mask)
	c.kw = append(c.kw, w)
}

// complement is the coalition of the m features not in mask.
func complement(mask uint64, m int) uint64 {
	return ^mask & (1<<m - 1)
}

// enumerate adds every coalition of each size (with its complement),
// smallest first, while the budget covers the size's share of the
// kernel's weight. It returns how many sizes it took whole, and the
// budget and weight left for the others.
func (c *coalitions) enumerate(m int, weights []float64, budget int) (full, left int, leftWeight float64) {
	left, leftWeight = budget, 1.0
	for i := range weights {
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
			c.add(mask, w)
			if paired {
				c.add(complement(mask, m), w)
			}
		})
		left -= int(n)
		leftWeight -= weights[i]
		full++
	}
	return full, left, leftWeight
}

// sample spends the budget left on coalitions of the sizes not taken
// whole (rest, the weights of sizes from+1 on), drawn in proportion to
// their weight, each with its complement; one drawn again weighs once
// more. Their weights are then scaled to share leftWeight.
func (c *coalitions) sample(rng *rand.Rand, m int, rest []float64, from, left int, leftWeight float64) {
	seen := map[uint64]int{}
	start := len(c.masks)
	for left > 0 {
		i := from + pick(rng, rest, leftWeight)
		mask := randomSubset(rng, m, i+1)
		for _, mk := range []uint64{mask, complement(mask, m)} {
			if j, ok := seen[mk]; ok {
				c.kw[j]++
				continue
			}
			seen[mk] = len(c.masks)
			c.add(mk, 1)
		}
		left -= 2
	}
	sum := 0.0
	for _, w := range c.kw[start:] {
		sum += w
	}
	for j := start; j < len(c.kw); j++ {
		c.kw[j] *= leftWeight / sum
	}
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
