package web

import (
	"bytes"

	"github.com/gofiber/fiber/v2"
)

// NoBody admits the request of an operation that takes no input: no body,
// or an empty JSON object; any member answers 422 naming it.
func NoBody(c *fiber.Ctx) error {
	if len(bytes.TrimSpace(c.Body())) == 0 {
		return nil
	}
	var none struct{}
	return Decode(c, &none)
}
