package app

import (
	"crypto/rand"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/vigilhq/vigil/integrations/codehost/hostapi"
	"github.com/vigilhq/vigil/integrations/codehost/webhook"
	"github.com/vigilhq/vigil/platform/config"
	"github.com/vigilhq/vigil/platform/secretbox"
)

const monitorFile = `version: "1.0"
github:
  auto_register: true
models:
  - path: "models/*.pkl"
    name: churn
    framework: sklearn
    model_type: classification
    features: [age, tenure]
    target_variable: churned
    tags: [churn, tabular]
`

// hookRepo connects a token, tracks octo/models and sets up its webhook
// on the forge; it returns the repository's id and the hook's secret.
func hookRepo(t *testing.T, s *server, f *forge, admin string, options map[string]any) (string, string) {
	t.Helper()
	token := "ghp_" + rand.Text()
	f.set(token, "repo, read:org")
	conn := s.do("POST", "/codehost/connect/pat", admin, map[string]any{"personal_access_token": token}).want(t, 201).str("id")
	body := map[string]any{"connection_id": conn, "owner": "octo", "name": "models"}
	for k, v := range options {
		body[k] = v
	}
	id := s.do("POST", "/codehost/repositories/track", admin, body).want(t, 201).str("id")
	s.do("POST", "/codehost/repositories/"+id+"/webhook", admin, nil).want(t, 200)
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, h := range f.hooks {
		if strings.HasSuffix(h.URL, "repository="+id) {
			return id, h.Secret
		}
	}
	t.Fatal("no hook on the forge")
	return "", ""
}

// hook posts event as the forge would, signed with secret; it returns
// the delivery id.
func (s *server) hook(t *testing.T, repo, secret, event string, payload any) string {
	t.Helper()
	b, err := json.Marshal(payload)
	if err != nil {
		t.Fatal(err)
	}
	id := uuid.NewString()
	s.delivery(repo, string(b), map[string]string{webhook.SignatureHeader: webhook.Sign([]byte(secret), b),
		webhook.DeliveryHeader: id, webhook.EventHeader: event}).want(t, 202)
	return id
}

func push(branch, sha string, files ...string) map[string]any {
	return map[string]any{"ref": "refs/heads/" + branch, "after": sha, "commits": []map[string]any{{"added": files, "modified": []string{}}}}
}

// outcomes returns the repository's deliveries by id.
func outcomes(t *testing.T, s *server, admin, repo string) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	for _, d := range s.do("GET", "/codehost/repositories/"+repo+"/deliveries", admin, nil).want(t, 200).at("deliveries").([]any) {
		m := d.(map[string]any)
		out[m["delivery_id"].(string)] = m
	}
	return out
}

// TestCodehostPushRegisters: with the processor role running, pushing a
// .pkl and a .monitor.yml to a tracked repository registers the model
// version by itself, with what the file says.
func TestCodehostPushRegisters(t *testing.T) {
	f := newForge(t)
	f.addRepo("octo", "models", true, true)
	const sha = "0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c"
	f.setFiles(sha, map[string]string{".monitor.yml": monitorFile, "models/churn.pkl": "\x80\x04"})
	eachBackend(t, f.config, func(t *testing.T, s *server) {
		admin := s.admin()
		repo, secret := hookRepo(t, s, f, admin, nil)
		id := s.hook(t, repo, secret, "push", push("main", sha, "models/churn.pkl", ".monitor.yml"))
		// The delivery is processed once its outcome and the counters are
		// stored, after the version is.
		waitFor(t, "the delivery processed", func() bool {
			return outcomes(t, s, admin, repo)[id]["status"] == "processed"
		})
		versions := s.do("GET", "/models/churn/versions", admin, nil).want(t, 200).list
		if len(versions) != 1 {
			t.Fatalf("got %d versions of churn, want 1", len(versions))
		}
		m := versions[0].(map[string]any)
		if m["version"] != sha[:12] || m["framework"] != "sklearn" || m["model_type"] != "classification" {
			t.Errorf("got %v, want version %s of an sklearn classifier", m, sha[:12])
		}
		if r := s.do("GET", "/codehost/repositories/"+repo, admin, nil); r.at("total_models_registered") != float64(1) ||
			r.at("total_commits_processed") != float64(1) {
			t.Errorf("got %s, want one commit processed and one model registered", r.raw)
		}
	})
}

// TestCodehostEvents: the processor (driven here, the API running alone)
// registers from push, tag creation and release publication, skips
// untracked branches, logs for review what auto-register or .monitor.yml
// leaves out, reports an invalid .monitor.yml, and retries a delivery
// whose processing fails (the forge down) with backoff until it succeeds.
func TestCodehostEvents(t *testing.T) {
	f := newForge(t)
	f.addRepo("octo", "models", true, true)
	eachBackend(t, func(c *config.Config) {
		f.config(c)
		c.Roles = []string{config.RoleAPI}
	}, func(t *testing.T, s *server) {
		admin := s.admin()
		repo, secret := hookRepo(t, s, f, admin, map[string]any{"tracked_branches": []string{"main"}})
		box, _, err := secretbox.Load(s.app.cfg.MasterKey, s.app.cfg.MasterKeyFile)
		if err != nil {
			t.Fatal(err)
		}
		now := time.Now()
		p := &webhook.Processor{Queue: s.app.store, Repos: s.app.store, Models: s.app.store, Box: box,
			Host: &hostapi.GitHub{BaseURL: f.srv.URL + "/"}, Clock: func() time.Time { return now }, Backoff: time.Minute, MaxAttempts: 3}
		drain := func(want int) {
			t.Helper()
			n, err := p.Drain(t.Context())
			if err != nil || n != want {
				t.Fatalf("Drain: got %d, %v, want %d finished", n, err, want)
			}
		}
		const good, bad, notag = "1111111111111111111111111111111111111111", "2222222222222222222222222222222222222222", "3333333333333333333333333333333333333333"
		f.setFiles(good, map[string]string{".monitor.yml": monitorFile, "models/churn.pkl": "x"})
		f.setFiles(bad, map[string]string{".monitor.yml": "version: \"2.0\"\nmodels:\n  - path: models/*.pkl\n", "models/churn.pkl": "x"})
		f.setFiles(notag, map[string]string{"models/churn.pkl": "x"})
		f.setFiles("v1.0.0", map[string]string{".monitor.yml": monitorFile, "models/churn.pkl": "x", "README.md": "x"})
		f.setFiles("v2.0.0", map[string]string{".monitor.yml": monitorFile, "models/churn.pkl": "x"})

		pushed := s.hook(t, repo, secret, "push", push("main", good, "models/churn.pkl", "README.md"))
		elsewhere := s.hook(t, repo, secret, "push", push("feature", good, "models/churn.pkl"))
		invalid := s.hook(t, repo, secret, "push", push("main", bad, "models/churn.pkl"))
		bare := s.hook(t, repo, secret, "push", push("main", notag, "models/churn.pkl"))
		tag := s.hook(t, repo, secret, "create", map[string]any{"ref": "v1.0.0", "ref_type": "tag"})
		release := s.hook(t, repo, secret, "release", map[string]any{"action": "published", "release": map[string]any{"tag_name": "v2.0.0"}})
		drafted := s.hook(t, repo, secret, "release", map[string]any{"action": "created", "release": map[string]any{"tag_name": "v3.0.0"}})
		drain(7)
		drain(0)

		got := outcomes(t, s, admin, repo)
		outcome := func(id string) map[string]any {
			t.Helper()
			d := got[id]
			if d["status"] != "processed" {
				t.Fatalf("delivery %s: got %v, want processed", id, d)
			}
			return d["outcome"].(map[string]any)
		}
		if o := outcome(pushed); len(o["registered"].([]any)) != 1 || o["version"] != good[:12] || len(o["files"].([]any)) != 1 {
			t.Errorf("push: got %v, want churn registered as %s", o, good[:12])
		}
		if o := outcome(elsewhere); o["skipped"] != "branch feature is not tracked" {
			t.Errorf("push to feature: got %v, want skipped", o)
		}
		if o := outcome(invalid); len(o["config_problems"].([]any)) == 0 || len(o["registered"].([]any)) != 0 || len(o["review"].([]any)) != 1 {
			t.Errorf("invalid .monitor.yml: got %v, want its problems reported and the file logged for review", o)
		}
		if o := outcome(bare); len(o["review"].([]any)) != 1 || !strings.Contains(o["review"].([]any)[0].(map[string]any)["reason"].(string), ".monitor.yml") {
			t.Errorf("no .monitor.yml: got %v, want the file logged for review", o)
		}
		if o := outcome(tag); len(o["registered"].([]any)) != 1 || o["version"] != "v1.0.0" {
			t.Errorf("tag: got %v, want churn registered as v1.0.0", o)
		}
		if o := outcome(release); len(o["registered"].([]any)) != 1 || o["version"] != "v2.0.0" {
			t.Errorf("release: got %v, want churn registered as v2.0.0", o)
		}
		if o := outcome(drafted); o["skipped"] == "" {
			t.Errorf("release created, not published: got %v, want skipped", o)
		}
		versions := s.do("GET", "/models/churn/versions", admin, nil).want(t, 200).list
		if len(versions) != 3 {
			t.Fatalf("got %d versions of churn, want 3 (commit, v1.0.0, v2.0.0)", len(versions))
		}
		m := s.do("GET", "/models/"+versions[0].(map[string]any)["id"].(string), admin, nil).want(t, 200)
		if m.str("target_variable") != "churned" || len(m.at("features").([]any)) != 2 || len(m.at("tags").([]any)) != 2 ||
			m.str("owner_id") != s.do("GET", "/auth/me", admin, nil).str("user.id") {
			t.Errorf("got %s, want the features, target and tags of .monitor.yml, owned by who tracked the repository", m.raw)
		}

		// The forge fails: the delivery is retried after the backoff,
		// not lost, and succeeds once the forge is back.
		const later = "4444444444444444444444444444444444444444"
		f.setFiles(later, map[string]string{".monitor.yml": monitorFile, "models/churn.pkl": "x"})
		f.mu.Lock()
		f.down = true
		f.mu.Unlock()
		retried := s.hook(t, repo, secret, "push", push("main", later, "models/churn.pkl"))
		drain(0)
		d := outcomes(t, s, admin, repo)[retried]
		if d["status"] != "received" || d["attempts"] != float64(1) || d["last_error"] == "" {
			t.Fatalf("got %v, want it queued again after one failed attempt, with the error", d)
		}
		drain(0) // not due before the backoff
		f.mu.Lock()
		f.down = false
		f.mu.Unlock()
		now = now.Add(time.Minute)
		drain(1)
		if d := outcomes(t, s, admin, repo)[retried]; d["status"] != "processed" || d["attempts"] != float64(2) {
			t.Fatalf("got %v, want it processed at the second attempt", d)
		}
		// A repeated delivery id changes nothing.
		if r := s.do("GET", "/codehost/repositories/"+repo, admin, nil); r.at("total_models_registered") != float64(4) {
			t.Errorf("got %s, want 4 models registered", r.raw)
		}
	})
}
