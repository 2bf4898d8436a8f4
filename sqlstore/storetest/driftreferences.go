package storetest

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/vigilhq/vigil/drift"
	"github.com/vigilhq/vigil/stats/profile"
	"github.com/vigilhq/vigil/store"
)

var referenceTests = []test{
	{"DriftReferences/Update", testReferenceUpdate},
	{"DriftReferences/OtherOrg", testReferenceOtherOrg},
	{"DriftReferences/Sample", testReferenceSample},
}

// column profiles n values of feature name, from first on.
func column(name string, first, n int) *profile.Profile {
	p := &profile.Profile{}
	values := make([]json.RawMessage, n)
	for i := range values {
		values[i] = json.RawMessage(fmt.Sprint(first + i))
	}
	p.AddColumn(name, values)
	return p
}

// profileText is p's stored form, to compare profiles by.
func profileText(t *testing.T, p *profile.Profile) string {
	t.Helper()
	if p == nil {
		return "none"
	}
	b, err := json.Marshal(p)
	must(t, err, "encode profile")
	return string(b)
}

// testReferenceUpdate: a first change inserts, a later one sees what is
// stored (exists) and replaces it; a failed change stores nothing; delete
// removes it.
func testReferenceUpdate(t *testing.T, s Store) {
	a := newOrg(t, s)
	m := newModel(a.ID, "fraud", "1", 1)
	must(t, s.CreateModel(ctx(t), m), "CreateModel")
	_, err := s.DriftReference(ctx(t), a.ID, m.ID)
	wantErr(t, err, store.ErrNotFound, "DriftReference before any upload")
	first := at(10)
	got, err := s.UpdateDriftReference(ctx(t), a.ID, m.ID, func(u *drift.Uploaded, exists bool) error {
		equal(t, "exists on the first update", exists, false)
		u.Input, u.UploadedAt = *column("x", 0, 100), first
		return nil
	})
	must(t, err, "UpdateDriftReference (first)")
	read, err := s.DriftReference(ctx(t), a.ID, m.ID)
	must(t, err, "DriftReference")
	equal(t, "stored input", profileText(t, &read.Input), profileText(t, column("x", 0, 100)))
	equal(t, "stored output", profileText(t, read.Output), "none")
	equal(t, "uploaded_at", read.UploadedAt, stored(first))
	equal(t, "returned input", profileText(t, &got.Input), profileText(t, &read.Input))

	// Merged in a second update: as if uploaded together.
	_, err = s.UpdateDriftReference(ctx(t), a.ID, m.ID, func(u *drift.Uploaded, exists bool) error {
		equal(t, "exists on the second update", exists, true)
		u.Output = column("score", 0, 100)
		return u.Input.Merge(column("x", 100, 100))
	})
	must(t, err, "UpdateDriftReference (merge)")
	read, err = s.DriftReference(ctx(t), a.ID, m.ID)
	must(t, err, "DriftReference")
	equal(t, "merged input", profileText(t, &read.Input), profileText(t, column("x", 0, 200)))
	equal(t, "stored output", profileText(t, read.Output), profileText(t, column("score", 0, 100)))

	_, err = s.UpdateDriftReference(ctx(t), a.ID, m.ID, func(u *drift.Uploaded, _ bool) error {
		u.Input = profile.Profile{}
		return fmt.Errorf("refused")
	})
	if err == nil {
		t.Fatal("UpdateDriftReference with a failing change: got nil error")
	}
	read, err = s.DriftReference(ctx(t), a.ID, m.ID)
	must(t, err, "DriftReference")
	equal(t, "input after a failed change", profileText(t, &read.Input), profileText(t, column("x", 0, 200)))

	must(t, s.DeleteDriftReference(ctx(t), a.ID, m.ID), "DeleteDriftReference")
	wantErr(t, s.DeleteDriftReference(ctx(t), a.ID, m.ID), store.ErrNotFound, "DeleteDriftReference twice")
	_, err = s.DriftReference(ctx(t), a.ID, m.ID)
	wantErr(t, err, store.ErrNotFound, "DriftReference after delete")
}

// testReferenceOtherOrg: another organization's model reads, writes and
// deletes as a missing one.
func testReferenceOtherOrg(t *testing.T, s Store) {
	a, b := newOrg(t, s), newOrg(t, s)
	m := newModel(a.ID, "fraud", "1", 1)
	must(t, s.CreateModel(ctx(t), m), "CreateModel")
	set := func(u *drift.Uploaded, _ bool) error { u.Input = *column("x", 0, 10); return nil }
	_, err := s.UpdateDriftReference(ctx(t), b.ID, m.ID, set)
	wantErr(t, err, store.ErrNotFound, "UpdateDriftReference of another organization's model")
	_, err = s.UpdateDriftReference(ctx(t), a.ID, m.ID, set)
	must(t, err, "UpdateDriftReference")
	_, err = s.DriftReference(ctx(t), b.ID, m.ID)
	wantErr(t, err, store.ErrNotFound, "DriftReference of another organization's model")
	wantErr(t, s.DeleteDriftReference(ctx(t), b.ID, m.ID), store.ErrNotFound, "DeleteDriftReference of another organization's model")
	must(t, s.DeleteModel(ctx(t), a.ID, m.ID), "DeleteModel")
	_, err = s.DriftReference(ctx(t), a.ID, m.ID)
	wantErr(t, err, store.ErrNotFound, "DriftReference of a deleted model")
}

// testReferenceSample: the reference's row sample is stored with it and
// read back whole (numbers, strings, booleans, nulls), by itself through
// DriftReferenceSample; an update that leaves it alone keeps it; another
// organization, a deleted reference and a model without one read none.
func testReferenceSample(t *testing.T, s Store) {
	a, b := newOrg(t, s), newOrg(t, s)
	m := newModel(a.ID, "fraud", "1", 1)
	must(t, s.CreateModel(ctx(t), m), "CreateModel")
	_, err := s.DriftReferenceSample(ctx(t), a.ID, m.ID)
	wantErr(t, err, store.ErrNotFound, "DriftReferenceSample before any upload")
	rows := []map[string]any{{"age": 31.0, "city": "Oslo", "vip": true}, {"age": nil, "city": "Bergen", "vip": false}}
	_, err = s.UpdateDriftReference(ctx(t), a.ID, m.ID, func(u *drift.Uploaded, _ bool) error {
		u.Input, u.UploadedAt = *column("age", 0, 2), at(10)
		u.Sample = drift.Sample{Seen: 1234, Rows: rows}
		return nil
	})
	must(t, err, "UpdateDriftReference")
	read, err := s.DriftReference(ctx(t), a.ID, m.ID)
	must(t, err, "DriftReference")
	equal(t, "stored sample", read.Sample, drift.Sample{Seen: 1234, Rows: rows})
	got, err := s.DriftReferenceSample(ctx(t), a.ID, m.ID)
	must(t, err, "DriftReferenceSample")
	equal(t, "sample rows", got, rows)

	_, err = s.UpdateDriftReference(ctx(t), a.ID, m.ID, func(u *drift.Uploaded, _ bool) error {
		u.Sample.Seen++
		u.Sample.Rows = append(u.Sample.Rows, map[string]any{"age": 5.0})
		return nil
	})
	must(t, err, "UpdateDriftReference (append)")
	read, err = s.DriftReference(ctx(t), a.ID, m.ID)
	must(t, err, "DriftReference")
	equal(t, "appended sample", read.Sample, drift.Sample{Seen: 1235, Rows: append(rows, map[string]any{"age": 5.0})})

	_, err = s.DriftReferenceSample(ctx(t), b.ID, m.ID)
	wantErr(t, err, store.ErrNotFound, "DriftReferenceSample of another organization's model")
	must(t, s.DeleteDriftReference(ctx(t), a.ID, m.ID), "DeleteDriftReference")
	_, err = s.DriftReferenceSample(ctx(t), a.ID, m.ID)
	wantErr(t, err, store.ErrNotFound, "DriftReferenceSample after delete")

	_, err = s.UpdateDriftReference(ctx(t), a.ID, m.ID, func(u *drift.Uploaded, _ bool) error {
		u.Input = *column("age", 0, 2)
		return nil
	})
	must(t, err, "UpdateDriftReference without a sample")
	got, err = s.DriftReferenceSample(ctx(t), a.ID, m.ID)
	must(t, err, "DriftReferenceSample of an empty sample")
	equal(t, "empty sample", len(got), 0)
}
