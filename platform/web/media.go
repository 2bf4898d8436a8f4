package web

import (
	"bytes"
	"net/http"

	"github.com/gofiber/fiber/v2"
)

// CodeUnsupportedMediaType is the code of a 415: a request body that is
// not declared as JSON.
const CodeUnsupportedMediaType = "UNSUPPORTED_MEDIA_TYPE"

// takesBody reports whether requests of method carry a JSON body to the
// routes that serve them.
func takesBody(method string) bool {
	return method == fiber.MethodPost || method == fiber.MethodPut || method == fiber.MethodPatch
}

// jsonBody returns the handler that admits a request whose body, if it
// has one, is declared as JSON and, when check is set, is well-formed
// (wellFormed, with nonFinite): a Content-Type of application/json or of a +json type,
// parameters such as charset=utf-8 allowed, answers 415 otherwise. A body
// without a Content-Type is taken as JSON, as clients that send JSON
// without saying so (Python's requests with data=) expect; curl -d says
// application/x-www-form-urlencoded and is refused. A request without a
// body passes: the route tells whether it needs one.
func jsonBody(nonFinite, check bool) fiber.Handler {
	return func(c *fiber.Ctx) error {
		body := c.Body()
		if len(body) == 0 {
			return c.Next()
		}
		if ct := c.Request().Header.ContentType(); len(ct) > 0 && !isJSON(ct) {
			return &Error{Status: http.StatusUnsupportedMediaType, Code: CodeUnsupportedMediaType,
				Message: "the request body must be JSON: send Content-Type: application/json",
				Details: map[string]any{"Content-Type": "got " + string(ct) + ", want application/json"}}
		}
		if check {
			if err := wellFormed(body, nonFinite); err != nil {
				return err
			}
		}
		return c.Next()
	}
}

// isJSON reports whether the media type of the Content-Type ct is
// application/json or application/<name>+json, in any case.
func isJSON(ct []byte) bool {
	if i := bytes.IndexByte(ct, ';'); i >= 0 {
		ct = ct[:i]
	}
	ct = bytes.TrimSpace(ct)
	const app, suffix = "application/", "+json"
	if len(ct) < len(app) || !bytes.EqualFold(ct[:len(app)], []byte(app)) {
		return false
	}
	sub := ct[len(app):]
	return bytes.EqualFold(sub, []byte("json")) ||
		len(sub) > len(suffix) && bytes.EqualFold(sub[len(sub)-len(suffix):], []byte(suffix))
}
