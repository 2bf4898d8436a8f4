package delivery

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	netmail "net/mail"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"
	"golang.org/x/crypto/ssh"

	"github.com/vigilhq/vigil/export"
	"github.com/vigilhq/vigil/identity"
	"github.com/vigilhq/vigil/platform/clock"
	"github.com/vigilhq/vigil/platform/outbound"
	"github.com/vigilhq/vigil/platform/secretbox"
	"github.com/vigilhq/vigil/platform/web"
	"github.com/vigilhq/vigil/store"
)

// MaxRecipients bounds an email integration's recipients.
const MaxRecipients = 50

// API serves /export/integrations.
type API struct {
	Store Store
	// Deliveries and Jobs answer an export's deliveries.
	Deliveries DeliveryStore
	Jobs       export.JobStore
	// Box seals the secrets; Targets guards network targets.
	Box     *secretbox.Keyring
	Targets *outbound.Guard
	// Clock defaults to the system clock.
	Clock clock.Clock
}

// Routes lists the operations of this package.
func (a *API) Routes() []web.Route {
	return []web.Route{
		{Method: fiber.MethodGet, Path: "/export/integrations", Permission: export.PermRead, Handler: a.list},
		{Method: fiber.MethodPost, Path: "/export/integrations", Permission: export.PermWrite, Handler: a.create},
		{Method: fiber.MethodGet, Path: "/export/integrations/:integration_id", Permission: export.PermRead, Handler: a.get},
		{Method: fiber.MethodPut, Path: "/export/integrations/:integration_id", Permission: export.PermWrite, Handler: a.replace},
		{Method: fiber.MethodDelete, Path: "/export/integrations/:integration_id", Permission: export.PermWrite, Handler: a.delete},
		{Method: fiber.MethodGet, Path: "/export/exports/:export_id/deliveries", Permission: export.PermRead, Handler: a.deliveries},
	}
}

// view is an integration as the API answers it: its secrets masked.
type view struct {
	ID        string            `json:"id"`
	Name      string            `json:"name"`
	Type      string            `json:"type"`
	Settings  Settings          `json:"settings"`
	Secrets   map[string]string `json:"secrets"`
	CreatedAt time.Time         `json:"created_at"`
	UpdatedAt time.Time         `json:"updated_at"`
}

func newView(in Integration) view {
	masks := in.Masks
	if masks == nil {
		masks = map[string]string{}
	}
	return view{ID: in.ID, Name: in.Name, Type: in.Type, Settings: in.Settings, Secrets: masks, CreatedAt: in.CreatedAt.UTC(),
		UpdatedAt: in.UpdatedAt.UTC()}
}

// body is the body of POST and PUT.
type body struct {
	Name     *string   `json:"name"`
	Type     *string   `json:"type"`
	Settings *Settings `json:"settings"`
	Secrets  *Secrets  `json:"secrets"`
}

// check validates the body for its type: 422 naming the field. keep
// says whether stored secrets stand in for absent ones.
func (a *API) check(b body, keep bool) error {
	var v web.Problems
	if b.Name == nil || strings.TrimSpace(*b.Name) == "" || utf8.RuneCountInString(*b.Name) > 200 {
		v.Add("name", "is required: 1 to 200 characters")
	}
	if b.Type == nil || !slices.Contains(Types, *b.Type) {
		v.Add("type", "must be one of "+strings.Join(Types, ", "))
		return v.Err()
	}
	s, sec := Settings{}, Secrets{}
	if b.Settings != nil {
		s = *b.Settings
	}
	if b.Secrets != nil {
		sec = *b.Secrets
	}
	needSecret := func(field, value string, min int) {
		if value == "" && keep {
			return
		}
		if value == "" {
			v.Add("secrets."+field, "is required")
		} else if utf8.RuneCountInString(value) < min || len(value) > 16384 {
			v.Add("secrets."+field, fmt.Sprintf("must be %d to 16384 characters", min))
		}
	}
	used := map[string]bool{}
	switch *b.Type {
	case TypeEmail:
		used["recipients"] = true
		if len(s.Recipients) == 0 || len(s.Recipients) > MaxRecipients {
			v.Add("settings.recipients", fmt.Sprintf("must name 1 to %d addresses", MaxRecipients))
		}
		for i, r := range s.Recipients {
			if addr, err := netmail.ParseAddress(r); err != nil || addr.Address != r || len(r) > 254 {
				v.Add(fmt.Sprintf("settings.recipients[%d]", i), "must be an e-mail address (user@example.com)")
			}
		}
	case TypeWebhook:
		used["url"] = true
		if _, err := a.guard().CheckURL(s.URL); err != nil {
			v.Add("settings.url", "must be an http(s) URL the outbound guard allows: "+err.Error())
		}
		needSecret("signing_secret", sec.SigningSecret, 16)
	case TypeS3:
		used["endpoint"], used["bucket"], used["region"], used["prefix"], used["path_style"] = true, true, true, true, true
		if _, err := a.guard().CheckURL(s.Endpoint); err != nil {
			v.Add("settings.endpoint", "must be an http(s) URL the outbound guard allows: "+err.Error())
		}
		if n := len(s.Bucket); n < 3 || n > 63 || strings.ToLower(s.Bucket) != s.Bucket || strings.ContainsAny(s.Bucket, "/ ") {
			v.Add("settings.bucket", "must be a bucket name: 3 to 63 lower-case characters, no slash")
		}
		if len(s.Region) > 64 || len(s.Prefix) > 512 {
			v.Add("settings.prefix", "region at most 64 and prefix at most 512 characters")
		}
		needSecret("access_key_id", sec.AccessKeyID, 3)
		needSecret("secret_access_key", sec.SecretAccessKey, 8)
	case TypeSFTP:
		used["host"], used["port"], used["username"], used["directory"], used["host_key"] = true, true, true, true, true
		port := int(s.Port)
		if port == 0 {
			port = 22
		}
		if port < 1 || port > 65535 {
			v.Add("settings.port", "must be 1 to 65535")
		} else if s.Host == "" || strings.ContainsAny(s.Host, "/@ ") {
			v.Add("settings.host", "must be a host name or address")
		} else if _, err := a.guard().CheckURL("https://" + net.JoinHostPort(s.Host, strconv.Itoa(port)) + "/"); err != nil {
			v.Add("settings.host", "must be a host the outbound guard allows: "+err.Error())
		}
		if s.Username == "" || len(s.Username) > 64 {
			v.Add("settings.username", "is required: 1 to 64 characters")
		}
		if _, err := ParseHostKey(s.HostKey); err != nil {
			v.Add("settings.host_key", "must be the server's public key in authorized_keys form (ssh-ed25519 AAAA...)")
		}
		needSecret("private_key", sec.PrivateKey, 32)
		if sec.PrivateKey != "" && len(sec.PrivateKey) <= 16384 {
			if _, err := ssh.ParsePrivateKey([]byte(sec.PrivateKey)); err != nil {
				v.Add("secrets.private_key", "must be an unencrypted private key (PEM: OpenSSH, PKCS#1, PKCS#8 or EC)")
			}
		}
	}
	for name, set := range map[string]bool{"recipients": len(s.Recipients) > 0, "url": s.URL != "", "endpoint": s.Endpoint != "",
		"bucket": s.Bucket != "", "region": s.Region != "", "prefix": s.Prefix != "", "path_style": s.PathStyle, "host": s.Host != "",
		"port": s.Port != 0, "username": s.Username != "", "directory": s.Directory != "", "host_key": s.HostKey != ""} {
		if set && !used[name] {
			v.Add("settings."+name, "is not a setting of a "+*b.Type+" integration")
		}
	}
	wanted := map[string][]string{TypeWebhook: {"signing_secret"}, TypeS3: {"access_key_id", "secret_access_key"}, TypeSFTP: {"private_key"}}
	for name, set := range map[string]bool{"signing_secret": sec.SigningSecret != "", "access_key_id": sec.AccessKeyID != "",
		"secret_access_key": sec.SecretAccessKey != "", "private_key": sec.PrivateKey != ""} {
		if set && !slices.Contains(wanted[*b.Type], name) {
			v.Add("secrets."+name, "is not a secret of a "+*b.Type+" integration")
		}
	}
	return v.Err()
}

func (a *API) guard() *outbound.Guard {
	if a.Targets == nil {
		return &outbound.Guard{}
	}
	return a.Targets
}

// fill applies a checked body to in, sealing its secrets.
func (a *API) fill(b body, in *Integration) error {
	in.Name, in.Type, in.Settings = *b.Name, *b.Type, Settings{}
	if b.Settings != nil {
		in.Settings = *b.Settings
	}
	if in.Type == TypeSFTP && in.Settings.Port == 0 {
		in.Settings.Port = 22
	}
	if b.Secrets == nil && in.Sealed != "" {
		return nil // PUT without secrets keeps the stored ones
	}
	var sec Secrets
	if b.Secrets != nil {
		sec = *b.Secrets
	}
	sealed, masks, err := Seal(a.Box, in.OrgID, sec)
	if err != nil {
		return err
	}
	in.Sealed, in.Masks = sealed, masks
	return nil
}

func (a *API) create(c *fiber.Ctx) error {
	var b body
	if err := web.Decode(c, &b); err != nil {
		return err
	}
	if err := a.check(b, false); err != nil {
		return err
	}
	now := a.Clock.Now()
	in := Integration{ID: uuid.Must(uuid.NewV7()).String(), OrgID: identity.OrgID(c), CreatedAt: now, UpdatedAt: now}
	if err := a.fill(b, &in); err != nil {
		return err
	}
	if err := a.Store.CreateExportIntegration(c.UserContext(), in); err != nil {
		return err
	}
	c.Set(fiber.HeaderLocation, "/api/v1/export/integrations/"+in.ID)
	return c.Status(http.StatusCreated).JSON(newView(in))
}

func (a *API) list(c *fiber.Ctx) error {
	return web.SendPage(c, "integrations", func(ctx context.Context, offset, limit int) ([]Integration, int64, error) {
		return a.Store.ExportIntegrations(ctx, identity.OrgID(c), offset, limit)
	}, newView)
}

// integration is the organization's integration of the path's id.
func (a *API) integration(c *fiber.Ctx) (Integration, error) {
	return identity.PathRecord(c, "integration_id", "integration", a.Store.ExportIntegration)
}

func (a *API) get(c *fiber.Ctx) error {
	in, err := a.integration(c)
	if err != nil {
		return err
	}
	return c.JSON(newView(in))
}

// replace answers PUT: name, type and settings anew; secrets replaced
// when sent, kept otherwise (not across a change of type).
func (a *API) replace(c *fiber.Ctx) error {
	in, err := a.integration(c)
	if err != nil {
		return err
	}
	var b body
	if err := web.Decode(c, &b); err != nil {
		return err
	}
	keep := b.Secrets == nil && b.Type != nil && *b.Type == in.Type && in.Sealed != ""
	if err := a.check(b, keep); err != nil {
		return err
	}
	if !keep {
		in.Sealed, in.Masks = "", nil
	}
	if err := a.fill(b, &in); err != nil {
		return err
	}
	in.UpdatedAt = a.Clock.Now()
	if err := a.Store.UpdateExportIntegration(c.UserContext(), in); errors.Is(err, store.ErrNotFound) {
		return web.NotFound("integration")
	} else if err != nil {
		return err
	}
	return c.JSON(newView(in))
}

func (a *API) delete(c *fiber.Ctx) error {
	in, err := a.integration(c)
	if err != nil {
		return err
	}
	if err := a.Store.DeleteExportIntegration(c.UserContext(), in.OrgID, in.ID); errors.Is(err, store.ErrNotFound) {
		return web.NotFound("integration")
	} else if err != nil {
		return err
	}
	return c.SendStatus(http.StatusNoContent)
}

// deliveryView is a delivery as the API answers it: the integration
// null for a delivery straight to its method.
type deliveryView struct {
	ID            string    `json:"id"`
	Method        string    `json:"method"`
	IntegrationID *string   `json:"integration_id"`
	Status        string    `json:"status"`
	Recipients    []string  `json:"recipients"`
	Attempts      int       `json:"attempts"`
	Error         string    `json:"error"`
	Detail        string    `json:"detail"`
	CreatedAt     time.Time `json:"created_at"`
	UpdatedAt     time.Time `json:"updated_at"`
}

// deliveries answers GET /export/exports/{export_id}/deliveries: the
// export's deliveries with their status, oldest first.
func (a *API) deliveries(c *fiber.Ctx) error {
	return web.SendPage(c, "deliveries", func(ctx context.Context, offset, limit int) ([]Delivery, int64, error) {
		j, err := export.PathJob(c, a.Jobs)
		if err != nil {
			return nil, 0, err
		}
		return a.Deliveries.ExportDeliveries(ctx, j.OrgID, j.ID, offset, limit)
	}, newDeliveryView)
}

func newDeliveryView(d Delivery) deliveryView {
	v := deliveryView{ID: d.ID, Method: d.Method, Status: d.Status, Recipients: d.Recipients, Attempts: d.Attempts, Error: d.Error,
		Detail: d.Detail, CreatedAt: d.CreatedAt.UTC(), UpdatedAt: d.UpdatedAt.UTC()}
	if d.IntegrationID != "" {
		v.IntegrationID = &d.IntegrationID
	}
	if v.Recipients == nil {
		v.Recipients = []string{}
	}
	return v
}
