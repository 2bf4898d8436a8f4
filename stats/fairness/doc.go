// Package fairness computes the fairness audit of POST /bias/audit: per
// protected attribute, each group's confusion counts and rates, the four
// metrics of the spec with their pass conditions, an overall fairness score
// with its band, a severity for governance, and recommendations that name
// the group and the metric. It is pure computation: no HTTP, no storage.
// Figures match fairlearn 0.15.0 (the version testdata/golden.json pins).
//
// # API
//
//	rep, err := fairness.Audit(fairness.Input{
//		Attributes: []fairness.Attribute{{Name: "gender", Values: genders}},
//		Pred:       fairness.Favourable(yPred, "approve"),
//		Truth:      fairness.Favourable(yTrue, "approve"), // nil without labels
//	})
//	if errors.Is(err, fairness.ErrInvalid) { /* 422 VALIDATION_ERROR */ }
//
// Both request forms of the spec reduce to an Input. Over logged
// predictions, each protected attribute's value per prediction comes from
// input_data or metadata ("" where absent) and the labels from the
// predictions that have one; the label-supplied form passes group_data's
// columns, y_pred and y_true. Several attributes are audited in one call,
// each on its own. Intersectional groups are a combined column, as the spec
// says; Intersect builds one.
//
// Predictions and labels are []bool, true meaning the favourable outcome:
// Binary takes a 0/1 column, Favourable any column with a declared
// favourable label (so multi-class predictions work: every other label is
// unfavourable).
//
// # Groups
//
// A group's rates are kept as counts (Rate): selection rate
// Selected/Count, TPR = TP/(TP+FN), FPR = FP/(FP+TN), FNR, precision and
// accuracy. A rate over no rows is undefined (JSON null): the TPR and FNR of
// a group with no favourable label, its FPR with no unfavourable label, its
// precision with no favourable prediction. Groups are sorted by label
// (byte order, which is fairlearn's code-point order).
//
// Missing attribute values ("" in Values, a negative code in Codes) are left
// out of that attribute's groups and counted in AttributeReport.Missing, as
// fairlearn needs them dropped first (it refuses missing values); with
// Input.MissingGroup set they form a group of that name instead. A
// recommendation reports how many rows were left out.
//
// Small groups are audited like any other, as in fairlearn: a group of one
// row has rates of 0 or 1 and can decide a metric. Groups under
// Input.SmallGroup rows (default 30) draw a recommendation that their rates
// are unreliable. A group of no rows (an unused level, a reference group
// absent from the data) is listed with Count 0 and never compared.
//
// # Metrics
//
// Without a reference group, groups are compared with each other as
// fairlearn's between_groups method does. Every Result carries fairlearn's
// figures: Difference (largest rate − smallest) and Ratio (smallest /
// largest):
//
//   - demographic_parity: selection rates; fairlearn's
//     demographic_parity_difference and demographic_parity_ratio.
//   - equal_opportunity: TPRs; fairlearn's equal_opportunity_difference and
//     equal_opportunity_ratio (MetricFrame(true_positive_rate).difference()).
//   - equalized_odds: TPRs and FPRs; fairlearn's equalized_odds_difference
//     and equalized_odds_ratio with agg="worst_case" (its default in
//     0.15.0): the larger difference and the smaller ratio.
//   - disparate_impact: selection rates; smallest / largest.
//
// The value a pass condition tests (Result.Value) and the conditions:
//
//	demographic_parity  Ratio                  passes within [0.8, 1.2]
//	equal_opportunity   Difference             passes below 0.1
//	equalized_odds      Difference             passes below 0.1 (the spec states no
//	                                           condition: Vigil uses equal opportunity's)
//	disparate_impact    Ratio                  passes at 0.8 or more
//
// Input.Thresholds replaces these numbers (zero fields keep them). The
// request's single threshold field, which the spec does not define further,
// is for the API layer to map onto them.
//
// With a reference group for an attribute (the spec's reference_group),
// every other group is compared with it instead: demographic parity tests
// each group's selection rate over the reference's against [0.8, 1.2]
// (so a group selected much more often than the reference fails too: this
// is what the bound 1.2 is for) and reports the ratio with the largest
// miss (see Score); disparate impact reports the smallest such ratio (one-sided);
// equal opportunity and equalized odds report the largest absolute
// difference from the reference's TPR (or FPR). Difference and Ratio stay
// fairlearn's between-groups figures over all groups.
//
// Result.Groups gives each group's gap: for a difference metric its largest
// difference from any compared group (between groups) or from the
// reference, for a ratio metric its rate over the highest rate or the
// reference's; the headline is the gap with the largest miss. Differences and ratios are computed from the counts, rounded once
// (exact below 2^53, every audit of fewer than 94 million rows), so a
// difference of exactly 0.1 fails "below 0.1" and a ratio of exactly 0.8
// passes "at least 0.8"; fairlearn rounds each rate first and agrees to
// within a few units in the last place.
//
// # Undefined rates and what is not computed
//
// fairlearn (through scikit-learn's confusion_matrix normalisation) counts an
// undefined TPR or FPR as 0, so a group with no favourable labels has TPR 0
// and makes the equal opportunity difference the largest TPR: a disparity
// that is not there. Vigil leaves such a group out of that comparison (its
// GroupGap has Compared false) and compares the rest; equalized odds
// compares TPRs over the groups that have favourable labels and FPRs over
// those that have unfavourable ones. Input.UndefinedAsZero restores
// fairlearn's rule, to reproduce its numbers.
//
// A Result is not computed (Computed false, Reason says why) when its
// metric needs labels and Truth is nil (never reported as 0); when fewer
// than two groups have the rate (fairlearn reports 0 and 1 for a single
// group); when a ratio would be 0/0 because no group has a favourable
// prediction (fairlearn: NaN), or because the reference group's rate is 0;
// and when the reference group has no rows or an undefined rate.
// Equalized odds' Ratio skips an undefined part (fairlearn takes Python's
// min over [TPR ratio, FPR ratio], which is NaN when the TPR ratio is NaN
// and ignores a NaN FPR ratio).
//
// # Score
//
// Each computed Result has a miss: how many allowances its value spends,
// 0 for no disparity and 1 exactly at the threshold.
//
//	ratio r below 1 (parity, impact):  miss = (1 − r) / (1 − lower bound)     = (1 − r) / 0.2
//	ratio r above 1 (parity):          miss = (r − 1) / (upper bound − 1)     = (r − 1) / 0.2
//	ratio r above 1 (impact):          miss = 0
//	difference d:                      miss = d / maximum                     = d / 0.1
//
// The miss is rounded to nine decimals, so a value on a grade boundary (an
// impact of exactly 0.7: miss 1.5) grades as the table below says rather
// than one unit in the last place beyond; pass and fail are decided on the
// unrounded value. Its score is 1 − 0.2·miss, clamped to [0, 1]: a metric exactly at its
// threshold scores 0.80, where the good band starts, so a metric passes
// exactly when it scores 0.80 or more (a failing one at exactly a strict
// threshold is put just below 0.80). With the default thresholds a
// disparate impact of 0.65 scores 0.65, and an equal opportunity difference
// d scores 1 − 2d. A Summary takes each metric's lowest score over the
// attributes; overall_fairness_score (Report.Score) is the lowest score
// over the computed metrics: the worst disparity decides, so the score
// cannot hide a failing metric behind passing ones, and BiasDetected is
// true exactly when the score is below 0.80. It never falls as a
// disparity shrinks. Metrics not computed do not count; with none computed
// Report.Scored is false.
//
// Bands (BandOf), each from its lower bound inclusive:
//
//	0.90-1.00 excellent   0.80-0.89 good   0.70-0.79 fair   0.60-0.69 poor   below 0.60 critical
//
// # Severity
//
// A passing metric has severity none. A failing one is graded by its miss:
//
//	low       miss up to 1.5  (score 0.70 to 0.80: fair)     e.g. impact 0.70 to 0.80, difference 0.10 to 0.15
//	medium    miss up to 2    (score 0.60 to 0.70: poor)     e.g. impact 0.60 to 0.70, difference 0.15 to 0.20
//	high      miss up to 3    (score 0.40 to 0.60)           e.g. impact 0.40 to 0.60, difference 0.20 to 0.30
//	critical  miss above 3    (score below 0.40)             e.g. impact below 0.40, difference above 0.30
//
// The audit's severity is the highest of its metrics'. A bias audit at high
// or critical severity drafts a risk-register entry (Severity.DraftsRisk),
// category bias, with likelihood 4 for high and 5 for critical and impact
// 4 (Severity.RiskLikelihood), source_type bias_audit.
//
// # Recommendations
//
// One line per failing group and metric, most severe first, naming the
// group, the attribute, the two rates, the metric and its condition, then a
// place to look, e.g.
//
//	group 'female' of attribute 'gender' has selection rate 0.31 vs 0.52 for 'male':
//	disparate impact 0.60 < 0.8; review features that stand in for gender and the
//	decision threshold applied to 'female'
//
// Between groups a failing pair is named once, from the group with the lower
// rate; at most three groups per metric and attribute are named and the
// rest counted. Then notes: metrics not computed and why (one line asking
// for y_true when labels are missing), small groups, missing values.
//
// # Speed
//
// Each attribute is counted in one pass: a row adds 1 to one of four cells
// of its group (label × prediction), indexed by a small integer code, with
// no map and no data-dependent branch in the loop. String labels are coded
// while counting by a per-chunk dictionary (a small open-addressing table
// hashed on the label's length and end bytes, so usually one string
// comparison per row); the encoded form (Levels, Codes) skips even that.
// Rows are split into one chunk per core, and chunks merge by label. bench_test.go times 10
// million rows; testdata/bench_fairlearn.py times fairlearn's MetricFrame
// on the same rows (testdata/synthetic.py and synthetic_test.go write the
// same seeded formula).
//
// It imports nothing of Vigil: the maths tree stands alone.
package fairness
