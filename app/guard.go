package app

import (
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/vigilhq/vigil/identity"
	"github.com/vigilhq/vigil/platform/ratelimit"
	"github.com/vigilhq/vigil/platform/web"
)

// guard puts authentication, the rate limit of the route's bucket and the
// permission check in front of every route. Public routes are limited per
// client address instead of per organization. A route of BucketNone is
// authenticated and checked, never limited.
func (a *App) guard(r web.Route) []fiber.Handler {
	if r.Bucket == web.BucketNone {
		return []fiber.Handler{a.auth.Middleware, identity.Require(r.Permission)}
	}
	rule := a.rule(r.Bucket)
	if r.Public {
		return []fiber.Handler{a.limit(rule, "ip:", func(c *fiber.Ctx) string { return c.IP() })}
	}
	return []fiber.Handler{a.auth.Middleware, a.limit(rule, "org:", identity.OrgID), identity.Require(r.Permission)}
}

// hour is the window of every bucket: the limits are per hour.
const hour = time.Hour

func (a *App) rule(bucket string) ratelimit.Rule {
	l := a.cfg.Limits
	switch bucket {
	case web.BucketPredictions:
		return ratelimit.Rule{Name: bucket, Limit: l.Predictions, Window: hour}
	case web.BucketBatch:
		return ratelimit.Rule{Name: bucket, Limit: l.Batch, Window: hour}
	case web.BucketReports:
		return ratelimit.Rule{Name: bucket, Limit: l.Reports, Window: hour}
	}
	return ratelimit.Rule{Name: web.BucketStandard, Limit: l.Standard, Window: hour}
}

// limit counts the request against rule for the subject (an organization or
// a client address) and answers 429 RATE_LIMIT_EXCEEDED with Retry-After
// once the hour's quota is spent. Every response carries
// X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset (Unix
// seconds). Should the limits store fail, the request goes through and the
// failure is logged and counted: an outage of Redis must not take the API
// down with it.
func (a *App) limit(rule ratelimit.Rule, prefix string, subject func(*fiber.Ctx) string) fiber.Handler {
	limiter := &ratelimit.Limiter{Store: a.limits, Prefix: prefix}
	return func(c *fiber.Ctx) error {
		d, err := limiter.Allow(c.UserContext(), rule, subject(c))
		if err != nil {
			a.metrics.LimitError()
			a.log.Warn("rate limit check failed; letting the request through", "bucket", rule.Name, "err", err)
			return c.Next()
		}
		// The numbers are written in a buffer on the stack, which the
		// header copies: no allocation.
		var buf [20]byte
		h := &c.Response().Header
		h.SetBytesV("X-RateLimit-Limit", strconv.AppendInt(buf[:0], d.Limit, 10))
		h.SetBytesV("X-RateLimit-Remaining", strconv.AppendInt(buf[:0], d.Remaining, 10))
		h.SetBytesV("X-RateLimit-Reset", strconv.AppendInt(buf[:0], d.Reset.Unix(), 10))
		if !d.Allowed {
			a.metrics.RateLimited(rule.Name)
			return &web.Error{Status: fiber.StatusTooManyRequests, Code: web.CodeRateLimitExceeded,
				Message: "rate limit exceeded for the " + rule.Name + " bucket",
				Details: map[string]any{"bucket": rule.Name, "limit": d.Limit}, RetryAfter: d.RetryAfter}
		}
		return c.Next()
	}
}
