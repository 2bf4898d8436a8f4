package lime

import (
	"fmt"
	"math/rand/v2"
)

// Sample draws n perturbation rows around instance as lime does for
// continuous features without a discretizer (discretize_continuous=False):
// each value is mean + scale·N(0, 1), or instance + scale·N(0, 1) with
// aroundInstance; row 0 is the instance itself. It returns the rows and
// their scaled form (row − mean) / scale, which Explain takes. A scale of
// 0 is taken as 1, as scikit-learn's StandardScaler does.
func Sample(instance, mean, scale []float64, n int, aroundInstance bool, seed uint64) (rows, scaled [][]float64, err error) {
	m := len(instance)
	if len(mean) != m || len(scale) != m || n < 2 {
		return nil, nil, fmt.Errorf("%w: instance, mean and scale must have one value per feature and n at least 2", ErrInvalid)
	}
	rng := rand.New(rand.NewPCG(seed, 0x11e))
	rows, scaled = make([][]float64, n), make([][]float64, n)
	for i := range n {
		rows[i], scaled[i] = make([]float64, m), make([]float64, m)
		for j := range m {
			s := scale[j]
			if s == 0 {
				s = 1
			}
			v := instance[j]
			if i > 0 {
				centre := mean[j]
				if aroundInstance {
					centre = instance[j]
				}
				v = centre + s*rng.NormFloat64()
			}
			rows[i][j] = v
			scaled[i][j] = (v - mean[j]) / s
		}
	}
	return rows, scaled, nil
}

// WithInstance returns scaled, a sample Sample drew around the mean, with
// row 0 replaced by instance's scaled form; rows 1 on are shared, not
// copied. Drawn around the mean, such a sample depends on the instance in
// row 0 alone (its other rows are the same numbers whatever the instance),
// so one draw, and the model's outputs on it, serves every instance.
func WithInstance(scaled [][]float64, instance, mean, scale []float64) ([][]float64, error) {
	m := len(instance)
	if len(scaled) < 2 || len(scaled[0]) != m || len(mean) != m || len(scale) != m {
		return nil, fmt.Errorf("%w: the sample, instance, mean and scale must have one value per feature", ErrInvalid)
	}
	row := make([]float64, m)
	for j, v := range instance {
		s := scale[j]
		if s == 0 {
			s = 1
		}
		row[j] = (v - mean[j]) / s
	}
	out := make([][]float64, len(scaled))
	out[0] = row
	copy(out[1:], scaled[1:])
	return out, nil
}
