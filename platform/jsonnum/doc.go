// Package jsonnum reads JSON number text as float64 in one pass that checks
// the syntax and gathers the digits, giving the same bits as
// strconv.ParseFloat. Most numbers (at most 19 significant digits, a
// decimal exponent within float64's range) are converted without
// strconv: exactly by one float64 multiplication or division when the
// digits fit in 53 bits and the power of ten is at most 1e22, else by the
// Eisel-Lemire algorithm; whatever those cannot settle (more digits,
// subnormals, overflow, a halfway case) goes to strconv.ParseFloat.
//
// It imports nothing of Vigil.
package jsonnum
