package report

import (
	"bytes"
	"fmt"
	"image/png"
	"io"
	"slices"
	"strconv"

	"github.com/signintech/gopdf"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/goregular"

	"github.com/vigilhq/vigil/report/chart"
)

// FormatPDF is the PDF document.
const FormatPDF = "pdf"

// Page geometry of the PDF in points: A4 portrait with 40-point margins.
const (
	pageW, pageH = 595.28, 841.89
	margin       = 40.0
	contentW     = pageW - 2*margin
)

// writePDF writes r as an A4 PDF: the Go fonts embedded from the binary
// (nothing is fetched), a heading a section, each chart painted from the
// same marks as its SVG, tables with wrapped cells, in the brand's colour.
func writePDF(w io.Writer, r Report) error {
	p := &pdf{gp: &gopdf.GoPdf{}, primary: rgb(brandColour(r.Brand))}
	p.gp.Start(gopdf.Config{PageSize: *gopdf.PageSizeA4, Unit: gopdf.UnitPT})
	p.gp.SetInfo(gopdf.PdfInfo{Title: r.Title, Creator: "Vigil", CreationDate: r.GeneratedAt})
	if err := p.gp.AddTTFFontData("regular", goregular.TTF); err != nil {
		return fmt.Errorf("embed font: %w", err)
	}
	if err := p.gp.AddTTFFontData("bold", gobold.TTF); err != nil {
		return fmt.Errorf("embed font: %w", err)
	}
	p.gp.AddPage()
	p.y = margin
	p.brand(r.Brand)
	p.text(r.Title, "bold", 20, p.primary, 0)
	p.text(fmt.Sprintf("%s · %s to %s · generated %s", r.Category, r.From, r.To, r.GeneratedAt.Format("2006-01-02T15:04:05Z07:00")), "regular", 9, grey, 0)
	for _, m := range r.Models {
		p.text("Model: "+m.Name+" ("+m.ID+")", "regular", 9, grey, 0)
	}
	for _, s := range r.Sections {
		p.section(s)
	}
	if p.err != nil {
		return p.err
	}
	return p.gp.Write(w)
}

// Brand geometry of the PDF's first page: a band of the brand's colour
// across the top edge, and the logo at the top right, at most logoW by
// logoH points.
const (
	bandH        = 14.0
	logoW, logoH = 120.0, 40.0
)

// brand paints the band of the brand's colour and a PNG logo on the first
// page. An SVG logo is not drawn: the PDF library draws raster images
// only, and the band, headings and charts carry the colour.
func (p *pdf) brand(b Brand) {
	c := p.primary
	p.gp.SetFillColor(c[0], c[1], c[2])
	p.gp.RectFromUpperLeftWithStyle(0, 0, pageW, bandH, "F")
	p.y = max(p.y, bandH+12)
	if !b.hasLogo() || b.LogoType != LogoPNG {
		return
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(b.Logo))
	if err != nil || cfg.Width == 0 || cfg.Height == 0 {
		return // checked when stored: a logo that does not decode is left out
	}
	holder, err := gopdf.ImageHolderByBytes(b.Logo)
	if err != nil {
		return
	}
	scale := min(logoW/float64(cfg.Width), logoH/float64(cfg.Height))
	w, h := float64(cfg.Width)*scale, float64(cfg.Height)*scale
	if p.err = p.gp.ImageByHolder(holder, pageW-margin-w, p.y, &gopdf.Rect{W: w, H: h}); p.err != nil {
		return
	}
	p.y += h + 6
}

// pdf paints a report page by page, keeping the first error.
type pdf struct {
	gp      *gopdf.GoPdf
	y       float64
	primary [3]uint8
	err     error
}

var (
	black = [3]uint8{17, 24, 39}
	grey  = [3]uint8{75, 85, 99}
)

// room starts a new page unless h points fit under the current line.
func (p *pdf) room(h float64) {
	if p.y+h > pageH-margin {
		p.gp.AddPage()
		p.y = margin
	}
}

// text writes s wrapped to the content width, indented by indent.
func (p *pdf) text(s, font string, size float64, c [3]uint8, indent float64) {
	if p.err != nil {
		return
	}
	if p.err = p.gp.SetFont(font, "", size); p.err != nil {
		return
	}
	lines, err := p.gp.SplitTextWithWordWrap(s, contentW-indent)
	if err != nil || len(lines) == 0 {
		lines = []string{s}
	}
	p.gp.SetTextColor(c[0], c[1], c[2])
	for _, l := range lines {
		p.room(size * 1.3)
		p.gp.SetXY(margin+indent, p.y)
		if p.err = p.gp.Cell(nil, l); p.err != nil {
			return
		}
		p.y += size * 1.3
	}
}

func (p *pdf) section(s Section) {
	p.y += 10
	need := 60.0 // a heading never ends a page: it stays with its first block
	if s.Chart != nil && !s.Empty {
		need = 30 + chart.Height*contentW/chart.Width
		if s.Chart.Title == s.Title {
			need -= titleRoom * contentW / chart.Width
		}
	}
	p.room(need)
	p.text(s.Title, "bold", 14, p.primary, 0)
	p.y += 2
	if s.Empty {
		p.text("Empty: "+s.Note, "regular", 9, grey, 0)
		return
	}
	if s.Note != "" {
		p.text(s.Note, "regular", 9, grey, 0)
	}
	for _, f := range s.Figures {
		p.text(f.Label+": "+f.Value, "regular", 10, black, 0)
	}
	for _, l := range s.Lines {
		p.text("• "+l, "regular", 10, black, 8)
	}
	if s.Chart != nil {
		d, cut := chart.Draw(*s.Chart, hex(p.primary)), 0.0
		if d.Title == s.Title { // the heading above says it: not twice, nor its room
			// The title goes, and the white background that would now
			// reach over the heading (the page is white).
			d.Marks = slices.DeleteFunc(d.Marks, func(m chart.Mark) bool {
				return m.Kind == chart.MarkText && m.Bold && m.Text == d.Title ||
					m.Kind == chart.MarkRect && m.X == 0 && m.Y == 0 && m.W == chart.Width && m.H == chart.Height
			})
			cut = titleRoom
		}
		p.chart(d, cut)
	}
	if s.Table != nil {
		p.table(*s.Table)
	}
}

// titleRoom is the band at the top of a chart that holds its title, in
// drawing units.
const titleRoom = 24.0

// chart paints the drawing's marks scaled to the content width, less cut
// drawing units at its top.
func (p *pdf) chart(d chart.Drawing, cut float64) {
	if p.err != nil {
		return
	}
	k := contentW / chart.Width
	p.room((chart.Height - cut) * k)
	x0, y0 := margin, p.y-cut*k
	X := func(v float64) float64 { return x0 + v*k }
	Y := func(v float64) float64 { return y0 + v*k }
	for _, m := range d.Marks {
		switch m.Kind {
		case chart.MarkRect:
			c := rgb(m.Fill)
			p.gp.SetFillColor(c[0], c[1], c[2])
			p.gp.RectFromUpperLeftWithStyle(X(m.X), Y(m.Y), m.W*k, m.H*k, "F")
		case chart.MarkLine:
			c := rgb(m.Stroke)
			p.gp.SetStrokeColor(c[0], c[1], c[2])
			p.gp.SetLineWidth(0.5)
			p.gp.Line(X(m.X), Y(m.Y), X(m.X2), Y(m.Y2))
		case chart.MarkPolyline:
			c := rgb(m.Stroke)
			p.gp.SetStrokeColor(c[0], c[1], c[2])
			p.gp.SetLineWidth(1.5)
			for i := 1; i < len(m.Points); i++ {
				p.gp.Line(X(m.Points[i-1][0]), Y(m.Points[i-1][1]), X(m.Points[i][0]), Y(m.Points[i][1]))
			}
		case chart.MarkCircle:
			c := rgb(m.Fill)
			p.gp.SetFillColor(c[0], c[1], c[2])
			p.gp.SetStrokeColor(c[0], c[1], c[2])
			p.gp.Oval(X(m.X-m.W), Y(m.Y-m.W), X(m.X+m.W), Y(m.Y+m.W))
		case chart.MarkText:
			p.mark(m, X(m.X), Y(m.Y), m.Size*k)
		}
	}
	p.y += (chart.Height-cut)*k + 4
}

// mark writes a text mark at x, y (its baseline or middle), anchored.
func (p *pdf) mark(m chart.Mark, x, y, size float64) {
	font := "regular"
	if m.Bold {
		font = "bold"
	}
	if p.err = p.gp.SetFont(font, "", size); p.err != nil {
		return
	}
	c := rgb(m.Fill)
	p.gp.SetTextColor(c[0], c[1], c[2])
	w, _ := p.gp.MeasureTextWidth(m.Text)
	switch m.Anchor {
	case "middle":
		x -= w / 2
	case "end":
		x -= w
	}
	top := y - size*0.8
	if m.Middle {
		top = y - size/2
	}
	if m.Rotate {
		p.gp.Rotate(90, x+w/2, y)
		defer p.gp.RotateReset()
	}
	p.gp.SetXY(x, top)
	p.err = p.gp.Cell(nil, m.Text)
}

// table writes t with equal columns, cells wrapped, the header repeated
// on each new page.
func (p *pdf) table(t Table) {
	const size, pad = 7.0, 2.0
	cw := contentW / float64(len(t.Columns))
	row := func(cells []string, font string) {
		if p.err != nil {
			return
		}
		if p.err = p.gp.SetFont(font, "", size); p.err != nil {
			return
		}
		wrapped := make([][]string, len(cells))
		n := 1
		for i, c := range cells {
			ls, err := p.gp.SplitTextWithWordWrap(c, cw-2*pad)
			if err != nil || len(ls) == 0 {
				ls = []string{c}
			}
			wrapped[i], n = ls, max(n, len(ls))
		}
		h := float64(n)*size*1.25 + 2*pad
		if p.y+h > pageH-margin {
			p.gp.AddPage()
			p.y = margin
		}
		p.gp.SetStrokeColor(209, 213, 219)
		p.gp.SetLineWidth(0.5)
		p.gp.SetTextColor(black[0], black[1], black[2])
		for i, ls := range wrapped {
			x := margin + float64(i)*cw
			p.gp.RectFromUpperLeftWithStyle(x, p.y, cw, h, "D")
			for j, l := range ls {
				p.gp.SetXY(x+pad, p.y+pad+float64(j)*size*1.25)
				if p.err = p.gp.Cell(nil, l); p.err != nil {
					return
				}
			}
		}
		p.y += h
	}
	row(t.Columns, "bold")
	for _, r := range t.Rows {
		row(r, "regular")
	}
}

// brandColour is the brand's primary colour, or the default.
func brandColour(b Brand) string {
	if colour.MatchString(b.Primary) {
		return b.Primary
	}
	return defaultPrimary
}

// rgb reads a "#rrggbb" colour; black when it is not one.
func rgb(s string) [3]uint8 {
	if !colour.MatchString(s) {
		return black
	}
	var c [3]uint8
	for i := range c {
		v, _ := strconv.ParseUint(s[1+2*i:3+2*i], 16, 8)
		c[i] = uint8(v)
	}
	return c
}

// hex writes c as "#rrggbb".
func hex(c [3]uint8) string { return fmt.Sprintf("#%02x%02x%02x", c[0], c[1], c[2]) }
