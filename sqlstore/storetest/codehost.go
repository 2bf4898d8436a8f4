package storetest

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vigilhq/vigil/integrations/codehost"
	"github.com/vigilhq/vigil/integrations/codehost/connection"
	"github.com/vigilhq/vigil/store"
)

var codehostTests = []test{
	{"Codehost/Repository", testCodehostRepository},
	{"Codehost/Deliveries", testCodehostDeliveries},
	{"Codehost/Connections", testCodehostConnections},
	{"Codehost/Tracking", testCodehostTracking},
	{"Codehost/Queue", testCodehostQueue},
	{"Codehost/OAuthState", testCodehostOAuthState},
	{"Codehost/Refresh", testCodehostRefresh},
}

// testCodehostRefresh: of ten concurrent claims of a connection's token
// refresh one holds, until it expires or the new pair is stored; the pair,
// its expiry and the status read back; another organization claims and
// stores nothing.
func testCodehostRefresh(t *testing.T, s Store) {
	a, b := newOrg(t, s), newOrg(t, s)
	c := codehost.Connection{ID: newID(), OrgID: a.ID, AuthType: codehost.AuthOAuth, Status: "active", Username: "octo",
		Scopes: []string{"repo"}, SealedToken: "sb1:k:old", SealedRefreshToken: "sb1:k:refresh", ExpiresAt: at(5), CreatedAt: at(1)}
	must(t, s.CreateCodehostConnection(ctx(t), c), "CreateCodehostConnection")
	var won atomic.Int32
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() {
			ok, err := s.ClaimCodehostRefresh(ctx(t), a.ID, c.ID, at(4), at(4).Add(30*time.Second))
			if err != nil {
				t.Errorf("ClaimCodehostRefresh: %v", err)
			}
			if ok {
				won.Add(1)
			}
		})
	}
	wg.Wait()
	if won.Load() != 1 {
		t.Fatalf("got %d claims held of 10, want 1", won.Load())
	}
	if ok, err := s.ClaimCodehostRefresh(ctx(t), a.ID, c.ID, at(4).Add(31*time.Second), at(4).Add(61*time.Second)); err != nil || !ok {
		t.Errorf("a claim after the first expired: got %v, %v, want held", ok, err)
	}
	if ok, err := s.ClaimCodehostRefresh(ctx(t), b.ID, c.ID, at(9), at(10)); err != nil || ok {
		t.Errorf("another org's claim: got %v, %v, want none", ok, err)
	}
	c.SealedToken, c.SealedRefreshToken, c.ExpiresAt, c.Status = "sb1:k:new", "sb1:k:refresh2", at(8), codehost.StatusReauthorize
	must(t, s.UpdateCodehostTokens(ctx(t), c), "UpdateCodehostTokens")
	got, err := s.CodehostConnection(ctx(t), a.ID, c.ID)
	must(t, err, "CodehostConnection")
	c.CreatedAt, c.ExpiresAt = stored(c.CreatedAt), stored(c.ExpiresAt)
	equal(t, "connection after UpdateCodehostTokens", got, c)
	if ok, err := s.ClaimCodehostRefresh(ctx(t), a.ID, c.ID, at(4), at(5)); err != nil || !ok {
		t.Errorf("a claim once the pair is stored: got %v, %v, want held", ok, err)
	}
	theirs := c
	theirs.OrgID = b.ID
	wantErr(t, s.UpdateCodehostTokens(ctx(t), theirs), store.ErrNotFound, "UpdateCodehostTokens of another org")
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
		SealedWebhookSecret: "sb1:k:secret", TrackTags: true, ModelPathPatterns: []string{"**/*.pkl"}, WebhookID: 7,
		TrackedBy: newID(), CreatedAt: at(2)}
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
	named, err := s.WebhookRepositoriesNamed(ctx(t), "OCTO/Models", 10)
	must(t, err, "WebhookRepositoriesNamed")
	if len(named) != 1 || named[0].ID != r.ID {
		t.Errorf("WebhookRepositoriesNamed OCTO/Models: got %v, want %s", named, r.ID)
	}
	if named, err := s.WebhookRepositoriesNamed(ctx(t), "octo/none", 10); err != nil || len(named) != 0 {
		t.Errorf("WebhookRepositoriesNamed octo/none: got %v, %v, want none", named, err)
	}

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

// testCodehostTracking: a tracked repository reads back, lists in pages
// within its organization only, updates its options and webhook, and
// untracking removes its deliveries.
func testCodehostTracking(t *testing.T, s Store) {
	a, b := newOrg(t, s), newOrg(t, s)
	r := newTracked(t, s, a.ID, "models")
	got, err := s.CodehostRepository(ctx(t), a.ID, r.ID)
	must(t, err, "CodehostRepository")
	r.CreatedAt = stored(r.CreatedAt)
	equal(t, "CodehostRepository", got, r)
	_, err = s.CodehostRepository(ctx(t), b.ID, r.ID)
	wantErr(t, err, store.ErrNotFound, "CodehostRepository of another org")
	second := newTracked(t, s, a.ID, "second")
	all, total, err := s.CodehostRepositories(ctx(t), a.ID, 0, 10)
	must(t, err, "CodehostRepositories")
	page, _, err := s.CodehostRepositories(ctx(t), a.ID, 1, 10)
	must(t, err, "CodehostRepositories from offset 1")
	if total != 2 || len(all) != 2 || len(page) != 1 || page[0].ID != all[1].ID ||
		!slices.ContainsFunc(all, func(x codehost.Repository) bool { return x.ID == second.ID }) {
		t.Fatalf("got %d, then %d of %d, want both, then the second of 2", len(all), len(page), total)
	}
	if _, total, _ := s.CodehostRepositories(ctx(t), b.ID, 0, 10); total != 0 {
		t.Errorf("got %d repositories for another organization, want none", total)
	}
	r.TrackedBranches, r.TrackTags, r.TrackReleases, r.AutoRegister = []string{"main", "dev"}, false, true, true
	r.ModelPathPatterns, r.WebhookStatus, r.WebhookID, r.SealedWebhookSecret = []string{"*.pt"}, codehost.WebhookActive, 42, "sb1:k:new"
	must(t, s.UpdateCodehostRepository(ctx(t), r), "UpdateCodehostRepository")
	got, err = s.CodehostRepository(ctx(t), a.ID, r.ID)
	must(t, err, "CodehostRepository")
	stale := r
	r.Revision++
	equal(t, "after update", got, r)
	// A write at the revision read before that update changes nothing.
	stale.WebhookStatus, stale.SealedWebhookSecret, stale.TrackTags = codehost.WebhookInactive, "", true
	wantErr(t, s.UpdateCodehostRepository(ctx(t), stale), store.ErrConflict, "UpdateCodehostRepository at a stale revision")
	got, err = s.CodehostRepository(ctx(t), a.ID, r.ID)
	must(t, err, "CodehostRepository")
	equal(t, "after a stale update", got, r)
	theirs := r
	theirs.OrgID = b.ID
	wantErr(t, s.UpdateCodehostRepository(ctx(t), theirs), store.ErrNotFound, "UpdateCodehostRepository from another org")
	_, err = s.RecordDelivery(ctx(t), codehost.Delivery{RepositoryID: r.ID, OrgID: a.ID, ID: "d1", Event: "push",
		Payload: []byte(`{}`), Status: codehost.DeliveryReceived, ReceivedAt: at(3)})
	must(t, err, "RecordDelivery")
	wantErr(t, s.DeleteCodehostRepository(ctx(t), b.ID, r.ID), store.ErrNotFound, "DeleteCodehostRepository from another org")
	must(t, s.DeleteCodehostRepository(ctx(t), a.ID, r.ID), "DeleteCodehostRepository")
	if left, _ := s.Deliveries(ctx(t), a.ID, r.ID); len(left) != 0 {
		t.Errorf("got %d deliveries after untracking, want none", len(left))
	}
	wantErr(t, s.DeleteCodehostRepository(ctx(t), a.ID, r.ID), store.ErrNotFound, "DeleteCodehostRepository again")
}

// testCodehostQueue: a received delivery is leased to one claimer of many
// at once; its lease holder finishes it (counters added) or retries it
// (not due before next, failed for good when giving up); a lease that ran
// out is claimed again, and its former holder can no longer finish it.
func testCodehostQueue(t *testing.T, s Store) {
	o := newOrg(t, s)
	q := deliveryQueue{t: t, s: s, orgID: o.ID, repo: newTracked(t, s, o.ID, "queue")}
	now := at(100)
	q.record("a")
	holder, leased := q.claimOnce(now)
	q.leaseRunsOut(holder, leased, now)
	q.record("b")
	q.retryThenGiveUp(now)
	q.listed()
}

// deliveryQueue is a tracked repository whose deliveries a test records
// and claims.
type deliveryQueue struct {
	t     *testing.T
	s     Store
	orgID string
	repo  codehost.Repository
}

// record receives a push to main as delivery id.
func (q deliveryQueue) record(id string) {
	q.t.Helper()
	_, err := q.s.RecordDelivery(ctx(q.t), codehost.Delivery{RepositoryID: q.repo.ID, OrgID: q.orgID, ID: id, Event: "push",
		Payload: []byte(`{"ref":"refs/heads/main"}`), Status: codehost.DeliveryReceived, ReceivedAt: at(3)})
	must(q.t, err, "RecordDelivery")
}

// claim claims what is due at now for owner, and keeps the repository's.
func (q deliveryQueue) claim(owner string, now time.Time) []codehost.QueuedDelivery {
	q.t.Helper()
	ds, err := q.s.ClaimDeliveries(ctx(q.t), owner, now, time.Minute, 1000)
	must(q.t, err, "ClaimDeliveries")
	return q.mine(ds)
}

// mine keeps the deliveries of the repository.
func (q deliveryQueue) mine(ds []codehost.QueuedDelivery) []codehost.QueuedDelivery {
	var out []codehost.QueuedDelivery
	for _, d := range ds {
		if d.RepositoryID == q.repo.ID {
			out = append(out, d)
		}
	}
	return out
}

// claimOnce has six claimers claim at once: one leases the delivery, at
// its first attempt, and nobody else while the lease runs.
func (q deliveryQueue) claimOnce(now time.Time) (holder string, leased codehost.QueuedDelivery) {
	t := q.t
	t.Helper()
	const n = 6
	got := make([][]codehost.QueuedDelivery, n)
	errs := parallel(n, func(i int) error {
		ds, err := q.s.ClaimDeliveries(ctx(t), fmt.Sprintf("p%d", i), now, time.Minute, 1000)
		got[i] = q.mine(ds)
		return err
	})
	for i, err := range errs {
		must(t, err, "ClaimDeliveries in parallel")
		if len(got[i]) > 0 {
			if holder != "" {
				t.Fatalf("both %s and p%d hold the delivery", holder, i)
			}
			holder, leased = fmt.Sprintf("p%d", i), got[i][0]
		}
	}
	if holder == "" || leased.Attempts != 1 || string(leased.Payload) != `{"ref":"refs/heads/main"}` {
		t.Fatalf("got holder %q with %+v, want one claimer with attempt 1", holder, leased)
	}
	if again := q.claim("other", now.Add(30*time.Second)); len(again) != 0 {
		t.Fatalf("claimed a leased delivery: %+v", again)
	}
	return holder, leased
}

// leaseRunsOut: once the lease runs out another claims the delivery, the
// first holder may not finish it, and the new one does, adding to the
// repository's counters.
func (q deliveryQueue) leaseRunsOut(holder string, leased codehost.QueuedDelivery, now time.Time) {
	t := q.t
	t.Helper()
	taken := q.claim("other", now.Add(2*time.Minute))
	if len(taken) != 1 || taken[0].Attempts != 2 {
		t.Fatalf("got %+v, want the delivery claimed again at attempt 2", taken)
	}
	wantErr(t, q.s.FinishDelivery(ctx(t), holder, leased, codehost.Outcome{}, 1, 1, now), store.ErrConflict, "FinishDelivery by a lost lease")
	out := codehost.Outcome{Ref: "main", Version: "abc", Files: []string{"m.pkl"}, Registered: []codehost.Registered{{Path: "m.pkl",
		ModelID: newID(), Name: "m", Version: "abc"}}, Review: []codehost.Review{}, ConfigProblems: []string{}}
	must(t, q.s.FinishDelivery(ctx(t), "other", taken[0], out, 3, 1, now.Add(2*time.Minute)), "FinishDelivery")
	rr, err := q.s.CodehostRepository(ctx(t), q.orgID, q.repo.ID)
	must(t, err, "CodehostRepository")
	if rr.TotalCommitsProcessed != 3 || rr.TotalModelsRegistered != 1 {
		t.Errorf("got %d commits and %d models, want 3 and 1", rr.TotalCommitsProcessed, rr.TotalModelsRegistered)
	}
	if more := q.claim("other", now.Add(time.Hour)); len(more) != 0 {
		t.Fatalf("claimed a processed delivery: %+v", more)
	}
}

// retryThenGiveUp: a delivery retried is not due before its time, comes
// back at its next attempt with its last error, and once given up is
// never claimed again.
func (q deliveryQueue) retryThenGiveUp(now time.Time) {
	t := q.t
	t.Helper()
	b := q.claim("p", now)
	if len(b) != 1 {
		t.Fatalf("got %d claimed, want b", len(b))
	}
	must(t, q.s.RetryDelivery(ctx(t), "p", b[0], "host down", now.Add(time.Minute), false), "RetryDelivery")
	if early := q.claim("p", now.Add(59*time.Second)); len(early) != 0 {
		t.Fatal("claimed a delivery before its backoff ended")
	}
	b = q.claim("p", now.Add(time.Minute))
	if len(b) != 1 || b[0].Attempts != 2 || b[0].LastError != "host down" {
		t.Fatalf("got %+v, want b at attempt 2 with its last error", b)
	}
	must(t, q.s.RetryDelivery(ctx(t), "p", b[0], "host down again", now.Add(time.Hour), true), "RetryDelivery giving up")
	if never := q.claim("p", now.Add(48*time.Hour)); len(never) != 0 {
		t.Fatal("claimed a delivery given up")
	}
}

// listed: the repository lists a processed with its outcome and b failed
// with its last error; another organization sees neither.
func (q deliveryQueue) listed() {
	t := q.t
	t.Helper()
	list, total, err := q.s.QueuedDeliveries(ctx(t), q.orgID, q.repo.ID, 0, 10)
	must(t, err, "QueuedDeliveries")
	if total != 2 || len(list) != 2 {
		t.Fatalf("got %d of %d, want 2", len(list), total)
	}
	byID := map[string]codehost.QueuedDelivery{list[0].ID: list[0], list[1].ID: list[1]}
	if a := byID["a"]; a.Status != codehost.DeliveryProcessed || a.Outcome == nil || a.Outcome.Registered[0].Name != "m" || a.ProcessedAt == nil {
		t.Errorf("got a %+v, want processed with its outcome", a)
	}
	if b := byID["b"]; b.Status != codehost.DeliveryFailed || b.LastError != "host down again" || b.Outcome != nil {
		t.Errorf("got b %+v, want failed with its last error", b)
	}
	if _, total, _ := q.s.QueuedDeliveries(ctx(t), newOrg(t, q.s).ID, q.repo.ID, 0, 10); total != 0 {
		t.Error("another organization sees the deliveries")
	}
}

// testCodehostOAuthState: a stored state is consumed once, by its own
// user and organization, before it expires; of eight concurrent
// consumers exactly one succeeds.
func testCodehostOAuthState(t *testing.T, s Store) {
	a, b := newOrg(t, s), newOrg(t, s)
	now := at(100)
	st := connection.NewOAuthState(a.ID, a.Admin.ID, now)
	must(t, s.CreateCodehostOAuthState(ctx(t), st, now), "CreateCodehostOAuthState")
	f := func(what string, x codehost.OAuthState, at time.Time) {
		t.Helper()
		wantErr(t, s.ConsumeCodehostOAuthState(ctx(t), x, at), store.ErrNotFound, what)
	}
	other := st
	other.UserID = b.Admin.ID
	f("another user", other, now)
	other = st
	other.OrgID = b.ID
	f("another organization", other, now)
	f("at expiry", st, st.ExpiresAt)
	must(t, s.ConsumeCodehostOAuthState(ctx(t), st, now.Add(time.Minute)), "ConsumeCodehostOAuthState")
	f("used again", st, now.Add(time.Minute))
	f("never stored", connection.NewOAuthState(a.ID, a.Admin.ID, now), now)

	race := connection.NewOAuthState(a.ID, a.Admin.ID, now)
	must(t, s.CreateCodehostOAuthState(ctx(t), race, now), "CreateCodehostOAuthState")
	var wins atomic.Int32
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if s.ConsumeCodehostOAuthState(ctx(t), race, now) == nil {
				wins.Add(1)
			}
		})
	}
	wg.Wait()
	if wins.Load() != 1 {
		t.Errorf("got %d consumers of one state succeeding, want 1", wins.Load())
	}

	// A state stored after another expired drops the expired one.
	old := connection.NewOAuthState(a.ID, a.Admin.ID, now)
	must(t, s.CreateCodehostOAuthState(ctx(t), old, now), "CreateCodehostOAuthState")
	later := old.ExpiresAt.Add(time.Second)
	must(t, s.CreateCodehostOAuthState(ctx(t), connection.NewOAuthState(a.ID, a.Admin.ID, later), later), "CreateCodehostOAuthState")
	f("expired, then dropped", old, now)
}
