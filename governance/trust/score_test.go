package trust

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/vigilhq/vigil/platform/web"
)

func TestDriftComponent(t *testing.T) {
	for _, tc := range []struct {
		name string
		r    DriftReading
		want float64
	}{
		{"calm", DriftReading{Score: 0, Severity: severityLow}, 100},
		{"a quarter drifted at low severity", DriftReading{Score: 0.25, Severity: severityLow, Detected: true}, 75},
		{"one of ten at low severity: capped at 80", DriftReading{Score: 0.1, Severity: severityLow, Detected: true}, 80},
		{"one of ten at medium severity", DriftReading{Score: 0.1, Severity: severityMedium, Detected: true}, 60},
		{"one of ten at high severity", DriftReading{Score: 0.1, Severity: severityHigh, Detected: true}, 30},
		{"everything drifted", DriftReading{Score: 1, Severity: severityHigh, Detected: true}, 0},
		{"a concept degradation above 1", DriftReading{Score: 3.5, Severity: severityHigh, Detected: true}, 0},
		{"a negative score", DriftReading{Score: -0.2, Severity: severityLow}, 100},
	} {
		if got := tc.r.Component(); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestCompute(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	high := DriftReading{DriftType: "data", Score: 0.5, Severity: severityHigh, Detected: true, At: at}
	calm := DriftReading{DriftType: "prediction", Severity: severityLow, At: at.Add(time.Hour)}
	f := func(name string, in Inputs, w Weights, score *float64, weights Weights, avail Available) {
		t.Helper()
		r := Compute(in, w)
		if (r.Score == nil) != (score == nil) || score != nil && math.Abs(*r.Score-*score) > 0.005 {
			t.Errorf("%s: got score %v, want %v", name, deref(r.Score), deref(score))
		}
		if math.Abs(r.Weights.Fairness-weights.Fairness)+math.Abs(r.Weights.Drift-weights.Drift)+
			math.Abs(r.Weights.Explainability-weights.Explainability) > 1e-9 {
			t.Errorf("%s: got weights %+v, want %+v", name, r.Weights, weights)
		}
		if r.Available != avail {
			t.Errorf("%s: got inputs %+v, want %+v", name, r.Available, avail)
		}
	}
	f("no input", Inputs{}, DefaultWeights, nil, Weights{}, Available{})
	f("fairness alone", Inputs{FairnessScore: ptr(0.72), BiasAuditAt: &at}, DefaultWeights, ptr(72.0), Weights{Fairness: 1}, Available{Fairness: true})
	f("drift alone: the worst type", Inputs{Drift: []DriftReading{calm, high}}, DefaultWeights, ptr(30.0), Weights{Drift: 1}, Available{Drift: true})
	f("fairness and drift", Inputs{FairnessScore: ptr(0.9), Drift: []DriftReading{high}}, DefaultWeights, ptr(60.0),
		Weights{Fairness: 0.5, Drift: 0.5}, Available{Fairness: true, Drift: true})
	f("all three", Inputs{FairnessScore: ptr(0.9), Drift: []DriftReading{calm}, ExplainedRatio: ptr(0.5)}, DefaultWeights,
		ptr(0.4*90+0.4*100+0.2*50), DefaultWeights, Available{Fairness: true, Drift: true, Explainability: true})
	f("unnormalized weights", Inputs{FairnessScore: ptr(0.9), Drift: []DriftReading{high}}, Weights{Fairness: 1, Drift: 3}, ptr((90+3*30)/4.0),
		Weights{Fairness: 0.25, Drift: 0.75}, Available{Fairness: true, Drift: true})
	f("only input weighs 0", Inputs{FairnessScore: ptr(0.9)}, Weights{Drift: 1}, nil, Weights{}, Available{Fairness: true})

	r := Compute(Inputs{FairnessScore: ptr(0.9), BiasAuditAt: &at, Drift: []DriftReading{high, calm}}, DefaultWeights)
	if *r.LastBiasAuditAt != at || *r.LastDriftReportAt != calm.At || *r.Components.Drift != 30 || *r.Components.Fairness != 90 ||
		r.Components.Explainability != nil || r.ExplainedRatio != nil {
		t.Errorf("got %+v, want the audit's and the newest report's times, drift 30, fairness 90, no explainability", r)
	}
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

func TestTrend(t *testing.T) {
	snap := func(scores ...any) []Snapshot {
		var out []Snapshot
		for _, s := range scores {
			var sn Snapshot
			if v, ok := s.(float64); ok {
				sn.Score = ptr(v)
			}
			out = append(out, sn)
		}
		return out
	}
	for _, tc := range []struct {
		name   string
		points []Snapshot
		want   any
	}{
		{"none", nil, nil},
		{"one", snap(50.0), nil},
		{"one scored among unscored", snap(nil, 50.0, nil), nil},
		{"up by 2", snap(50.0, 40.0, 52.0), TrendImproving},
		{"down by 2", snap(50.0, 60.0, 48.0), TrendDeclining},
		{"within 2", snap(50.0, 10.0, 51.9), TrendStable},
		{"unscored ends left out", snap(nil, 80.0, 30.0, nil), TrendDeclining},
	} {
		got := Trend(tc.points)
		var g any
		if got != nil {
			g = *got
		}
		if g != tc.want {
			t.Errorf("%s: got %v, want %v", tc.name, g, tc.want)
		}
	}
}

func TestConfigRequest(t *testing.T) {
	f := func(name string, base Weights, r configRequest, want Weights, field string) {
		t.Helper()
		got, err := r.apply(base)
		var e *web.Error
		switch {
		case field == "" && err != nil:
			t.Errorf("%s: got error %v, want none", name, err)
		case field == "" && got != want:
			t.Errorf("%s: got %+v, want %+v", name, got, want)
		case field != "" && (!errors.As(err, &e) || e.Details[field] == nil):
			t.Errorf("%s: got error %v, want one naming %s", name, err, field)
		}
	}
	f("nothing sent", DefaultWeights, configRequest{}, DefaultWeights, "")
	f("one weight", DefaultWeights, configRequest{Drift: ptr(0.8)}, Weights{Fairness: 0.4, Drift: 0.8, Explainability: 0.2}, "")
	f("zeros beside a positive", DefaultWeights, configRequest{Fairness: ptr(0.0), Drift: ptr(0.0)}, Weights{Explainability: 0.2}, "")
	f("above 1", DefaultWeights, configRequest{Fairness: ptr(1.5)}, Weights{}, "fairness_weight")
	f("negative", DefaultWeights, configRequest{Explainability: ptr(-0.1)}, Weights{}, "explainability_weight")
	f("NaN", DefaultWeights, configRequest{Drift: ptr(math.NaN())}, Weights{}, "drift_weight")
	f("all zero", DefaultWeights, configRequest{Fairness: ptr(0.0), Drift: ptr(0.0), Explainability: ptr(0.0)}, Weights{}, "fairness_weight")
	f("the last positive zeroed", Weights{Explainability: 0.2}, configRequest{Explainability: ptr(0.0)}, Weights{}, "explainability_weight")
}
