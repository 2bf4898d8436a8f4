package fairness

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestScoreBoundaries runs the default conditions on values at and around
// every boundary of pass, band and severity.
func TestScoreBoundaries(t *testing.T) {
	th, err := Thresholds{}.resolved()
	if err != nil {
		t.Fatal(err)
	}
	f := func(m Metric, v float64, passed bool, score float64, band Band, sev Severity) {
		t.Helper()
		r := ruleOf(m, th)
		gotPassed := r.passes(v)
		miss := r.miss(v)
		gotScore, gotSev := scoreOf(gotPassed, miss), severityOf(gotPassed, miss)
		if gotPassed != passed || math.Abs(gotScore-score) > 1e-12 || BandOf(gotScore) != band || gotSev != sev {
			t.Errorf("%s %v: got passed %v, score %.17g (%s), severity %s; want %v, %v (%s), %s",
				m, v, gotPassed, gotScore, BandOf(gotScore), gotSev, passed, score, band, sev)
		}
	}
	below := math.Nextafter(0.8, 0)
	f(DisparateImpact, 1, true, 1, BandExcellent, SeverityNone)
	f(DisparateImpact, 1.7, true, 1, BandExcellent, SeverityNone)
	f(DisparateImpact, 0.9, true, 0.9, BandExcellent, SeverityNone)
	f(DisparateImpact, 0.8, true, 0.8, BandGood, SeverityNone)
	f(DisparateImpact, 0.79, false, 0.79, BandFair, SeverityLow)
	f(DisparateImpact, 0.7, false, 0.7, BandFair, SeverityLow)
	f(DisparateImpact, 0.69, false, 0.69, BandPoor, SeverityMedium)
	f(DisparateImpact, 0.6, false, 0.6, BandPoor, SeverityMedium)
	f(DisparateImpact, 0.59, false, 0.59, BandCritical, SeverityHigh)
	f(DisparateImpact, 0.4, false, 0.4, BandCritical, SeverityHigh)
	f(DisparateImpact, 0.39, false, 0.39, BandCritical, SeverityCritical)
	f(DisparateImpact, 0, false, 0, BandCritical, SeverityCritical)
	f(DemographicParity, 1.2, true, 0.8, BandGood, SeverityNone)
	f(DemographicParity, 1.1, true, 0.9, BandExcellent, SeverityNone)
	f(DemographicParity, 1.3, false, 0.7, BandFair, SeverityLow)
	f(DemographicParity, 1.5, false, 0.5, BandCritical, SeverityHigh)
	f(DemographicParity, 3, false, 0, BandCritical, SeverityCritical)
	f(DemographicParity, 0.75, false, 0.75, BandFair, SeverityLow)
	f(EqualOpportunity, 0, true, 1, BandExcellent, SeverityNone)
	f(EqualOpportunity, 0.05, true, 0.9, BandExcellent, SeverityNone)
	f(EqualOpportunity, 0.0999, true, 0.8002, BandGood, SeverityNone)
	f(EqualOpportunity, 0.1, false, below, BandFair, SeverityLow) // strict: fails at 0.1
	f(EqualOpportunity, 0.15, false, 0.7, BandFair, SeverityLow)
	f(EqualOpportunity, 0.2, false, 0.6, BandPoor, SeverityMedium)
	f(EqualOpportunity, 0.3, false, 0.4, BandCritical, SeverityHigh)
	f(EqualOpportunity, 0.31, false, 0.38, BandCritical, SeverityCritical)
	f(EqualizedOdds, 0.6, false, 0, BandCritical, SeverityCritical)
}

// TestScoreMonotone checks that a larger disparity never scores higher nor
// grades lower.
func TestScoreMonotone(t *testing.T) {
	th, _ := Thresholds{}.resolved()
	r := rand.New(rand.NewPCG(1, 2))
	for _, m := range Metrics {
		rule := ruleOf(m, th)
		for range 2000 {
			a, b := r.Float64(), r.Float64()
			if !rule.ratio {
				a, b = min(a, b), max(a, b) // b is the larger difference
			} else {
				a, b = max(a, b), min(a, b) // b is the smaller ratio
			}
			sa, sb := scoreOf(rule.passes(a), rule.miss(a)), scoreOf(rule.passes(b), rule.miss(b))
			va, vb := severityOf(rule.passes(a), rule.miss(a)), severityOf(rule.passes(b), rule.miss(b))
			if sb > sa || vb < va {
				t.Fatalf("%s: %v scores %v (%s), %v scores %v (%s): want the second no better", m, a, sa, va, b, sb, vb)
			}
		}
	}
}

func TestThresholds(t *testing.T) {
	got, err := Thresholds{}.resolved()
	want := Thresholds{0.8, 1.2, 0.1, 0.1, 0.8}
	if err != nil || got != want {
		t.Errorf("zero Thresholds: got %+v, %v, want %+v", got, err, want)
	}
	got, err = Thresholds{ImpactMin: 0.9, OddsMax: 0.05}.resolved()
	if err != nil || got.ImpactMin != 0.9 || got.OddsMax != 0.05 || got.ParityMin != 0.8 {
		t.Errorf("partial Thresholds: got %+v, %v", got, err)
	}
	for _, bad := range []Thresholds{{ParityMin: 1}, {ParityMax: 0.9}, {OpportunityMax: -1}, {OddsMax: 2}, {ImpactMin: 1.5}} {
		_, err := bad.resolved()
		wantInvalid(t, err, "got")
	}
}

func TestSeverity(t *testing.T) {
	f := func(s Severity, name string, drafts bool, likelihood int) {
		t.Helper()
		if s.String() != name || s.DraftsRisk() != drafts || s.RiskLikelihood() != likelihood {
			t.Errorf("%d: got %s, %v, %d, want %s, %v, %d", s, s, s.DraftsRisk(), s.RiskLikelihood(), name, drafts, likelihood)
		}
	}
	f(SeverityNone, "none", false, 0)
	f(SeverityLow, "low", false, 0)
	f(SeverityMedium, "medium", false, 0)
	f(SeverityHigh, "high", true, 4)
	f(SeverityCritical, "critical", true, 5)
	f(Severity(9), "unknown", true, 5)
	if b, _ := SeverityHigh.MarshalText(); string(b) != "high" {
		t.Errorf("MarshalText: got %s, want high", b)
	}
}
