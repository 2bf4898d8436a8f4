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

// Size of the drawing and of its margins, in SVG user units.
const (
	width, height            = 640, 300
	left, right, top, bottom = 64, 16, 36, 64
)

// SVG draws c as an SVG document of fixed size; primary, a "#rrggbb"
// colour, colours the first series when it is not empty.
func SVG(c Chart, primary string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="%d" height="%d" role="img" aria-label="%s" font-family="sans-serif" font-size="11">`,
		width, height, width, height, esc(c.Title))
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="#ffffff"/>`, width, height)
	fmt.Fprintf(&b, `<text x="%d" y="20" font-size="14" font-weight="bold">%s</text>`, left, esc(c.Title))
	if c.Empty() || len(c.Labels) == 0 {
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle" fill="#6b7280">no data in the period</text></svg>`, width/2, height/2)
		return b.String()
	}
	lo, hi := bounds(c)
	plotW, plotH := float64(width-left-right), float64(height-top-bottom)
	y := func(v float64) float64 { return float64(top) + plotH*(hi-v)/(hi-lo) }
	step := plotW / float64(len(c.Labels))
	x := func(i int) float64 { return float64(left) + step*(float64(i)+0.5) }
	// Gridlines on the ticks, with their values.
	ts := nice((hi - lo) / 4)
	for k := 0; lo+float64(k)*ts <= hi+ts/2; k++ {
		v := lo + float64(k)*ts
		fmt.Fprintf(&b, `<line x1="%d" y1="%s" x2="%d" y2="%s" stroke="#e5e7eb"/>`, left, num(y(v)), width-right, num(y(v)))
		fmt.Fprintf(&b, `<text x="%d" y="%s" text-anchor="end" dominant-baseline="middle">%s</text>`, left-6, num(y(v)), tick(v))
	}
	fmt.Fprintf(&b, `<text x="12" y="%d" transform="rotate(-90 12 %d)" text-anchor="middle">%s</text>`, top+int(plotH)/2, top+int(plotH)/2, esc(c.YLabel))
	every := max(1, (len(c.Labels)+9)/10)
	for i, l := range c.Labels {
		if i%every == 0 {
			fmt.Fprintf(&b, `<text x="%s" y="%d" text-anchor="middle">%s</text>`, num(x(i)), height-bottom+16, esc(l))
		}
	}
	colour := func(i int) string {
		if i == 0 && primary != "" {
			return primary
		}
		return palette[i%len(palette)]
	}
	for si, s := range c.Series {
		switch c.Kind {
		case Bar:
			bw := step * 0.8 / float64(len(c.Series))
			for i, v := range s.Values {
				if v == nil {
					continue
				}
				x0 := x(i) - step*0.4 + bw*float64(si)
				y0, yb := y(max(*v, lo)), y(max(min(0, hi), lo))
				top, h := math.Min(y0, yb), math.Abs(yb-y0)
				fmt.Fprintf(&b, `<rect x="%s" y="%s" width="%s" height="%s" fill="%s"><title>%s %s: %s</title></rect>`,
					num(x0), num(top), num(bw), num(h), colour(si), esc(s.Name), esc(c.Labels[i]), tick(*v))
			}
		default:
			var pts []string
			flush := func() {
				if len(pts) > 1 {
					fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="2"/>`, strings.Join(pts, " "), colour(si))
				}
				pts = pts[:0]
			}
			for i, v := range s.Values {
				if v == nil {
					flush()
					continue
				}
				pts = append(pts, num(x(i))+","+num(y(*v)))
				fmt.Fprintf(&b, `<circle cx="%s" cy="%s" r="2.5" fill="%s"><title>%s %s: %s</title></circle>`,
					num(x(i)), num(y(*v)), colour(si), esc(s.Name), esc(c.Labels[i]), tick(*v))
			}
			flush()
		}
	}
	// Legend, one entry per series, under the labels.
	lx := left
	for si, s := range c.Series {
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="10" height="10" fill="%s"/><text x="%d" y="%d">%s</text>`,
			lx, height-22, colour(si), lx+14, height-13, esc(s.Name))
		lx += 24 + 7*len([]rune(s.Name))
	}
	b.WriteString(`</svg>`)
	return b.String()
}

// bounds is the value range of the y axis: it holds every value and zero
// for bars, is never empty, and starts and ends on a tick.
func bounds(c Chart) (lo, hi float64) {
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
	step := nice((hi - lo) / 4)
	return math.Floor(lo/step) * step, math.Ceil(hi/step) * step
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
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// esc escapes text for SVG.
func esc(s string) string { return html.EscapeString(s) }
