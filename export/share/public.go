package share

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/vigilhq/vigil/export"
	"github.com/vigilhq/vigil/platform/mail"
	"github.com/vigilhq/vigil/platform/ratelimit"
	"github.com/vigilhq/vigil/platform/web"
	"github.com/vigilhq/vigil/store"
)

// Rules of the recipient side, counted in the limits store so that they
// hold across replicas. A slug is counted whether or not a share has it,
// so that the counts tell nothing either.
var (
	// CodesPerShare caps the passcodes asked for at one link.
	CodesPerShare = ratelimit.Rule{Name: "share-codes", Limit: 5, Window: time.Hour}
	// CodesPerRecipient caps the passcodes mailed to one address over all
	// of its shares.
	CodesPerRecipient = ratelimit.Rule{Name: "share-recipient", Limit: 10, Window: time.Hour}
	// VerifiesPerClient caps the verifications one client (address) tries
	// at one link (above the twenty parallel ones a test sends). It is not
	// a cap of the link's: a stranger who spends it does not lock the
	// recipient out.
	VerifiesPerClient = ratelimit.Rule{Name: "share-verify", Limit: 50, Window: time.Hour}
)

// TokenHeader carries the download token.
const TokenHeader = "X-Share-Token"

// errInvalid is the one answer to an unknown, revoked or expired share
// and to a wrong passcode: nothing can be told apart.
func errInvalid() *web.Error {
	return web.Unauthenticated("the passcode is not valid for this share")
}

// allow counts one request of subject under r; 429 with Retry-After past
// the limit. A failing limits store refuses the request (503): the
// recipient side fails closed.
func (a *API) allow(ctx context.Context, r ratelimit.Rule, subject string) error {
	if a.Limits == nil {
		return nil
	}
	l := &ratelimit.Limiter{Store: a.Limits, Now: a.Clock.Now}
	d, err := l.Allow(ctx, r, subject)
	if err != nil {
		return web.Unavailable("the share's limits cannot be checked; retry shortly", 5*time.Second, err)
	}
	if !d.Allowed {
		return &web.Error{Status: http.StatusTooManyRequests, Code: web.CodeRateLimitExceeded,
			Message: "too many requests for this share", Details: map[string]any{"bucket": r.Name, "limit": d.Limit},
			RetryAfter: d.RetryAfter}
	}
	return nil
}

// landing answers GET /share/{share_slug} alike for every slug: it asks
// for a passcode and says nothing of the share.
func (a *API) landing(c *fiber.Ctx) error {
	slug, err := web.PathParam(c, "share_slug")
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"share_slug": slug, "passcode_required": true,
		"message": "A report was shared with an e-mail address. Ask for a one-time passcode (POST /share/{share_slug}/passcode): " +
			"it is sent to that address if this link is valid. Then verify it to get a download token."})
}

// requestCode answers POST /share/{share_slug}/passcode: 202 alike for
// every slug under the caps. For an open share a new passcode replaces
// the last one and is mailed to the recipient in the background, so
// that neither the answer nor its time tells whether the share exists.
func (a *API) requestCode(c *fiber.Ctx) error {
	if err := web.NoBody(c); err != nil {
		return err
	}
	slug, err := web.PathParam(c, "share_slug")
	if err != nil {
		return err
	}
	ctx := c.UserContext()
	if err := a.allow(ctx, CodesPerShare, slug); err != nil {
		return err
	}
	accepted := func() error {
		return c.Status(http.StatusAccepted).JSON(fiber.Map{"status": "accepted",
			"message": "if this link is valid, a passcode valid for 10 minutes was sent to its recipient"})
	}
	now := a.Clock.Now()
	s, err := a.Store.ShareBySlug(ctx, slug)
	if errors.Is(err, store.ErrNotFound) || (err == nil && !s.Open(now)) {
		return accepted()
	} else if err != nil {
		return err
	}
	if err := a.allow(ctx, CodesPerRecipient, s.Recipient); err != nil {
		return err
	}
	code, err := NewCode()
	if err != nil {
		return err
	}
	err = a.Store.SetShareCode(ctx, s.ID, HashCode(s.ID, code), now.Add(CodeLife), a.event(s, EventCodeRequested, "", "recipient", now))
	if errors.Is(err, store.ErrNotFound) {
		return accepted() // revoked meanwhile
	} else if err != nil {
		return err
	}
	go a.mailCode(s, code, now)
	return accepted()
}

// mailCode sends the passcode to the share's recipient.
func (a *API) mailCode(s Share, code string, now time.Time) {
	from := ""
	if a.Relay != nil {
		from = a.Relay.From
	}
	body := fmt.Sprintf("Your one-time passcode for the report shared with you is:\n\n    %s\n\n"+
		"It is valid for 10 minutes and works once. If you did not ask for it, ignore this message.\n", code)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := mail.Send(ctx, a.Relay, time.Now().Add(30*time.Second), s.Recipient,
		mail.Text(from, s.Recipient, "[Vigil] Your passcode for a shared report", body, now))
	if err != nil {
		a.log().Error("share passcode not mailed", "share", s.Slug, "err", err)
	}
}

// verifyBody is the body of POST /share/{share_slug}/verify.
type verifyBody struct {
	Passcode *string `json:"passcode"`
}

var digits8 = regexp.MustCompile(`^[0-9]{8}$`)

// verify answers POST /share/{share_slug}/verify: the right, unused and
// unexpired passcode of an open share issues a download token for its
// report (of parallel verifications exactly one). An unknown, revoked or
// expired share and a wrong passcode answer alike (401); the holder of
// the right code is told when it expired (401 TOKEN_EXPIRED), was used
// (409) or was burnt by wrong tries (429).
func (a *API) verify(c *fiber.Ctx) error {
	var b verifyBody
	if err := web.Decode(c, &b); err != nil {
		return err
	}
	if b.Passcode == nil || !digits8.MatchString(*b.Passcode) {
		return web.Invalid("passcode", "must be the 8 digits of the passcode")
	}
	slug, err := web.PathParam(c, "share_slug")
	if err != nil {
		return err
	}
	ctx := c.UserContext()
	if err := a.allow(ctx, VerifiesPerClient, slug+" "+c.IP()); err != nil {
		return err
	}
	now := a.Clock.Now()
	s, err := a.Store.ShareBySlug(ctx, slug)
	if errors.Is(err, store.ErrNotFound) {
		return errInvalid()
	} else if err != nil {
		return err
	}
	deny := func(why string, answer error) error {
		if err := a.Store.DenyShareCode(ctx, s.ID, s.CodeHash, a.event(s, EventDenied, why, "recipient", now)); err != nil {
			return err
		}
		return answer
	}
	if !s.Open(now) {
		return deny("the share is revoked or expired", errInvalid())
	}
	hash := HashCode(s.ID, *b.Passcode)
	right := s.CodeHash != "" && subtle.ConstantTimeCompare([]byte(s.CodeHash), []byte(hash)) == 1
	tries := a.tries(s, c.IP())
	if err := tries.refuseSpent(ctx, right, deny); err != nil {
		return err
	}
	raw, tokenHash, err := NewToken()
	if err != nil {
		return err
	}
	expires := now.Add(TokenLife)
	ok, err := a.Store.VerifyShareCode(ctx, s.ID, hash, SharedMaxTries, Token{Hash: tokenHash, ShareID: s.ID, CreatedAt: now, Expires: expires},
		a.event(s, EventVerified, "", "recipient", now))
	if err != nil {
		return err
	}
	if ok {
		return c.JSON(fiber.Map{"download_token": raw, "expires_at": expires.UTC(),
			"download_url": "/api/v1/share/" + s.Slug + "/download", "token_header": TokenHeader})
	}
	// Why not: read the share again, as the verification left it.
	if s, err = a.Store.ShareBySlug(ctx, slug); err != nil {
		return err
	}
	if s.CodeHash == "" || subtle.ConstantTimeCompare([]byte(s.CodeHash), []byte(hash)) != 1 {
		if err := tries.count(ctx); err != nil {
			return err
		}
		return deny("wrong passcode", errInvalid())
	}
	switch {
	case s.CodeUsed:
		return deny("passcode already used", web.Conflict("the passcode was already used; ask for a new one"))
	case s.CodeTries >= SharedMaxTries:
		return deny("passcode burnt by wrong tries", errBurnt(SharedMaxTries))
	case !now.Before(s.CodeExpires):
		return deny("passcode expired", web.NewError(http.StatusUnauthorized, web.CodeTokenExpired,
			"the passcode has expired; ask for a new one"))
	}
	return deny("the share is revoked or expired", errInvalid())
}

// errBurnt is the answer to the right passcode once wrong tries burnt it.
func errBurnt(limit int) *web.Error {
	return &web.Error{Status: http.StatusTooManyRequests, Code: web.CodeRateLimitExceeded,
		Message: "too many wrong passcodes: this one no longer works; ask for a new one",
		Details: map[string]any{"bucket": "share-tries", "limit": limit}}
}

// clientTries counts one client's wrong tries at a share's current
// passcode in the limits store, so that they hold across replicas; a new
// passcode starts a new count.
type clientTries struct {
	limits ratelimit.Store
	key    string
}

// tries returns the count of the client at address ip at s's passcode.
func (a *API) tries(s Share, ip string) clientTries {
	code := s.CodeHash
	if len(code) > 16 {
		code = code[:16]
	}
	return clientTries{limits: a.Limits, key: "share-tries:" + s.ID + ":" + code + ":" + ip}
}

// refuseSpent returns nil while the client has tried fewer than MaxTries
// wrong passcodes; past them, deny's answer: its right code refused as
// burnt, a wrong one as ever. A failing limits store refuses the
// verification (503), as allow does.
func (t clientTries) refuseSpent(ctx context.Context, right bool, deny func(why string, answer error) error) error {
	if t.limits == nil {
		return nil
	}
	n, err := t.limits.Get(ctx, t.key)
	switch {
	case err != nil:
		return web.Unavailable("the share's limits cannot be checked; retry shortly", 5*time.Second, err)
	case n < MaxTries:
		return nil
	case right:
		return deny("passcode burnt for this client by its wrong tries", errBurnt(MaxTries))
	}
	return deny("wrong passcode", errInvalid())
}

// count counts one wrong try, for as long as a passcode lives.
func (t clientTries) count(ctx context.Context) error {
	if t.limits == nil {
		return nil
	}
	if _, err := t.limits.Incr(ctx, t.key, CodeLife); err != nil {
		return web.Unavailable("the share's limits cannot be checked; retry shortly", 5*time.Second, err)
	}
	return nil
}

// download answers GET /share/{share_slug}/download with the download
// token in X-Share-Token: the share's report, once per call counted as a
// view. A missing, expired or foreign token, or a revoked share, is 401,
// written to the share's audit trail as denied.
func (a *API) download(c *fiber.Ctx) error {
	slug, err := web.PathParam(c, "share_slug")
	if err != nil {
		return err
	}
	raw := c.Get(TokenHeader)
	ctx := c.UserContext()
	if raw == "" {
		return a.refuseDownload(ctx, slug, "download without a token")
	}
	s, err := a.Store.UseShareToken(ctx, slug, HashToken(raw), a.event(Share{}, EventViewed, "", "recipient", a.Clock.Now()))
	if errors.Is(err, store.ErrNotFound) {
		return a.refuseDownload(ctx, slug, "download token not valid: unknown, expired, or the share revoked")
	} else if err != nil {
		return err
	}
	j, err := a.Jobs.ExportJob(ctx, s.OrgID, s.ExportID)
	if errors.Is(err, store.ErrNotFound) {
		return web.NotFound("export")
	} else if err != nil {
		return err
	}
	return export.SendFile(c, a.Files, j)
}

// refuseDownload answers a refused download (401) and, when the slug
// names a share, writes the refusal to its audit trail as denied.
func (a *API) refuseDownload(ctx context.Context, slug, why string) error {
	refused := web.Unauthenticated("the download token is not valid for this share")
	s, err := a.Store.ShareBySlug(ctx, slug)
	if errors.Is(err, store.ErrNotFound) {
		return refused
	} else if err != nil {
		return err
	}
	if err := a.Store.DenyShareCode(ctx, s.ID, "", a.event(s, EventDenied, why, "recipient", a.Clock.Now())); err != nil {
		return err
	}
	return refused
}
