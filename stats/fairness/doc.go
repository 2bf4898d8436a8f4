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
// The rules are documented where they are applied: groups and their rates
// on Group, the metrics and pass conditions on Metric, undefined rates on
// compareGroups, the score and bands on scoreOf, severity on Severity,
// recommendations on recommend, the counting pass on tally.
//
// It imports nothing of Vigil: the maths tree stands alone.
package fairness
