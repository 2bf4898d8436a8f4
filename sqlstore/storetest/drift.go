package storetest

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/vigilhq/vigil/drift"
	"github.com/vigilhq/vigil/store"
)

var driftTests = []test{
	{"Drift/RoundTrip", testDriftRoundTrip},
	{"Drift/OtherOrg", testDriftOtherOrg},
	{"Drift/CreateTwice", testDriftCreateTwice},
	{"Drift/UpdateCreates", testDriftUpdateCreates},
	{"Drift/UpdateAborts", testDriftUpdateAborts},
	{"Drift/UpdateConcurrent", testDriftUpdateConcurrent},
	{"Drift/DeleteModel", testDriftDeleteModel},
}

// fullDrift returns a configuration of m with every part set.
func fullDrift(orgID, modelID string, created int) drift.Config {
	c := drift.Default(orgID, modelID)
	off := false
	c.Features = map[string]drift.FeatureConfig{
		"âge":     {Method: drift.PSI, Threshold: ptr(0.25), Type: drift.Numeric},
		"country": {Enabled: &off},
		"plan":    {Type: drift.Categorical, Method: drift.JS},
	}
	c.ConceptDrift = drift.ConceptDriftConfig{Enabled: true, Metric: "f1_score", Window: "30d", MinSamples: 500}
	c.Alerts = drift.AlertConfig{Enabled: true, MinSeverity: drift.Medium,
		Channels: []drift.Channel{{Type: "email", Target: "ops@example.com"}, {Type: "webhook", Target: "https://example.com/h"}}}
	c.Schedule = drift.ScheduleConfig{Enabled: true, Interval: "6h", Window: "7d",
		Reference: drift.Reference{Type: drift.ReferenceWindow, Start: ptr(at(-3600).Add(7 * time.Nanosecond)), End: ptr(at(-60))}}
	c.Thresholds = drift.Presets[2].Thresholds
	c.Thresholds.PSI = 0.125
	c.CreatedAt, c.UpdatedAt = ptr(at(created)), ptr(at(created+1).Add(999*time.Nanosecond))
	return c
}

// storedDrift is c as the store gives it back.
func storedDrift(c drift.Config) drift.Config {
	c.CreatedAt, c.UpdatedAt = storedPtr(c.CreatedAt), storedPtr(c.UpdatedAt)
	r := &c.Schedule.Reference
	r.Start, r.End = storedPtr(r.Start), storedPtr(r.End)
	return c
}

// checkDrift fails the test unless the stored configuration is want as stored.
func checkDrift(t *testing.T, s Store, what string, want drift.Config) {
	t.Helper()
	got, err := s.DriftConfig(ctx(t), want.OrgID, want.ModelID)
	must(t, err, what+": DriftConfig")
	equal(t, what, got, storedDrift(want))
	checkUTC(t, what, got.CreatedAt, got.UpdatedAt, got.Schedule.Reference.Start, got.Schedule.Reference.End)
}

func testDriftRoundTrip(t *testing.T, s Store) {
	a := newOrg(t, s)
	full, plain := newModel(a.ID, "full", "1", 1), newModel(a.ID, "plain", "1", 2)
	must(t, s.CreateModel(ctx(t), full), "CreateModel full")
	must(t, s.CreateModel(ctx(t), plain), "CreateModel plain")
	_, err := s.DriftConfig(ctx(t), a.ID, full.ID)
	wantErr(t, err, store.ErrNotFound, "DriftConfig before any is on file")

	fc := fullDrift(a.ID, full.ID, 10)
	must(t, s.CreateDriftConfig(ctx(t), fc), "CreateDriftConfig full")
	checkDrift(t, s, "full configuration", fc)
	pc := drift.Default(a.ID, plain.ID)
	pc.CreatedAt, pc.UpdatedAt = ptr(at(20)), ptr(at(20))
	must(t, s.CreateDriftConfig(ctx(t), pc), "CreateDriftConfig default")
	checkDrift(t, s, "default configuration", pc)
}

func testDriftOtherOrg(t *testing.T, s Store) {
	a, b := newOrg(t, s), newOrg(t, s)
	m := newModel(a.ID, "fraud", "1", 1)
	must(t, s.CreateModel(ctx(t), m), "CreateModel")
	c := fullDrift(a.ID, m.ID, 2)
	must(t, s.CreateDriftConfig(ctx(t), c), "CreateDriftConfig")

	_, err := s.DriftConfig(ctx(t), b.ID, m.ID)
	wantErr(t, err, store.ErrNotFound, "DriftConfig from another organization")
	wantErr(t, s.CreateDriftConfig(ctx(t), fullDrift(b.ID, m.ID, 3)), store.ErrNotFound, "CreateDriftConfig for another organization's model")
	wantErr(t, s.CreateDriftConfig(ctx(t), fullDrift(a.ID, newID(), 3)), store.ErrNotFound, "CreateDriftConfig for an unknown model")
	_, err = s.UpdateDriftConfig(ctx(t), drift.Default(b.ID, m.ID), func(cur *drift.Config) error {
		cur.Thresholds.PSI = 0.9
		return nil
	})
	wantErr(t, err, store.ErrNotFound, "UpdateDriftConfig of another organization's model")
	checkDrift(t, s, "configuration after the other organization's attempts", c)
}

func testDriftCreateTwice(t *testing.T, s Store) {
	a := newOrg(t, s)
	m := newModel(a.ID, "fraud", "1", 1)
	must(t, s.CreateModel(ctx(t), m), "CreateModel")
	first := fullDrift(a.ID, m.ID, 2)
	must(t, s.CreateDriftConfig(ctx(t), first), "CreateDriftConfig")
	second := drift.Default(a.ID, m.ID)
	second.CreatedAt, second.UpdatedAt = ptr(at(5)), ptr(at(5))
	wantErr(t, s.CreateDriftConfig(ctx(t), second), store.ErrConflict, "second CreateDriftConfig")
	checkDrift(t, s, "configuration after the refused second create", first)
}

func testDriftUpdateCreates(t *testing.T, s Store) {
	a := newOrg(t, s)
	m := newModel(a.ID, "fraud", "1", 1)
	must(t, s.CreateModel(ctx(t), m), "CreateModel")
	base := drift.Default(a.ID, m.ID)
	var seen []*time.Time
	got, err := s.UpdateDriftConfig(ctx(t), base, func(cur *drift.Config) error {
		seen = append(seen, cur.CreatedAt)
		cur.Thresholds = drift.Presets[0].Thresholds
		cur.CreatedAt, cur.UpdatedAt = ptr(at(2)), ptr(at(2))
		cur.ModelID, cur.OrgID = "ignored", "ignored"
		return nil
	})
	must(t, err, "first UpdateDriftConfig")
	want := drift.Default(a.ID, m.ID)
	want.Thresholds = drift.Presets[0].Thresholds
	want.CreatedAt, want.UpdatedAt = ptr(at(2)), ptr(at(2))
	equal(t, "first UpdateDriftConfig returns", got, storedDrift(want))
	checkDrift(t, s, "configuration after the first update", want)

	got, err = s.UpdateDriftConfig(ctx(t), base, func(cur *drift.Config) error {
		seen = append(seen, cur.CreatedAt)
		cur.Alerts.MinSeverity = drift.Low
		cur.UpdatedAt = ptr(at(3))
		return nil
	})
	must(t, err, "second UpdateDriftConfig")
	want.Alerts.MinSeverity, want.UpdatedAt = drift.Low, ptr(at(3))
	equal(t, "second UpdateDriftConfig returns", got, storedDrift(want))
	if len(seen) != 2 || seen[0] != nil || seen[1] == nil || !seen[1].Equal(stored(at(2))) {
		t.Errorf("change saw created_at %v, want nil (the base) then the stored %v", seen, at(2))
	}
}

func testDriftUpdateAborts(t *testing.T, s Store) {
	a := newOrg(t, s)
	m := newModel(a.ID, "fraud", "1", 1)
	must(t, s.CreateModel(ctx(t), m), "CreateModel")
	boom := errors.New("boom")
	_, err := s.UpdateDriftConfig(ctx(t), drift.Default(a.ID, m.ID), func(cur *drift.Config) error {
		cur.Thresholds.KS = 0.2
		return boom
	})
	wantErr(t, err, boom, "UpdateDriftConfig whose change fails, none on file")
	_, err = s.DriftConfig(ctx(t), a.ID, m.ID)
	wantErr(t, err, store.ErrNotFound, "DriftConfig after the aborted first update")

	c := fullDrift(a.ID, m.ID, 2)
	must(t, s.CreateDriftConfig(ctx(t), c), "CreateDriftConfig")
	_, err = s.UpdateDriftConfig(ctx(t), drift.Default(a.ID, m.ID), func(cur *drift.Config) error {
		cur.Thresholds.KS = 0.2
		return boom
	})
	wantErr(t, err, boom, "UpdateDriftConfig whose change fails")
	checkDrift(t, s, "configuration after the aborted update", c)
}

func testDriftUpdateConcurrent(t *testing.T, s Store) {
	a := newOrg(t, s)
	m := newModel(a.ID, "busy", "1", 1)
	must(t, s.CreateModel(ctx(t), m), "CreateModel")
	must(t, s.CreateDriftConfig(ctx(t), fullDrift(a.ID, m.ID, 2)), "CreateDriftConfig")
	const n = 10
	errs := parallel(n, func(i int) error {
		_, err := s.UpdateDriftConfig(ctx(t), drift.Default(a.ID, m.ID), func(cur *drift.Config) error {
			cur.ConceptDrift.MinSamples++
			cur.Features[fmt.Sprintf("f%d", i)] = drift.FeatureConfig{Method: drift.KS}
			// Widen the window between the read and the write.
			time.Sleep(2 * time.Millisecond)
			return nil
		})
		return err
	})
	for i, err := range errs {
		must(t, err, fmt.Sprintf("concurrent UpdateDriftConfig %d", i))
	}
	got, err := s.DriftConfig(ctx(t), a.ID, m.ID)
	must(t, err, "DriftConfig")
	if got.ConceptDrift.MinSamples != 500+n || len(got.Features) != 3+n {
		t.Errorf("after %d concurrent updates: got min_samples %d and %d features, want %d and %d",
			n, got.ConceptDrift.MinSamples, len(got.Features), 500+n, 3+n)
	}
}

func testDriftDeleteModel(t *testing.T, s Store) {
	a := newOrg(t, s)
	m, keep := newModel(a.ID, "fraud", "1", 1), newModel(a.ID, "keep", "1", 2)
	must(t, s.CreateModel(ctx(t), m), "CreateModel")
	must(t, s.CreateModel(ctx(t), keep), "CreateModel keep")
	must(t, s.CreateDriftConfig(ctx(t), fullDrift(a.ID, m.ID, 3)), "CreateDriftConfig")
	kc := fullDrift(a.ID, keep.ID, 3)
	must(t, s.CreateDriftConfig(ctx(t), kc), "CreateDriftConfig keep")

	must(t, s.DeleteModel(ctx(t), a.ID, m.ID), "DeleteModel")
	_, err := s.DriftConfig(ctx(t), a.ID, m.ID)
	wantErr(t, err, store.ErrNotFound, "DriftConfig after DeleteModel")
	checkDrift(t, s, "the other model's configuration", kc)
	if db := sqlDB(s); db != nil {
		var n int
		must(t, db.QueryRowContext(ctx(t), `SELECT COUNT(*) FROM drift_configs`).Scan(&n), "count drift_configs")
		if n != 1 {
			t.Errorf("drift_configs rows after DeleteModel: got %d, want 1 (keep's)", n)
		}
	}
	// A model created again under the same id starts without a configuration.
	again := newModel(a.ID, "fraud", "1", 4)
	again.ID = m.ID
	must(t, s.CreateModel(ctx(t), again), "CreateModel again")
	_, err = s.DriftConfig(ctx(t), a.ID, m.ID)
	wantErr(t, err, store.ErrNotFound, "DriftConfig of the model created again")
}
