package tracking

import (
	"context"
	"crypto/rand"
	"errors"
	"net/http"
	"strconv"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/vigilhq/vigil/identity"
	"github.com/vigilhq/vigil/integrations/codehost"
	"github.com/vigilhq/vigil/integrations/codehost/connection"
	"github.com/vigilhq/vigil/integrations/codehost/hostapi"
	"github.com/vigilhq/vigil/platform/clock"
	"github.com/vigilhq/vigil/platform/secretbox"
	"github.com/vigilhq/vigil/platform/web"
	"github.com/vigilhq/vigil/store"
)

// API serves the routes of repositories: the host's listing, the tracked
// ones, their webhook and their deliveries.
type API struct {
	Store codehost.Store
	// Queue lists the deliveries with what processing made of them.
	Queue codehost.Queue
	// Box seals the webhook secrets.
	Box *secretbox.Keyring
	// Host is the code host's REST API.
	Host hostapi.Host
	// Tokens opens the connections' tokens; shared with the other
	// code-host APIs.
	Tokens *connection.Tokens
	// Clock defaults to the system clock.
	Clock clock.Clock
}

// Routes lists the operations of this package.
func (a *API) Routes() []web.Route {
	return []web.Route{
		{Method: fiber.MethodGet, Path: "/codehost/connections/:connection_id/repositories", Permission: codehost.PermissionRead, Handler: a.hostRepositories},
		{Method: fiber.MethodPost, Path: "/codehost/repositories/track", Permission: codehost.PermissionWrite, Handler: a.track},
		{Method: fiber.MethodGet, Path: "/codehost/repositories", Permission: codehost.PermissionRead, Handler: a.trackedList},
		{Method: fiber.MethodGet, Path: "/codehost/repositories/:repository_id", Permission: codehost.PermissionRead, Handler: a.trackedOne},
		{Method: fiber.MethodPatch, Path: "/codehost/repositories/:repository_id", Permission: codehost.PermissionWrite, Handler: a.update},
		{Method: fiber.MethodDelete, Path: "/codehost/repositories/:repository_id", Permission: codehost.PermissionWrite, Handler: a.untrack},
		{Method: fiber.MethodPost, Path: "/codehost/repositories/:repository_id/webhook", Permission: codehost.PermissionWrite, Handler: a.setupWebhook},
		{Method: fiber.MethodGet, Path: "/codehost/repositories/:repository_id/deliveries", Permission: codehost.PermissionRead, Handler: a.deliveries},
	}
}

type hostListing struct {
	Repositories []hostapi.Repository `json:"repositories"`
	Page         int                  `json:"page"`
	PerPage      int                  `json:"per_page"`
}

// hostRepositories lists one page of the repositories the connection's
// token may see, as the host lists them.
func (a *API) hostRepositories(c *fiber.Ctx) error {
	page, err := web.IntQuery(c, "page", 1, 1, 1<<30)
	if err != nil {
		return err
	}
	perPage, err := web.IntQuery(c, "per_page", 30, 1, 100)
	if err != nil {
		return err
	}
	conn, err := codehost.ConnectionParam(c, a.Store)
	if err != nil {
		return err
	}
	tok, err := a.Tokens.ForRequest(c, conn)
	if err != nil {
		return err
	}
	rs, err := a.Host.Repositories(c.UserContext(), tok, page, perPage)
	if err != nil {
		return hostapi.RepoAnswer(err, "")
	}
	if rs == nil {
		rs = []hostapi.Repository{}
	}
	return c.JSON(hostListing{Repositories: rs, Page: page, PerPage: perPage})
}

// options are the tracking options of a track or update request; a field
// left out keeps its default (track) or its value (update).
type options struct {
	TrackedBranches *[]string `json:"tracked_branches"`
	TrackTags       *bool     `json:"tracked_tags"`
	TrackReleases   *bool     `json:"tracked_releases"`
	AutoRegister    *bool     `json:"auto_register_enabled"`
	Patterns        *[]string `json:"model_path_patterns"`
}

func (o options) check(v *web.Problems) {
	if o.TrackedBranches != nil {
		codehost.CheckBranches(v, "tracked_branches", *o.TrackedBranches)
	}
	if o.Patterns != nil {
		codehost.CheckPatterns(v, "model_path_patterns", *o.Patterns)
		if len(*o.Patterns) == 0 {
			v.Add("model_path_patterns", "must hold at least one pattern")
		}
	}
}

func (o options) apply(r *codehost.Repository) {
	if o.TrackedBranches != nil {
		r.TrackedBranches = *o.TrackedBranches
	}
	if o.TrackTags != nil {
		r.TrackTags = *o.TrackTags
	}
	if o.TrackReleases != nil {
		r.TrackReleases = *o.TrackReleases
	}
	if o.AutoRegister != nil {
		r.AutoRegister = *o.AutoRegister
	}
	if o.Patterns != nil {
		r.ModelPathPatterns = *o.Patterns
	}
}

type trackRequest struct {
	ConnectionID string `json:"connection_id"`
	Owner        string `json:"owner"`
	Name         string `json:"name"`
	options
}

func (a *API) track(c *fiber.Ctx) error {
	var req trackRequest
	if err := web.Decode(c, &req); err != nil {
		return err
	}
	var v web.Problems
	v.Required("connection_id", req.ConnectionID)
	v.UUID("connection_id", &req.ConnectionID)
	if !codehost.ValidOwner(req.Owner) {
		v.Add("owner", "must match "+codehost.OwnerPattern)
	}
	if !codehost.ValidName(req.Name) {
		v.Add("name", "must match "+codehost.NamePattern)
	}
	req.check(&v)
	if err := v.Err(); err != nil {
		return err
	}
	org := identity.OrgID(c)
	conn, err := a.Store.CodehostConnection(c.UserContext(), org, req.ConnectionID)
	if errors.Is(err, store.ErrNotFound) {
		return web.NotFound("connection")
	}
	if err != nil {
		return err
	}
	tok, err := a.Tokens.ForRequest(c, conn)
	if err != nil {
		return err
	}
	h, err := a.Host.Repository(c.UserContext(), tok, req.Owner, req.Name)
	if err != nil {
		return hostapi.RepoAnswer(err, "name")
	}
	r := codehost.Repository{ID: uuid.Must(uuid.NewV7()).String(), OrgID: org, ConnectionID: conn.ID, Owner: req.Owner, Name: req.Name,
		FullName: h.FullName, DefaultBranch: h.DefaultBranch, IsPrivate: h.Private, TrackedBranches: []string{},
		TrackTags: true, TrackReleases: true, ModelPathPatterns: codehost.DefaultModelPatterns, WebhookStatus: codehost.WebhookInactive,
		TrackedBy: identity.FromCtx(c).UserID, CreatedAt: a.Clock.Now()}
	if h.Owner != "" && h.Name != "" {
		r.Owner, r.Name = h.Owner, h.Name
	}
	if r.FullName == "" {
		r.FullName = r.Owner + "/" + r.Name
	}
	req.apply(&r)
	err = a.Store.CreateCodehostRepository(c.UserContext(), r)
	if errors.Is(err, store.ErrConflict) {
		return web.Conflict("the organization tracks " + r.FullName + " already")
	}
	if err != nil {
		return err
	}
	return c.Status(http.StatusCreated).JSON(r)
}

func (a *API) trackedList(c *fiber.Ctx) error {
	page, size, err := web.PageQuery(c, 50, 1000)
	if err != nil {
		return err
	}
	rs, total, err := a.Store.CodehostRepositories(c.UserContext(), identity.OrgID(c), (page-1)*size, size)
	if err != nil {
		return err
	}
	if rs == nil {
		rs = []codehost.Repository{}
	}
	return c.JSON(struct {
		Repositories []codehost.Repository `json:"repositories"`
		web.Page
	}{rs, web.NewPage(total, page, size)})
}

func (a *API) trackedOne(c *fiber.Ctx) error {
	r, err := codehost.RepositoryParam(c, a.Store)
	if err != nil {
		return err
	}
	return c.JSON(r)
}

func (a *API) update(c *fiber.Ctx) error {
	var req options
	if err := web.Decode(c, &req); err != nil {
		return err
	}
	var v web.Problems
	req.check(&v)
	if err := v.Err(); err != nil {
		return err
	}
	r, err := a.change(c, func(r *codehost.Repository) { req.apply(r) })
	if err != nil {
		return err
	}
	return c.JSON(r)
}

// maxChangeTries bounds the reads of change: each failed try means
// another change committed meanwhile.
const maxChangeTries = 10

// change applies fn to the caller's tracked repository of the
// repository_id path parameter and stores it, conditionally on the
// revision read: when another change (a PATCH, a webhook setup) committed
// in between, it reads the repository again and applies fn to that, so
// neither loses what the other wrote. It returns the repository as
// stored.
func (a *API) change(c *fiber.Ctx, fn func(*codehost.Repository)) (codehost.Repository, error) {
	for range maxChangeTries {
		r, err := codehost.RepositoryParam(c, a.Store)
		if err != nil {
			return r, err
		}
		fn(&r)
		err = a.Store.UpdateCodehostRepository(c.UserContext(), r)
		switch {
		case err == nil:
			r.Revision++
			return r, nil
		case errors.Is(err, store.ErrNotFound):
			return r, web.NotFound("repository")
		case !errors.Is(err, store.ErrConflict):
			return r, err
		}
	}
	return codehost.Repository{}, web.Conflict("the repository kept changing while this change was applied; retry")
}

// untrack removes the tracked repository and, best effort, its webhook on
// the code host: a hook left behind (host down, token revoked) signs with
// a secret that no longer verifies, so its deliveries answer 401.
func (a *API) untrack(c *fiber.Ctx) error {
	r, err := codehost.RepositoryParam(c, a.Store)
	if err != nil {
		return err
	}
	if err := a.Store.DeleteCodehostRepository(c.UserContext(), r.OrgID, r.ID); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return web.NotFound("repository")
		}
		return err
	}
	if r.WebhookID != 0 {
		if conn, err := a.Store.CodehostConnection(c.UserContext(), r.OrgID, r.ConnectionID); err == nil {
			if tok, err := a.Tokens.ForRequest(c, conn); err == nil {
				_ = a.Host.DeleteHook(c.UserContext(), tok, r.Owner, r.Name, r.WebhookID)
			}
		}
	}
	return c.SendStatus(http.StatusNoContent)
}

type webhookSetup struct {
	Message       string `json:"message"`
	WebhookID     string `json:"webhook_id"`
	WebhookStatus string `json:"webhook_status"`
}

// DeliveryURL is where the webhook of repository id posts, given the
// service's base URL.
func DeliveryURL(base, id string) string {
	return base + "/api/v1/codehost/webhooks?repository=" + id
}

// setupWebhook creates the webhook on the code host with a new secret,
// stores the secret sealed and moves webhook_status to active. Set up
// again, it replaces the previous hook (and its secret).
func (a *API) setupWebhook(c *fiber.Ctx) error {
	if err := web.NoBody(c); err != nil {
		return err
	}
	r, tok, err := a.Tokens.Repository(c)
	if err != nil {
		return err
	}
	secret := []byte(rand.Text() + rand.Text())
	id, err := a.Host.CreateHook(c.UserContext(), tok, r.Owner, r.Name, DeliveryURL(c.BaseURL(), r.ID), secret)
	if err != nil {
		return hostapi.RepoAnswer(err, "")
	}
	sealed, err := a.Box.Seal(secret, codehost.SecretLabel(r.ID))
	if err != nil {
		return err
	}
	// The webhook fields are written over the repository as stored now,
	// not as read before the host's call: a PATCH meanwhile keeps its
	// options, and the hook this replaces is the one stored last.
	var old int64
	owner, name := r.Owner, r.Name
	r, err = a.change(c, func(r *codehost.Repository) {
		old = r.WebhookID
		r.SealedWebhookSecret, r.WebhookID, r.WebhookStatus = sealed, id, codehost.WebhookActive
	})
	if err != nil {
		// Untracked meanwhile: the new hook must not stay behind.
		_ = a.Host.DeleteHook(context.WithoutCancel(c.UserContext()), tok, owner, name, id)
		return err
	}
	if old != 0 && old != id {
		_ = a.Host.DeleteHook(c.UserContext(), tok, owner, name, old)
	}
	return c.JSON(webhookSetup{Message: "webhook created on " + r.FullName, WebhookID: strconv.FormatInt(id, 10),
		WebhookStatus: r.WebhookStatus})
}
