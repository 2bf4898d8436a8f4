package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/vigilhq/vigil/store"
)

// Error codes of the error envelope. The first eight are the specification's;
// the rest name the generic HTTP failures the specification leaves open.
const (
	CodeAuthenticationFailed    = "AUTHENTICATION_FAILED"
	CodeTokenExpired            = "TOKEN_EXPIRED"
	CodeInsufficientPermissions = "INSUFFICIENT_PERMISSIONS"
	CodeModelNotFound           = "MODEL_NOT_FOUND"
	CodeValidation              = "VALIDATION_ERROR"
	CodeRateLimitExceeded       = "RATE_LIMIT_EXCEEDED"
	CodeConflict                = "RESOURCE_CONFLICT"
	CodeProcessing              = "PROCESSING_ERROR"

	CodeNotFound         = "NOT_FOUND"
	CodeBadRequest       = "BAD_REQUEST"
	CodeMethodNotAllowed = "METHOD_NOT_ALLOWED"
	CodeNotAcceptable    = "NOT_ACCEPTABLE"
	CodePayloadTooLarge  = "PAYLOAD_TOO_LARGE"
	CodeUnavailable      = "SERVICE_UNAVAILABLE"
	CodeInternal         = "INTERNAL_ERROR"
)

// Error is an API error: it renders as the specification's envelope
// {"error": {code, message, details, timestamp, request_id}} with Status.
type Error struct {
	Status  int
	Code    string
	Message string
	// Details names the offending fields (field name to problem) or carries
	// other structured context. Never nil once rendered.
	Details map[string]any
	// RetryAfter, when positive, is sent as the Retry-After header.
	RetryAfter time.Duration
	// Err is the underlying cause; it is logged, never sent.
	Err error
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Err)
	}
	return e.Code + ": " + e.Message
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Envelope is the JSON body of every error response.
type Envelope struct {
	Error EnvelopeBody `json:"error"`
}

// EnvelopeBody is the inside of Envelope.
type EnvelopeBody struct {
	Code      string         `json:"code"`
	Message   string         `json:"message"`
	Details   map[string]any `json:"details"`
	Timestamp string         `json:"timestamp"`
	RequestID string         `json:"request_id"`
}

// NewError returns an Error with status, code and message.
func NewError(status int, code, message string) *Error {
	return &Error{Status: status, Code: code, Message: message}
}

// NotFound is the 404 for a missing resource; another organization's record
// answers with exactly the same error.
func NotFound(what string) *Error {
	code := CodeNotFound
	if what == "model" {
		code = CodeModelNotFound
	}
	return NewError(http.StatusNotFound, code, what+" not found")
}

// Invalid is a 422 naming one field.
func Invalid(field, problem string) *Error {
	return &Error{Status: http.StatusUnprocessableEntity, Code: CodeValidation,
		Message: "validation failed", Details: map[string]any{field: problem}}
}

// BadRequest is a 400 for a request that cannot be read at all.
func BadRequest(message string) *Error {
	return NewError(http.StatusBadRequest, CodeBadRequest, message)
}

// Unauthenticated is a 401.
func Unauthenticated(message string) *Error {
	return NewError(http.StatusUnauthorized, CodeAuthenticationFailed, message)
}

// Forbidden is a 403 naming the missing permission.
func Forbidden(permission string) *Error {
	return &Error{Status: http.StatusForbidden, Code: CodeInsufficientPermissions,
		Message: "insufficient permissions", Details: map[string]any{"required_permission": permission}}
}

// NotAcceptable is a 406: the Accept header allows none of offered, which
// details lists under "accept".
func NotAcceptable(offered []string) *Error {
	return &Error{Status: http.StatusNotAcceptable, Code: CodeNotAcceptable,
		Message: "none of the media types this operation answers is acceptable",
		Details: map[string]any{"accept": "must allow one of " + strings.Join(offered, ", ")}}
}

// Conflict is a 409.
func Conflict(message string) *Error {
	return NewError(http.StatusConflict, CodeConflict, message)
}

// Unavailable is a 503 asking the client to retry after d.
func Unavailable(message string, d time.Duration, cause error) *Error {
	return &Error{Status: http.StatusServiceUnavailable, Code: CodeUnavailable,
		Message: message, RetryAfter: d, Err: cause}
}

// AsError returns err as an *Error. A store outage becomes a 503 with
// Retry-After, a stray not-found a 404, a conflict a 409; anything else a
// 500 whose message hides the cause.
func AsError(err error) *Error {
	var e *Error
	switch {
	case errors.As(err, &e):
		return e
	case errors.Is(err, store.ErrUnavailable), errors.Is(err, context.DeadlineExceeded):
		return Unavailable("a backend is unavailable; retry shortly", 5*time.Second, err)
	case errors.Is(err, store.ErrNotFound):
		return &Error{Status: http.StatusNotFound, Code: CodeNotFound, Message: "not found", Err: err}
	case errors.Is(err, store.ErrConflict):
		return &Error{Status: http.StatusConflict, Code: CodeConflict, Message: "resource already exists", Err: err}
	}
	return &Error{Status: http.StatusInternalServerError, Code: CodeInternal,
		Message: "internal error", Err: err}
}
