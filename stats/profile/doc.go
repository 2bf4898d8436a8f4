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
// of the other kind are counted as Mismatched and left out.
//
// Numeric features: the KS statistic is computed from the two sketches at
// every bucket boundary, where both cumulative counts are exact, so the
// reported statistic D̂ is never above the exact one and the exact one is
// at most D̂ + Bound, where Bound is the largest share of either sample in
// one bucket: a bucket spans 2% of its values' magnitude, so for
// continuous data the bound is about 0.02·|x|·density(x) at its largest,
// around 0.01 for standard normal data, and it is reported with each
// result. The p-value is the two-sample KS p-value of D̂ at the two
// sample sizes (stattest.KSPValue). The binned table has ten bins whose
// edges are the bucket boundaries nearest above the reference's deciles
// (within 1% of the exact deciles): PSI, Jensen-Shannon and Hellinger on
// it are exact for those edges.
//
// Categorical features: the table holds the exact counts of every
// category kept by name in both profiles, plus one "(other)" cell for the
// counts beyond MaxCategories when either has any; chi-squared, PSI,
// Jensen-Shannon and Hellinger on it are exact.
//
// It imports quantile and stattest of the maths tree and nothing else of
// Vigil.
package profile
