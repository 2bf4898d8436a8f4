// Package quantile is the mergeable quantile sketch that the processors keep
// per model per minute and per hour for latency (p50/p95/p99, as a Hybrid
// that is exact while small), and that the query side merges across many
// buckets (for example 43,200 minute sketches for 30 days).
//
// A Sketch is a DDSketch: Quantile is within a relative α of the value of
// its rank (New takes α), merging and adding in any order give the same
// sketch byte for byte, its size is bounded, and NaN and ±Inf are counted
// apart (NonFinite). A Hybrid keeps the values exactly until it has too
// many, then turns into a Sketch. The method notes sit on the code: the
// algorithm on Sketch, the accuracy on New, the rank convention on
// Sketch.Quantile, the bound on the size on the store type, the binary
// format on Sketch.MarshalBinary, the exact phase on Hybrid.
//
// It imports nothing of Vigil: the maths tree stands alone.
package quantile
