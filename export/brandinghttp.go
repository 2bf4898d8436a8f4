package export

import (
	"mime"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/vigilhq/vigil/identity"
	"github.com/vigilhq/vigil/platform/web"
	"github.com/vigilhq/vigil/report"
)

// PermConfigure sets an organization's report branding: admins only
// (configure is in no other built-in role).
const PermConfigure = "reports:configure"

// colourPattern is a primary colour as PATCH takes it: "#RRGGBB", or ""
// for the default.
var colourPattern = regexp.MustCompile(`^(#[0-9A-Fa-f]{6})?$`)

// brandingView is the branding as the API answers it.
type brandingView struct {
	OrgID string `json:"organization_id"`
	report.BrandMeta
	// DefaultColor is true when the organization set no colour of its own.
	DefaultColor bool       `json:"default_color"`
	UpdatedAt    *time.Time `json:"updated_at"`
}

func newBrandingView(b Branding) brandingView {
	v := brandingView{OrgID: b.OrgID, BrandMeta: b.Brand().Meta(), DefaultColor: b.Primary == ""}
	if !b.UpdatedAt.IsZero() {
		t := b.UpdatedAt.UTC()
		v.UpdatedAt = &t
	}
	return v
}

// ownOrg answers 404 unless the path's organization is the caller's: an
// organization is visible to its own members only, and another's answers
// like a missing one.
func ownOrg(c *fiber.Ctx) (string, error) {
	id, err := web.PathParam(c, "org_id")
	if err != nil {
		return "", err
	}
	if org := identity.OrgID(c); strings.EqualFold(id, org) {
		return org, nil
	}
	return "", web.NotFound("organization")
}

// answerBranding reads the organization's branding and answers it.
func (a *API) answerBranding(c *fiber.Ctx, org string) error {
	b, err := a.Branding.Branding(c.UserContext(), org)
	if err != nil {
		return err
	}
	return c.JSON(newBrandingView(b))
}

func (a *API) getBranding(c *fiber.Ctx) error {
	org, err := ownOrg(c)
	if err != nil {
		return err
	}
	return a.answerBranding(c, org)
}

// brandingBody is the body of PATCH /organizations/{id}/branding: the
// fields sent change.
type brandingBody struct {
	PrimaryColor *string `json:"primary_color"`
	RemoveLogo   *bool   `json:"remove_logo"`
}

// patchBranding answers PATCH /organizations/{id}/branding: primary_color
// "#RRGGBB" sets the colour ("" goes back to the default), remove_logo
// true removes the logo.
func (a *API) patchBranding(c *fiber.Ctx) error {
	var b brandingBody
	if err := web.Decode(c, &b); err != nil {
		return err
	}
	org, err := ownOrg(c)
	if err != nil {
		return err
	}
	if b.PrimaryColor != nil && !colourPattern.MatchString(*b.PrimaryColor) {
		return web.Invalid("primary_color", `must be a colour as #RRGGBB (hexadecimal), or "" for the default`)
	}
	ctx, now := c.UserContext(), a.Clock.Now().Truncate(time.Microsecond)
	if b.PrimaryColor != nil {
		if err := a.Branding.PutBrandingColor(ctx, org, strings.ToLower(*b.PrimaryColor), now); err != nil {
			return err
		}
	}
	if b.RemoveLogo != nil && *b.RemoveLogo {
		if err := a.Branding.PutBrandingLogo(ctx, org, nil, "", now); err != nil {
			return err
		}
	}
	return a.answerBranding(c, org)
}

// putLogo answers POST /organizations/{id}/branding/logo: the body is the
// image itself, declared image/png or image/svg+xml, at most
// MaxLogoBytes; its type is sniffed from the content, which must agree
// with the declared one, and an SVG that could run or fetch anything is
// refused (CheckSVG).
func (a *API) putLogo(c *fiber.Ctx) error {
	org, err := ownOrg(c)
	if err != nil {
		return err
	}
	declared, _, _ := mime.ParseMediaType(string(c.Request().Header.ContentType()))
	if declared != report.LogoPNG && declared != report.LogoSVG {
		return &web.Error{Status: http.StatusUnsupportedMediaType, Code: web.CodeUnsupportedMediaType,
			Message: "a logo is sent as image/png or image/svg+xml", Details: map[string]any{}}
	}
	body := c.Body()
	if len(body) > MaxLogoBytes {
		return &web.Error{Status: http.StatusRequestEntityTooLarge, Code: web.CodePayloadTooLarge,
			Message: "a logo may be at most 256 KiB", Details: map[string]any{"limit_bytes": MaxLogoBytes}}
	}
	sniffed, err := SniffLogo(body)
	if err != nil {
		return web.Invalid("logo", err.Error())
	}
	if sniffed != declared {
		return web.Invalid("logo", "the content is "+sniffed+", not the "+declared+" declared")
	}
	if err := a.Branding.PutBrandingLogo(c.UserContext(), org, body, sniffed, a.Clock.Now().Truncate(time.Microsecond)); err != nil {
		return err
	}
	return a.answerBranding(c, org)
}
