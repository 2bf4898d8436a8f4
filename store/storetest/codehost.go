package storetest

import (
	"fmt"
	"testing"

	"github.com/vigilhq/vigil/integrations/codehost"
	"github.com/vigilhq/vigil/store"
)

var codehostTests = []test{
	{"Codehost/Repository", testCodehostRepository},
	{"Codehost/Deliveries", testCodehostDeliveries},
	{"Codehost/Connections", testCodehostConnections},
}

// newTracked stores a connection of org and a repository tracked through
// it, with sealed (as the caller gives them) token and secret.
func newTracked(t *testing.T, s Store, orgID, fullName string) codehost.Repository {
	t.Helper()
	c := codehost.Connection{ID: newID(), OrgID: orgID, AuthType: codehost.AuthPAT, Status: "active", Username: "octo",
		Email: "octo@example.com", SealedToken: "sb1:k:token", CreatedAt: at(1)}
	must(t, s.CreateCodehostConnection(ctx(t), c), "CreateCodehostConnection")
	r := codehost.Repository{ID: newID(), OrgID: orgID, ConnectionID: c.ID, Owner: "octo", Name: fullName, FullName: "octo/" + fullName,
		DefaultBranch: "main", IsPrivate: true, TrackedBranches: []string{"main"}, WebhookStatus: codehost.WebhookActive,
		SealedWebhookSecret: "sb1:k:secret", CreatedAt: at(2)}
	must(t, s.CreateCodehostRepository(ctx(t), r), "CreateCodehostRepository")
	return r
}

func testCodehostRepository(t *testing.T, s Store) {
	a, b := newOrg(t, s), newOrg(t, s)
	r := newTracked(t, s, a.ID, "models")
	got, err := s.WebhookRepository(ctx(t), r.ID)
	must(t, err, "WebhookRepository")
	r.CreatedAt = stored(r.CreatedAt)
	equal(t, "WebhookRepository", got, r)
	_, err = s.WebhookRepository(ctx(t), newID())
	wantErr(t, err, store.ErrNotFound, "WebhookRepository of a missing id")

	again := r
	again.ID = newID()
	wantErr(t, s.CreateCodehostRepository(ctx(t), again), store.ErrConflict, "tracking octo/models twice")
	theirs := r
	theirs.ID, theirs.OrgID = newID(), b.ID
	wantErr(t, s.CreateCodehostRepository(ctx(t), theirs), store.ErrNotFound, "tracking through another org's connection")
}

// testCodehostDeliveries: a delivery id is recorded once per repository,
// also when it arrives many times at once.
func testCodehostDeliveries(t *testing.T, s Store) {
	o := newOrg(t, s)
	r, other := newTracked(t, s, o.ID, "models"), newTracked(t, s, o.ID, "other")
	d := codehost.Delivery{RepositoryID: r.ID, OrgID: o.ID, ID: "72d3162e-cc78-11e3-81ab-4c9367dc0958", Event: "push",
		Payload: []byte(`{"ref":"refs/heads/main"}`), Status: codehost.DeliveryReceived, ReceivedAt: at(3)}
	const n = 8
	fresh := make([]bool, n)
	errs := parallel(n, func(i int) error {
		var err error
		fresh[i], err = s.RecordDelivery(ctx(t), d)
		return err
	})
	count := 0
	for i, err := range errs {
		must(t, err, fmt.Sprintf("RecordDelivery %d", i))
		if fresh[i] {
			count++
		}
	}
	if count != 1 {
		t.Fatalf("got %d calls that stored the delivery, want 1", count)
	}
	later := d
	later.Payload, later.ReceivedAt = []byte(`{"changed":true}`), at(9)
	ok, err := s.RecordDelivery(ctx(t), later)
	must(t, err, "RecordDelivery again")
	if ok {
		t.Error("RecordDelivery of a known id: got stored, want unchanged")
	}
	elsewhere := d
	elsewhere.RepositoryID = other.ID
	ok, err = s.RecordDelivery(ctx(t), elsewhere)
	must(t, err, "RecordDelivery to another repository")
	if !ok {
		t.Error("the same delivery id for another repository: got not stored, want stored")
	}
	got, err := s.Deliveries(ctx(t), o.ID, r.ID)
	must(t, err, "Deliveries")
	d.ReceivedAt = stored(d.ReceivedAt)
	equal(t, "deliveries", got, []codehost.Delivery{d})
	none, err := s.Deliveries(ctx(t), newOrg(t, s).ID, r.ID)
	must(t, err, "Deliveries of another org")
	if len(none) != 0 {
		t.Errorf("got %d deliveries for another organization, want none", len(none))
	}
}

// testCodehostConnections: connections read back within their
// organization only; removing one removes its repositories and their
// deliveries.
func testCodehostConnections(t *testing.T, s Store) {
	a, b := newOrg(t, s), newOrg(t, s)
	r := newTracked(t, s, a.ID, "models")
	ok, err := s.RecordDelivery(ctx(t), codehost.Delivery{RepositoryID: r.ID, OrgID: a.ID, ID: "d1", Event: "push",
		Payload: []byte(`{}`), Status: codehost.DeliveryReceived, ReceivedAt: at(3)})
	must(t, err, "RecordDelivery")
	if !ok {
		t.Fatal("RecordDelivery: got not stored, want stored")
	}
	c, err := s.CodehostConnection(ctx(t), a.ID, r.ConnectionID)
	must(t, err, "CodehostConnection")
	equal(t, "connection", c, codehost.Connection{ID: r.ConnectionID, OrgID: a.ID, AuthType: codehost.AuthPAT, Status: "active",
		Username: "octo", Email: "octo@example.com", Scopes: []string{}, SealedToken: "sb1:k:token", CreatedAt: stored(at(1))})
	list, err := s.CodehostConnections(ctx(t), a.ID)
	must(t, err, "CodehostConnections")
	equal(t, "connections", list, []codehost.Connection{c})
	_, err = s.CodehostConnection(ctx(t), b.ID, c.ID)
	wantErr(t, err, store.ErrNotFound, "CodehostConnection of another org")
	theirs, err := s.CodehostConnections(ctx(t), b.ID)
	must(t, err, "CodehostConnections of another org")
	if len(theirs) != 0 {
		t.Errorf("got %d connections for another organization, want none", len(theirs))
	}
	wantErr(t, s.DeleteCodehostConnection(ctx(t), b.ID, c.ID), store.ErrNotFound, "DeleteCodehostConnection from another org")
	must(t, s.DeleteCodehostConnection(ctx(t), a.ID, c.ID), "DeleteCodehostConnection")
	_, err = s.WebhookRepository(ctx(t), r.ID)
	wantErr(t, err, store.ErrNotFound, "WebhookRepository after its connection is removed")
	left, err := s.Deliveries(ctx(t), a.ID, r.ID)
	must(t, err, "Deliveries")
	if len(left) != 0 {
		t.Errorf("got %d deliveries after the connection is removed, want none", len(left))
	}
	wantErr(t, s.DeleteCodehostConnection(ctx(t), a.ID, c.ID), store.ErrNotFound, "DeleteCodehostConnection again")
}
