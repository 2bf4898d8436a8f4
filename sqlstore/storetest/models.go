package storetest

import (
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vigilhq/vigil/registry"
	"github.com/vigilhq/vigil/store"
)

var modelTests = []test{
	{"Models/RoundTrip", testModelRoundTrip},
	{"Models/Duplicate", testModelDuplicate},
	{"Models/CreateConcurrent", testModelCreateConcurrent},
	{"Models/Filters", testModelFilters},
	{"Models/SearchExactNonASCII", testModelSearchExactNonASCII},
	{"Models/SearchCaseNonASCII", testModelSearchCaseNonASCII},
	{"Models/Versions", testModelVersions},
	{"Models/Update", testModelUpdate},
	{"Models/UpdateReturnsStored", testModelUpdateReturnsStored},
	{"Models/UpdateAborts", testModelUpdateAborts},
	{"Models/UpdateOtherOrg", testModelUpdateOtherOrg},
	{"Models/UpdateConcurrent", testModelUpdateConcurrent},
	{"Models/Delete", testModelDelete},
}

// newModel returns a model with nil maps, lists and nullable times.
func newModel(orgID, name, version string, created int) registry.Model {
	return registry.Model{ID: newID(), OrgID: orgID, Name: name, Version: version, Description: "the " + name + " model",
		ModelType: "classification", Framework: "sklearn", Status: registry.StatusActive, OwnerID: "owner-1",
		CreatedAt: at(created), UpdatedAt: at(created)}
}

// fullModel returns a model with every field set.
func fullModel(orgID, name, version string, created int) registry.Model {
	m := newModel(orgID, name, version, created)
	m.Description = "Détecte la fraude — 检测"
	m.ModelType, m.Framework, m.Status = "regression", "pytorch", registry.StatusArchived
	m.StatusBeforeArchive, m.OwnerID, m.TargetVariable = registry.StatusDeprecated, "owner-42", "is_fraud"
	m.Metadata = map[string]any{
		"team": "risk", "layers": float64(12), "ratio": 0.125, "enabled": true, "none": nil,
		"nested": map[string]any{"list": []any{"a", float64(1), false, nil, map[string]any{}}, "empty": []any{}},
	}
	m.BaselineMetrics = map[string]float64{"accuracy": 0.93, "f1": 0.8751, "loss": -1.5e-7, "zero": 0}
	m.MonitoringConfig = map[string]any{"drift": map[string]any{"threshold": 0.2, "window": "1h"}, "alerts": []any{"email"}}
	m.MonitoringEnabled = true
	m.Features = []string{"amount", "country", "merchant"}
	m.FairnessAttributes = []string{"age", "gender"}
	m.ProtectedGroups = map[string]any{"gender": []any{"f", "x"}, "age": map[string]any{"min": float64(65)}}
	m.Tags = []string{"prod", "eu", "tier-1"}
	m.PredictionCount = 1<<40 + 7
	m.LastPredictionAt = ptr(at(100).Add(999 * time.Nanosecond))
	m.ArchivedAt = ptr(at(200).Add(1 * time.Nanosecond))
	m.UpdatedAt = at(created + 1).Add(555 * time.Nanosecond)
	return m
}

func modelNames(ms []registry.Model) []string {
	out := []string{}
	for _, m := range ms {
		out = append(out, m.Name+"@"+m.Version)
	}
	return out
}

// checkModel fails the test unless the stored model is want as stored.
func checkModel(t *testing.T, s Store, what string, want registry.Model) {
	t.Helper()
	got, err := s.Model(ctx(t), want.OrgID, want.ID)
	must(t, err, what+": Model")
	equal(t, what, got, storedModel(want))
}

// checkTagged fails the test unless the models of orgID carrying every tag
// are want (name@version, newest first).
func checkTagged(t *testing.T, s Store, orgID string, tags []string, want ...string) {
	t.Helper()
	ms, err := s.Models(ctx(t), orgID, registry.Filter{Tags: tags, Limit: 100})
	must(t, err, fmt.Sprintf("Models(tags %v)", tags))
	if want == nil {
		want = []string{}
	}
	if got := modelNames(ms); !slices.Equal(got, want) {
		t.Errorf("Models(tags %v): got %v, want %v", tags, got, want)
	}
}

func testModelRoundTrip(t *testing.T, s Store) {
	a := newOrg(t, s)
	full := fullModel(a.ID, "full", "1.0.0", 1)
	zero := newModel(a.ID, "zero", "1", 2)
	empty := newModel(a.ID, "empty", "1", 3)
	empty.Metadata, empty.BaselineMetrics, empty.MonitoringConfig = map[string]any{}, map[string]float64{}, map[string]any{}
	empty.Features, empty.FairnessAttributes, empty.ProtectedGroups, empty.Tags = []string{}, []string{}, map[string]any{}, []string{}
	empty.Description, empty.Framework, empty.OwnerID = "", "", ""
	empty.UpdatedAt = time.Time{}.Add(time.Microsecond) // the earliest time after the zero time

	for _, m := range []registry.Model{full, zero, empty} {
		must(t, s.CreateModel(ctx(t), m), "CreateModel "+m.Name)
		checkModel(t, s, "Model "+m.Name, m)
		got, err := s.Model(ctx(t), a.ID, m.ID)
		must(t, err, "Model")
		checkUTC(t, "Model "+m.Name, &got.CreatedAt, &got.UpdatedAt, got.LastPredictionAt, got.ArchivedAt)
	}
	// The lists return the same models as Model.
	ms, err := s.Models(ctx(t), a.ID, registry.Filter{Limit: 10})
	must(t, err, "Models")
	equal(t, "Models", ms, []registry.Model{storedModel(empty), storedModel(zero), storedModel(full)})
	vs, err := s.ModelVersions(ctx(t), a.ID, "full")
	must(t, err, "ModelVersions")
	equal(t, "ModelVersions", vs, []registry.Model{storedModel(full)})
	checkTagged(t, s, a.ID, []string{"tier-1"}, "full@1.0.0")
}

func testModelDuplicate(t *testing.T, s Store) {
	a, b := newOrg(t, s), newOrg(t, s)
	m := newModel(a.ID, "fraud", "1", 1)
	m.Tags = []string{"prod"}
	must(t, s.CreateModel(ctx(t), m), "CreateModel")

	dup := newModel(a.ID, "fraud", "1", 2)
	dup.Tags = []string{"dup-only"}
	dup.Description = "the duplicate"
	wantErr(t, s.CreateModel(ctx(t), dup), store.ErrConflict, "CreateModel with a taken name and version")
	_, err := s.Model(ctx(t), a.ID, dup.ID)
	wantErr(t, err, store.ErrNotFound, "Model of the refused duplicate")
	checkTagged(t, s, a.ID, []string{"dup-only"})
	dupID := newModel(a.ID, "other", "1", 2)
	dupID.ID = m.ID
	wantErr(t, s.CreateModel(ctx(t), dupID), store.ErrConflict, "CreateModel with a taken id")
	checkModel(t, s, "model after the conflicts", m)

	inB := newModel(b.ID, "fraud", "1", 3)
	inB.Tags = []string{"prod"}
	must(t, s.CreateModel(ctx(t), inB), "CreateModel with the same name and version in another organization")
	v2 := newModel(a.ID, "fraud", "2", 4)
	must(t, s.CreateModel(ctx(t), v2), "CreateModel of another version")
	checkModel(t, s, "the other organization's model", inB)
	checkTagged(t, s, a.ID, []string{"prod"}, "fraud@1")
	checkTagged(t, s, b.ID, []string{"prod"}, "fraud@1")
}

func testModelCreateConcurrent(t *testing.T, s Store) {
	a := newOrg(t, s)
	const n = 8
	var ok atomic.Int32
	errs := parallel(n, func(i int) error {
		m := newModel(a.ID, "race", "1", i)
		m.Tags = []string{fmt.Sprintf("t%d", i)}
		err := s.CreateModel(ctx(t), m)
		if err == nil {
			ok.Add(1)
		}
		return err
	})
	for i, err := range errs {
		if err != nil && !errors.Is(err, store.ErrConflict) {
			t.Errorf("concurrent CreateModel %d: got error %v, want nil or %v", i, err, store.ErrConflict)
		}
	}
	if got := ok.Load(); got != 1 {
		t.Errorf("concurrent CreateModels of one name and version that succeeded: got %d, want 1", got)
	}
	vs, err := s.ModelVersions(ctx(t), a.ID, "race")
	must(t, err, "ModelVersions")
	if len(vs) != 1 {
		t.Fatalf("ModelVersions(race): got %d models, want 1", len(vs))
	}
	ms, err := s.Models(ctx(t), a.ID, registry.Filter{Tags: vs[0].Tags, Limit: 10})
	must(t, err, "Models")
	if len(ms) != 1 || ms[0].ID != vs[0].ID {
		t.Errorf("Models(tags %v): got %v, want the winner only", vs[0].Tags, modelNames(ms))
	}
	for i := range n {
		tag := fmt.Sprintf("t%d", i)
		if tag == vs[0].Tags[0] {
			continue
		}
		checkTagged(t, s, a.ID, []string{tag})
	}
}

// testModelFilters: Models filters an organization's models by status,
// type, owner, every tag given and a search of name and description
// (its characters taken literally), newest first, a page at a time.
func testModelFilters(t *testing.T, s Store) {
	orgID := filteredModels(t, s)
	f := modelsFound(t, s, orgID)
	all := []string{"path@1", "ratex50@1", "rate_50@1", "churn@1", "fraud-detector@2", "fraud-detector@1"}
	f(registry.Filter{}, all...)
	f(registry.Filter{Status: registry.StatusActive}, "ratex50@1", "churn@1", "fraud-detector@1")
	f(registry.Filter{Status: registry.StatusArchived}, "path@1")
	f(registry.Filter{ModelType: "llm"}, "ratex50@1", "rate_50@1")
	f(registry.Filter{ModelType: "unknown"})
	f(registry.Filter{OwnerID: "o2"}, "rate_50@1", "fraud-detector@2")
	f(registry.Filter{Tags: []string{"prod"}}, "ratex50@1", "fraud-detector@2", "fraud-detector@1")
	f(registry.Filter{Tags: []string{"prod", "eu"}}, "ratex50@1", "fraud-detector@1")
	f(registry.Filter{Tags: []string{"eu", "prod"}}, "ratex50@1", "fraud-detector@1")
	f(registry.Filter{Tags: []string{"beta", "eu", "prod"}}, "ratex50@1")
	f(registry.Filter{Tags: []string{"prod", "prod"}}, "ratex50@1", "fraud-detector@2", "fraud-detector@1")
	f(registry.Filter{Tags: []string{"nope"}})
	f(registry.Filter{Tags: []string{"prod", "nope"}})
	f(registry.Filter{Search: "fraud"}, "fraud-detector@2", "fraud-detector@1")
	f(registry.Filter{Search: "FRAUD-DeTeCtOr"}, "fraud-detector@2", "fraud-detector@1")
	f(registry.Filter{Search: "card fraud"}, "fraud-detector@1")
	f(registry.Filter{Search: "churn"}, "churn@1")
	f(registry.Filter{Search: "model"}, "path@1", "rate_50@1")
	f(registry.Filter{Search: "50%"}, "churn@1")
	f(registry.Filter{Search: "%"}, "churn@1")
	f(registry.Filter{Search: "_50"}, "rate_50@1")
	f(registry.Filter{Search: "_"}, "rate_50@1")
	f(registry.Filter{Search: `\`}, "path@1")
	f(registry.Filter{Search: `C:\models\`}, "path@1")
	f(registry.Filter{Search: `'; DROP TABLE models; --`})
	f(registry.Filter{Search: "absent"})
	f(registry.Filter{ModelType: "classification", Tags: []string{"eu"}}, "fraud-detector@1")
	f(registry.Filter{Status: registry.StatusActive, OwnerID: "o1", Tags: []string{"beta"}, Search: "50"}, "ratex50@1", "churn@1")
	f(registry.Filter{Limit: 2}, all[:2]...)
	f(registry.Filter{Offset: 2, Limit: 2}, all[2:4]...)
	f(registry.Filter{Offset: 5, Limit: 2}, all[5])
	f(registry.Filter{Offset: 6, Limit: 2})
	f(registry.Filter{Offset: 100, Limit: 2})
	f(registry.Filter{Tags: []string{"prod"}, Offset: 1, Limit: 1}, "fraud-detector@2")
	f(registry.Filter{Search: "fraud", Offset: 1, Limit: 5}, "fraud-detector@1")

	ms, err := s.Models(ctx(t), newID(), registry.Filter{Limit: 10})
	must(t, err, "Models of an unknown organization")
	if len(ms) != 0 {
		t.Errorf("Models of an unknown organization: got %v, want none", modelNames(ms))
	}
}

// filteredModels creates six models of varied status, type, owner, tags
// and description in an organization of their own, out of order, and one
// in another organization; it returns the first organization's id.
func filteredModels(t *testing.T, s Store) string {
	t.Helper()
	a, b := newOrg(t, s), newOrg(t, s)
	mk := func(name, version, modelType, status, owner, description string, created int, tags ...string) {
		t.Helper()
		m := newModel(a.ID, name, version, created)
		m.ModelType, m.Status, m.OwnerID, m.Description, m.Tags = modelType, status, owner, description, tags
		must(t, s.CreateModel(ctx(t), m), "CreateModel "+name)
	}
	// Created out of order: lists are newest first.
	mk("churn", "1", "regression", registry.StatusActive, "o1", "Predicts 50% of CHURN", 3, "eu", "beta")
	mk("fraud-detector", "1", "classification", registry.StatusActive, "o1", "Detects card FRAUD", 1, "prod", "eu")
	mk("fraud-detector", "2", "classification", registry.StatusInactive, "o2", "second version", 2, "prod", "prod")
	mk("rate_50", "1", "llm", registry.StatusDeprecated, "o2", "Rate model", 4)
	mk("ratex50", "1", "llm", registry.StatusActive, "o1", "approx 50 percent", 5, "prod", "eu", "beta")
	mk("path", "1", "clustering", registry.StatusArchived, "o3", `stored in C:\models\x`, 6, "beta")
	other := newModel(b.ID, "fraud-detector", "1", 7)
	other.Tags = []string{"prod", "eu"}
	must(t, s.CreateModel(ctx(t), other), "CreateModel in another organization")
	return a.ID
}

// modelsFound returns f(filter, want...) that checks the organization's
// Models under filter (100 a page unless it says) are exactly want,
// name@version, in order, and all its own.
func modelsFound(t *testing.T, s Store, orgID string) func(filter registry.Filter, want ...string) {
	return func(filter registry.Filter, want ...string) {
		t.Helper()
		if filter.Limit == 0 {
			filter.Limit = 100
		}
		ms, err := s.Models(ctx(t), orgID, filter)
		must(t, err, fmt.Sprintf("Models(%+v)", filter))
		if want == nil {
			want = []string{}
		}
		if got := modelNames(ms); !slices.Equal(got, want) {
			t.Errorf("Models(%+v): got %v, want %v", filter, got, want)
		}
		for _, m := range ms {
			if m.OrgID != orgID {
				t.Errorf("Models(%+v): got %s of organization %s, want %s", filter, m.Name, m.OrgID, orgID)
			}
		}
	}
}

// nonASCIIModels creates models whose names and descriptions have letters
// beyond ASCII, and returns f(search, want...) that checks Models finds
// exactly want.
func nonASCIIModels(t *testing.T, s Store) func(search string, want ...string) {
	a := newOrg(t, s)
	for i, m := range []struct{ name, description string }{
		{"Überwachung", "Betrugserkennung"},
		{"fraud", "Détecte la FRAUDE à la carte"},
		{"Σύστημα", "ΑΝΆΛΥΣΗ"},
		{"plain", "ascii only"},
	} {
		mm := newModel(a.ID, m.name, "1", i)
		mm.Description = m.description
		must(t, s.CreateModel(ctx(t), mm), "CreateModel "+m.name)
	}
	return func(search string, want ...string) {
		t.Helper()
		ms, err := s.Models(ctx(t), a.ID, registry.Filter{Search: search, Limit: 10})
		must(t, err, "Models(search "+search+")")
		if want == nil {
			want = []string{}
		}
		if got := modelNames(ms); !slices.Equal(got, want) {
			t.Errorf("Models(search %q): got %v, want %v", search, got, want)
		}
	}
}

// testModelSearchExactNonASCII: a model is found by its own name, or a
// part of it, spelled exactly, whatever letters it has.
func testModelSearchExactNonASCII(t *testing.T, s Store) {
	f := nonASCIIModels(t, s)
	f("Überwachung", "Überwachung@1")
	f("Über", "Überwachung@1")
	f("wachung", "Überwachung@1")
	f("Σύστημα", "Σύστημα@1")
	f("ΑΝΆΛΥΣΗ", "Σύστημα@1")
	f("Détecte", "fraud@1")
	f("à la", "fraud@1")
}

// testModelSearchCaseNonASCII: Search is case-insensitive beyond ASCII too
// (registry.Filter: "matches name or description, case-insensitively").
func testModelSearchCaseNonASCII(t *testing.T, s Store) {
	f := nonASCIIModels(t, s)
	f("überwachung", "Überwachung@1")
	f("ÜBERWACHUNG", "Überwachung@1")
	f("σύστημα", "Σύστημα@1")
	f("ανάλυση", "Σύστημα@1")
	f("DÉTECTE", "fraud@1")
	f("À LA", "fraud@1")
}

func testModelVersions(t *testing.T, s Store) {
	a, b := newOrg(t, s), newOrg(t, s)
	for i, v := range []string{"2", "1", "3", "10"} {
		must(t, s.CreateModel(ctx(t), newModel(a.ID, "fraud", v, []int{2, 1, 3, 4}[i])), "CreateModel fraud@"+v)
	}
	must(t, s.CreateModel(ctx(t), newModel(a.ID, "fraud-2", "1", 9)), "CreateModel fraud-2")
	must(t, s.CreateModel(ctx(t), newModel(a.ID, "Fraud", "1", 9)), "CreateModel Fraud")
	must(t, s.CreateModel(ctx(t), newModel(b.ID, "fraud", "1", 9)), "CreateModel in another organization")
	must(t, s.CreateModel(ctx(t), newModel(b.ID, "fraud", "99", 10)), "CreateModel in another organization")

	f := func(orgID, name string, want ...string) {
		t.Helper()
		vs, err := s.ModelVersions(ctx(t), orgID, name)
		must(t, err, "ModelVersions "+name)
		if want == nil {
			want = []string{}
		}
		if got := modelNames(vs); !slices.Equal(got, want) {
			t.Errorf("ModelVersions(%s): got %v, want %v", name, got, want)
		}
		for _, m := range vs {
			if m.OrgID != orgID {
				t.Errorf("ModelVersions(%s): got a version of organization %s, want %s", name, m.OrgID, orgID)
			}
		}
	}
	f(a.ID, "fraud", "fraud@10", "fraud@3", "fraud@2", "fraud@1")
	f(b.ID, "fraud", "fraud@99", "fraud@1")
	f(a.ID, "Fraud", "Fraud@1")
	f(a.ID, "fraud%")
	f(a.ID, "unknown")
	f(newID(), "fraud")
}

func testModelUpdate(t *testing.T, s Store) {
	a := newOrg(t, s)
	m := newModel(a.ID, "fraud", "1", 1)
	m.Tags = []string{"old", "kept"}
	must(t, s.CreateModel(ctx(t), m), "CreateModel")
	other := newModel(a.ID, "other", "1", 2)
	other.Tags = []string{"old"}
	must(t, s.CreateModel(ctx(t), other), "CreateModel other")

	// The change sets times as the store keeps them (UTC, microseconds):
	// testModelUpdateReturnsStored covers the others.
	want := storedModel(fullModel(a.ID, "fraud-renamed", "1.1", 1))
	want.ID, want.CreatedAt = m.ID, stored(m.CreatedAt)
	want.Tags = []string{"kept", "new", "new"}
	calls := 0
	got, err := s.UpdateModel(ctx(t), a.ID, m.ID, func(cur *registry.Model) error {
		calls++
		equal(t, "the model change gets", *cur, storedModel(m))
		*cur = want
		return nil
	})
	must(t, err, "UpdateModel")
	if calls != 1 {
		t.Errorf("calls of the change: got %d, want 1", calls)
	}
	equal(t, "UpdateModel result", got, storedModel(want))
	checkModel(t, s, "model after UpdateModel", want)
	checkTagged(t, s, a.ID, []string{"old"}, "other@1")
	checkTagged(t, s, a.ID, []string{"new"}, "fraud-renamed@1.1")
	checkTagged(t, s, a.ID, []string{"kept", "new"}, "fraud-renamed@1.1")
	vs, err := s.ModelVersions(ctx(t), a.ID, "fraud")
	must(t, err, "ModelVersions")
	if len(vs) != 0 {
		t.Errorf("ModelVersions(fraud) after the rename: got %v, want none", modelNames(vs))
	}

	// Back to nothing: nil maps, lists and times are stored as nil.
	cleared := storedModel(newModel(a.ID, "fraud", "1", 1))
	cleared.ID = m.ID
	got, err = s.UpdateModel(ctx(t), a.ID, m.ID, func(cur *registry.Model) error {
		*cur = cleared
		return nil
	})
	must(t, err, "UpdateModel clearing")
	equal(t, "UpdateModel clearing result", got, storedModel(cleared))
	checkModel(t, s, "model after clearing", cleared)
	checkTagged(t, s, a.ID, []string{"kept"})

	// The change cannot move the model to another organization or id.
	b := newOrg(t, s)
	got, err = s.UpdateModel(ctx(t), a.ID, m.ID, func(cur *registry.Model) error {
		cur.OrgID, cur.ID = b.ID, newID()
		cur.Description = "moved?"
		return nil
	})
	must(t, err, "UpdateModel changing OrgID and ID")
	if got.OrgID != a.ID || got.ID != m.ID {
		t.Errorf("UpdateModel changing OrgID and ID: got org %s id %s, want org %s id %s", got.OrgID, got.ID, a.ID, m.ID)
	}
	cleared.Description = "moved?"
	checkModel(t, s, "model after UpdateModel changing OrgID and ID", cleared)
	_, err = s.Model(ctx(t), b.ID, m.ID)
	wantErr(t, err, store.ErrNotFound, "Model in the other organization")

	_, err = s.UpdateModel(ctx(t), a.ID, newID(), func(*registry.Model) error {
		t.Error("change called for an unknown model")
		return nil
	})
	wantErr(t, err, store.ErrNotFound, "UpdateModel of an unknown model")
}

// testModelUpdateReturnsStored: UpdateModel returns the stored result, the
// same as Model reads afterwards, also when the change sets times that the
// store keeps at microsecond precision in UTC.
func testModelUpdateReturnsStored(t *testing.T, s Store) {
	a := newOrg(t, s)
	m := newModel(a.ID, "fraud", "1", 1)
	must(t, s.CreateModel(ctx(t), m), "CreateModel")
	got, err := s.UpdateModel(ctx(t), a.ID, m.ID, func(cur *registry.Model) error {
		cur.PredictionCount++
		cur.LastPredictionAt = ptr(at(40).Add(1))
		cur.UpdatedAt = at(50).Add(789 * time.Nanosecond)
		return nil
	})
	must(t, err, "UpdateModel")
	read, err := s.Model(ctx(t), a.ID, m.ID)
	must(t, err, "Model")
	equal(t, "UpdateModel result against Model", got, read)
	checkUTC(t, "UpdateModel result", &got.CreatedAt, &got.UpdatedAt, got.LastPredictionAt)
}

func testModelUpdateAborts(t *testing.T, s Store) {
	a := newOrg(t, s)
	m := fullModel(a.ID, "fraud", "1", 1)
	must(t, s.CreateModel(ctx(t), m), "CreateModel")
	taken := newModel(a.ID, "fraud", "2", 2)
	must(t, s.CreateModel(ctx(t), taken), "CreateModel fraud@2")

	errRefused := errors.New("refused by the change")
	_, err := s.UpdateModel(ctx(t), a.ID, m.ID, func(cur *registry.Model) error {
		cur.Description, cur.Status, cur.PredictionCount = "changed", registry.StatusInactive, 1
		cur.Tags = []string{"changed"}
		cur.Metadata["changed"] = true
		return fmt.Errorf("wrapped: %w", errRefused)
	})
	wantErr(t, err, errRefused, "UpdateModel whose change fails")
	checkModel(t, s, "model after a failed change", m)
	checkTagged(t, s, a.ID, []string{"changed"})
	checkTagged(t, s, a.ID, []string{"prod"}, "fraud@1")

	_, err = s.UpdateModel(ctx(t), a.ID, m.ID, func(cur *registry.Model) error {
		cur.Version = "2"
		cur.Tags = []string{"changed"}
		return nil
	})
	wantErr(t, err, store.ErrConflict, "UpdateModel to a taken name and version")
	checkModel(t, s, "model after a conflicting change", m)
	checkModel(t, s, "the other version after a conflicting change", taken)
	checkTagged(t, s, a.ID, []string{"changed"})
	checkTagged(t, s, a.ID, []string{"prod"}, "fraud@1")
}

func testModelUpdateOtherOrg(t *testing.T, s Store) {
	a, b := newOrg(t, s), newOrg(t, s)
	m := newModel(a.ID, "fraud", "1", 1)
	m.Tags = []string{"prod"}
	must(t, s.CreateModel(ctx(t), m), "CreateModel")
	_, err := s.UpdateModel(ctx(t), b.ID, m.ID, func(cur *registry.Model) error {
		t.Errorf("change called from another organization with %+v", *cur)
		cur.Description, cur.Tags = "hijacked", []string{"hijacked"}
		return nil
	})
	wantErr(t, err, store.ErrNotFound, "UpdateModel from another organization")
	checkModel(t, s, "model after UpdateModel from another organization", m)
	checkTagged(t, s, a.ID, []string{"prod"}, "fraud@1")
	checkTagged(t, s, b.ID, []string{"hijacked"})
	checkTagged(t, s, a.ID, []string{"hijacked"})
}

// testModelUpdateConcurrent proves UpdateModel's read-modify-write is
// serialised: no increment is lost.
func testModelUpdateConcurrent(t *testing.T, s Store) {
	a := newOrg(t, s)
	m := newModel(a.ID, "busy", "1", 1)
	must(t, s.CreateModel(ctx(t), m), "CreateModel")
	const n = 10
	errs := parallel(n, func(i int) error {
		_, err := s.UpdateModel(ctx(t), a.ID, m.ID, func(cur *registry.Model) error {
			cur.PredictionCount++
			cur.LastPredictionAt = ptr(at(10 + i))
			// Widen the window between the read and the write.
			time.Sleep(2 * time.Millisecond)
			return nil
		})
		return err
	})
	for i, err := range errs {
		must(t, err, fmt.Sprintf("concurrent UpdateModel %d", i))
	}
	got, err := s.Model(ctx(t), a.ID, m.ID)
	must(t, err, "Model")
	if got.PredictionCount != n {
		t.Errorf("PredictionCount after %d concurrent increments: got %d, want %d", n, got.PredictionCount, n)
	}
}

func testModelDelete(t *testing.T, s Store) {
	a, b := newOrg(t, s), newOrg(t, s)
	m := fullModel(a.ID, "fraud", "1", 1)
	m.Tags = []string{"x", "y"}
	keep := newModel(a.ID, "keep", "1", 2)
	keep.Tags = []string{"x"}
	for _, mm := range []registry.Model{m, keep} {
		must(t, s.CreateModel(ctx(t), mm), "CreateModel "+mm.Name)
	}

	wantErr(t, s.DeleteModel(ctx(t), b.ID, m.ID), store.ErrNotFound, "DeleteModel from another organization")
	checkModel(t, s, "model after DeleteModel from another organization", m)
	checkTagged(t, s, a.ID, []string{"x", "y"}, "fraud@1")

	must(t, s.DeleteModel(ctx(t), a.ID, m.ID), "DeleteModel")
	_, err := s.Model(ctx(t), a.ID, m.ID)
	wantErr(t, err, store.ErrNotFound, "Model after DeleteModel")
	checkTagged(t, s, a.ID, []string{"x"}, "keep@1")
	checkTagged(t, s, a.ID, []string{"y"})
	vs, err := s.ModelVersions(ctx(t), a.ID, "fraud")
	must(t, err, "ModelVersions")
	if len(vs) != 0 {
		t.Errorf("ModelVersions after DeleteModel: got %v, want none", modelNames(vs))
	}
	wantErr(t, s.DeleteModel(ctx(t), a.ID, m.ID), store.ErrNotFound, "second DeleteModel")
	wantErr(t, s.DeleteModel(ctx(t), a.ID, newID()), store.ErrNotFound, "DeleteModel of an unknown model")
	_, err = s.UpdateModel(ctx(t), a.ID, m.ID, func(*registry.Model) error { return nil })
	wantErr(t, err, store.ErrNotFound, "UpdateModel after DeleteModel")

	// No tag rows are left behind.
	if db := sqlDB(s); db != nil {
		var n int
		must(t, db.QueryRowContext(ctx(t), `SELECT COUNT(*) FROM model_tags`).Scan(&n), "count model_tags")
		if n != 1 {
			t.Errorf("model_tags rows after DeleteModel: got %d, want 1 (keep's x)", n)
		}
	}

	// The name and version are free again.
	again := newModel(a.ID, "fraud", "1", 3)
	must(t, s.CreateModel(ctx(t), again), "CreateModel after DeleteModel")
	checkModel(t, s, "the new model", again)
	checkTagged(t, s, a.ID, []string{"y"})
}
