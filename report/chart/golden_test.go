package chart_test

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/vigilhq/vigil/report/chart"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// TestGolden: a chart draws the same bytes as its golden SVG under
// testdata (-update rewrites them): lines with a gap, bars on both sides
// of zero in two series, more labels than are written, and the primary
// colour.
func TestGolden(t *testing.T) {
	labels := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = "2026-03-" + string(rune('a'+i))
		}
		return out
	}
	for name, c := range map[string]chart.Chart{
		"line": {Kind: chart.Line, Title: "Accuracy", YLabel: "share", Labels: labels(5), Series: []chart.Series{
			{Name: "accuracy", Values: []*float64{ptr(0.91), ptr(0.88), nil, ptr(0.86), ptr(0.9)}},
			{Name: "recall", Values: []*float64{ptr(0.7), nil, ptr(0.75), ptr(0.8), ptr(0.78)}}}},
		"bars": {Kind: chart.Bar, Title: "Volume & <change>", YLabel: "predictions", Labels: labels(3), Series: []chart.Series{
			{Name: "this week", Values: []*float64{ptr(-120), ptr(340), ptr(55)}},
			{Name: "last week", Values: []*float64{ptr(80), nil, ptr(-20)}}}},
		"labels": {Kind: chart.Line, Title: "Latency", YLabel: "ms", Labels: labels(23), Series: []chart.Series{
			{Name: "p95", Values: func() []*float64 {
				var v []*float64
				for i := range 23 {
					v = append(v, ptr(float64(100+i*i%37)))
				}
				return v
			}()}}},
	} {
		got := chart.SVG(c, "#0f766e")
		golden := filepath.Join("testdata", name+".svg")
		if *update {
			if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatal(err)
		}
		if got != string(want) {
			t.Errorf("%s: got\n%s\nwant\n%s", name, got, want)
		}
	}
}
