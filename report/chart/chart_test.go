package chart_test

import (
	"encoding/xml"
	"io"
	"strings"
	"testing"

	"github.com/vigilhq/vigil/report/chart"
)

func ptr(v float64) *float64 { return &v }

// TestSVG: every chart is well-formed XML that escapes its text, draws a
// mark per value and none for a gap, and says when it has no data.
func TestSVG(t *testing.T) {
	f := func(c chart.Chart, marks string, want int) {
		t.Helper()
		out := chart.SVG(c, "#112233")
		d := xml.NewDecoder(strings.NewReader(out))
		for {
			_, err := d.Token()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: got invalid XML (%v): %s", c.Title, err, out)
			}
		}
		if got := strings.Count(out, marks); got != want {
			t.Errorf("%s: got %d %s, want %d", c.Title, got, marks, want)
		}
	}
	f(chart.Chart{Kind: chart.Line, Title: "<b>&", Labels: []string{"a", "b", "c"},
		Series: []chart.Series{{Name: `"s"`, Values: []*float64{ptr(0.9), nil, ptr(0.9)}}}}, "<circle", 2)
	f(chart.Chart{Kind: chart.Line, Title: "gap", Labels: []string{"a", "b", "c"},
		Series: []chart.Series{{Name: "s", Values: []*float64{ptr(1), nil, ptr(2)}}}}, "<polyline", 0)
	f(chart.Chart{Kind: chart.Bar, Title: "bars", Labels: []string{"a", "b"},
		Series: []chart.Series{{Name: "s", Values: []*float64{ptr(-3), ptr(5)}}, {Name: "t", Values: []*float64{ptr(1), nil}}}}, `fill="#112233"><title>`, 2)
	f(chart.Chart{Kind: chart.Bar, Title: "none", Labels: []string{"a"}, Series: []chart.Series{{Name: "s", Values: []*float64{nil}}}}, "no data in the period", 1)
}

// TestTicksInsidePlot: every tick of the y axis lies within the plot,
// none above it where the title (or a PDF's heading) is, whatever the
// rounding of the values' range.
func TestTicksInsidePlot(t *testing.T) {
	f := func(values ...float64) {
		t.Helper()
		s := chart.Series{Name: "precision"}
		var labels []string
		for i := range values {
			s.Values, labels = append(s.Values, &values[i]), append(labels, string(rune('a'+i)))
		}
		d := chart.Draw(chart.Chart{Kind: chart.Line, Title: "Precision and recall", Labels: labels, Series: []chart.Series{s}}, "")
		for _, m := range d.Marks {
			if m.Kind == chart.MarkLine && (m.Y < 36-1e-6 || m.Y > chart.Height-64+1e-6) {
				t.Errorf("values %v: got a gridline at y %v, want it within the plot (36 to %d)", values, m.Y, chart.Height-64)
			}
		}
	}
	f(0.82, 0.84, 0.86)
	f(0.456, 0.3)
	f(0.194, 0.563)
	f(0.189, 0.199)
	f(0.783, 0.746)
	f(0.001, 0.0029)
	f(120, 170, 160)
}
