package view

import (
	"cmp"
	"math"
	"slices"

	"github.com/vigilhq/vigil/explanation"
)

// Plot types of one explanation and of several.
var (
	PlotTypes      = []string{"waterfall", "force", "feature_importance"}
	MultiPlotTypes = []string{"summary", "decision", "dependence"}
)

// Contribution is one feature of a plot: its value in the instance (nil
// when missing or not a number) and its weight.
type Contribution struct {
	Feature      string   `json:"feature"`
	Value        *float64 `json:"value"`
	Contribution float64  `json:"contribution"`
}

// Step is a waterfall bar: the running total goes from Start to End.
type Step struct {
	Contribution
	Start float64 `json:"start"`
	End   float64 `json:"end"`
}

// Rest is what the features left out of a plot add up to.
type Rest struct {
	Features     int     `json:"features"`
	Contribution float64 `json:"contribution"`
}

// Plot is the data of one explanation's plot. BaseValue plus every
// feature's contribution is OutputValue (for LIME, the surrogate's local
// prediction; PredictedValue is the model's).
type Plot struct {
	PlotType       string         `json:"plot_type"`
	BaseValue      float64        `json:"base_value"`
	OutputValue    float64        `json:"output_value"`
	PredictedValue float64        `json:"predicted_value"`
	Steps          []Step         `json:"steps,omitempty"`
	Positive       []Contribution `json:"positive,omitempty"`
	Negative       []Contribution `json:"negative,omitempty"`
	Features       []Importance   `json:"features,omitempty"`
	Rest           Rest           `json:"rest"`
}

// number is v as a number; nil when it is none.
func number(v any) *float64 {
	if x, ok := v.(float64); ok {
		return &x
	}
	return nil
}

// ranked is the contributions of e by decreasing |weight| (ties by name),
// the first max of them and what the others add up to.
func ranked(e explanation.Explanation, max int) ([]Contribution, Rest) {
	o := e.Outcome
	fs := union(o.FeatureWeights)
	slices.SortStableFunc(fs, func(a, b string) int {
		return cmp.Compare(math.Abs(o.FeatureWeights[b]), math.Abs(o.FeatureWeights[a]))
	})
	var out []Contribution
	var rest Rest
	for i, f := range fs {
		if i < max {
			out = append(out, Contribution{Feature: f, Value: number(e.Request.Instance[f]), Contribution: o.FeatureWeights[f]})
		} else {
			rest.Features++
			rest.Contribution += o.FeatureWeights[f]
		}
	}
	return out, rest
}

// PlotOf lays out a completed explanation as plotType (PlotTypes) over
// its max features of largest |weight|:
//
//	waterfall          from base_value, one step per feature, the others as rest last
//	force              the features pushing the output up (positive) and down (negative), largest first
//	feature_importance the features with |weight| as importance
func PlotOf(e explanation.Explanation, plotType string, max int) Plot {
	o := e.Outcome
	top, rest := ranked(e, max)
	p := Plot{PlotType: plotType, BaseValue: o.BaseValue, PredictedValue: o.PredictedValue, Rest: rest}
	total := o.BaseValue + rest.Contribution
	for _, c := range top {
		total += c.Contribution
	}
	p.OutputValue = total
	switch plotType {
	case "waterfall":
		at := o.BaseValue
		for _, c := range top {
			p.Steps = append(p.Steps, Step{Contribution: c, Start: at, End: at + c.Contribution})
			at += c.Contribution
		}
	case "force":
		p.Positive, p.Negative = []Contribution{}, []Contribution{}
		for _, c := range top {
			if c.Contribution >= 0 {
				p.Positive = append(p.Positive, c)
			} else {
				p.Negative = append(p.Negative, c)
			}
		}
	case "feature_importance":
		for _, c := range top {
			p.Features = append(p.Features, Importance{Feature: c.Feature, MeanAbs: math.Abs(c.Contribution), Mean: c.Contribution, Count: 1})
		}
	}
	return p
}

// Point is one explanation's value and contribution of a feature.
type Point struct {
	ExplanationID string   `json:"explanation_id"`
	Value         *float64 `json:"value"`
	Contribution  float64  `json:"contribution"`
}

// SummaryFeature is one feature of a summary plot.
type SummaryFeature struct {
	Importance
	Points []Point `json:"points"`
}

// DecisionLine is one explanation's path in a decision plot: Start is its
// base value plus the features left out; Points[i] is the running total
// after Features[i].
type DecisionLine struct {
	ExplanationID string    `json:"explanation_id"`
	BaseValue     float64   `json:"base_value"`
	Start         float64   `json:"start"`
	Points        []float64 `json:"points"`
}

// MultiPlot is the data of a plot of several explanations of one model.
type MultiPlot struct {
	PlotType string `json:"plot_type"`
	// Features are the features plotted: by decreasing mean |weight|
	// (summary), by increasing mean |weight| as a decision plot draws
	// them from the bottom (decision), or the one feature (dependence).
	Features []Importance     `json:"features"`
	Summary  []SummaryFeature `json:"summary,omitempty"`
	Lines    []DecisionLine   `json:"lines,omitempty"`
	Points   []Point          `json:"points,omitempty"`
}

// MultiPlotOf lays out completed explanations of one model as plotType
// (MultiPlotTypes) over the max features of largest mean |weight|:
//
//	summary    each feature's mean |weight| and every explanation's (value, contribution)
//	decision   each explanation's running total from its base value through the features
//	dependence one feature's (value, contribution) over the explanations, by value (missing last)
//
// feature names the dependence plot's feature ("" the most important).
func MultiPlotOf(es []explanation.Explanation, plotType string, max int, feature string) MultiPlot {
	ws := make([]map[string]float64, len(es))
	for i, e := range es {
		ws[i] = e.Outcome.FeatureWeights
	}
	imp := GlobalImportance(ws)
	p := MultiPlot{PlotType: plotType}
	point := func(e explanation.Explanation, f string) Point {
		return Point{ExplanationID: e.ID, Value: number(e.Request.Instance[f]), Contribution: e.Outcome.FeatureWeights[f]}
	}
	top := imp[:min(max, len(imp))]
	switch plotType {
	case "summary":
		p.Features = top
		for _, f := range top {
			s := SummaryFeature{Importance: f}
			for _, e := range es {
				s.Points = append(s.Points, point(e, f.Feature))
			}
			p.Summary = append(p.Summary, s)
		}
	case "decision":
		p.Features = slices.Clone(top)
		slices.Reverse(p.Features)
		for _, e := range es {
			l := DecisionLine{ExplanationID: e.ID, BaseValue: e.Outcome.BaseValue, Start: e.Outcome.BaseValue, Points: []float64{}}
			shown := map[string]bool{}
			for _, f := range top {
				shown[f.Feature] = true
			}
			for _, f := range union(e.Outcome.FeatureWeights) {
				if !shown[f] {
					l.Start += e.Outcome.FeatureWeights[f]
				}
			}
			at := l.Start
			for _, f := range p.Features {
				at += e.Outcome.FeatureWeights[f.Feature]
				l.Points = append(l.Points, at)
			}
			p.Lines = append(p.Lines, l)
		}
	case "dependence":
		i := slices.IndexFunc(imp, func(x Importance) bool { return x.Feature == feature })
		if feature == "" && len(imp) > 0 {
			i = 0
		}
		if i < 0 {
			return p
		}
		p.Features = []Importance{imp[i]}
		for _, e := range es {
			p.Points = append(p.Points, point(e, imp[i].Feature))
		}
		slices.SortStableFunc(p.Points, func(a, b Point) int {
			switch {
			case a.Value == nil || b.Value == nil:
				return cmp.Compare(boolInt(a.Value == nil), boolInt(b.Value == nil))
			}
			return cmp.Compare(*a.Value, *b.Value)
		})
	}
	return p
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
