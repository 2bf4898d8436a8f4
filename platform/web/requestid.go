package web

import (
	"encoding/binary"
	"encoding/hex"
	"math/rand/v2"
	"time"

	"github.com/gofiber/fiber/v2"
)

// requestIDHeader carries the request id both ways.
const requestIDHeader = "X-Request-ID"

// requestID keeps a sane caller-supplied X-Request-ID or makes one, and
// returns it on the response. The response header is where the id is
// kept (RequestID reads it back), so a request that ends well allocates
// nothing for its id.
func requestID(c *fiber.Ctx) error {
	if id := c.Request().Header.Peek(requestIDHeader); validRequestID(id) {
		c.Response().Header.SetBytesV(requestIDHeader, id)
	} else {
		setNewRequestID(c)
	}
	return c.Next()
}

// RequestID returns the request's id, making one when the request has
// none yet (an answer the server gave before the middleware ran).
func RequestID(c *fiber.Ctx) string {
	id := c.Response().Header.Peek(requestIDHeader)
	if len(id) == 0 {
		setNewRequestID(c)
		id = c.Response().Header.Peek(requestIDHeader)
	}
	return string(id)
}

// setNewRequestID gives the response a new request id.
func setNewRequestID(c *fiber.Ctx) {
	var buf [36]byte
	c.Response().Header.SetBytesV(requestIDHeader, newRequestID(&buf, time.Now()))
}

// validRequestID reports whether a caller's id is 1 to 64 characters of
// A-Z, a-z, 0-9, '.', '_' and '-'.
func validRequestID(id []byte) bool {
	if len(id) == 0 || len(id) > 64 {
		return false
	}
	for _, b := range id {
		switch {
		case 'a' <= b && b <= 'z', 'A' <= b && b <= 'Z', '0' <= b && b <= '9', b == '.', b == '_', b == '-':
		default:
			return false
		}
	}
	return true
}

// newRequestID writes a UUIDv7 (RFC 9562) for now into buf and returns
// it: 48 bits of Unix milliseconds, then 74 random bits. The random bits
// come from math/rand/v2's per-thread ChaCha8 source, seeded by the
// system: a request id has to be unique, not secret, and this source
// takes no lock and allocates nothing.
func newRequestID(buf *[36]byte, now time.Time) []byte {
	var u [16]byte
	binary.BigEndian.PutUint64(u[0:], uint64(now.UnixMilli())<<16|0x7000|rand.Uint64()&0x0fff)
	binary.BigEndian.PutUint64(u[8:], 0x8000000000000000|rand.Uint64()&0x3fffffffffffffff)
	hex.Encode(buf[0:8], u[0:4])
	buf[8] = '-'
	hex.Encode(buf[9:13], u[4:6])
	buf[13] = '-'
	hex.Encode(buf[14:18], u[6:8])
	buf[18] = '-'
	hex.Encode(buf[19:23], u[8:10])
	buf[23] = '-'
	hex.Encode(buf[24:36], u[10:16])
	return buf[:]
}
