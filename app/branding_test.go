package app

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/xuri/excelize/v2"

	"github.com/vigilhq/vigil/export"
	"github.com/vigilhq/vigil/platform/testenv"
)

// Colours of TestReportBranding: the brand's, and the logo's own.
var (
	brandRGB = color.RGBA{0xd8, 0x1b, 0x60, 0xff}
	logoRGB  = color.RGBA{0x00, 0xaa, 0x55, 0xff}
)

// solidPNG is a w by h PNG of colour c.
func solidPNG(t *testing.T, w, h int, c color.RGBA) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for x := range w {
		for y := range h {
			img.Set(x, y, c)
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// firstPagePixels renders page 1 of a PDF to PNG through poppler's
// pdftoppm, as a person opening it would see it, and counts the pixels
// of each colour given (within 12 of each channel: anti-aliasing).
func firstPagePixels(t *testing.T, pdf []byte, colours ...color.RGBA) []int {
	t.Helper()
	bin := testenv.Tool(t, "pdftoppm", "Debian's poppler-utils")
	dir := t.TempDir()
	in, out := filepath.Join(dir, "report.pdf"), filepath.Join(dir, "page1")
	if err := os.WriteFile(in, pdf, 0o600); err != nil {
		t.Fatal(err)
	}
	if msg, err := exec.Command(bin, "-png", "-r", "50", "-f", "1", "-l", "1", "-singlefile", in, out).CombinedOutput(); err != nil {
		t.Fatalf("pdftoppm: %v: %s", err, msg)
	}
	f, err := os.Open(out + ".png")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("page 1 as PNG: %v", err)
	}
	if dir := os.Getenv("VIGIL_REPORT_OUT"); dir != "" { // to look at it by hand
		raw, _ := os.ReadFile(out + ".png")
		_ = os.WriteFile(filepath.Join(dir, "branded-page1.png"), raw, 0o644)
	}
	near := func(a, b uint8) bool { return a-b < 12 || b-a < 12 }
	counts := make([]int, len(colours))
	for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y++ {
		for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			for i, c := range colours {
				if near(uint8(r>>8), c.R) && near(uint8(g>>8), c.G) && near(uint8(b>>8), c.B) {
					counts[i]++
				}
			}
		}
	}
	return counts
}

// TestReportBranding: an admin sets the organization's colour and logo
// (the logo's type sniffed from its content, a scripted SVG refused,
// size capped), a viewer reads them, an editor cannot set them, another
// organization's id answers 404; the reports generated afterwards carry
// them: page 1 of the PDF, rendered by pdftoppm, shows the brand's colour
// and the logo; the HTML holds both, the JSON states them, the workbook's
// header is in the colour with the logo on its Summary sheet.
func TestReportBranding(t *testing.T) {
	eachPipeline(t, func(t *testing.T, s *server) {
		admin := s.admin()
		viewer := s.user(admin, "vivian", "viewer")
		editor := s.user(admin, "eddie", "editor")
		org := s.do("GET", "/auth/me", admin, nil).want(t, 200).str("user.organization_id")
		path := "/organizations/" + org + "/branding"
		if r := s.do("GET", path, viewer, nil).want(t, 200); r.str("primary_color") != "#2563eb" || r.at("default_color") != true || r.at("logo") != nil {
			t.Fatalf("got %s, want the default branding", r.raw)
		}
		s.do("PATCH", path, admin, map[string]any{"primary_color": "#12345"}).wantField(t, "primary_color")
		s.do("PATCH", path, admin, map[string]any{"primary_color": "red"}).wantField(t, "primary_color")
		s.do("PATCH", path, editor, map[string]any{"primary_color": "#D81B60"}).wantError(t, 403, "INSUFFICIENT_PERMISSIONS")
		s.do("PATCH", "/organizations/"+uuid.NewString()+"/branding", admin, map[string]any{"primary_color": "#D81B60"}).
			wantError(t, 404, "NOT_FOUND")
		if r := s.do("PATCH", path, admin, map[string]any{"primary_color": "#D81B60"}).want(t, 200); r.str("primary_color") != "#d81b60" ||
			r.at("default_color") != false {
			t.Fatalf("got %s, want the colour set", r.raw)
		}

		logo := solidPNG(t, 60, 20, logoRGB)
		s.raw("POST", path+"/logo", admin, "image/svg+xml", `<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`).
			wantField(t, "logo")
		s.raw("POST", path+"/logo", admin, "image/svg+xml", string(logo)).wantField(t, "logo")
		s.raw("POST", path+"/logo", admin, "text/plain", string(logo)).wantError(t, 415, "UNSUPPORTED_MEDIA_TYPE")
		s.raw("POST", path+"/logo", admin, "image/png", string(logo)+strings.Repeat("\x00", export.MaxLogoBytes)).
			wantError(t, 413, "PAYLOAD_TOO_LARGE")
		s.raw("POST", path+"/logo", editor, "image/png", string(logo)).wantError(t, 403, "INSUFFICIENT_PERMISSIONS")
		r := s.raw("POST", path+"/logo", admin, "image/png", string(logo)).want(t, 200)
		sum := fmt.Sprintf("%x", sha256.Sum256(logo))
		if r.str("logo.media_type") != "image/png" || r.str("logo.sha256") != sum || r.str("primary_color") != "#d81b60" {
			t.Fatalf("got %s, want the PNG logo beside the colour", r.raw)
		}
		other := s.signUp("second")
		s.do("GET", path, other, nil).wantError(t, 404, "NOT_FOUND")
		if r := s.do("GET", "/organizations/"+s.do("GET", "/auth/me", other, nil).str("user.organization_id")+"/branding", other, nil).
			want(t, 200); r.at("default_color") != true {
			t.Errorf("got %s, want the other organization unbranded", r.raw)
		}

		model := s.model(admin, "churn", "1")
		day := time.Now().UTC().Format(time.DateOnly)
		download := func(format string) []byte {
			id := s.do("POST", "/export/exports", admin, map[string]any{"template_id": export.Builtins()[0].ID,
				"model_ids": []string{model}, "format": format, "start": day, "end": day}).want(t, 202).str("export_id")
			if done := s.exportDone(t, admin, id); done.str("status") != export.StatusCompleted {
				t.Fatalf("got %s, want the %s export completed", done.raw, format)
			}
			return s.do("GET", "/export/exports/"+id+"/download", admin, nil).want(t, 200).raw
		}
		if got := firstPagePixels(t, download("pdf"), brandRGB, logoRGB); got[0] < 2000 || got[1] < 500 {
			t.Errorf("got %d pixels of the brand's colour and %d of the logo's on page 1, want the band (2,000 and more) and the logo (500 and more)",
				got[0], got[1])
		}
		html := download("html")
		if !bytes.Contains(html, []byte("#d81b60")) || !bytes.Contains(html, []byte("data:image/png;base64,")) {
			t.Errorf("got an HTML page without the brand's colour or the logo")
		}
		if js := string(download("json")); !strings.Contains(js, `"primary_color": "#d81b60"`) || !strings.Contains(js, sum) {
			t.Errorf("got JSON without the branding stated: %.400s", js)
		}
		wb, err := excelize.OpenReader(bytes.NewReader(download("excel")))
		if err != nil {
			t.Fatal(err)
		}
		defer wb.Close()
		hf, err := wb.GetHeaderFooter("Summary")
		if err != nil || !strings.Contains(hf.OddHeader, "&KD81B60") {
			t.Errorf("got header %+v, %v, want it in the brand's colour", hf, err)
		}
		if pics, err := wb.GetPictures("Summary", "D1"); err != nil || len(pics) != 1 || !bytes.Equal(pics[0].File, logo) {
			t.Errorf("got %d pictures at Summary!D1 (%v), want the logo", len(pics), err)
		}

		// The logo removed, the colour stays; the reports follow.
		if r := s.do("PATCH", path, admin, map[string]any{"remove_logo": true}).want(t, 200); r.at("logo") != nil || r.str("primary_color") != "#d81b60" {
			t.Errorf("got %s, want the logo removed and the colour kept", r.raw)
		}
	})
}
