package drift

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/vigilhq/vigil/stats/profile"
)

// TestFromProfilesMatchesDetect profiles the same rows that a detect
// request carries as arrays: categorical features answer exactly as
// Detect does, numeric ks_test within the sketch's reported bound, and
// every method chosen and judged alike.
func TestFromProfilesMatchesDetect(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 1))
	f := func(n int, mu, shareB float64) (*profile.Profile, map[string]any) {
		var p profile.Profile
		xs, ys := make([]float64, n), make([]string, n)
		for i := range n {
			xs[i] = math.Round((mu+r.NormFloat64())*1e6) / 1e6
			ys[i] = "a"
			if r.Float64() < shareB {
				ys[i] = "b"
			}
			p.Add(json.RawMessage(fmt.Sprintf(`{"x":%v,"y":%q}`, xs[i], ys[i])))
		}
		return &p, map[string]any{"x": xs, "y": ys}
	}
	for _, c := range []struct {
		name      string
		mu, share float64
		cfg       Config
	}{
		{"no drift", 0, 0.3, Config{}},
		{"shifted", 0.3, 0.45, Config{}},
		{"psi and js by feature", 0.3, 0.45, Config{Settings: Settings{Features: map[string]FeatureConfig{
			"x": {Method: PSI}, "y": {Method: JS}}}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			refP, refA := f(20_000, 0, 0.3)
			curP, curA := f(5_000, c.mu, c.share)
			got, bounds, problems := Detector{}.FromProfiles("m1", refP, curP, c.cfg)
			if len(problems) != 0 {
				t.Fatalf("got problems %v, want none", problems)
			}
			want := mustRun(t, body(t, refA, curA, nil), c.cfg)
			if len(got.Features) != 2 {
				t.Fatalf("got %d features, want 2", len(got.Features))
			}
			gy, wy := got.Features["y"], want.Features["y"]
			if gy.DriftScore != wy.DriftScore || fmt.Sprint(deref(gy.PValue)) != fmt.Sprint(deref(wy.PValue)) || gy.Severity != wy.Severity ||
				gy.DriftDetected != wy.DriftDetected || gy.Method != wy.Method {
				t.Errorf("y: got %+v, want %+v", gy, wy)
			}
			gx, wx := got.Features["x"], want.Features["x"]
			if gx.Method != wx.Method || gx.Type != Numeric {
				t.Fatalf("x: got method %s type %s, want %s numeric", gx.Method, gx.Type, wx.Method)
			}
			if gx.Method == KS {
				if b := bounds["x"]; gx.Statistic > wx.Statistic+1e-12 || wx.Statistic > gx.Statistic+b+1e-12 {
					t.Errorf("x: got D̂ %v (bound %v), exact D %v: want D̂ ≤ D ≤ D̂+bound", gx.Statistic, b, wx.Statistic)
				}
			} else if math.Abs(gx.DriftScore-wx.DriftScore) > 0.02+0.1*wx.DriftScore {
				t.Errorf("x: got %s %v from sketch bins, want near %v from exact deciles", gx.Method, gx.DriftScore, wx.DriftScore)
			}
			if gx.DriftDetected != wx.DriftDetected || got.DriftDetected != want.DriftDetected {
				t.Errorf("got drift x %v overall %v, want %v %v", gx.DriftDetected, got.DriftDetected, wx.DriftDetected, want.DriftDetected)
			}
		})
	}
}

func TestFromProfilesProblems(t *testing.T) {
	var ref, cur profile.Profile
	for i := range 50 {
		ref.Add(json.RawMessage(fmt.Sprintf(`{"c":"v%d","n":%d,"off":1}`, i%3, i)))
		cur.Add(json.RawMessage(fmt.Sprintf(`{"c":"v%d","n":%d}`, i%4, i)))
	}
	cfg := Config{Settings: Settings{Features: map[string]FeatureConfig{"c": {Method: KS}, "off": {Enabled: new(false)}}}}
	got, _, problems := Detector{}.FromProfiles("m1", &ref, &cur, cfg)
	if problems["c"] == nil || problems["off"] != nil || len(got.Features) != 1 || len(got.Skipped) != 1 {
		t.Fatalf("got features %v, skipped %v, problems %v; want n tested, off skipped, c a problem (ks_test on categories)",
			got.Features, got.Skipped, problems)
	}
}

// deref is *p, or nil.
func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}
