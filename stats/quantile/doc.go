// Package quantile is the mergeable quantile sketch that the processors keep
// per model per minute and per hour for latency (p50/p95/p99, as a Hybrid
// that is exact while small), and that the query side merges across many
// buckets (for example 43,200 minute sketches for 30 days).
//
// # Algorithm
//
// A Sketch is a DDSketch (Masson, Rim, Lee: "DDSketch: a fast and
// fully-mergeable quantile sketch with relative-error guarantees", VLDB 2019)
// with a logarithmic index mapping. A value v > 0 goes to bucket
// k = ⌈log_γ v⌉ with γ = (1+α)/(1−α), so bucket k holds (γ^(k−1), γ^k] and
// is represented by 2γ^k/(1+γ), which is within a relative α of every value
// in the bucket. Positive values are counted in one dense store (a slice of
// counts with an offset), negative values in a second one keyed by the
// negated bucket of |v|, and zeros (and magnitudes below ~2.2e-308, see
// below) in a separate zero count. Count, sum, minimum and maximum are
// tracked exactly; the sum is kept as an exact fixed-point integer, so it
// does not depend on the order of additions or merges.
//
// The sketch uses no randomness and every field is a function of the
// multiset of values added, so merging sketches in any order, or adding the
// values in any order, yields the identical sketch (identical MarshalBinary
// bytes).
//
// # Rank convention
//
// For a sketch of n values and q in [0, 1], Quantile(q) estimates the value
// of rank k = ⌊q·(n−1)⌋ (0-based) in the sorted values, where the product
// q·(n−1) is evaluated in float64 arithmetic. This is the DDSketch reference
// convention (rank = quantile·(count−1), lower bucket) and numpy's
// quantile(method="lower"). Quantile(0) returns the exact minimum and
// Quantile(1) the exact maximum.
//
// # Accuracy
//
// Let x be the value of rank k. If no collapsing (see below) affected x's
// bucket, Quantile returns q̂ with |q̂ − x| ≤ α·|x|. Zeros are returned
// exactly. The mapping is built for α − 1e-11, so that floating-point
// rounding cannot push a result past α: the logarithm (a table-based
// routine, absolute error below 3e-13) and math.Exp for the representative
// together err by about 1e-12 relative at most. Results are also clamped to
// [Min, Max], which can only move them closer to x. Nonzero magnitudes below
// 2.2250738585072014e-308·γ (the reference implementation's min_possible)
// are counted as zero: for them the error is absolute, below 2.3e-308.
//
// # Bounded size and collapsing
//
// Each store holds at most MaxBuckets (2048) consecutive buckets, so a
// sketch never holds more than 2·2048 bucket counts (16 KiB per store) and
// an exact sum of at most 72 limbs, whatever the data. When a store would need more, its lowest
// buckets are collapsed into the lowest bucket it keeps, as DDSketch's
// "collapsing lowest dense store" does: for positive values these are the
// smallest values, for negative values (whose store is keyed by −bucket)
// the most negative ones. So collapsing only ever affects the lowest values
// of each sign, and the guarantee still holds for every quantile whose value
// x satisfies
//
//	x > 0 and x > M·γ^−(MaxBuckets−1), where M is the largest positive value, or
//	x < 0 and |x| < m·γ^(MaxBuckets−1), where m is the smallest negative magnitude, or
//	x = 0.
//
// With α = 0.01, γ^2047 ≈ 6e17: positive latencies within 17 orders of
// magnitude below the maximum keep α, so for latency data collapsing in
// practice never happens, and when it does only the lowest quantiles lose
// accuracy: they are answered with the lowest kept bucket, an overestimate.
// The collapsed state is a function of the multiset of values (everything at
// or below bucket max−MaxBuckets+1 lives in that bucket), which keeps merges
// order-independent.
//
// # Non-finite values
//
// NaN, +Inf and −Inf are not part of the distribution: Add counts them in
// NonFinite and leaves Count, Sum, Min, Max and the quantiles unchanged.
//
// # Binary format
//
// MarshalBinary writes a compact, versioned format (version 1):
//
//	byte     version (1)
//	8 bytes  α as IEEE-754 bits, little-endian
//	uvarint  zero count
//	uvarint  non-finite count
//	store ×2 (positive, then negative):
//	         uvarint bucket count B (0 for an empty store),
//	         if B > 0: zigzag varint lowest key, then B uvarint counts
//	if Count() > 0: 8 bytes min, 8 bytes max (IEEE-754 bits, little-endian)
//	sum:     byte sign (0 or 1), uvarint limb count L,
//	         if L > 0: uvarint base, then L uvarint 32-bit limbs (low first);
//	         |sum| = Σ limb_i · 2^(32·(base+i) − 1074)
//
// The encoding is canonical (first and last stored bucket and limb are
// nonzero), so equal sketches encode to equal bytes. UnmarshalBinary
// validates every field and returns an error wrapping ErrCorrupt for any
// malformed input; it never panics.
//
// # Hybrid: exact while small
//
// The latency percentiles of the stats read use Hybrid, not Sketch
// directly: it keeps up to ExactLimit (256) values as they are and turns
// into a Sketch when it outgrows them. Its quantile is one definition at
// every size, NumPy's default linear interpolation (method="linear",
// Hyndman and Fan's type 7) between the values of ranks ⌊q·(n−1)⌋ and
// ⌊q·(n−1)⌋+1: exact up to ExactLimit values, and from the Sketch's two
// estimates beyond, so within α for values of one sign. Two exact Hybrids
// whose sizes add up to at most ExactLimit merge into an exact one. An
// exact Hybrid encodes with first byte 2 (see Hybrid.MarshalBinary); one
// beyond ExactLimit as its Sketch (first byte 1), and a stored Sketch
// decodes as such a Hybrid, so rollups written before Hybrid still read.
// Sketch.Quantile keeps the lower-rank convention above (drift profiles
// use it).
//
// A Sketch is not safe for concurrent use; concurrent readers (Quantile,
// Count, MarshalBinary, ...) are fine as long as nobody writes.
//
// It imports nothing of Vigil: the maths tree stands alone.
package quantile
