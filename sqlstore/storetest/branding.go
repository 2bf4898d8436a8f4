package storetest

import (
	"testing"

	"github.com/vigilhq/vigil/export"
)

var brandingTests = []test{
	{"Branding/ColourAndLogo", testBranding},
}

// testBranding: an organization without branding reads the zero one;
// the colour and the logo are set apart (each keeps the other), and one
// organization's branding is not another's.
func testBranding(t *testing.T, s Store) {
	a, b := newOrg(t, s), newOrg(t, s)
	got, err := s.Branding(ctx(t), a.ID)
	must(t, err, "Branding")
	equal(t, "branding never set", got, export.Branding{OrgID: a.ID})
	logo := []byte("\x89PNG\r\n\x1a\n\x00\xff binary")
	must(t, s.PutBrandingLogo(ctx(t), a.ID, logo, "image/png", stored(at(1))), "PutBrandingLogo")
	must(t, s.PutBrandingColor(ctx(t), a.ID, "#d81b60", stored(at(2))), "PutBrandingColor")
	got, err = s.Branding(ctx(t), a.ID)
	must(t, err, "Branding")
	equal(t, "colour and logo", got, export.Branding{OrgID: a.ID, Primary: "#d81b60", Logo: logo, LogoType: "image/png", UpdatedAt: stored(at(2))})
	must(t, s.PutBrandingLogo(ctx(t), a.ID, nil, "", stored(at(3))), "PutBrandingLogo removing")
	got, err = s.Branding(ctx(t), a.ID)
	must(t, err, "Branding")
	equal(t, "logo removed, colour kept", got, export.Branding{OrgID: a.ID, Primary: "#d81b60", UpdatedAt: stored(at(3))})
	got, err = s.Branding(ctx(t), b.ID)
	must(t, err, "Branding of the other organization")
	equal(t, "other organization's branding", got, export.Branding{OrgID: b.ID})
}
