package schedule

import (
	"strings"
	"testing"
	"time"

	"github.com/vigilhq/vigil/analytics"
	"github.com/vigilhq/vigil/drift"
	"github.com/vigilhq/vigil/platform/clock"
)

var t0 = time.Date(2026, 3, 1, 12, 30, 0, 0, time.UTC)

func TestDue(t *testing.T) {
	on := drift.ScheduleConfig{Enabled: true, Interval: "1h"}
	ago := func(d time.Duration) *time.Time { v := t0.Add(-d); return &v }
	for _, c := range []struct {
		name string
		s    drift.ScheduleConfig
		last *time.Time
		want bool
	}{
		{"never run", on, nil, true},
		{"interval passed", on, ago(time.Hour), true},
		{"interval not passed", on, ago(59 * time.Minute), false},
		{"off", drift.ScheduleConfig{Interval: "1h"}, nil, false},
		{"unknown interval", drift.ScheduleConfig{Enabled: true, Interval: "2h"}, nil, false},
	} {
		if got := Due(c.s, c.last, t0); got != c.want {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
}

func TestConceptWindow(t *testing.T) {
	h := func(n int) time.Time { return t0.Truncate(time.Hour).Add(time.Duration(n) * time.Hour) }
	p := Plan{Window: rng(h(24), h(48)), Reference: rng(h(0), h(24))}
	f := func(window string, want analytics.Range, wantErr bool) {
		t.Helper()
		got, err := p.ConceptWindow(drift.ConceptDriftConfig{Window: window})
		if (err != nil) != wantErr || !wantErr && got != want {
			t.Errorf("window %s: got %+v (%v), want %+v", window, got, err, want)
		}
	}
	f("1h", rng(h(47), h(48)), false)
	f("7d", rng(h(24), h(48)), false) // starts where the reference ends
	f("2d", analytics.Range{}, true)
}

func TestNewPlan(t *testing.T) {
	def := drift.Default("o", "m").Schedule
	h := func(n int) time.Time { return t0.Truncate(time.Hour).Add(time.Duration(n) * time.Hour) }
	var fake clock.Clock = func() time.Time { return t0.Add(25 * time.Hour) }
	explicit := def
	explicit.Reference = drift.Reference{Type: drift.ReferenceWindow, Start: ptr(h(-48)), End: ptr(h(-40))}
	uploaded := def
	uploaded.Reference = drift.Reference{Type: drift.ReferenceUploaded}
	for _, c := range []struct {
		name       string
		s          drift.ScheduleConfig
		ok         bool
		now        time.Time
		want       Plan
		wantReason string
	}{
		{"first window, 25h later", def, true, fake.Now(), Plan{Window: rng(h(24), h(26)), Reference: rng(h(0), h(24))}, ""},
		{"first window, 3 days later", def, true, t0.Add(72 * time.Hour), Plan{Window: rng(h(49), h(73)), Reference: rng(h(0), h(24))}, ""},
		{"inside the reference", def, true, t0.Add(20 * time.Hour), Plan{}, "still inside the reference"},
		{"nothing profiled", def, false, t0, Plan{}, "no predictions profiled"},
		{"explicit reference", explicit, false, t0, Plan{Window: rng(h(-23), h(1)), Reference: rng(h(-48), h(-40))}, ""},
		{"uploaded: the last window, nothing profiled", uploaded, false, t0, Plan{Window: rng(h(-23), h(1))}, ""},
	} {
		got, err := NewPlan(c.s, h(0), c.ok, c.now)
		switch {
		case c.wantReason != "" && (err == nil || !strings.Contains(err.Error(), c.wantReason)):
			t.Errorf("%s: got reason %v, want one saying %q", c.name, err, c.wantReason)
		case c.wantReason == "" && err != nil:
			t.Errorf("%s: got reason %v, want a plan", c.name, err)
		case c.wantReason == "" && got != c.want:
			t.Errorf("%s: got %+v, want %+v", c.name, got, c.want)
		}
	}
}
