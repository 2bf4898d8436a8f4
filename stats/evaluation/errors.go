package evaluation

import (
	"errors"
	"fmt"
)

// ErrInvalid is the sentinel every validation error wraps: errors.Is(err,
// ErrInvalid) tells a caller to answer 422 VALIDATION_ERROR rather than 500.
var ErrInvalid = errors.New("invalid metrics request")

// FieldError is a validation error about one request field. Compute returns
// one as a *FieldError (wrapping ErrInvalid) for every input it rejects,
// including inputs on which scikit-learn would raise or return NaN.
type FieldError struct {
	// Field is the JSON name of the offending request field, e.g. "y_pred".
	Field string
	// Metric names the metric the check belongs to, or "" when the field is
	// invalid for every metric.
	Metric string
	// Reason says what is wrong, with "got X, want Y" where there are numbers.
	Reason string
}

// Error renders "field: reason", prefixed by the metric when there is one.
func (e *FieldError) Error() string {
	if e.Metric != "" {
		return fmt.Sprintf("%s: %s: %s", e.Metric, e.Field, e.Reason)
	}
	return fmt.Sprintf("%s: %s", e.Field, e.Reason)
}

// Unwrap returns ErrInvalid.
func (e *FieldError) Unwrap() error { return ErrInvalid }

func fieldErr(field, format string, args ...any) *FieldError {
	return &FieldError{Field: field, Reason: fmt.Sprintf(format, args...)}
}

func metricErr(metric, field, format string, args ...any) *FieldError {
	return &FieldError{Field: field, Metric: metric, Reason: fmt.Sprintf(format, args...)}
}
