package fairness

import (
	"errors"
	"fmt"
)

// ErrInvalid is the sentinel every input error of Audit and of the column
// helpers wraps: errors.Is(err, ErrInvalid) tells the API to answer 422
// VALIDATION_ERROR rather than 500.
var ErrInvalid = errors.New("invalid fairness audit input")

// invalid returns an error wrapping ErrInvalid with a formatted reason.
func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
}
