package web

import "github.com/gofiber/fiber/v2"

// securityHeaders sets the headers every answer carries, errors included:
// X-Content-Type-Options: nosniff, so that no browser second-guesses a
// JSON or text body as HTML or script, and Cache-Control: no-store, so
// that no browser or proxy keeps a copy of an answer. Every API answer is
// an organization's data or carries a credential (login's access_token, a
// new API key's raw_key); the operational endpoints are cheap to ask again.
func securityHeaders(c *fiber.Ctx) {
	c.Set(fiber.HeaderXContentTypeOptions, "nosniff")
	c.Set(fiber.HeaderCacheControl, "no-store")
}

// secure is the middleware form of securityHeaders. WriteError sets them
// too, for the errors that the HTTP server answers before any middleware
// runs (an oversized body, a malformed request line).
func secure(c *fiber.Ctx) error {
	securityHeaders(c)
	return c.Next()
}
