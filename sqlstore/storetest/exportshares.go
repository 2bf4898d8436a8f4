package storetest

import (
	"sync"
	"testing"
	"time"

	"github.com/vigilhq/vigil/export/share"
	"github.com/vigilhq/vigil/store"
)

var exportShareTests = []test{
	{"ExportShares/Lifecycle", testExportShares},
	{"ExportShares/ParallelVerify", testExportShareParallelVerify},
}

// newShare stores a pending share of org's export, created at at(n) and
// open for a day.
func newShare(t *testing.T, s Store, orgID string, n int) share.Share {
	t.Helper()
	slug, err := share.NewSlug()
	must(t, err, "NewSlug")
	sh := share.Share{ID: newID(), OrgID: orgID, ExportID: newID(), Slug: slug, Recipient: "auditor@example.com",
		Status: share.StatusPending, CreatedBy: "u1", CreatedAt: stored(at(n)), ExpiresAt: stored(at(n).Add(24 * time.Hour)),
		CodeExpires: stored(time.Unix(0, 0))}
	must(t, s.CreateShare(ctx(t), sh, shareEvent(sh, share.EventCreated, n)), "CreateShare")
	return sh
}

func shareEvent(sh share.Share, kind string, n int) share.Event {
	return share.Event{ID: newID(), ShareID: sh.ID, OrgID: sh.OrgID, Kind: kind, Actor: "recipient", At: stored(at(n))}
}

// testExportShares: a share is stored as given and found by its slug
// (another organization's is store.ErrNotFound); a passcode verifies
// once, not after MaxTries wrong tries nor past its expiry; a token
// downloads until it expires or the share is revoked, counting views;
// every step is in the audit trail.
func testExportShares(t *testing.T, s Store) {
	a, b := newOrg(t, s), newOrg(t, s)
	sh := newShare(t, s, a.ID, 1)
	second := shareFound(t, s, a.ID, b.ID, sh)
	hash := shareCodeVerified(t, s, sh)
	shareTokenUsed(t, s, sh, second)
	shareRevoked(t, s, a.ID, b.ID, sh, hash)
	shareAudited(t, s, a.ID, b.ID, sh)
}

// shareFound: the share of orgID is found as stored, by the organization
// and by its slug, not by otherID; the export lists it alone, though a
// second share (returned) is stored beside it.
func shareFound(t *testing.T, s Store, orgID, otherID string, sh share.Share) share.Share {
	t.Helper()
	got, err := s.Share(ctx(t), orgID, sh.Slug)
	must(t, err, "Share")
	equal(t, "stored share", got, sh)
	_, err = s.Share(ctx(t), otherID, sh.Slug)
	wantErr(t, err, store.ErrNotFound, "Share of another organization")
	got, err = s.ShareBySlug(ctx(t), sh.Slug)
	must(t, err, "ShareBySlug")
	equal(t, "share by slug", got, sh)
	second := newShare(t, s, orgID, 2)
	list, total, err := s.Shares(ctx(t), orgID, sh.ExportID, 0, 10)
	must(t, err, "Shares")
	equal(t, "shares of the export", total, int64(1))
	equal(t, "shares", len(list), 1)
	return second
}

// shareCodeVerified: wrong tries burn a code, and a new code starts
// again; it verifies once, right and in time, issuing token t0. It
// returns the code's hash.
func shareCodeVerified(t *testing.T, s Store, sh share.Share) string {
	t.Helper()
	hash := share.HashCode(sh.ID, "12345678")
	must(t, s.SetShareCode(ctx(t), sh.ID, hash, stored(at(3).Add(share.CodeLife)), shareEvent(sh, share.EventCodeRequested, 3)), "SetShareCode")
	for i := range share.MaxTries {
		must(t, s.DenyShareCode(ctx(t), sh.ID, hash, shareEvent(sh, share.EventDenied, 4+i)), "DenyShareCode")
	}
	tok := share.Token{Hash: "t0", ShareID: sh.ID, CreatedAt: stored(at(10)), Expires: stored(at(10).Add(share.TokenLife))}
	verify := func(hash string, tok share.Token, e share.Event, what string, want bool) {
		t.Helper()
		ok, err := s.VerifyShareCode(ctx(t), sh.ID, hash, share.MaxTries, tok, e)
		must(t, err, "VerifyShareCode")
		equal(t, what, ok, want)
	}
	verify(hash, tok, shareEvent(sh, share.EventVerified, 10), "verified a burnt code", false)
	must(t, s.SetShareCode(ctx(t), sh.ID, hash, stored(at(11).Add(share.CodeLife)), shareEvent(sh, share.EventCodeRequested, 11)), "SetShareCode")
	verify(share.HashCode(sh.ID, "00000000"), tok, shareEvent(sh, share.EventVerified, 12), "verified a wrong code", false)
	late := shareEvent(sh, share.EventVerified, 11)
	late.At = stored(at(11).Add(share.CodeLife))
	verify(hash, tok, late, "verified an expired code", false)
	verify(hash, tok, shareEvent(sh, share.EventVerified, 13), "verified the right code", true)
	verify(hash, share.Token{Hash: "t1", ShareID: sh.ID, CreatedAt: stored(at(14)), Expires: stored(at(14).Add(share.TokenLife))},
		shareEvent(sh, share.EventVerified, 14), "verified a used code", false)
	got, err := s.ShareBySlug(ctx(t), sh.Slug)
	must(t, err, "ShareBySlug")
	equal(t, "verified status", []any{got.Status, got.CodeUsed, got.VerifiedAt}, []any{share.StatusVerified, true, storedPtr(ptr(at(13)))})
	return hash
}

// shareTokenUsed: the token downloads, counting a view, until it
// expires, and only at its share.
func shareTokenUsed(t *testing.T, s Store, sh, second share.Share) {
	t.Helper()
	view := share.Event{ID: newID(), Kind: share.EventViewed, Actor: "recipient", At: stored(at(15))}
	_, err := s.UseShareToken(ctx(t), second.Slug, "t0", view)
	wantErr(t, err, store.ErrNotFound, "UseShareToken at another share")
	got, err := s.UseShareToken(ctx(t), sh.Slug, "t0", view)
	must(t, err, "UseShareToken")
	equal(t, "views", got.Views, 1)
	view.ID, view.At = newID(), stored(at(10).Add(share.TokenLife))
	_, err = s.UseShareToken(ctx(t), sh.Slug, "t0", view)
	wantErr(t, err, store.ErrNotFound, "UseShareToken expired")
}

// shareRevoked: its organization revokes the share, once, and another
// cannot; revoked, it takes no code and no token.
func shareRevoked(t *testing.T, s Store, orgID, otherID string, sh share.Share, hash string) {
	t.Helper()
	_, err := s.RevokeShare(ctx(t), otherID, sh.Slug, share.Event{ID: newID(), Kind: share.EventRevoked, Actor: "u2", At: stored(at(16))})
	wantErr(t, err, store.ErrNotFound, "RevokeShare of another organization")
	got, err := s.RevokeShare(ctx(t), orgID, sh.Slug, share.Event{ID: newID(), Kind: share.EventRevoked, Actor: "u1", At: stored(at(16))})
	must(t, err, "RevokeShare")
	equal(t, "revoked", []any{got.Status, got.RevokedAt}, []any{share.StatusRevoked, storedPtr(ptr(at(16)))})
	_, err = s.RevokeShare(ctx(t), orgID, sh.Slug, share.Event{ID: newID(), Kind: share.EventRevoked, Actor: "u1", At: stored(at(17))})
	wantErr(t, err, store.ErrConflict, "RevokeShare twice")
	view := share.Event{ID: newID(), Kind: share.EventViewed, Actor: "recipient", At: stored(at(17))}
	_, err = s.UseShareToken(ctx(t), sh.Slug, "t0", view)
	wantErr(t, err, store.ErrNotFound, "UseShareToken after revocation")
	wantErr(t, s.SetShareCode(ctx(t), sh.ID, hash, stored(at(30)), shareEvent(sh, share.EventCodeRequested, 17)), store.ErrNotFound,
		"SetShareCode after revocation")
}

// shareAudited: every step above is in the share's audit trail, in
// order, which another organization does not see.
func shareAudited(t *testing.T, s Store, orgID, otherID string, sh share.Share) {
	t.Helper()
	events, total, err := s.ShareEvents(ctx(t), orgID, sh.ID, 0, 100)
	must(t, err, "ShareEvents")
	kinds := make([]string, len(events))
	for i, e := range events {
		kinds[i] = e.Kind
	}
	equal(t, "audit trail", kinds, []string{share.EventCreated, share.EventCodeRequested, share.EventDenied, share.EventDenied,
		share.EventDenied, share.EventDenied, share.EventDenied, share.EventCodeRequested, share.EventVerified, share.EventViewed,
		share.EventRevoked})
	equal(t, "audit total", total, int64(len(kinds)))
	_, total, err = s.ShareEvents(ctx(t), otherID, sh.ID, 0, 100)
	must(t, err, "ShareEvents")
	equal(t, "audit trail seen by another organization", total, int64(0))
}

// testExportShareParallelVerify: twenty parallel verifications with the
// right code issue exactly one token (RELIABILITY C12).
func testExportShareParallelVerify(t *testing.T, s Store) {
	sh := newShare(t, s, newOrg(t, s).ID, 1)
	hash := share.HashCode(sh.ID, "24681357")
	must(t, s.SetShareCode(ctx(t), sh.ID, hash, stored(at(2).Add(share.CodeLife)), shareEvent(sh, share.EventCodeRequested, 2)), "SetShareCode")
	var wg sync.WaitGroup
	var mu sync.Mutex
	won, errs := 0, []error{}
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tok := share.Token{Hash: newID(), ShareID: sh.ID, CreatedAt: stored(at(3)), Expires: stored(at(3).Add(share.TokenLife))}
			ok, err := s.VerifyShareCode(ctx(t), sh.ID, hash, share.MaxTries, tok, shareEvent(sh, share.EventVerified, 3+i))
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err)
			}
			if ok {
				won++
			}
		}()
	}
	wg.Wait()
	equal(t, "errors of parallel verifications", errs, []error{})
	equal(t, "tokens issued by 20 parallel verifications", won, 1)
}
