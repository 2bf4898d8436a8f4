package app

import (
	"crypto/rand"
	"fmt"
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/vigilhq/vigil/integrations/codehost/tracking"
	"github.com/vigilhq/vigil/integrations/codehost/webhook"
)

// TestCodehostPatchWebhookRace: a PATCH of a tracked repository's options
// and a webhook setup sent at the same time both hold: the options are
// the PATCH's, webhook_status is active, the one hook left on the code
// host is the repository's, and a delivery signed with its secret
// verifies. Each round races them again.
func TestCodehostPatchWebhookRace(t *testing.T) {
	f := newForge(t)
	f.addRepo("octo", "models", true, true)
	eachBackend(t, f.config, func(t *testing.T, s *server) {
		admin := s.admin()
		token := "ghp_" + rand.Text()
		f.set(token, "repo, read:org")
		conn := s.do("POST", "/codehost/connect/pat", admin, map[string]any{"personal_access_token": token}).want(t, 201).str("id")
		id := s.do("POST", "/codehost/repositories/track", admin, map[string]any{"connection_id": conn, "owner": "octo", "name": "models"}).
			want(t, 201).str("id")
		for round := range 8 {
			branch := fmt.Sprintf("release-%d", round)
			var wg sync.WaitGroup
			var patched, hooked response
			wg.Go(func() {
				patched = s.do("PATCH", "/codehost/repositories/"+id, admin, map[string]any{"tracked_branches": []string{branch}})
			})
			wg.Go(func() { hooked = s.do("POST", "/codehost/repositories/"+id+"/webhook", admin, nil) })
			wg.Wait()
			patched.want(t, 200)
			hooked.want(t, 200)
			r := s.do("GET", "/codehost/repositories/"+id, admin, nil).want(t, 200)
			branches, _ := r.at("tracked_branches").([]any)
			if r.str("webhook_status") != "active" || len(branches) != 1 || branches[0] != branch {
				t.Fatalf("round %d: got %s, want webhook_status active and tracked_branches [%s]", round, r.raw, branch)
			}
			f.mu.Lock()
			var secrets []string
			for hid, h := range f.hooks {
				if h.URL == tracking.DeliveryURL(s.base[:len(s.base)-len("/api/v1")], id) {
					secrets = append(secrets, h.Secret)
					if fmt.Sprint(hid) != hooked.str("webhook_id") {
						t.Errorf("round %d: the hook left is %d, want %s", round, hid, hooked.str("webhook_id"))
					}
				}
			}
			f.mu.Unlock()
			if len(secrets) != 1 {
				t.Fatalf("round %d: got %d hooks on the code host, want the one set up last", round, len(secrets))
			}
			body := fmt.Sprintf(`{"ref":"refs/heads/%s"}`, branch)
			s.delivery(id, body, map[string]string{webhook.SignatureHeader: webhook.Sign([]byte(secrets[0]), []byte(body)),
				webhook.DeliveryHeader: uuid.NewString(), webhook.EventHeader: "ping"}).want(t, 202)
		}
	})
}
