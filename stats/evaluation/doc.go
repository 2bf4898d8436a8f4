// Package evaluation computes model-quality metrics from labels and
// predictions for POST /metrics/calculate, matching scikit-learn 1.9.1
// (the version testdata/golden.json pins).
//
// # API
//
// ParseRequest decodes the request body (it ignores model_id) into a
// Request; Compute returns a Result whose Metrics map holds one value per
// requested name. Every rejected input is a *FieldError naming the JSON field
// (and the metric, when only that metric objects) and wrapping ErrInvalid.
//
//	req, err := evaluation.ParseRequest(body)
//	if err == nil {
//		res, err = evaluation.Compute(req)
//	}
//	var fe *evaluation.FieldError
//	if errors.As(err, &fe) { /* 422 VALIDATION_ERROR, fe.Field, fe.Reason */ }
//
// The request's fields are documented on Request; each metric's definition
// and where Vigil departs from scikit-learn on purpose (undefined values are
// errors, not NaN; the default positive label is the larger one) on
// Compute; the size limits on ParseRequest. golden_test.go checks every
// case against scikit-learn to 1e-9 relative.
//
// It imports nothing of Vigil: the maths tree stands alone.
package evaluation
