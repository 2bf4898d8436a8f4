package app

import (
	"encoding/json"
	"testing"

	"github.com/google/uuid"

	"github.com/vigilhq/vigil/integrations/codehost/webhook"
)

// specMonitorFile is a .monitor.yml with spec 2's own example model type.
const specMonitorFile = `version: "1.0"
github:
  auto_register: true
models:
  - path: "models/*.pt"
    name: vision
    framework: pytorch
    model_type: neural_network
`

// TestCodehostSpecPath (issue 41, points 8 and 10): a hook set up by hand
// at the spec's path, POST /codehost/webhooks without ?repository=, is
// located by the payload's repository.full_name and checked with that
// repository's secret: of two organizations tracking octo/models, the one
// whose secret signs the delivery gets it, and its .monitor.yml with
// model_type neural_network registers the model. A name no one tracks
// and a signature no secret makes answer alike, recording nothing.
func TestCodehostSpecPath(t *testing.T) {
	f := newForge(t)
	f.addRepo("octo", "models", true, true)
	const sha = "5c1e0c2a4d8f5eaf1f6ba5c57fc3c7d91ac0fd1c"
	f.setFiles(sha, map[string]string{".monitor.yml": specMonitorFile, "models/vision.pt": "\x80\x02"})
	eachBackend(t, f.config, func(t *testing.T, s *server) {
		admin, other := s.admin(), s.signUp("hookother")
		otherRepo, _ := hookRepo(t, s, f, other, nil)
		repo, secret := hookRepo(t, s, f, admin, nil)
		payload := push("main", sha, "models/vision.pt", ".monitor.yml")
		payload["repository"] = map[string]any{"id": 1296269, "full_name": "octo/models"}
		body, err := json.Marshal(payload)
		if err != nil {
			t.Fatal(err)
		}
		send := func(body []byte, secret string) response {
			return s.delivery("", string(body), map[string]string{webhook.SignatureHeader: webhook.Sign([]byte(secret), body),
				webhook.DeliveryHeader: uuid.NewString(), webhook.EventHeader: "push"})
		}
		refused := func(r response) string {
			t.Helper()
			r.wantError(t, 401, "AUTHENTICATION_FAILED")
			return r.str("error.message")
		}
		unknown := map[string]any{"ref": "refs/heads/main", "repository": map[string]any{"id": 1, "full_name": "octo/unknown"}}
		unknownBody, _ := json.Marshal(unknown)
		if a, b := refused(send(unknownBody, secret)), refused(send(body, "guess")); a != b {
			t.Errorf("got %q for an unknown repository and %q for a bad signature, want one answer", a, b)
		}
		id := send(body, secret).want(t, 202).str("delivery_id")
		waitFor(t, "the delivery processed", func() bool {
			return outcomes(t, s, admin, repo)[id]["status"] == "processed"
		})
		if n := len(outcomes(t, s, other, otherRepo)); n != 0 {
			t.Errorf("got %d deliveries for the other organization's octo/models, want none", n)
		}
		versions := s.do("GET", "/models/vision/versions", admin, nil).want(t, 200).list
		if len(versions) != 1 || versions[0].(map[string]any)["model_type"] != "neural_network" {
			t.Fatalf("got versions %v, want one neural_network model registered", versions)
		}
		if n := len(s.do("GET", "/models/vision/versions", other, nil).list); n != 0 {
			t.Errorf("got %d versions for the other organization, want none", n)
		}
	})
}
