// Package web is Vigil's HTTP plumbing: the Fiber application with the
// specification's error envelope, request ids, body and time limits, strict
// JSON decoding, validation and the route table that every API package
// declares its operations in.
//
// It imports the store errors alone (to answer them with 404, 409 and 503);
// it must not import an API package or a store.
package web

import (
	"errors"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"
)

// Options configures NewApp. Zero fields take the defaults named on them.
type Options struct {
	// BodyLimit is the largest request body in bytes; larger ones answer
	// 413. Default 10 MiB.
	BodyLimit int
	// Timeout bounds every handler through its context. Default 30s.
	Timeout time.Duration
	// Logger receives server errors. Default slog.Default().
	Logger *slog.Logger
}

// NewApp returns a Fiber application whose every error, including unknown
// routes, wrong methods and oversized bodies, answers in the envelope.
func NewApp(o Options) *fiber.App {
	if o.BodyLimit <= 0 {
		o.BodyLimit = 10 << 20
	}
	if o.Timeout <= 0 {
		o.Timeout = 30 * time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	app := fiber.New(fiber.Config{
		AppName:               "vigil",
		BodyLimit:             o.BodyLimit,
		DisableStartupMessage: true,
		ErrorHandler:          errorHandler(o.Logger),
		ReadTimeout:           o.Timeout,
		WriteTimeout:          o.Timeout,
		IdleTimeout:           2 * time.Minute,
		RequestMethods:        requestMethods,
		// A request line and headers of up to 32 KiB are read (Fiber's
		// default is 4 KiB), so a long query, such as a parameter repeated
		// many times, is answered in the envelope (422 naming it) rather
		// than with a bare 431 the document does not list.
		ReadBufferSize: 32 << 10,
		// A connection gives its body buffer back to a shared pool after each
		// request and its read and write buffers while idle. Without it each
		// keep-alive connection keeps the largest body it was sent (an OTLP
		// export of 512 spans is about 1 MB) for as long as it stays open, so
		// memory grew with the connections clients left open (issue 18).
		ReduceMemoryUsage: true,
	})
	app.Use(secure, requestID, (&deadlines{d: o.Timeout}).handler, rejectNUL, singleQuery)
	return app
}

// requestMethods are the methods the router knows: Fiber's and QUERY (the
// IETF's safe method with a body), so that a QUERY on an API path answers
// 405 in the envelope, with Allow, as any other method no route takes does.
// A method outside the list answers Fiber's bare 400 "Invalid http method".
var requestMethods = append(slices.Clip(fiber.DefaultMethods), "QUERY")

func errorHandler(log *slog.Logger) fiber.ErrorHandler {
	return func(c *fiber.Ctx, err error) error {
		e := fromFiber(c, err)
		if e.Status >= 500 {
			log.Error("request failed", "request_id", RequestID(c), "method", c.Method(),
				"path", c.Path(), "status", e.Status, "code", e.Code, "err", err)
		}
		return WriteError(c, e)
	}
}

// fromFiber maps Fiber's own errors (no route, wrong method, body too
// large, bad request line) into the envelope's codes.
func fromFiber(c *fiber.Ctx, err error) *Error {
	var fe *fiber.Error
	if !errors.As(err, &fe) {
		return AsError(err)
	}
	switch fe.Code {
	case http.StatusNotFound:
		return NewError(http.StatusNotFound, CodeNotFound, "no route "+c.Method()+" "+c.Path())
	case http.StatusMethodNotAllowed:
		return methodNotAllowed(c)
	case http.StatusRequestEntityTooLarge:
		return NewError(http.StatusRequestEntityTooLarge, CodePayloadTooLarge, "request body is larger than the limit")
	case http.StatusRequestTimeout:
		return NewError(http.StatusRequestTimeout, CodeBadRequest, "request timed out")
	}
	if fe.Code >= 500 {
		return &Error{Status: fe.Code, Code: CodeInternal, Message: "internal error", Err: err}
	}
	return NewError(fe.Code, CodeBadRequest, fe.Message)
}

// methodNotAllowed is the 405 of c's method on c's path.
func methodNotAllowed(c *fiber.Ctx) *Error {
	return NewError(http.StatusMethodNotAllowed, CodeMethodNotAllowed, "method "+c.Method()+" is not allowed on "+c.Path())
}

// WriteError renders e in the envelope.
func WriteError(c *fiber.Ctx, e *Error) error {
	securityHeaders(c)
	details := e.Details
	if details == nil {
		details = map[string]any{}
	}
	if e.RetryAfter > 0 {
		c.Set(fiber.HeaderRetryAfter, strconv.Itoa(int((e.RetryAfter+time.Second-1)/time.Second)))
	}
	return c.Status(e.Status).JSON(Envelope{Error: EnvelopeBody{
		Code:      e.Code,
		Message:   e.Message,
		Details:   details,
		Timestamp: time.Now().UTC().Format(time.RFC3339),
		RequestID: RequestID(c),
	}})
}
