package evaluation

// Sums follow NumPy's pairwise summation (numpy/_core/src/umath/loops_utils.h,
// pairwise_sum) step for step, so that means computed here round exactly as
// np.sum/np.mean do. That matters beyond the last ulp in degenerate inputs:
// r2 with a constant y_true is 1.0 or 0.0 only if the mean equals every
// value exactly, and NumPy decides that with its own rounding.

// blockSize is NumPy's PW_BLOCKSIZE.
const blockSize = 128

// pairwiseSum returns np.sum(a) for a float64 array a.
func pairwiseSum(a []float64) float64 {
	n := len(a)
	switch {
	case n < 8:
		res := 0.0
		for _, v := range a {
			res += v
		}
		return res
	case n <= blockSize:
		var r [8]float64
		copy(r[:], a[:8])
		i := 8
		for ; i < n-n%8; i += 8 {
			r[0] += a[i]
			r[1] += a[i+1]
			r[2] += a[i+2]
			r[3] += a[i+3]
			r[4] += a[i+4]
			r[5] += a[i+5]
			r[6] += a[i+6]
			r[7] += a[i+7]
		}
		res := ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
		for ; i < n; i++ {
			res += a[i]
		}
		return res
	default:
		n2 := n / 2
		n2 -= n2 % 8
		return pairwiseSum(a[:n2]) + pairwiseSum(a[n2:])
	}
}

// pairwiseSumOf returns np.sum of the n values f fills in, without
// materialising them: f(dst, off) must set dst[j] to value off+j. The
// recursion splits exactly as pairwiseSum, so the result is the same.
func pairwiseSumOf(n int, f func(dst []float64, off int)) float64 {
	var buf [blockSize]float64
	var rec func(off, n int) float64
	rec = func(off, n int) float64 {
		if n <= blockSize {
			f(buf[:n], off)
			return pairwiseSum(buf[:n])
		}
		n2 := n / 2
		n2 -= n2 % 8
		return rec(off, n2) + rec(off+n2, n-n2)
	}
	return rec(0, n)
}

// mean returns np.mean(a).
func mean(a []float64) float64 { return pairwiseSum(a) / float64(len(a)) }
