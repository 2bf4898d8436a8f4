package webhook

import (
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/vigilhq/vigil/integrations/codehost"
	"github.com/vigilhq/vigil/integrations/codehost/hostapi"
	"github.com/vigilhq/vigil/platform/clock"
	"github.com/vigilhq/vigil/platform/secretbox"
	"github.com/vigilhq/vigil/platform/web"
	"github.com/vigilhq/vigil/store"
)

// Headers of a delivery besides the signature.
const (
	DeliveryHeader = "X-GitHub-Delivery"
	EventHeader    = "X-GitHub-Event"
)

// maxDeliveryID bounds the delivery id kept (the platform's are UUIDs).
const maxDeliveryID = 100

// API serves the delivery endpoint, POST /codehost/webhooks.
type API struct {
	Store codehost.Store
	// Box opens the sealed webhook secrets.
	Box *secretbox.Keyring
	// Clock defaults to the system clock.
	Clock clock.Clock
}

// Routes lists the operations of this package.
func (a *API) Routes() []web.Route {
	return []web.Route{{Method: fiber.MethodPost, Path: "/codehost/webhooks", Public: true, RawBody: true, Handler: a.deliver}}
}

// receipt is the delivery endpoint's answer.
type receipt struct {
	DeliveryID string `json:"delivery_id"`
	Event      string `json:"event"`
	// Status is received (new, kept for processing), ignored (new, an
	// event nothing subscribes to) or duplicate (seen before, unchanged).
	Status string `json:"status"`
}

// unverified is the one answer to every delivery whose signature does not
// verify, whatever the reason, so that nothing tells which repository ids
// exist.
func unverified(reason string) error {
	return web.Unauthenticated("the delivery's " + SignatureHeader + " does not verify: " + reason)
}

// The webhook that setup creates on a tracked repository posts to
// /api/v1/codehost/webhooks?repository={id}: the repository's id names
// the secret to check with, since the body may not be read before its
// signature is. A delivery is checked in this order, and the first
// failure answers:
//
//  1. X-Hub-Signature-256 must be "sha256=" and 64 hexadecimal digits
//     (missing, sha1=, truncated or longer: 401);
//  2. repository must name a tracked repository (otherwise 401, as a
//     bad signature: nothing tells which ids exist);
//  3. HMAC-SHA256 of the raw body under the repository's secret must equal
//     the signature, compared in constant time (401).
//
// A hook set up by hand at the spec's path, /api/v1/codehost/webhooks
// without ?repository=, is located by its payload instead: the body is
// read for repository.full_name alone, and the signature is checked
// against the secret of each tracked repository of that name (of any
// organization, compared without case; at most 16); the first that
// verifies is the delivery's. A name no repository has and a signature
// no secret makes answer the same 401. Then, for either path:
//
//  4. only then are the X-GitHub-Delivery and X-GitHub-Event headers read
//     (422 naming the header when missing) and the body parsed as JSON
//     (400 when it is not);
//  5. the delivery id is recorded in the transactional store, once per
//     repository: a new one is kept as received (queued, for the event
//     processing that reads it; 202), a repeated one is acknowledged and
//     changes nothing (200). push, release and create are the subscribed
//     events; any other (ping) is recorded as ignored.
func (a *API) deliver(c *fiber.Ctx) error {
	body := c.Body()
	sum, err := ParseSignature(c.Get(SignatureHeader))
	if err != nil {
		return unverified(strings.TrimPrefix(err.Error(), "codehost: "))
	}
	repo, err := a.signer(c, body, sum)
	if err != nil {
		return err
	}
	var v web.Problems
	id, event := c.Get(DeliveryHeader), c.Get(EventHeader)
	v.Required(DeliveryHeader, id)
	v.MaxLen(DeliveryHeader, id, maxDeliveryID)
	v.Required(EventHeader, event)
	v.MaxLen(EventHeader, event, 100)
	if err := v.Err(); err != nil {
		return err
	}
	var payload map[string]any
	if err := web.DecodeBody(body, &payload); err != nil {
		return err
	}
	d := codehost.Delivery{RepositoryID: repo.ID, OrgID: repo.OrgID, ID: id, Event: event, Payload: body,
		Status: codehost.DeliveryIgnored, ReceivedAt: a.Clock.Now()}
	if slices.Contains(hostapi.Events, event) {
		d.Status = codehost.DeliveryReceived
	}
	fresh, err := a.Store.RecordDelivery(c.UserContext(), d)
	if err != nil {
		return err
	}
	if !fresh {
		return c.JSON(receipt{DeliveryID: id, Event: event, Status: "duplicate"})
	}
	return c.Status(http.StatusAccepted).JSON(receipt{DeliveryID: id, Event: event, Status: d.Status})
}

// maxNamed bounds the repositories of one full name (tracked by as many
// organizations) whose secrets a delivery to the spec's path is checked
// against.
const maxNamed = 16

// signer returns the tracked repository whose webhook secret signs body
// with sum: the one ?repository= names (the URL setup gives the hook), or
// else one whose full name the payload's repository carries (a hook set
// up by hand at the spec's path). 401 when there is none; an unknown
// repository and a bad signature answer alike.
func (a *API) signer(c *fiber.Ctx, body, sum []byte) (codehost.Repository, error) {
	if id := c.Query("repository"); id != "" {
		repo, secret, err := a.secret(c, id)
		if err != nil {
			return repo, err
		}
		if err := match(secret, body, sum); err != nil {
			return repo, unverified("it does not match the body")
		}
		return repo, nil
	}
	const reason = "no tracked repository named by the payload has a secret that signs it"
	var payload struct {
		Repository struct {
			FullName string `json:"full_name"`
		} `json:"repository"`
	}
	if json.Unmarshal(body, &payload) != nil || payload.Repository.FullName == "" || len(payload.Repository.FullName) > 300 {
		return codehost.Repository{}, unverified(reason)
	}
	repos, err := a.Store.WebhookRepositoriesNamed(c.UserContext(), payload.Repository.FullName, maxNamed)
	if err != nil {
		return codehost.Repository{}, err
	}
	for _, r := range repos {
		secret, err := a.Box.Open(r.SealedWebhookSecret, codehost.SecretLabel(r.ID))
		if err != nil {
			return r, err
		}
		if match(secret, body, sum) == nil {
			return r, nil
		}
	}
	return codehost.Repository{}, unverified(reason)
}

// secret returns the tracked repository id and its webhook secret; 401
// when there is none to check with.
func (a *API) secret(c *fiber.Ctx, id string) (codehost.Repository, []byte, error) {
	if id == "" || len(id) > 64 {
		return codehost.Repository{}, nil, unverified("repository names no repository with a webhook")
	}
	repo, err := a.Store.WebhookRepository(c.UserContext(), id)
	if errors.Is(err, store.ErrNotFound) || err == nil && repo.SealedWebhookSecret == "" {
		return repo, nil, unverified("repository names no repository with a webhook")
	}
	if err != nil {
		return repo, nil, err
	}
	secret, err := a.Box.Open(repo.SealedWebhookSecret, codehost.SecretLabel(repo.ID))
	if err != nil {
		return repo, nil, err
	}
	return repo, secret, nil
}
