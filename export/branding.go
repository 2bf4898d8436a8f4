package export

import (
	"context"
	"time"

	"github.com/vigilhq/vigil/report"
)

// Branding is an organization's report branding: the primary colour
// ("#rrggbb", "" for Vigil's default) and the logo (a PNG or an SVG that
// SniffLogo admitted; none when Logo is empty). Every report the
// organization generates carries it.
type Branding struct {
	OrgID     string
	Primary   string
	Logo      []byte
	LogoType  string
	UpdatedAt time.Time
}

// Brand is the branding as the renderers take it.
func (b Branding) Brand() report.Brand {
	return report.Brand{Primary: b.Primary, Logo: b.Logo, LogoType: b.LogoType}
}

// BrandingStore keeps each organization's branding. The colour and the
// logo are written apart, so that a change of one never undoes a
// concurrent change of the other.
type BrandingStore interface {
	// Branding returns the organization's branding; one never set is the
	// zero Branding of that organization, not an error.
	Branding(ctx context.Context, orgID string) (Branding, error)
	// PutBrandingColor sets the organization's primary colour ("" for the
	// default).
	PutBrandingColor(ctx context.Context, orgID, primary string, at time.Time) error
	// PutBrandingLogo sets the organization's logo (nil and "" remove it).
	PutBrandingLogo(ctx context.Context, orgID string, logo []byte, logoType string, at time.Time) error
}
