package web

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"unicode/utf8"
)

// Problems collects validation failures, one per field, and becomes a 422
// naming each of them. The zero value is ready to use.
type Problems map[string]any

// Add records problem for field; the first problem of a field wins.
func (p *Problems) Add(field, problem string) {
	if *p == nil {
		*p = Problems{}
	}
	if _, ok := (*p)[field]; !ok {
		(*p)[field] = problem
	}
}

// Required records a problem when v is blank.
func (p *Problems) Required(field, v string) {
	if strings.TrimSpace(v) == "" {
		p.Add(field, "is required")
	}
}

// MaxLen records a problem when v is longer than n characters.
func (p *Problems) MaxLen(field, v string, n int) {
	if utf8.RuneCountInString(v) > n {
		p.Add(field, fmt.Sprintf("must be at most %d characters", n))
	}
}

// OneOf records a problem when v is set and not one of allowed.
func (p *Problems) OneOf(field, v string, allowed ...string) {
	if v != "" && !slices.Contains(allowed, v) {
		p.Add(field, "must be one of "+strings.Join(allowed, ", "))
	}
}

// Text records a problem when v holds the NUL character, which no stored
// text may carry. Decode checks the fields it decodes; this is for text
// taken from a json.RawMessage by hand.
func (p *Problems) Text(field, v string) {
	if strings.IndexByte(v, 0) >= 0 {
		p.Add(field, nulProblem)
	}
}

// Err returns the 422 for the collected problems, or nil when there are none.
func (p Problems) Err() error {
	if len(p) == 0 {
		return nil
	}
	return &Error{Status: http.StatusUnprocessableEntity, Code: CodeValidation,
		Message: "validation failed", Details: map[string]any(p)}
}
