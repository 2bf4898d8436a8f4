package export

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"image/png"
	"io"
	"strings"

	"github.com/vigilhq/vigil/report"
)

// Bounds of a logo: its size in bytes and, for a PNG, its pixels a side.
const (
	MaxLogoBytes  = 256 << 10
	MaxLogoPixels = 2000
)

// pngMagic starts every PNG file.
var pngMagic = []byte("\x89PNG\r\n\x1a\n")

// SniffLogo reads what data is from its content, never from what the
// sender says: report.LogoPNG for a PNG that decodes within
// MaxLogoPixels a side, report.LogoSVG for an SVG that CheckSVG admits;
// an error saying why otherwise.
func SniffLogo(data []byte) (string, error) {
	if len(data) == 0 {
		return "", errors.New("is empty")
	}
	if bytes.HasPrefix(data, pngMagic) {
		cfg, err := png.DecodeConfig(bytes.NewReader(data))
		if err != nil {
			return "", fmt.Errorf("is not a readable PNG image: %w", err)
		}
		if cfg.Width < 1 || cfg.Height < 1 || cfg.Width > MaxLogoPixels || cfg.Height > MaxLogoPixels {
			return "", fmt.Errorf("is %dx%d pixels: want 1 to %d a side", cfg.Width, cfg.Height, MaxLogoPixels)
		}
		if _, err := png.Decode(bytes.NewReader(data)); err != nil {
			return "", fmt.Errorf("is not a readable PNG image: %w", err)
		}
		return report.LogoPNG, nil
	}
	if err := CheckSVG(data); err != nil {
		return "", err
	}
	return report.LogoSVG, nil
}

// refusedElements are the SVG elements that run script, embed other
// documents or animate attributes (an animation can set an href to a
// script URL); a logo holding one is refused rather than cleaned.
var refusedElements = map[string]bool{"script": true, "foreignobject": true, "iframe": true, "embed": true,
	"object": true, "animate": true, "set": true, "animatemotion": true, "animatetransform": true, "handler": true,
	"listener": true}

// CheckSVG admits an SVG logo only when it is a well-formed XML document
// whose root is svg and which carries nothing that runs or fetches: no
// DOCTYPE or entity, no element of refusedElements, no on* attribute, no
// href but a local "#..." one, no "javascript:" anywhere, and no url(...)
// or @import in a style but url(#...). Refusing, instead of rewriting,
// keeps what is stored exactly what was sent.
func CheckSVG(data []byte) error {
	const notSVG = "must be a PNG image or an SVG document"
	d := xml.NewDecoder(bytes.NewReader(data))
	d.Strict = true
	root := true
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			if root {
				return errors.New(notSVG)
			}
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", notSVG, err)
		}
		switch t := tok.(type) {
		case xml.Directive:
			return errors.New("carries a DOCTYPE or entity declaration: refused")
		case xml.ProcInst:
			if t.Target != "xml" {
				return fmt.Errorf("carries a <?%s?> instruction: refused", t.Target)
			}
		case xml.StartElement:
			name := strings.ToLower(t.Name.Local)
			if root && name != "svg" {
				return errors.New(notSVG)
			}
			root = false
			if refusedElements[name] {
				return fmt.Errorf("carries a <%s> element: refused (scripts, embedded documents and animations are not allowed)", t.Name.Local)
			}
			for _, a := range t.Attr {
				if err := checkSVGAttr(a); err != nil {
					return err
				}
			}
		case xml.CharData:
			if err := checkStyle(string(t)); err != nil {
				return err
			}
		}
	}
}

// checkSVGAttr refuses an attribute that runs or fetches something.
func checkSVGAttr(a xml.Attr) error {
	name, v := strings.ToLower(a.Name.Local), strings.ToLower(strings.TrimSpace(a.Value))
	switch {
	case strings.HasPrefix(name, "on"):
		return fmt.Errorf("carries an event handler attribute (%s): refused", a.Name.Local)
	case name == "href" && !strings.HasPrefix(v, "#"):
		return errors.New("refers to another document or a script (an href not starting with #): refused")
	case strings.Contains(strings.Join(strings.Fields(v), ""), "javascript:"):
		return errors.New("carries a javascript: URL: refused")
	}
	return checkStyle(v)
}

// checkStyle refuses style text that fetches: @import, or url(...) to
// anything but a local #id.
func checkStyle(s string) error {
	s = strings.ToLower(strings.Join(strings.Fields(s), ""))
	if strings.Contains(s, "@import") {
		return errors.New("imports a style sheet: refused")
	}
	for rest := s; ; {
		i := strings.Index(rest, "url(")
		if i < 0 {
			return nil
		}
		rest = strings.TrimLeft(rest[i+4:], `'"`)
		if !strings.HasPrefix(rest, "#") {
			return errors.New("refers to an outside resource through url(...): refused")
		}
	}
}
