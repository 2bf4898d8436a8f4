package stattest

import (
	"errors"
	"fmt"
)

// ErrInvalid is wrapped by every error about the input: errors.Is(err,
// ErrInvalid) tells the API to answer 422 rather than 500.
var ErrInvalid = errors.New("invalid drift input")

// ErrEmpty is wrapped by an InputError for a sample that has no value left
// once missing values (NaN, or "" for categories) are removed.
var ErrEmpty = errors.New("no non-missing values")

// ErrInfinite is wrapped by an InputError for a numeric sample that holds
// +Inf or -Inf. Infinities are refused rather than dropped: they are not
// missing values, and no test here has a meaningful answer for them
// (Wasserstein would be infinite, quantile bins undefined).
var ErrInfinite = errors.New("infinite value")

// InputError is the error for a sample the tests cannot use. It wraps
// ErrInvalid and one of ErrEmpty or ErrInfinite.
type InputError struct {
	// Feature names the column; the package leaves it empty and the caller
	// sets it (see WithFeature) so that a 422 can name the feature.
	Feature string
	// Sample is "reference" or "current".
	Sample string
	// Kind is ErrEmpty or ErrInfinite.
	Kind error
	// Reason says what is wrong, with "got X, want Y" where there are numbers.
	Reason string
}

// Error renders "feature: sample: reason" (without the feature when unset).
func (e *InputError) Error() string {
	msg := e.Sample + " sample: " + e.Reason
	if e.Feature == "" {
		return msg
	}
	return fmt.Sprintf("feature %q: %s", e.Feature, msg)
}

// Unwrap returns ErrInvalid and the Kind, so errors.Is matches both.
func (e *InputError) Unwrap() []error { return []error{ErrInvalid, e.Kind} }

// WithFeature sets Feature on the *InputError inside err, if there is one,
// and returns err.
func WithFeature(err error, feature string) error {
	var ie *InputError
	if errors.As(err, &ie) {
		ie.Feature = feature
	}
	return err
}

const (
	sideRef = "reference"
	sideCur = "current"
)

func emptyError(side string, missing int) *InputError {
	return &InputError{Sample: side, Kind: ErrEmpty,
		Reason: fmt.Sprintf("got 0 values after removing %d missing, want at least 1", missing)}
}
