package web

import (
	"net/url"
	"slices"
	"strings"

	"github.com/gofiber/fiber/v2"
)

// Rate-limit buckets a route can count against (Route.Bucket), each with
// its own hourly quota per organization.
const (
	BucketStandard    = "standard"
	BucketPredictions = "predictions"
	BucketBatch       = "batch"
	BucketReports     = "reports"
	// BucketNone counts the route against no bucket: the workflow-tool
	// receiver, which spec 2 gives no rate limit.
	BucketNone = "none"
)

// Route is one API operation, declared in the table of the package that
// serves it. The same tables mount the routes and check the OpenAPI
// document, so neither can drift from the other.
type Route struct {
	// Method is the HTTP method, e.g. fiber.MethodPost.
	Method string
	// Path is relative to /api/v1 in Fiber's syntax (/models/:model_id).
	Path string
	// Public routes need no authentication (login, register).
	Public bool
	// Permission is the resource:action the caller needs, e.g. models:read;
	// empty means any authenticated caller.
	Permission string
	// Bucket is the rate-limit bucket the request counts against; empty is
	// the standard bucket.
	Bucket string
	// NonFinite lets the body hold NaN, Infinity and -Infinity as values,
	// as Python's json module writes them, for a route whose own parser
	// reads them (drift's columns).
	NonFinite bool
	// TypedBody leaves checking that the body is well-formed JSON to the
	// handler, whose own typed reader reads every byte of it: only its
	// media type is checked before the handler, which must answer as if
	// the check had run first (CheckJSON) unless its reader took the body
	// whole. For the big drift columns, so that they are read once, on
	// every core.
	TypedBody bool
	// RawBody leaves the body to the handler alone: no JSON check runs
	// before it. For a signed delivery, whose signature is checked over the
	// raw bytes before anything parses them.
	RawBody bool
	// Handler serves the operation.
	Handler fiber.Handler
}

// OpenAPIPath is Path in OpenAPI's syntax (/models/{model_id}).
func (r Route) OpenAPIPath() string {
	parts := strings.Split(r.Path, "/")
	for i, p := range parts {
		if strings.HasPrefix(p, ":") {
			parts[i] = "{" + strings.TrimSuffix(p[1:], "?") + "}"
		}
	}
	return strings.Join(parts, "/")
}

// PathParam returns the path parameter name percent-decoded, so that a
// value may carry any character, "/" included (sent as %2F). Routing sees
// the raw path, where %2F stays inside its segment.
func PathParam(c *fiber.Ctx, name string) (string, error) {
	v, err := url.PathUnescape(c.Params(name))
	if err != nil {
		return "", BadRequest("path parameter " + name + " is not valid percent-encoding")
	}
	return v, nil
}

// Guard returns the handlers that run before a route's own handler:
// authentication, rate limiting and the permission check.
type Guard func(Route) []fiber.Handler

// Mount registers routes on router, each behind guard's handlers; a route
// that takes a body admits only a well-formed JSON one (jsonBody), unless
// it reads its raw body itself (RawBody) or checks it itself (TypedBody).
//
// A fixed path that a parameter path also matches (/explanations/bulk
// beside /explanations/:id) answers every method it does not take with
// 405 and an Allow of its own methods, rather than handing the request to
// the parameter route's handler of that method: Mount puts those answers
// before every route.
func Mount(router fiber.Router, routes []Route, guard Guard) {
	for path, allow := range shadowed(routes) {
		for _, m := range requestMethods {
			if !slices.Contains(allow, m) {
				router.Add(m, path, notAllowed(strings.Join(allow, ", ")))
			}
		}
	}
	for _, r := range routes {
		var hs []fiber.Handler
		if guard != nil {
			hs = guard(r)
		}
		if takesBody(r.Method) && !r.RawBody {
			hs = append(hs, jsonBody(r.NonFinite, !r.TypedBody))
		}
		router.Add(r.Method, r.Path, append(hs, r.Handler)...)
	}
}

// shadowed returns the paths of routes that another route's path also
// matches, each with its methods in requestMethods' order.
func shadowed(routes []Route) map[string][]string {
	methods := map[string][]string{}
	for _, r := range routes {
		methods[r.Path] = append(methods[r.Path], r.Method)
	}
	out := map[string][]string{}
	for path, ms := range methods {
		for other := range methods {
			if shadows(other, path) {
				out[path] = slices.DeleteFunc(slices.Clone(requestMethods), func(m string) bool { return !slices.Contains(ms, m) })
				break
			}
		}
	}
	return out
}

// shadows reports whether the path param also matches every request that
// the path fixed matches: the same segments, but for at least one literal
// segment of fixed where param has a parameter.
func shadows(param, fixed string) bool {
	ps, fs := strings.Split(param, "/"), strings.Split(fixed, "/")
	if len(ps) != len(fs) {
		return false
	}
	wider := false
	for i := range ps {
		pp, fp := strings.HasPrefix(ps[i], ":"), strings.HasPrefix(fs[i], ":")
		switch {
		case pp && !fp:
			wider = true
		case pp && fp, ps[i] == fs[i]:
		default:
			return false
		}
	}
	return wider
}

// notAllowed answers 405 in the envelope with allow as Allow.
func notAllowed(allow string) fiber.Handler {
	return func(c *fiber.Ctx) error {
		c.Set(fiber.HeaderAllow, allow)
		return methodNotAllowed(c)
	}
}
