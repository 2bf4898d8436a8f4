package app

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/vigilhq/vigil/export"
	"github.com/vigilhq/vigil/platform/config"
)

// expiredExport asks for an export and waits until the runner has
// expired it (the server's retention is short): its id.
func (s *server) expiredExport(t *testing.T, admin string) string {
	t.Helper()
	model := s.model(admin, "churn", "1")
	id := s.do("POST", "/export/exports", admin, map[string]any{"template_id": export.Builtins()[0].ID, "model_ids": []string{model},
		"format": "csv", "start": "2026-01-01", "end": "2026-01-07"}).want(t, 202).str("export_id")
	waitFor(t, "the export expired", func() bool {
		return s.do("GET", "/export/exports/"+id, admin, nil).want(t, 200).str("status") == export.StatusExpired
	})
	return id
}

// TestExportRetention (issue 17 point 8): past VIGIL_EXPORT_RETENTION a
// completed export's file is removed by the runner and its status says
// expired; it is listed under that status, and neither downloaded nor
// shared any more.
func TestExportRetention(t *testing.T) {
	eachBackend(t, func(c *config.Config) { c.ExportRetention = time.Millisecond }, func(t *testing.T, s *server) {
		admin := s.admin()
		id := s.expiredExport(t, admin)
		if left, _ := filepath.Glob(filepath.Join(s.app.cfg.DataDir, "exports", id+"*")); len(left) > 0 {
			t.Errorf("got files %v left of the expired export, want none", left)
		}
		if _, err := os.Stat(filepath.Join(s.app.cfg.DataDir, "exports")); err != nil {
			t.Errorf("got the exports folder gone (%v), want it kept", err)
		}
		list := s.do("GET", "/export/exports?status=expired", admin, nil).want(t, 200)
		if got, _ := list.at("exports").([]any); list.at("total") != 1.0 || len(got) != 1 || got[0].(map[string]any)["export_id"] != id {
			t.Errorf("got %s, want the expired export listed", list.raw)
		}
		s.do("GET", "/export/exports/"+id+"/download", admin, nil).wantError(t, 409, "RESOURCE_CONFLICT")
		s.do("POST", "/export/exports/"+id+"/share", admin, map[string]any{"recipient_email": "auditor@example.com"}).
			wantError(t, 409, "RESOURCE_CONFLICT")
	})
}
