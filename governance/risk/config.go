package risk

import (
	"fmt"
	"regexp"
	"strconv"
	"time"

	"github.com/vigilhq/vigil/platform/web"
)

// Level is one value of a likelihood or impact scale and its label.
type Level struct {
	Value int    `json:"value"`
	Label string `json:"label"`
}

// Thresholds are the minimum scores of the critical, high and medium
// bands; the low band is the remainder.
type Thresholds struct {
	Critical int `json:"critical"`
	High     int `json:"high"`
	Medium   int `json:"medium"`
}

// Severity is the band of score.
func (t Thresholds) Severity(score int) string {
	switch {
	case score >= t.Critical:
		return "critical"
	case score >= t.High:
		return "high"
	case score >= t.Medium:
		return "medium"
	}
	return "low"
}

// Config is an organization's scoring configuration: its override over
// the defaults.
//
// risk_score = likelihood x impact; severity is the score's band under
// the organization's severity_thresholds at the time likelihood or impact
// last changed: a later change of thresholds restates no stored entry.
// PUT /risk-register/config overrides only the parts it sends; is_default
// is true while nothing is overridden.
type Config struct {
	LikelihoodScale []Level    `json:"likelihood_scale"`
	ImpactScale     []Level    `json:"impact_scale"`
	Categories      []string   `json:"category_taxonomy"`
	Thresholds      Thresholds `json:"severity_thresholds"`
	// IsDefault is true when the organization has no override.
	IsDefault bool `json:"is_default"`
}

// Override is what an organization has replaced of the defaults; a nil
// part is the default's.
type Override struct {
	LikelihoodScale *[]Level    `json:"likelihood_scale,omitempty"`
	ImpactScale     *[]Level    `json:"impact_scale,omitempty"`
	Categories      *[]string   `json:"category_taxonomy,omitempty"`
	Thresholds      *Thresholds `json:"severity_thresholds,omitempty"`
	// UpdatedAt is when it was last stored (zero when none is on file).
	UpdatedAt time.Time `json:"-"`
}

// Empty reports whether o overrides nothing.
func (o Override) Empty() bool {
	return o.LikelihoodScale == nil && o.ImpactScale == nil && o.Categories == nil && o.Thresholds == nil
}

// Default is the configuration of an organization without an override.
func Default() Config {
	return Config{
		LikelihoodScale: []Level{{1, "Rare"}, {2, "Unlikely"}, {3, "Possible"}, {4, "Likely"}, {5, "Almost Certain"}},
		ImpactScale:     []Level{{1, "Negligible"}, {2, "Minor"}, {3, "Moderate"}, {4, "Major"}, {5, "Severe"}},
		Categories:      []string{"bias", "drift", "security", "regulatory", "operational", "reputational", "third_party", "other"},
		Thresholds:      Thresholds{Critical: 20, High: 12, Medium: 6},
		IsDefault:       true,
	}
}

// Apply returns the defaults with o's parts in their place.
func (o Override) Apply() Config {
	c := Default()
	c.IsDefault = o.Empty()
	if o.LikelihoodScale != nil {
		c.LikelihoodScale = *o.LikelihoodScale
	}
	if o.ImpactScale != nil {
		c.ImpactScale = *o.ImpactScale
	}
	if o.Categories != nil {
		c.Categories = *o.Categories
	}
	if o.Thresholds != nil {
		c.Thresholds = *o.Thresholds
	}
	return c
}

// Merge returns o with the parts of next that are set in their place:
// PUT overrides only the parts it sends.
func (o Override) Merge(next Override) Override {
	if next.LikelihoodScale != nil {
		o.LikelihoodScale = next.LikelihoodScale
	}
	if next.ImpactScale != nil {
		o.ImpactScale = next.ImpactScale
	}
	if next.Categories != nil {
		o.Categories = next.Categories
	}
	if next.Thresholds != nil {
		o.Thresholds = next.Thresholds
	}
	return o
}

// configRequest is the body of PUT /risk-register/config.
type configRequest struct {
	LikelihoodScale *[]levelRequest    `json:"likelihood_scale"`
	ImpactScale     *[]levelRequest    `json:"impact_scale"`
	Categories      *[]string          `json:"category_taxonomy"`
	Thresholds      *thresholdsRequest `json:"severity_thresholds"`
}

type levelRequest struct {
	Value *web.Int `json:"value"`
	Label *string  `json:"label"`
}

type thresholdsRequest struct {
	Critical *web.Int `json:"critical"`
	High     *web.Int `json:"high"`
	Medium   *web.Int `json:"medium"`
}

// categoryName is what a category may be: lower-case words joined by
// underscores, as the defaults are, so that it is safe in a query string.
var categoryName = regexp.MustCompile(`^[a-z0-9]+(_[a-z0-9]+)*$`)

// Limits of the configuration.
const (
	maxCategories  = 100
	maxCategoryLen = 64
	maxLabelLen    = 100
)

// override validates r and returns the override it asks for; a 422 names
// the first offending field of each part.
func (r configRequest) override() (Override, error) {
	var v web.Problems
	var o Override
	o.LikelihoodScale = scale(&v, "likelihood_scale", r.LikelihoodScale)
	o.ImpactScale = scale(&v, "impact_scale", r.ImpactScale)
	if r.Categories != nil {
		cats := *r.Categories
		seen := map[string]bool{}
		switch {
		case len(cats) == 0:
			v.Add("category_taxonomy", "must list at least one category")
		case len(cats) > maxCategories:
			v.Add("category_taxonomy", fmt.Sprintf("must list at most %d categories", maxCategories))
		}
		for i, c := range cats {
			field := "category_taxonomy[" + strconv.Itoa(i) + "]"
			switch {
			case len(c) > maxCategoryLen || !categoryName.MatchString(c):
				v.Add(field, fmt.Sprintf("must be 1-%d lower-case letters, digits and single underscores, such as third_party", maxCategoryLen))
			case seen[c]:
				v.Add(field, "repeats "+c)
			}
			seen[c] = true
		}
		o.Categories = &cats
	}
	if t := r.Thresholds; t != nil {
		var th Thresholds
		for _, f := range []struct {
			name string
			in   *web.Int
			out  *int
		}{{"critical", t.Critical, &th.Critical}, {"high", t.High, &th.High}, {"medium", t.Medium, &th.Medium}} {
			field := "severity_thresholds." + f.name
			switch {
			case f.in == nil:
				v.Add(field, "is required")
			case *f.in < 2 || *f.in > 25:
				v.Add(field, "must be between 2 and 25")
			default:
				*f.out = int(*f.in)
			}
		}
		if len(v) == 0 && !(th.Critical > th.High && th.High > th.Medium) {
			v.Add("severity_thresholds", "must satisfy critical > high > medium")
		}
		o.Thresholds = &th
	}
	return o, v.Err()
}

// scale validates a likelihood or impact scale: the values 1 to 5, each
// once, in order, each with a label.
func scale(v *web.Problems, field string, in *[]levelRequest) *[]Level {
	if in == nil {
		return nil
	}
	if len(*in) != 5 {
		v.Add(field, "must list the values 1 to 5, each with a label")
		return nil
	}
	out := make([]Level, 5)
	for i, l := range *in {
		at := field + "[" + strconv.Itoa(i) + "]"
		switch {
		case l.Value == nil || int(*l.Value) != i+1:
			v.Add(at+".value", "must be "+strconv.Itoa(i+1)+": the scale lists 1 to 5 in order")
		case l.Label == nil || len(*l.Label) == 0:
			v.Add(at+".label", "is required")
		default:
			v.MaxLen(at+".label", *l.Label, maxLabelLen)
			out[i] = Level{Value: i + 1, Label: *l.Label}
		}
	}
	return &out
}
