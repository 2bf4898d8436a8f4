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
