package share

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	netmail "net/mail"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/vigilhq/vigil/export"
	"github.com/vigilhq/vigil/identity"
	"github.com/vigilhq/vigil/platform/clock"
	"github.com/vigilhq/vigil/platform/mail"
	"github.com/vigilhq/vigil/platform/ratelimit"
	"github.com/vigilhq/vigil/platform/web"
	"github.com/vigilhq/vigil/store"
)

// API serves the shares of exports: the organization's side under
// /export (create, list, read, revoke, audit trail) and the recipient's
// public side under /share/{share_slug}.
type API struct {
	// Store keeps the shares, Jobs the exports they share, whose files
	// are read from Files.
	Store Store
	Jobs  export.JobStore
	Files export.Files
	// Limits counts the recipient side's requests (codes per share and
	// per recipient, verifications per share) across replicas.
	Limits ratelimit.Store
	// Relay mails the passcodes; without one no code reaches anyone.
	Relay *mail.Relay
	// Clock defaults to the system clock; Log to slog's default.
	Clock clock.Clock
	Log   *slog.Logger
}

// Routes lists the operations of this package.
func (a *API) Routes() []web.Route {
	return []web.Route{
		{Method: fiber.MethodPost, Path: "/export/exports/:export_id/share", Permission: export.PermWrite, Handler: a.create},
		{Method: fiber.MethodGet, Path: "/export/exports/:export_id/shares", Permission: export.PermRead, Handler: a.list},
		{Method: fiber.MethodGet, Path: "/export/shares/:share_slug", Permission: export.PermRead, Handler: a.get},
		{Method: fiber.MethodPost, Path: "/export/shares/:share_slug/revoke", Permission: export.PermWrite, Handler: a.revoke},
		{Method: fiber.MethodGet, Path: "/export/shares/:share_slug/events", Permission: export.PermRead, Handler: a.events},
		{Method: fiber.MethodGet, Path: "/share/:share_slug", Public: true, Handler: a.landing},
		{Method: fiber.MethodPost, Path: "/share/:share_slug/passcode", Public: true, Handler: a.requestCode},
		{Method: fiber.MethodPost, Path: "/share/:share_slug/verify", Public: true, Handler: a.verify},
		{Method: fiber.MethodGet, Path: "/share/:share_slug/download", Public: true, Handler: a.download},
	}
}

func (a *API) log() *slog.Logger {
	if a.Log != nil {
		return a.Log
	}
	return slog.Default()
}

// view is a share as the API answers it.
type view struct {
	Slug       string     `json:"share_slug"`
	ExportID   string     `json:"export_id"`
	Recipient  string     `json:"recipient_email"`
	Status     string     `json:"status"`
	Expired    bool       `json:"expired"`
	Views      int        `json:"view_count"`
	URL        string     `json:"share_url"`
	CreatedBy  string     `json:"created_by"`
	CreatedAt  time.Time  `json:"created_at"`
	ExpiresAt  time.Time  `json:"expires_at"`
	VerifiedAt *time.Time `json:"verified_at"`
	RevokedAt  *time.Time `json:"revoked_at"`
}

func newView(s Share, now time.Time) view {
	return view{Slug: s.Slug, ExportID: s.ExportID, Recipient: s.Recipient, Status: s.Status, Expired: !now.Before(s.ExpiresAt),
		Views: s.Views, URL: "/share/" + s.Slug, CreatedBy: s.CreatedBy, CreatedAt: s.CreatedAt.UTC(), ExpiresAt: s.ExpiresAt.UTC(),
		VerifiedAt: utc(s.VerifiedAt), RevokedAt: utc(s.RevokedAt)}
}

func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

// createBody is the body of POST /export/exports/{export_id}/share.
type createBody struct {
	Recipient     *string  `json:"recipient_email"`
	ExpiresInDays *web.Int `json:"expires_in_days"`
}

func (b createBody) check() (days int, err error) {
	var v web.Problems
	if b.Recipient == nil {
		v.Add("recipient_email", "is required")
	} else if addr, perr := netmail.ParseAddress(*b.Recipient); perr != nil || addr.Address != *b.Recipient || len(*b.Recipient) > 254 {
		v.Add("recipient_email", "must be an e-mail address (user@example.com), at most 254 characters")
	}
	days = DefaultLife
	if b.ExpiresInDays != nil {
		if days = int(*b.ExpiresInDays); days < 1 || days > MaxLife {
			v.Add("expires_in_days", fmt.Sprintf("must be 1 to %d", MaxLife))
		}
	}
	return days, v.Err()
}

// create answers POST /export/exports/{export_id}/share: 201 with a
// pending share of a completed export; 409 for any other export.
func (a *API) create(c *fiber.Ctx) error {
	var b createBody
	if err := web.Decode(c, &b); err != nil {
		return err
	}
	days, err := b.check()
	if err != nil {
		return err
	}
	j, err := export.PathJob(c, a.Jobs)
	if err != nil {
		return err
	}
	ctx, org := c.UserContext(), identity.OrgID(c)
	if j.Status != export.StatusCompleted {
		return web.Conflict("only a completed export can be shared; this one is " + j.Status)
	}
	slug, err := NewSlug()
	if err != nil {
		return err
	}
	now := a.Clock.Now()
	actor := identity.FromCtx(c).UserID
	s := Share{ID: uuid.Must(uuid.NewV7()).String(), OrgID: org, ExportID: j.ID, Slug: slug, Recipient: *b.Recipient,
		Status: StatusPending, CreatedBy: actor, CreatedAt: now, ExpiresAt: now.AddDate(0, 0, days)}
	if err := a.Store.CreateShare(ctx, s, a.event(s, EventCreated, "", actor, now)); err != nil {
		return err
	}
	c.Set(fiber.HeaderLocation, "/api/v1/export/shares/"+s.Slug)
	return c.Status(http.StatusCreated).JSON(newView(s, now))
}

// event is an audit-trail entry of s.
func (a *API) event(s Share, kind, detail, actor string, at time.Time) Event {
	return Event{ID: uuid.Must(uuid.NewV7()).String(), ShareID: s.ID, OrgID: s.OrgID, Kind: kind, Detail: detail, Actor: actor, At: at}
}

// list answers GET /export/exports/{export_id}/shares, newest first.
func (a *API) list(c *fiber.Ctx) error {
	now := a.Clock.Now()
	return web.SendPage(c, "shares", func(ctx context.Context, offset, limit int) ([]Share, int64, error) {
		j, err := export.PathJob(c, a.Jobs)
		if err != nil {
			return nil, 0, err
		}
		return a.Store.Shares(ctx, j.OrgID, j.ID, offset, limit)
	}, func(s Share) view { return newView(s, now) })
}

// share is the organization's share of the path's slug.
func (a *API) share(c *fiber.Ctx) (Share, error) {
	return identity.PathRecord(c, "share_slug", "share", a.Store.Share)
}

func (a *API) get(c *fiber.Ctx) error {
	s, err := a.share(c)
	if err != nil {
		return err
	}
	return c.JSON(newView(s, a.Clock.Now()))
}

// revoke answers POST /export/shares/{share_slug}/revoke: the share
// answers no passcode request, verification or download any more (409
// when already revoked).
func (a *API) revoke(c *fiber.Ctx) error {
	if err := web.NoBody(c); err != nil {
		return err
	}
	slug, err := web.PathParam(c, "share_slug")
	if err != nil {
		return err
	}
	now := a.Clock.Now()
	ev := Event{ID: uuid.Must(uuid.NewV7()).String(), Kind: EventRevoked, Actor: identity.FromCtx(c).UserID, At: now}
	s, err := a.Store.RevokeShare(c.UserContext(), identity.OrgID(c), slug, ev)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return web.NotFound("share")
	case errors.Is(err, store.ErrConflict):
		return web.Conflict("the share is already revoked")
	case err != nil:
		return err
	}
	return c.JSON(newView(s, now))
}

// eventView is an audit-trail entry as the API answers it.
type eventView struct {
	Kind   string    `json:"event"`
	Detail string    `json:"detail"`
	Actor  string    `json:"actor"`
	At     time.Time `json:"at"`
}

// events answers GET /export/shares/{share_slug}/events: the share's
// audit trail, oldest first.
func (a *API) events(c *fiber.Ctx) error {
	return web.SendPage(c, "events", func(ctx context.Context, offset, limit int) ([]Event, int64, error) {
		s, err := a.share(c)
		if err != nil {
			return nil, 0, err
		}
		return a.Store.ShareEvents(ctx, s.OrgID, s.ID, offset, limit)
	}, func(e Event) eventView {
		return eventView{Kind: e.Kind, Detail: e.Detail, Actor: e.Actor, At: e.At.UTC()}
	})
}
