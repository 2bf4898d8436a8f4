// Package profile keeps mergeable per-feature profiles of a model's
// inputs (or outputs) as predictions arrive, and compares two profiles
// feature by feature: the streaming half of drift detection.
//
// # What a profile holds
//
// A Profile counts the JSON documents added (Rows) and, for each
// top-level field (a feature, at most MaxFeatures a profile):
//
//   - numbers in a quantile sketch (stats/quantile, relative
//     accuracy 1%), whose bucket counts are exact;
//   - strings and booleans ("true", "false") as exact counts per category,
//     at most MaxCategories a feature; further categories are summed in
//     Other;
//   - nulls as Nulls; objects and arrays as Unsupported (not profiled).
//
// A feature absent from a document is missing as a null is: Missing is
// Rows minus the values counted. Profiles merge exactly (sketch merge,
// count sums), so hour profiles add up to any window.
//
// # Comparing profiles, and the error bounds
//
// Compare tests each feature of a current profile against a reference
// one. A feature's kind is that of the majority of its values in the
// reference (numbers: Numeric; strings and booleans: Categorical); values
// of the other kind are counted as Mismatched and left out. Which
// statistics are exact and the bound on the others are on Compare.
//
// It imports quantile and stattest of the maths tree and nothing else of
// Vigil.
package profile
