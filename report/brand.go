package report

import (
	"crypto/sha256"
	"encoding/base64"
	"fmt"
)

// BrandMeta is how the JSON, CSV and Markdown renderings state a report's
// branding: the colour in use and the logo's media type, size and SHA-256
// (the logo itself is drawn by the HTML, PDF and Excel renderings).
type BrandMeta struct {
	PrimaryColor string    `json:"primary_color"`
	Logo         *LogoMeta `json:"logo"`
}

// LogoMeta describes a logo: its media type, size and SHA-256 (hex).
type LogoMeta struct {
	MediaType string `json:"media_type"`
	SizeBytes int    `json:"size_bytes"`
	SHA256    string `json:"sha256"`
}

// Meta is b as the renderings state it: the colour in use (the default
// when b has none) and the logo's description.
func (b Brand) Meta() BrandMeta {
	out := BrandMeta{PrimaryColor: brandColour(b)}
	if b.hasLogo() {
		sum := sha256.Sum256(b.Logo)
		out.Logo = &LogoMeta{MediaType: b.LogoType, SizeBytes: len(b.Logo), SHA256: fmt.Sprintf("%x", sum)}
	}
	return out
}

// hasLogo reports whether b carries a logo of a known type.
func (b Brand) hasLogo() bool {
	return len(b.Logo) > 0 && (b.LogoType == LogoPNG || b.LogoType == LogoSVG)
}

// dataURI is the logo as a data: URI, for the HTML page (whose
// Content-Security-Policy admits images from data: only); "" without a
// logo.
func (b Brand) dataURI() string {
	if !b.hasLogo() {
		return ""
	}
	return "data:" + b.LogoType + ";base64," + base64.StdEncoding.EncodeToString(b.Logo)
}

// jsonReport is the JSON rendering: the report and its branding.
type jsonReport struct {
	Report
	Branding BrandMeta `json:"branding"`
}
