package web

import (
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"
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

// timeProblem is the problem recorded for a value that is not a date-time.
const timeProblem = "must be an RFC 3339 date-time such as 2026-01-31T12:00:00Z"

// dateTime is RFC 3339's date-time (section 5.6), the JSON Schema format
// date-time: a fraction after a dot only, an offset Z or ±hh:mm. Go's
// time.Parse alone is laxer (a comma before the fraction, an offset of 24
// hours), and stricter in one way: it wants upper-case T and Z.
var dateTime = regexp.MustCompile(`^\d{4}-\d\d-\d\d[Tt]\d\d:\d\d:\d\d(?:\.\d+)?(?:[Zz]|[+-](?:[01]\d|2[0-3]):[0-5]\d)$`)

// Time returns *s, the value of field, parsed as a date-time (the
// document's format date-time) in UTC, and records a problem when it is
// not one, the empty string included. A nil s (the field or parameter
// absent) is the zero time and no problem: the caller decides whether it is
// required.
func (p *Problems) Time(field string, s *string) time.Time {
	if s == nil {
		return time.Time{}
	}
	if !dateTime.MatchString(*s) {
		p.Add(field, timeProblem)
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, strings.ToUpper(*s))
	if err != nil {
		p.Add(field, timeProblem)
		return time.Time{}
	}
	return t.UTC()
}

// Int returns *n, the value of field, and records a problem when it is
// not in [lo, hi]; a nil n (the field absent) is def and no problem.
func (p *Problems) Int(field string, n *Int, def, lo, hi int) int {
	if n == nil {
		return def
	}
	if int(*n) < lo || int(*n) > hi {
		p.Add(field, fmt.Sprintf("must be between %d and %d", lo, hi))
	}
	return int(*n)
}

// UUID records a problem when s, the value of field, is set and is not a
// UUID in its canonical form (the document's format uuid): 36 characters,
// hexadecimal digits in groups of 8-4-4-4-12 separated by hyphens.
func (p *Problems) UUID(field string, s *string) {
	if s != nil && !isUUID(*s) {
		p.Add(field, "must be a UUID such as 0190c6a2-7b1e-7c3a-9f0e-2d4b6a8c0e1f")
	}
}

// EnumQuery returns the value of the query parameter name, def when the
// query does not name it, and records a problem when it is not one of
// allowed (the document's enum), the empty string included.
func (p *Problems) EnumQuery(c *fiber.Ctx, name, def string, allowed ...string) string {
	s := Query(c, name)
	if s == nil {
		return def
	}
	if !slices.Contains(allowed, *s) {
		p.Add(name, "must be one of "+strings.Join(allowed, ", "))
	}
	return *s
}

// singleQuery refuses a query that names a parameter more than once: every
// parameter of the document is one value, and the handlers would read the
// first and never see the others.
func singleQuery(c *fiber.Ctx) error {
	var twice string
	seen := map[string]bool{}
	c.Context().QueryArgs().VisitAll(func(k, _ []byte) {
		if twice == "" && seen[string(k)] {
			twice = string(k)
		}
		seen[string(k)] = true
	})
	if twice != "" {
		return Invalid(twice, "must be given once")
	}
	return c.Next()
}

// IDQuery records a problem when the query parameter name is sent blank:
// an optional id is left out or names something.
func (p *Problems) IDQuery(c *fiber.Ctx, name string) {
	if s := Query(c, name); s != nil {
		p.Required(name, *s)
	}
}

// Query returns the value of the query parameter name, nil when the query
// does not name it: the argument of Time and UUID, for which a parameter
// sent empty (start_time=) is a value, and not a date-time.
func Query(c *fiber.Ctx, name string) *string {
	if !c.Context().QueryArgs().Has(name) {
		return nil
	}
	s := c.Query(name)
	return &s
}

func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := range len(s) {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
				return false
			}
		}
	}
	return true
}

// Err returns the 422 for the collected problems, or nil when there are none.
func (p Problems) Err() error {
	if len(p) == 0 {
		return nil
	}
	return &Error{Status: http.StatusUnprocessableEntity, Code: CodeValidation,
		Message: "validation failed", Details: map[string]any(p)}
}
