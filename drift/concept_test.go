package drift

import (
	"math"
	"testing"
)

func TestJudgeConcept(t *testing.T) {
	f := func(name string, higher bool, cur, base float64, wantChange, wantDeg float64, wantDetected bool, wantSev Severity) {
		t.Helper()
		c, err := JudgeConcept("m", higher, Figure{Value: cur}, Figure{Value: base}, Presets[1].Thresholds)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if math.Abs(c.Change-wantChange) > 1e-12 || math.Abs(c.Degradation-wantDeg) > 1e-12 ||
			c.DriftDetected != wantDetected || c.Severity != wantSev || c.Threshold != 0.05 {
			t.Errorf("%s: got change %v, degradation %v, detected %v, severity %s, threshold %v; want %v, %v, %v, %s, 0.05",
				name, c.Change, c.Degradation, c.DriftDetected, c.Severity, c.Threshold, wantChange, wantDeg, wantDetected, wantSev)
		}
	}
	// The medium preset: drift from a 5% worsening, medium from 10%, high from 30%.
	f("held", true, 0.9, 0.9, 0, 0, false, Low)
	f("improved", true, 0.95, 0.9, 0.05/0.9, 0, false, Low)
	f("below the threshold", true, 0.86, 0.9, -0.04/0.9, 0.04/0.9, false, Low)
	f("at the threshold", true, 0.95, 1, -0.05, 0.05, true, Low)
	f("medium", true, 0.8, 0.9, -0.1/0.9, 0.1/0.9, true, Medium)
	f("high", true, 0.6, 0.9, -0.3/0.9, 0.3/0.9, true, High)
	f("lower is better, rose", false, 0.3, 0.2, 0.5, 0.5, true, High)
	f("lower is better, fell", false, 0.1, 0.2, -0.5, 0, false, Low)
	f("zero baseline: absolute change", false, 0.2, 0, 0.2, 0.2, true, Medium)
	f("negative baseline", true, -2, -1, -1, 1, true, High)

	for _, bad := range []float64{math.NaN(), math.Inf(1)} {
		if _, err := JudgeConcept("m", true, Figure{Value: bad}, Figure{Value: 1}, Thresholds{}); err == nil {
			t.Errorf("current %v: got nil error, want one", bad)
		}
	}
}

func TestHigherIsBetter(t *testing.T) {
	for name, want := range map[string]bool{"accuracy": true, "f1_score": true, "auc": true, "rmse": false, "error_rate": false, "log_loss": false} {
		if got := HigherIsBetter(name); got != want {
			t.Errorf("HigherIsBetter(%q): got %v, want %v", name, got, want)
		}
	}
}
