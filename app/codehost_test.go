package app

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/vigilhq/vigil/integrations/codehost"
	"github.com/vigilhq/vigil/integrations/codehost/webhook"
	"github.com/vigilhq/vigil/platform/secretbox"
)

// The published test vector of the platform's webhook documentation.
const (
	vectorSecret    = "It's a Secret to Everybody"
	vectorPayload   = "Hello, World!"
	vectorSignature = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"
)

// tracked stores, through the store, a repository of the admin's
// organization whose webhook secret is secret, sealed with the server's
// master key, and returns its id: the tracking API does not exist yet.
func tracked(t *testing.T, s *server, admin, secret string) string {
	t.Helper()
	box, _, err := secretbox.Load(s.app.cfg.MasterKey, s.app.cfg.MasterKeyFile)
	if err != nil {
		t.Fatal(err)
	}
	org := s.do("GET", "/auth/me", admin, nil).want(t, 200).str("user.organization_id")
	c := codehost.Connection{ID: uuid.NewString(), OrgID: org, AuthType: codehost.AuthPAT, Status: "active", CreatedAt: time.Now()}
	if c.SealedToken, err = box.Seal([]byte("ghp_token"), codehost.TokenLabel(c.ID)); err != nil {
		t.Fatal(err)
	}
	if err := s.app.store.CreateCodehostConnection(t.Context(), c); err != nil {
		t.Fatal(err)
	}
	r := codehost.Repository{ID: uuid.NewString(), OrgID: org, ConnectionID: c.ID, Owner: "octo", Name: "models",
		FullName: "octo/models", DefaultBranch: "main", WebhookStatus: codehost.WebhookActive, CreatedAt: time.Now()}
	if r.SealedWebhookSecret, err = box.Seal([]byte(secret), codehost.SecretLabel(r.ID)); err != nil {
		t.Fatal(err)
	}
	if err := s.app.store.CreateCodehostRepository(t.Context(), r); err != nil {
		t.Fatal(err)
	}
	return r.ID
}

// delivery posts body to the delivery endpoint for repository repo (none:
// the spec's path alone) with the headers given (a header given "" is left
// out).
func (s *server) delivery(repo, body string, headers map[string]string) response {
	s.t.Helper()
	url := s.base + "/codehost/webhooks"
	if repo != "" { // none: the spec's path, which the payload locates
		url += "?repository=" + repo
	}
	req, err := http.NewRequest("POST", url, strings.NewReader(body))
	if err != nil {
		s.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range headers {
		if v != "" {
			req.Header.Set(k, v)
		}
	}
	return s.send(req)
}

// TestCodehostWebhookSignature: the published test vector verifies (and
// only then is the body parsed: it is not JSON, 400); a changed byte, a
// missing header, sha1=, a truncated signature, an unknown or missing
// repository answer 401 before any parsing; nothing is recorded for them.
func TestCodehostWebhookSignature(t *testing.T) {
	eachBackend(t, nil, func(t *testing.T, s *server) {
		admin := s.admin()
		repo := tracked(t, s, admin, vectorSecret)
		headers := func(sig string) map[string]string {
			return map[string]string{webhook.SignatureHeader: sig, webhook.DeliveryHeader: uuid.NewString(), webhook.EventHeader: "push"}
		}
		s.delivery(repo, vectorPayload, headers(vectorSignature)).wantError(t, 400, "BAD_REQUEST")
		f := func(what, repo, body, sig string) {
			t.Helper()
			r := s.delivery(repo, body, headers(sig))
			if r.status != 401 || r.str("error.code") != "AUTHENTICATION_FAILED" {
				t.Errorf("%s: got %d %s, want 401 AUTHENTICATION_FAILED before the body is parsed", what, r.status, r.raw)
			}
		}
		f("one changed byte", repo, "Hello, World?", vectorSignature)
		f("one changed signature digit", repo, vectorPayload, vectorSignature[:len(vectorSignature)-1]+"6")
		f("missing header", repo, vectorPayload, "")
		f("sha1=", repo, vectorPayload, "sha1=01dc10d0c83e72ed246219cdd91669667fe2ca59")
		f("truncated", repo, vectorPayload, vectorSignature[:len(vectorSignature)-8])
		f("unknown repository", uuid.NewString(), vectorPayload, vectorSignature)
		f("no repository", "", vectorPayload, vectorSignature)
		f("not JSON, bad signature", repo, "{not json", vectorSignature)
		// A signature over the body under another secret.
		f("another secret", repo, `{"ref":"refs/heads/main"}`, webhook.Sign([]byte("guess"), []byte(`{"ref":"refs/heads/main"}`)))
		deliveries, err := s.app.store.Deliveries(t.Context(), s.do("GET", "/auth/me", admin, nil).str("user.organization_id"), repo)
		if err != nil || len(deliveries) != 0 {
			t.Fatalf("got %d deliveries (%v), want none recorded for refused requests", len(deliveries), err)
		}
	})
}

// TestCodehostWebhookDeliveryOnce: the same delivery id twice is recorded
// once and answered 2xx both times; a delivery with a valid signature
// names the headers it lacks.
func TestCodehostWebhookDeliveryOnce(t *testing.T) {
	eachBackend(t, nil, func(t *testing.T, s *server) {
		admin := s.admin()
		secret := "webhook secret"
		repo := tracked(t, s, admin, secret)
		body := `{"ref":"refs/heads/main","after":"0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c"}`
		id := uuid.NewString()
		h := map[string]string{webhook.SignatureHeader: webhook.Sign([]byte(secret), []byte(body)), webhook.DeliveryHeader: id,
			webhook.EventHeader: "push"}
		first := s.delivery(repo, body, h).want(t, 202)
		second := s.delivery(repo, body, h).want(t, 200)
		if first.str("status") != "received" || second.str("status") != "duplicate" || second.str("delivery_id") != id {
			t.Fatalf("got %s then %s, want received then duplicate", first.raw, second.raw)
		}
		ping := `{"zen":"Keep it logically awesome."}`
		s.delivery(repo, ping, map[string]string{webhook.SignatureHeader: webhook.Sign([]byte(secret), []byte(ping)),
			webhook.DeliveryHeader: uuid.NewString(), webhook.EventHeader: "ping"}).want(t, 202)
		org := s.do("GET", "/auth/me", admin, nil).str("user.organization_id")
		got, err := s.app.store.Deliveries(t.Context(), org, repo)
		if err != nil || len(got) != 2 || got[0].ID != id && got[1].ID != id {
			t.Fatalf("got %+v (%v), want the push once and the ping", got, err)
		}
		for _, d := range got {
			if want := map[string]string{"push": codehost.DeliveryReceived, "ping": codehost.DeliveryIgnored}[d.Event]; d.Status != want {
				t.Errorf("delivery %s: got status %s, want %s", d.Event, d.Status, want)
			}
		}
		for _, missing := range []string{webhook.DeliveryHeader, webhook.EventHeader} {
			h := map[string]string{webhook.SignatureHeader: webhook.Sign([]byte(secret), []byte(body)), webhook.DeliveryHeader: uuid.NewString(),
				webhook.EventHeader: "push"}
			h[missing] = ""
			s.delivery(repo, body, h).wantField(t, missing)
		}
	})
}
