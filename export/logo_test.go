package export_test

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"strings"
	"testing"

	"github.com/vigilhq/vigil/export"
	"github.com/vigilhq/vigil/report"
)

// pngOf is a w by h PNG of one colour.
func pngOf(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = 0xff
	}
	img.Set(0, 0, color.RGBA{0, 0xaa, 0x55, 0xff})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestSniffLogo: the type comes from the content; a PNG that does not
// decode or is too large a side, and an SVG that could run a script or
// fetch anything, are refused with the reason.
func TestSniffLogo(t *testing.T) {
	good := pngOf(t, 40, 20)
	const svg = `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 10 10">`
	for _, c := range []struct {
		name string
		data []byte
		want string // media type, or a word of the refusal
	}{
		{"png", good, report.LogoPNG},
		{"svg", []byte(`<?xml version="1.0"?>` + svg + `<defs><linearGradient id="g"/></defs><rect fill="url(#g)" width="10" height="10"/><use xlink:href="#g"/></svg>`), report.LogoSVG},
		{"svg with a style", []byte(svg + `<style>rect{fill:#d81b60}</style><rect width="1" height="1"/></svg>`), report.LogoSVG},
		{"empty", nil, "empty"},
		{"truncated png", good[:30], "PNG"},
		{"too wide png", pngOf(t, export.MaxLogoPixels+1, 1), "pixels"},
		{"gif", []byte("GIF89a\x01\x00\x01\x00"), "must be a PNG"},
		{"html", []byte(`<html><body>hi</body></html>`), "must be a PNG"},
		{"script", []byte(svg + `<script>alert(1)</script></svg>`), "script"},
		{"script in capitals", []byte(svg + `<SCRIPT>alert(1)</SCRIPT></svg>`), "SCRIPT"},
		{"onload", []byte(`<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>`), "event handler"},
		{"foreignObject", []byte(svg + `<foreignObject><div/></foreignObject></svg>`), "foreignObject"},
		{"external href", []byte(svg + `<image href="https://evil.example/x.png"/></svg>`), "href"},
		{"external xlink", []byte(svg + `<use xlink:href="other.svg#a"/></svg>`), "href"},
		{"data href", []byte(svg + `<image href="data:image/svg+xml;base64,AAAA"/></svg>`), "href"},
		{"javascript url", []byte(svg + `<a href="#x" data-x="java` + "\n" + `script:alert(1)"/></svg>`), "javascript"},
		{"entity javascript", []byte(svg + `<a href="&#106;avascript:alert(1)"/></svg>`), "href"},
		{"set animation", []byte(svg + `<set attributeName="href" to="javascript:alert(1)"/></svg>`), "set"},
		{"style url", []byte(svg + `<rect style="fill:url( 'https://evil.example/p' )"/></svg>`), "url"},
		{"style import", []byte(svg + `<style>@import "https://evil.example/s.css";</style></svg>`), "import"},
		{"doctype", []byte(`<!DOCTYPE svg [<!ENTITY x "y">]>` + svg + `</svg>`), "DOCTYPE"},
		{"stylesheet instruction", []byte(`<?xml-stylesheet href="https://evil.example/s.css"?>` + svg + `</svg>`), "xml-stylesheet"},
		{"not well formed", []byte(svg + `<rect></svg>`), "must be a PNG"},
	} {
		got, err := export.SniffLogo(c.data)
		switch {
		case strings.HasPrefix(c.want, "image/"):
			if err != nil || got != c.want {
				t.Errorf("%s: got %q, %v, want %s", c.name, got, err, c.want)
			}
		case err == nil || !strings.Contains(err.Error(), c.want):
			t.Errorf("%s: got %q, %v, want a refusal saying %q", c.name, got, err, c.want)
		}
	}
}
