package drift

import "slices"

// Cutoffs grade a detected drift by its drift_score: below Medium it is
// low, from Medium below High it is medium, from High on it is high.
type Cutoffs struct {
	Medium float64 `json:"medium"`
	High   float64 `json:"high"`
}

// Grade returns the severity of a detected drift with the given score.
func (c Cutoffs) Grade(score float64) Severity {
	switch {
	case score >= c.High:
		return High
	case score >= c.Medium:
		return Medium
	}
	return Low
}

// Thresholds are a model's drift thresholds: one per method, the concept
// drift threshold and the severity cutoffs. It is the threshold_config part
// of a configuration, and what a sensitivity preset sets. A zero field
// takes the medium preset's value (see Effective).
type Thresholds struct {
	// KS and ChiSquared are significance levels: drift when p < level.
	KS         float64 `json:"ks_test"`
	ChiSquared float64 `json:"chi_squared"`
	// PSI and JS are score cutoffs: drift when the score >= cutoff.
	PSI float64 `json:"psi"`
	JS  float64 `json:"js_divergence"`
	// ConceptDrift is the relative drop of the concept-drift metric below
	// its baseline that counts as concept drift (0.05: 5% worse).
	ConceptDrift float64 `json:"concept_drift"`
	// Severity grades a detected drift by its score.
	Severity Cutoffs `json:"severity"`
}

// For returns the threshold of method m (which must not be empty).
func (t Thresholds) For(m Method) float64 {
	t = t.Effective()
	switch m {
	case KS:
		return t.KS
	case ChiSquared:
		return t.ChiSquared
	case PSI:
		return t.PSI
	}
	return t.JS
}

// Effective returns t with every zero field replaced by the medium
// preset's value.
func (t Thresholds) Effective() Thresholds {
	d := Presets[1].Thresholds
	for _, f := range []struct {
		dst *float64
		def float64
	}{
		{&t.KS, d.KS}, {&t.ChiSquared, d.ChiSquared}, {&t.PSI, d.PSI}, {&t.JS, d.JS},
		{&t.ConceptDrift, d.ConceptDrift}, {&t.Severity.Medium, d.Severity.Medium}, {&t.Severity.High, d.Severity.High},
	} {
		if *f.dst == 0 {
			*f.dst = f.def
		}
	}
	return t
}

// Preset is a named set of thresholds: the sensitivity presets.
type Preset struct {
	Name        string     `json:"name"`
	Description string     `json:"description"`
	Thresholds  Thresholds `json:"threshold_config"`
}

// Presets are the sensitivity presets, least sensitive first. Medium is the
// default. A more sensitive preset flags drift at larger p-values and
// smaller scores, and grades it severe sooner.
var Presets = []Preset{
	{Name: "low", Description: "Less sensitive: flags only clear, large shifts (p < 0.01, PSI >= 0.25, JS >= 0.2); " +
		"severity medium from a score of 0.15, high from 0.4.",
		Thresholds: Thresholds{KS: 0.01, ChiSquared: 0.01, PSI: 0.25, JS: 0.2, ConceptDrift: 0.1,
			Severity: Cutoffs{Medium: 0.15, High: 0.4}}},
	{Name: "medium", Description: "The default (p < 0.05, PSI >= 0.2, JS >= 0.1). Scores: below 0.1 no meaningful drift, " +
		"0.1 to 0.3 investigate (medium), 0.3 and above action required (high).",
		Thresholds: Thresholds{KS: 0.05, ChiSquared: 0.05, PSI: 0.2, JS: 0.1, ConceptDrift: 0.05,
			Severity: Cutoffs{Medium: 0.1, High: 0.3}}},
	{Name: "high", Description: "More sensitive: flags small shifts early (p < 0.1, PSI >= 0.1, JS >= 0.05); " +
		"severity medium from a score of 0.05, high from 0.2.",
		Thresholds: Thresholds{KS: 0.1, ChiSquared: 0.1, PSI: 0.1, JS: 0.05, ConceptDrift: 0.02,
			Severity: Cutoffs{Medium: 0.05, High: 0.2}}},
}

// DefaultPreset is the name of the preset a default configuration uses.
const DefaultPreset = "medium"

// PresetNamed returns the preset called name.
func PresetNamed(name string) (Preset, bool) {
	i := slices.IndexFunc(Presets, func(p Preset) bool { return p.Name == name })
	if i < 0 {
		return Preset{}, false
	}
	return Presets[i], true
}

// sensitivity names the preset whose thresholds t equals, or "custom".
func sensitivity(t Thresholds) string {
	for _, p := range Presets {
		if p.Thresholds == t.Effective() {
			return p.Name
		}
	}
	return "custom"
}
