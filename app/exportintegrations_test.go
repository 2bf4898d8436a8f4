package app

import (
	"strings"
	"testing"

	"github.com/vigilhq/vigil/platform/testenv"
)

// TestExportIntegrations: delivery integrations keep their secrets
// sealed (the stored row holds no clear text) and answer them masked; a
// PUT without secrets keeps them; each type takes its own settings and
// secrets (422 naming the field); network targets pass the outbound
// guard.
func TestExportIntegrations(t *testing.T) {
	eachBackend(t, nil, func(t *testing.T, s *server) {
		admin := s.admin()
		viewer := s.user(admin, "vivian", "viewer")
		secret := "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
		bucket := map[string]any{"name": "audit bucket", "type": "s3",
			"settings": map[string]any{"endpoint": "https://s3.example.com", "bucket": "reports", "region": "eu-west-1"},
			"secrets":  map[string]any{"access_key_id": "AKIAIOSFODNN7EXAMPLE", "secret_access_key": secret}}
		created := s.do("POST", "/export/integrations", admin, bucket).want(t, 201)
		id := created.str("id")
		if strings.Contains(string(created.raw), secret) || created.str("secrets.secret_access_key") != "****EKEY" ||
			created.str("settings.bucket") != "reports" {
			t.Fatalf("got %s, want the settings and the secrets masked", created.raw)
		}
		var sealed string
		if err := s.app.store.SQL().QueryRow(s.app.store.Rebind(`SELECT secrets FROM export_integrations WHERE id = ?`), id).Scan(&sealed); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(sealed, secret) || strings.Contains(sealed, "AKIA") || sealed == "" {
			t.Fatalf("got stored secrets %q, want them sealed", sealed)
		}
		renamed := map[string]any{"name": "renamed", "type": "s3", "settings": bucket["settings"]}
		if r := s.do("PUT", "/export/integrations/"+id, admin, renamed).want(t, 200); r.str("name") != "renamed" ||
			r.str("secrets.secret_access_key") != "****EKEY" {
			t.Fatalf("got %s, want the secrets kept", r.raw)
		}
		s.do("PUT", "/export/integrations/"+id, admin, map[string]any{"name": "hook", "type": "webhook",
			"settings": map[string]any{"url": "https://hooks.example.com/vigil"}}).wantField(t, "secrets.signing_secret")
		if list := s.do("GET", "/export/integrations", viewer, nil).want(t, 200); list.at("total") != 1.0 || strings.Contains(string(list.raw), secret) {
			t.Fatalf("got %s, want the one integration, masked", list.raw)
		}

		hostKey, privateKey := testenv.NewSSHKey(t)
		s.do("POST", "/export/integrations", admin, map[string]any{"name": "files", "type": "sftp", "settings": map[string]any{
			"host": "sftp.example.com", "username": "vigil", "host_key": hostKey}, "secrets": map[string]any{"private_key": privateKey}}).want(t, 201)
		for _, c := range []struct {
			body  map[string]any
			field string
		}{
			{map[string]any{"name": "hook", "type": "webhook", "settings": map[string]any{"url": "http://127.1/x"},
				"secrets": map[string]any{"signing_secret": "0123456789abcdef"}}, "settings.url"},
			{map[string]any{"name": "hook", "type": "webhook", "settings": map[string]any{"url": "http://169.254.169.254/latest"},
				"secrets": map[string]any{"signing_secret": "0123456789abcdef"}}, "settings.url"},
			{map[string]any{"name": "files", "type": "sftp", "settings": map[string]any{"host": "0x7f000001", "username": "vigil",
				"host_key": "ssh-ed25519 AAAA"}, "secrets": map[string]any{"private_key": strings.Repeat("k", 40)}}, "settings.host"},
			{map[string]any{"name": "files", "type": "sftp", "settings": map[string]any{"host": "sftp.example.com", "username": "vigil",
				"host_key": "ssh-ed25519 not-a-key"}, "secrets": map[string]any{"private_key": privateKey}}, "settings.host_key"},
			{map[string]any{"name": "files", "type": "sftp", "settings": map[string]any{"host": "sftp.example.com", "username": "vigil",
				"host_key": hostKey}, "secrets": map[string]any{"private_key": strings.Repeat("k", 40)}}, "secrets.private_key"},
			{map[string]any{"name": "mail", "type": "email", "settings": map[string]any{"recipients": []string{"a@example.com"},
				"url": "https://example.com"}}, "settings.url"},
			{map[string]any{"name": "mail", "type": "email", "settings": map[string]any{"recipients": []string{}}}, "settings.recipients"},
			{map[string]any{"name": "api", "type": "api", "secrets": map[string]any{"private_key": strings.Repeat("k", 40)}}, "secrets.private_key"},
			{map[string]any{"name": "bucket", "type": "s3", "settings": map[string]any{"endpoint": "https://s3.example.com",
				"bucket": "reports"}}, "secrets.access_key_id"},
		} {
			s.do("POST", "/export/integrations", admin, c.body).wantField(t, c.field)
		}
		s.do("POST", "/export/integrations", viewer, bucket).wantError(t, 403, "INSUFFICIENT_PERMISSIONS")
		s.do("DELETE", "/export/integrations/"+id, admin, nil).want(t, 204)
		s.do("GET", "/export/integrations/"+id, admin, nil).wantError(t, 404, "NOT_FOUND")
	})
}
