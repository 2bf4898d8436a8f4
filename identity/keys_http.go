package identity

import (
	"errors"
	"net/http"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/vigilhq/vigil/platform/web"
	"github.com/vigilhq/vigil/store"
)

type createKeyRequest struct {
	Name          string   `json:"name"`
	Scopes        []string `json:"scopes"`
	ExpiresInDays *web.Int `json:"expires_in_days"`
}

// createdKey is the one response that carries the raw key.
type createdKey struct {
	APIKey
	RawKey string `json:"raw_key"`
}

func (a *API) createKey(c *fiber.Ctx) error {
	var req createKeyRequest
	if err := web.Decode(c, &req); err != nil {
		return err
	}
	var v web.Problems
	v.Required("name", req.Name)
	v.MaxLen("name", req.Name, 100)
	if req.Scopes == nil {
		req.Scopes = []string{ScopeRead}
	}
	if len(req.Scopes) == 0 {
		v.Add("scopes", "must list at least one scope")
	}
	for _, s := range req.Scopes {
		if !ValidScope(s) {
			v.Add("scopes", "unknown scope "+s+"; want read, write or one resource:action permission")
		}
	}
	if req.ExpiresInDays != nil && (*req.ExpiresInDays < 1 || *req.ExpiresInDays > 3650) {
		v.Add("expires_in_days", "must be between 1 and 3650")
	}
	if err := v.Err(); err != nil {
		return err
	}
	raw, err := NewKey()
	if err != nil {
		return err
	}
	now := a.Clock.Now()
	p := FromCtx(c)
	k := APIKey{ID: uuid.Must(uuid.NewV7()).String(), OrgID: p.OrgID, UserID: p.UserID, Name: req.Name,
		Hint: KeyHint(raw), Hash: HashKey(raw), Scopes: req.Scopes, CreatedAt: now}
	if req.ExpiresInDays != nil {
		exp := now.Add(time.Duration(*req.ExpiresInDays) * 24 * time.Hour)
		k.ExpiresAt = &exp
	}
	if err := a.Store.CreateAPIKey(c.UserContext(), k); err != nil {
		return err
	}
	return c.Status(http.StatusCreated).JSON(createdKey{APIKey: k, RawKey: raw})
}

func (a *API) listKeys(c *fiber.Ctx) error {
	page, size, err := web.PageQuery(c, 50, 1000)
	if err != nil {
		return err
	}
	keys, err := a.Store.APIKeys(c.UserContext(), OrgID(c))
	if err != nil {
		return err
	}
	items, pg := paginate(keys, page, size)
	return c.JSON(struct {
		Keys []APIKey `json:"api_keys"`
		web.Page
	}{orEmpty(items), pg})
}

func (a *API) getKey(c *fiber.Ctx) error {
	keys, err := a.Store.APIKeys(c.UserContext(), OrgID(c))
	if err != nil {
		return err
	}
	for _, k := range keys {
		if k.ID == c.Params("key_id") {
			return c.JSON(k)
		}
	}
	return web.NotFound("API key")
}

// revokeKey revokes a key: the very next request with it answers 401 on
// this replica, and on the others once the invalidation reaches them
// (within the principal cache's one-second lifetime at worst).
func (a *API) revokeKey(c *fiber.Ctx) error {
	err := a.Store.RevokeAPIKey(c.UserContext(), OrgID(c), c.Params("key_id"), a.Clock.Now())
	if errors.Is(err, store.ErrNotFound) {
		return web.NotFound("API key")
	}
	if err != nil {
		return err
	}
	a.invalidate(c)
	return c.SendStatus(http.StatusNoContent)
}
