// Package chart draws a report's charts once, as self-contained SVG that
// every format embeds or converts: a line chart (trends) or a bar chart
// (volumes, distributions) over labelled categories, one series a colour.
// The drawing is deterministic: the same chart gives the same bytes.
//
// It imports nothing of Vigil.
package chart

import (
	"fmt"
	"html"
	"math"
	"strconv"
	"strings"
)

// Kinds of chart.
const (
	Line = "line"
	Bar  = "bar"
)

// Chart is what a chart shows: Labels along the x axis and, per series,
// one value per label (nil where the series has none: a gap, never a zero).
type Chart struct {
	Kind   string   `json:"kind"`
	Title  string   `json:"title"`
	YLabel string   `json:"y_label"`
	Labels []string `json:"labels"`
	Series []Series `json:"series"`
}

// Series is one named line or set of bars.
type Series struct {
	Name   string     `json:"name"`
	Values []*float64 `json:"values"`
}

// Empty reports whether the chart has no value to draw.
func (c Chart) Empty() bool {
	for _, s := range c.Series {
		for _, v := range s.Values {
			if v != nil {
				return false
			}
		}
	}
	return true
}

// palette colours the series in order; the first is replaced by the
// caller's primary colour when one is given.
var palette = []string{"#2563eb", "#dc2626", "#16a34a", "#d97706", "#7c3aed", "#0891b2", "#db2777", "#4b5563"}

// Size of the drawing and of its margins, in drawing units (SVG user
// units; a PDF scales them).
const (
	Width, Height            = 640, 300
	left, right, top, bottom = 64, 16, 36, 64
)

// Mark kinds: what a Drawing is made of.
const (
	MarkRect     = "rect"
	MarkLine     = "line"
	MarkPolyline = "polyline"
	MarkCircle   = "circle"
	MarkText     = "text"
)

// Mark is one shape of a drawing, in drawing units from the top left.
// Rect: X, Y, W, H filled with Fill. Line: X, Y to X2, Y2 stroked with
// Stroke. Polyline: Points stroked. Circle: centre X, Y, radius W,
// filled. Text: Text at X, Y (its baseline, or its middle when Middle),
// anchored "start", "middle" or "end", of Size, Bold, in Fill, Rotated
// -90 degrees about X, Y when Rotate. Title is a tooltip.
type Mark struct {
	Kind         string
	X, Y, X2, Y2 float64
	W, H         float64
	Points       [][2]float64
	Fill, Stroke string
	Text, Anchor string
	Size         float64
	Bold, Rotate bool
	Middle       bool
	Title        string
}

// Drawing is a chart laid out once as marks; SVG and the PDF renderer
// paint the same marks.
type Drawing struct {
	Title string
	Marks []Mark
}

// SVG draws c as an SVG document of fixed size; primary, a "#rrggbb"
// colour, colours the first series when it is not empty.
func SVG(c Chart, primary string) string { return Draw(c, primary).SVG() }

// Draw lays c out as marks; primary colours the first series when not
// empty.
func Draw(c Chart, primary string) Drawing {
	t := text(left, 20, c.Title, "start")
	t.Size, t.Bold = 14, true
	d := Drawing{Title: c.Title, Marks: []Mark{{Kind: MarkRect, W: Width, H: Height, Fill: "#ffffff"}, t}}
	if c.Empty() || len(c.Labels) == 0 {
		m := text(Width/2, Height/2, "no data in the period", "middle")
		m.Fill = "#6b7280"
		d.Marks = append(d.Marks, m)
		return d
	}
	p := newPlot(c, primary)
	p.axes()
	for si, s := range c.Series {
		if c.Kind == Bar {
			p.bars(si, s)
		} else {
			p.line(si, s)
		}
	}
	p.legend()
	d.Marks = append(d.Marks, p.marks...)
	return d
}

// text is a mark of text of the chart's usual size and colour.
func text(x, y float64, s, anchor string) Mark {
	return Mark{Kind: MarkText, X: x, Y: y, Text: s, Anchor: anchor, Size: 11, Fill: "#111827"}
}

// plot lays out the marks of a chart with data: the values lo to hi
// over the plot's height, with a tick every ts, and one slot of step
// wide per label.
type plot struct {
	c          Chart
	primary    string
	lo, hi, ts float64
	plotH      float64
	step       float64
	marks      []Mark
}

// newPlot bounds c's values and divides the plot between its labels.
func newPlot(c Chart, primary string) *plot {
	p := &plot{c: c, primary: primary}
	p.lo, p.hi, p.ts = bounds(c)
	plotW := float64(Width - left - right)
	p.plotH = float64(Height - top - bottom)
	p.step = plotW / float64(len(c.Labels))
	return p
}

func (p *plot) add(m Mark) { p.marks = append(p.marks, m) }

// y is the height at which the value v is drawn.
func (p *plot) y(v float64) float64 { return float64(top) + p.plotH*(p.hi-v)/(p.hi-p.lo) }

// x is the middle of label i's slot.
func (p *plot) x(i int) float64 { return float64(left) + p.step*(float64(i)+0.5) }

// colour is series i's colour: the primary one for the first series when
// given, else the palette's.
func (p *plot) colour(i int) string {
	if i == 0 && p.primary != "" {
		return p.primary
	}
	return palette[i%len(palette)]
}

// axes draws the gridlines on the ticks with their values, the y axis's
// label, and the labels along the x axis (at most about ten of them).
func (p *plot) axes() {
	// The ticks are the step the bounds are multiples of, never past hi (a
	// tick above it would be drawn over whatever sits above the plot: the
	// title, or a PDF's heading).
	for k := 0; p.lo+float64(k)*p.ts <= p.hi+p.ts*1e-6; k++ {
		v := p.lo + float64(k)*p.ts
		p.add(Mark{Kind: MarkLine, X: left, Y: p.y(v), X2: Width - right, Y2: p.y(v), Stroke: "#e5e7eb"})
		m := text(left-6, p.y(v), tick(v), "end")
		m.Middle = true
		p.add(m)
	}
	yl := text(12, float64(top)+p.plotH/2, p.c.YLabel, "middle")
	yl.Rotate = true
	p.add(yl)
	every := max(1, (len(p.c.Labels)+9)/10)
	for i, l := range p.c.Labels {
		if i%every == 0 {
			p.add(text(p.x(i), Height-bottom+16, l, "middle"))
		}
	}
}

// bars draws series si as one bar per value, from zero (or the plot's
// edge) to the value, beside the other series' bars in each slot.
func (p *plot) bars(si int, s Series) {
	bw := p.step * 0.8 / float64(len(p.c.Series))
	for i, v := range s.Values {
		if v == nil {
			continue
		}
		x0 := p.x(i) - p.step*0.4 + bw*float64(si)
		y0, yb := p.y(max(*v, p.lo)), p.y(max(min(0, p.hi), p.lo))
		p.add(Mark{Kind: MarkRect, X: x0, Y: math.Min(y0, yb), W: bw, H: math.Abs(yb - y0), Fill: p.colour(si),
			Title: s.Name + " " + p.c.Labels[i] + ": " + tick(*v)})
	}
}

// line draws series si as a dot per value, joined by a line broken
// where a value is missing.
func (p *plot) line(si int, s Series) {
	var pts [][2]float64
	flush := func() {
		if len(pts) > 1 {
			p.add(Mark{Kind: MarkPolyline, Points: pts, Stroke: p.colour(si)})
		}
		pts = nil
	}
	for i, v := range s.Values {
		if v == nil {
			flush()
			continue
		}
		pts = append(pts, [2]float64{p.x(i), p.y(*v)})
		p.add(Mark{Kind: MarkCircle, X: p.x(i), Y: p.y(*v), W: 2.5, Fill: p.colour(si),
			Title: s.Name + " " + p.c.Labels[i] + ": " + tick(*v)})
	}
	flush()
}

// legend draws one entry per series, under the labels.
func (p *plot) legend() {
	lx := float64(left)
	for si, s := range p.c.Series {
		p.add(Mark{Kind: MarkRect, X: lx, Y: Height - 22, W: 10, H: 10, Fill: p.colour(si)})
		p.add(text(lx+14, Height-13, s.Name, "start"))
		lx += float64(24 + 7*len([]rune(s.Name)))
	}
}

// SVG paints the drawing as an SVG document.
func (d Drawing) SVG() string {
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="%d" height="%d" role="img" aria-label="%s" font-family="sans-serif" font-size="11">`,
		Width, Height, Width, Height, esc(d.Title))
	title := func(m Mark) string {
		if m.Title == "" {
			return ""
		}
		return "<title>" + esc(m.Title) + "</title>"
	}
	for _, m := range d.Marks {
		switch m.Kind {
		case MarkRect:
			fmt.Fprintf(&b, `<rect x="%s" y="%s" width="%s" height="%s" fill="%s">%s</rect>`, num(m.X), num(m.Y), num(m.W), num(m.H), m.Fill, title(m))
		case MarkLine:
			fmt.Fprintf(&b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s"/>`, num(m.X), num(m.Y), num(m.X2), num(m.Y2), m.Stroke)
		case MarkPolyline:
			pts := make([]string, len(m.Points))
			for i, p := range m.Points {
				pts[i] = num(p[0]) + "," + num(p[1])
			}
			fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="2"/>`, strings.Join(pts, " "), m.Stroke)
		case MarkCircle:
			fmt.Fprintf(&b, `<circle cx="%s" cy="%s" r="%s" fill="%s">%s</circle>`, num(m.X), num(m.Y), num(m.W), m.Fill, title(m))
		case MarkText:
			attrs := ""
			if m.Anchor != "start" {
				attrs += ` text-anchor="` + m.Anchor + `"`
			}
			if m.Middle {
				attrs += ` dominant-baseline="middle"`
			}
			if m.Size != 11 {
				attrs += ` font-size="` + num(m.Size) + `"`
			}
			if m.Bold {
				attrs += ` font-weight="bold"`
			}
			if m.Fill != "#111827" {
				attrs += ` fill="` + m.Fill + `"`
			}
			if m.Rotate {
				attrs += fmt.Sprintf(` transform="rotate(-90 %s %s)"`, num(m.X), num(m.Y))
			}
			fmt.Fprintf(&b, `<text x="%s" y="%s"%s>%s</text>`, num(m.X), num(m.Y), attrs, esc(m.Text))
		}
	}
	b.WriteString(`</svg>`)
	return b.String()
}

// bounds is the value range of the y axis and its tick step: it holds
// every value and zero for bars, is never empty, and starts and ends on a
// tick.
func bounds(c Chart) (lo, hi, step float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, s := range c.Series {
		for _, v := range s.Values {
			if v != nil {
				lo, hi = math.Min(lo, *v), math.Max(hi, *v)
			}
		}
	}
	if c.Kind == Bar {
		lo, hi = math.Min(lo, 0), math.Max(hi, 0)
	}
	if hi-lo < 1e-12 { // a flat line: a band of 10% around it
		d := math.Max(math.Abs(lo)*0.1, 1e-6)
		lo, hi = lo-d, hi+d
	}
	step = nice((hi - lo) / 4)
	// A quotient a rounding error past a whole number (0.86/0.01) is that
	// number, not the next one.
	return math.Floor(lo/step+1e-9) * step, math.Ceil(hi/step-1e-9) * step, step
}

// nice rounds a tick step up to 1, 2, 2.5 or 5 times a power of ten.
func nice(step float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(step)))
	for _, m := range []float64{1, 2, 2.5, 5} {
		if m*p >= step*(1-1e-9) {
			return m * p
		}
	}
	return 10 * p
}

// num writes a coordinate with one decimal.
func num(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

// tick writes an axis or value label with at most four significant digits.
func tick(v float64) string {
	if math.Abs(v) < 1e-9 {
		return "0"
	}
	// Four significant digits, written out: 40000, not 4e+04.
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 4, 64), 64)
	return strconv.FormatFloat(r, 'f', -1, 64)
}

// esc escapes text for SVG.
func esc(s string) string { return html.EscapeString(s) }
