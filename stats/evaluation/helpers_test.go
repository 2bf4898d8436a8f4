package evaluation

import "math"

func nan() float64 { return math.NaN() }
func inf() float64 { return math.Inf(1) }

func negZero() float64 { return math.Copysign(0, -1) }
