package drift

import (
	"fmt"
	"slices"

	"github.com/vigilhq/vigil/stats/profile"
)

// FromProfiles runs detection on two profiles of a model's documents
// (stats/profile), as the processors keep them on the stream,
// instead of on arrays: the same methods, thresholds, severities and
// overall score as Detect, with cfg (the model's configuration, or
// Default) deciding each feature's method and threshold. The request-level
// method and threshold do not exist here.
//
// A numeric feature's ks_test statistic comes from the two sketches and
// is never above the exact one, which exceeds it by at most the reported
// bound (profile.Result.KSBound); psi, js_divergence and chi_squared on
// numbers use ten bins cut at sketch bucket boundaries near the
// reference's deciles, and are exact for those bins. Categories are
// exact. Features that cannot be tested (no value of the reference's kind
// on one side, a numeric method asked of categories, a threshold that does
// not suit the method) are returned in problems, keyed by feature.
func (d Detector) FromProfiles(modelID string, ref, cur *profile.Profile, cfg Config) (r Result, bounds map[string]float64, problems map[string]error) {
	compared, skippedProfiles := profile.Compare(ref, cur)
	problems = map[string]error{}
	skipped := []string{}
	for name, err := range skippedProfiles {
		if fc := cfg.Features[name]; fc.On() {
			problems[name] = err
		} else {
			skipped = append(skipped, name)
		}
	}
	bounds = map[string]float64{}
	var jobs []job
	var results []FeatureResult
	for _, c := range compared {
		fc := cfg.Features[c.Feature]
		if !fc.On() {
			skipped = append(skipped, c.Feature)
			continue
		}
		j := job{feature: Feature{Name: c.Feature}, method: fc.Method, methodSource: sourceFeature, threshold: fc.Threshold,
			typ: fc.Type, thresholds: cfg.Thresholds.Effective()}
		if j.method == "" {
			j.methodSource = sourceDefault
		}
		res, err := j.fromProfile(c)
		if err != nil {
			problems[c.Feature] = err
			continue
		}
		if c.KS != nil {
			bounds[c.Feature] = c.KSBound
		}
		jobs, results = append(jobs, j), append(results, res)
	}
	slices.Sort(skipped)
	return d.assemble(modelID, jobs, results, skipped), bounds, problems
}

// fromProfile tests one compared feature.
func (j job) fromProfile(c profile.Result) (FeatureResult, error) {
	res := FeatureResult{Type: Categorical, TypeSource: sourceInferred, MethodSource: j.methodSource,
		Missing:    Sides{int(c.MissingRef), int(c.MissingCur)},
		SampleSize: Sides{c.Table.NRef, c.Table.NCur}}
	if c.Kind == profile.Numeric {
		res.Type = Numeric
	}
	if j.typ != "" && j.typ != res.Type {
		return res, fmt.Errorf("feature_configs makes the feature %s, but its profile holds %s values", j.typ, res.Type)
	}
	if j.typ != "" {
		res.TypeSource = sourceFeature
	}
	if !j.chooseMethod(&res) {
		return res, fmt.Errorf("is categorical, but %s needs numbers", res.Method)
	}
	if err := j.setThreshold(&res); err != nil {
		return res, err
	}
	if res.Method == KS {
		res.Statistic, res.DriftScore, res.PValue = c.KS.Statistic, c.KS.Statistic, finite(c.KS.PValue)
	} else {
		scoreTable(&res, c.Table)
	}
	j.decide(&res)
	return res, nil
}
