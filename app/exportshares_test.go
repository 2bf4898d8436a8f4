package app

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/vigilhq/vigil/export"
	"github.com/vigilhq/vigil/export/share"
	"github.com/vigilhq/vigil/platform/config"
	"github.com/vigilhq/vigil/platform/testenv"
	"github.com/vigilhq/vigil/report"
)

// passcodeLine finds the passcode in the mail the recipient receives.
var passcodeLine = regexp.MustCompile(`shared with you is:\s+([0-9]{8})`)

// perRequest are the members of an error envelope that differ at every
// request.
var perRequest = regexp.MustCompile(`"(timestamp|request_id)":"[^"]*"`)

// sharedExport is a completed CSV export of one model, and its id.
func (s *server) sharedExport(t *testing.T, admin string) string {
	t.Helper()
	model := s.model(admin, "churn", "1")
	day := time.Now().UTC().Format(time.DateOnly)
	id := s.do("POST", "/export/exports", admin, map[string]any{"template_id": export.Builtins()[0].ID, "model_ids": []string{model},
		"format": "csv", "start": day, "end": day}).want(t, 202).str("export_id")
	if r := s.exportDone(t, admin, id); r.str("status") != export.StatusCompleted {
		t.Fatalf("got %s, want the export completed", r.raw)
	}
	return id
}

// mailbox reads the passcodes mailed, one a request.
type mailbox struct {
	smtp  *testenv.SMTPServer
	mails int // the passcodes asked for
	read  map[string]bool
}

// next waits for the passcode asked for last and returns it.
func (b *mailbox) next(t *testing.T) string {
	t.Helper()
	b.mails++
	waitFor(t, "the passcode mailed", func() bool { return len(b.smtp.Messages(t)) == b.mails })
	// The maildir's names do not sort by arrival: the new mail is the
	// one not read before.
	for _, msg := range b.smtp.Messages(t) {
		if !b.read[msg] {
			b.read[msg] = true
			m := passcodeLine.FindStringSubmatch(msg)
			if m == nil {
				t.Fatalf("got mail %s, want a passcode in it", msg)
			}
			return m[1]
		}
	}
	t.Fatal("no new mail")
	return ""
}

// TestShareStrangerTries: wrong passcodes from a stranger's address burn
// the code for that address alone (its right code then answers 429), the
// recipient at another address still verifies; SharedMaxTries wrong
// tries from many addresses burn the code for everyone.
func TestShareStrangerTries(t *testing.T) {
	eachMailingPipeline(t, func(t *testing.T, s *server, smtp *testenv.SMTPServer) {
		admin := s.admin()
		id := s.sharedExport(t, admin)
		slug := s.do("POST", "/export/exports/"+id+"/share", admin, map[string]any{"recipient_email": "auditor@example.com"}).
			want(t, 201).str("share_slug")
		box := &mailbox{smtp: smtp, read: map[string]bool{}}
		code := func() string {
			t.Helper()
			s.do("POST", "/share/"+slug+"/passcode", "", nil).want(t, 202)
			return box.next(t)
		}
		verify := func(from, passcode string) response {
			t.Helper()
			req := s.request("POST", "/share/"+slug+"/verify", "", map[string]any{"passcode": passcode})
			return s.sendWith(clientFrom(t, from), req)
		}
		wrong := func(right string) string {
			if right == "00000000" {
				return "11111111"
			}
			return "00000000"
		}

		first := code()
		const stranger, recipient = "127.0.0.2", "127.0.0.1"
		for range share.MaxTries + 3 {
			verify(stranger, wrong(first)).wantError(t, 401, "AUTHENTICATION_FAILED")
		}
		verify(stranger, first).wantError(t, 429, "RATE_LIMIT_EXCEEDED")
		verify(recipient, first).want(t, 200)

		second := code()
		for i := range share.SharedMaxTries {
			from := fmt.Sprintf("127.0.1.%d", 1+i/share.MaxTries)
			verify(from, wrong(second)).wantError(t, 401, "AUTHENTICATION_FAILED")
		}
		verify(recipient, second).wantError(t, 429, "RATE_LIMIT_EXCEEDED")
		verify(recipient, code()).want(t, 200)
	})
}

// clientFrom returns a client whose connections come from the loopback
// address ip (any 127.0.0.0/8 address is the machine's own).
func clientFrom(t *testing.T, ip string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	tr := &http.Transport{DialContext: d.DialContext}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

// TestExportShares walks a share as spec 1 and RELIABILITY C9-C13 say:
// only a completed export is shared; the public link answers alike for
// every slug; the passcode is mailed (through a real SMTP server) and
// verifies once, twenty parallel verifications issuing one token; wrong
// tries burn it; it expires after 10 minutes, the token after 15; code
// requests are capped (429); a revoked share answers like an unknown
// one; the view count and the audit trail follow every step.
func TestExportShares(t *testing.T) { eachMailingPipeline(t, testExportShares) }

// eachMailingPipeline runs f on a server of each pipeline that mails
// through a real SMTP server of its own.
func eachMailingPipeline(t *testing.T, f func(t *testing.T, s *server, smtp *testenv.SMTPServer)) {
	for _, p := range pipelines {
		t.Run(p.name, func(t *testing.T) {
			cfg := p.cfg(t)
			smtp := testenv.StartSMTP(t)
			cfg.SMTP = config.SMTP{Addr: smtp.Addr, From: "vigil@example.com", CAFile: smtp.CAFile, RequireTLS: true}
			f(t, start(t, cfg), smtp)
		})
	}
}

func testExportShares(t *testing.T, s *server, smtp *testenv.SMTPServer) {
	admin := s.admin()
	viewer := s.user(admin, "vivian", "viewer")
	id := s.sharedExport(t, admin)
	file := s.do("GET", "/export/exports/"+id+"/download", admin, nil).want(t, 200).raw

	// Only a completed export is shared.
	org := s.do("GET", "/auth/me", admin, nil).want(t, 200).str("user.organization_id")
	tpl, _ := export.Builtin(export.Builtins()[0].ID)
	now := time.Now().UTC().Truncate(time.Microsecond)
	pending := export.Job{ID: uuid.NewString(), OrgID: org, Template: tpl, Models: []report.Model{{ID: uuid.NewString(), Name: "x"}},
		Format: report.FormatCSV, Start: now.Truncate(24 * time.Hour), End: now.Truncate(24 * time.Hour), Status: export.StatusFailed,
		CreatedAt: now, UpdatedAt: now}
	if err := s.app.store.CreateExportJob(t.Context(), pending); err != nil {
		t.Fatal(err)
	}
	body := map[string]any{"recipient_email": "auditor@example.com"}
	s.do("POST", "/export/exports/"+pending.ID+"/share", admin, body).wantError(t, 409, "RESOURCE_CONFLICT")
	s.do("POST", "/export/exports/"+id+"/share", admin, map[string]any{"recipient_email": "not an address"}).wantField(t, "recipient_email")
	s.do("POST", "/export/exports/"+id+"/share", admin, map[string]any{"recipient_email": "a@example.com", "expires_in_days": 91}).
		wantField(t, "expires_in_days")
	s.do("POST", "/export/exports/"+id+"/share", viewer, body).wantError(t, 403, "INSUFFICIENT_PERMISSIONS")
	s.do("POST", "/export/exports/"+uuid.NewString()+"/share", admin, body).wantError(t, 404, "NOT_FOUND")

	created := s.do("POST", "/export/exports/"+id+"/share", admin, body).want(t, 201)
	slug := created.str("share_slug")
	if created.str("status") != share.StatusPending || created.at("view_count") != 0.0 || created.str("share_url") != "/share/"+slug {
		t.Fatalf("got %s, want a pending share with its link", created.raw)
	}
	other := s.do("POST", "/export/exports/"+id+"/share", admin, map[string]any{"recipient_email": "other@example.com"}).want(t, 201).str("share_slug")
	if list := s.do("GET", "/export/exports/"+id+"/shares", viewer, nil).want(t, 200); list.at("total") != 2.0 {
		t.Fatalf("got %s, want the export's two shares", list.raw)
	}

	// The link reveals nothing: a live slug and an unknown one answer alike.
	unknown := "nosuchshare0000000000A"
	same := func(what string, a, b response) {
		t.Helper()
		strip := func(r response) string {
			raw := bytes.ReplaceAll(bytes.ReplaceAll(r.raw, []byte(slug), nil), []byte(unknown), nil)
			return string(perRequest.ReplaceAll(raw, nil))
		}
		if a.status != b.status || strip(a) != strip(b) {
			t.Fatalf("%s: got %d %s for the share and %d %s for an unknown slug, want the same", what, a.status, a.raw, b.status, b.raw)
		}
	}
	same("landing", s.do("GET", "/share/"+slug, "", nil).want(t, 200), s.do("GET", "/share/"+unknown, "", nil))

	// code asks for a passcode and reads it.
	box := &mailbox{smtp: smtp, read: map[string]bool{}}
	code := func() string {
		t.Helper()
		same("passcode request", s.do("POST", "/share/"+slug+"/passcode", "", nil).want(t, 202),
			s.do("POST", "/share/"+unknown+"/passcode", "", nil))
		return box.next(t)
	}
	verify := func(slug, code string) response {
		return s.do("POST", "/share/"+slug+"/verify", "", map[string]any{"passcode": code})
	}
	download := func(slug, token string) response {
		req, err := http.NewRequest("GET", s.base+"/share/"+slug+"/download", nil)
		if err != nil {
			t.Fatal(err)
		}
		if token != "" {
			req.Header.Set(share.TokenHeader, token)
		}
		return s.send(req)
	}

	first := code()
	if m := smtp.Messages(t)[0]; !bytes.Contains([]byte(m), []byte("To: auditor@example.com")) {
		t.Fatalf("got mail %s, want it sent to the recipient", m)
	}
	wrong := "00000000"
	if wrong == first {
		wrong = "11111111"
	}
	same("wrong passcode", verify(slug, wrong).wantError(t, 401, "AUTHENTICATION_FAILED"), verify(unknown, first))
	verify(slug, "1234").wantField(t, "passcode")

	// Twenty parallel verifications with the right code: one token.
	var wg sync.WaitGroup
	var mu sync.Mutex
	statuses, tokens := []int{}, []string{}
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := verify(slug, first)
			mu.Lock()
			defer mu.Unlock()
			statuses = append(statuses, r.status)
			if r.status == 200 {
				tokens = append(tokens, r.str("download_token"))
			}
		}()
	}
	wg.Wait()
	slices.Sort(statuses)
	if len(tokens) != 1 || statuses[0] != 200 || statuses[1] != 409 || statuses[19] != 409 {
		t.Fatalf("got statuses %v and %d tokens, want one 200 with a token and nineteen 409s", statuses, len(tokens))
	}
	token := tokens[0]
	verify(slug, first).wantError(t, 409, "RESOURCE_CONFLICT")

	// The token downloads that one report, counting views.
	download(slug, "").wantError(t, 401, "AUTHENTICATION_FAILED")
	download(other, token).wantError(t, 401, "AUTHENTICATION_FAILED")
	got := download(slug, token).want(t, 200)
	if !bytes.Equal(got.raw, file) {
		t.Fatalf("got %d bytes, want the export's %d", len(got.raw), len(file))
	}
	if r := s.do("GET", "/export/shares/"+slug, viewer, nil).want(t, 200); r.str("status") != share.StatusVerified || r.at("view_count") != 1.0 {
		t.Fatalf("got %s, want the share verified and viewed once", r.raw)
	}

	// Wrong tries burn a code.
	second := code()
	for range share.MaxTries {
		verify(slug, wrong).wantError(t, 401, "AUTHENTICATION_FAILED")
	}
	verify(slug, second).wantError(t, 429, "RATE_LIMIT_EXCEEDED")

	// A code expires after 10 minutes, a token after 15.
	third := code()
	s.app.skew.Store(int64(share.CodeLife + time.Second))
	verify(slug, third).wantError(t, 401, "TOKEN_EXPIRED")
	download(slug, token).want(t, 200)
	s.app.skew.Store(int64(share.TokenLife + time.Second))
	download(slug, token).wantError(t, 401, "AUTHENTICATION_FAILED")
	s.app.skew.Store(0)

	// Five codes an hour at one link, then 429 (an unknown link alike).
	fourth := code()
	fresh := verify(slug, fourth).want(t, 200).str("download_token")
	code()
	limited := s.do("POST", "/share/"+slug+"/passcode", "", nil).wantError(t, 429, "RATE_LIMIT_EXCEEDED")
	if limited.header.Get("Retry-After") == "" {
		t.Fatalf("got headers %v, want Retry-After", limited.header)
	}
	for range 5 {
		s.do("POST", "/share/nosuchshare1/passcode", "", nil).want(t, 202)
	}
	s.do("POST", "/share/nosuchshare1/passcode", "", nil).wantError(t, 429, "RATE_LIMIT_EXCEEDED")

	// Revoked: the token issued before is refused, the link answers like
	// an unknown one.
	s.do("POST", "/export/shares/"+slug+"/revoke", viewer, nil).wantError(t, 403, "INSUFFICIENT_PERMISSIONS")
	revoked := s.do("POST", "/export/shares/"+slug+"/revoke", admin, nil).want(t, 200)
	if revoked.str("status") != share.StatusRevoked || revoked.at("revoked_at") == nil {
		t.Fatalf("got %s, want the share revoked", revoked.raw)
	}
	s.do("POST", "/export/shares/"+slug+"/revoke", admin, nil).wantError(t, 409, "RESOURCE_CONFLICT")
	download(slug, fresh).wantError(t, 401, "AUTHENTICATION_FAILED")
	same("landing of a revoked share", s.do("GET", "/share/"+slug, "", nil), s.do("GET", "/share/"+unknown, "", nil))
	same("verify at a revoked share", verify(slug, wrong), verify(unknown, wrong))

	trail := s.do("GET", "/export/shares/"+slug+"/events", viewer, nil).want(t, 200)
	kinds := map[string]int{}
	for _, e := range trail.at("events").([]any) {
		kinds[e.(map[string]any)["event"].(string)]++
	}
	want := map[string]int{share.EventCreated: 1, share.EventCodeRequested: 5, share.EventVerified: 2, share.EventViewed: 2,
		share.EventRevoked: 1, share.EventDenied: 1 + 19 + 1 + share.MaxTries + 1 + 1 + 1 + 3}
	// The 3 refused downloads at the link: without a token, the token
	// expired, the share revoked.
	refusals := 0
	for _, e := range trail.at("events").([]any) {
		if d, _ := e.(map[string]any)["detail"].(string); strings.HasPrefix(d, "download") {
			refusals++
		}
	}
	if refusals != 3 {
		t.Errorf("got %d refused downloads in the trail, want 3", refusals)
	}
	for k, n := range want {
		if kinds[k] != n {
			t.Errorf("got %d %s events in %v, want %d", kinds[k], k, kinds, n)
		}
	}
}
