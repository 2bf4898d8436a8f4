package app

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vigilhq/vigil/export"
	"github.com/vigilhq/vigil/export/share"
	"github.com/vigilhq/vigil/platform/config"
	"github.com/vigilhq/vigil/platform/testenv"
)

// s3Files points cfg's export files at a bucket "exports" of a new
// versitygw (started by the test: the test may stop it), under a prefix.
func s3Files(t *testing.T, cfg *config.Config) *testenv.S3Server {
	t.Helper()
	gw := testenv.StartS3(t, "exports")
	cfg.ExportS3 = config.ExportS3{Endpoint: gw.Endpoint, Bucket: "exports", Prefix: "vigil/", Region: gw.Region,
		AccessKeyID: gw.AccessKey, SecretAccessKey: gw.SecretKey, PathStyle: true}
	return gw
}

// bucketFiles lists the objects of the gateway's bucket.
func bucketFiles(t *testing.T, gw *testenv.S3Server) []string {
	t.Helper()
	var names []string
	err := filepath.WalkDir(filepath.Join(gw.Root, "exports"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			names = append(names, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return names
}

// TestExportFilesS3 (issue 17 point 6): with VIGIL_EXPORT_S3_* set,
// generated files live in the bucket (a real S3 server, versitygw), not
// the data folder: the download, a share's download and a delivery that
// posts the file all read the object, byte for byte.
func TestExportFilesS3(t *testing.T) {
	for _, p := range pipelines {
		t.Run(p.name, func(t *testing.T) {
			cfg := p.cfg(t)
			gw := s3Files(t, &cfg)
			smtp := testenv.StartSMTP(t)
			cfg.SMTP = config.SMTP{Addr: smtp.Addr, From: "vigil@example.com", CAFile: smtp.CAFile, RequireTLS: true}
			cfg.OutboundAllow = []string{"127.0.0.1"}
			hook := newHookReceiver(t)
			s := start(t, cfg)
			admin := s.admin()
			model := s.model(admin, "churn", "1")
			webhook := s.do("POST", "/export/integrations", admin, map[string]any{"name": "archive", "type": "webhook",
				"settings": map[string]any{"url": hook.URL + "/vigil"}, "secrets": map[string]any{"signing_secret": "whsec-0123456789abcdef"}}).
				want(t, 201).str("id")
			day := time.Now().UTC().Format(time.DateOnly)
			id := s.do("POST", "/export/exports", admin, map[string]any{"template_id": export.Builtins()[0].ID, "model_ids": []string{model},
				"format": "pdf", "start": day, "end": day, "deliveries": []string{webhook}}).want(t, 202).str("export_id")
			if r := s.exportDone(t, admin, id); r.str("status") != export.StatusCompleted {
				t.Fatalf("got %s, want the export completed", r.raw)
			}
			file := s.do("GET", "/export/exports/"+id+"/download", admin, nil).want(t, 200).raw
			if got := gw.Object(t, "exports", "vigil/"+id+".pdf"); !bytes.Equal(got, file) || !bytes.HasPrefix(file, []byte("%PDF-")) {
				t.Errorf("got %d bytes in the bucket, want the %d of the PDF downloaded", len(got), len(file))
			}
			if left, _ := filepath.Glob(filepath.Join(cfg.DataDir, "exports", id+"*")); len(left) > 0 {
				t.Errorf("got %v in the data folder, want the file in the bucket only", left)
			}

			// The delivery posts the object's bytes.
			if got := s.deliveryOutcomes(t, admin, id, 1)[webhook]; got != "sent: " {
				t.Errorf("got delivery %q, want sent", got)
			}
			if got, _ := hook.got(); !bytes.Equal(got, file) {
				t.Errorf("got %d bytes posted, want the export's %d", len(got), len(file))
			}

			// A share's download reads the object.
			slug := s.do("POST", "/export/exports/"+id+"/share", admin, map[string]any{"recipient_email": "auditor@example.com"}).
				want(t, 201).str("share_slug")
			s.do("POST", "/share/"+slug+"/passcode", "", nil).want(t, 202)
			waitFor(t, "the passcode mailed", func() bool { return len(smtp.Messages(t)) == 1 })
			code := passcodeLine.FindStringSubmatch(smtp.Messages(t)[0])
			if code == nil {
				t.Fatalf("got mail %s, want a passcode", smtp.Messages(t)[0])
			}
			token := s.do("POST", "/share/"+slug+"/verify", "", map[string]any{"passcode": code[1]}).want(t, 200).str("download_token")
			req, err := http.NewRequest("GET", s.base+"/share/"+slug+"/download", nil)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set(share.TokenHeader, token)
			if got := s.send(req).want(t, 200).raw; !bytes.Equal(got, file) {
				t.Errorf("got %d bytes through the share, want the export's %d", len(got), len(file))
			}

			// The object gone from the bucket: 404, not an empty 200.
			if err := os.Remove(filepath.Join(gw.Root, "exports", "vigil", id+".pdf")); err != nil {
				t.Fatal(err)
			}
			s.do("GET", "/export/exports/"+id+"/download", admin, nil).wantError(t, 404, "NOT_FOUND")
		})
	}
}

// TestExportFilesS3Outage: the bucket's server stopped, a new export
// fails with a reason that says to ask again, never completed without its
// file; a completed export's download answers 503, not 404.
func TestExportFilesS3Outage(t *testing.T) {
	for _, p := range pipelines {
		t.Run(p.name, func(t *testing.T) {
			cfg := p.cfg(t)
			gw := s3Files(t, &cfg)
			s := start(t, cfg)
			admin := s.admin()
			done := s.sharedExport(t, admin)
			gw.Stop(t)
			model := s.model(admin, "fraud", "1")
			day := time.Now().UTC().Format(time.DateOnly)
			id := s.do("POST", "/export/exports", admin, map[string]any{"template_id": export.Builtins()[0].ID, "model_ids": []string{model},
				"format": "csv", "start": day, "end": day}).want(t, 202).str("export_id")
			r := s.exportDone(t, admin, id)
			if r.str("status") != export.StatusFailed || !strings.Contains(r.str("error"), "ask for the export again") ||
				r.at("size_bytes") != 0.0 || r.str("sha256") != "" {
				t.Errorf("got %s, want the export failed with a reason to ask again and no file", r.raw)
			}
			s.do("GET", "/export/exports/"+id+"/download", admin, nil).wantError(t, 409, "RESOURCE_CONFLICT")
			s.do("GET", "/export/exports/"+done+"/download", admin, nil).wantError(t, 503, "SERVICE_UNAVAILABLE")
			if left, _ := filepath.Glob(filepath.Join(cfg.DataDir, "exports", "*")); len(left) > 0 {
				t.Errorf("got %v left in the scratch folder, want nothing", left)
			}
		})
	}
}

// TestExportFilesS3Retention: past the retention the runner deletes the
// export's object from the bucket and marks the export expired.
func TestExportFilesS3Retention(t *testing.T) {
	// The gateway starts in eachBackend's tweak, on t: skipped (or failed
	// under CI) here, before any subtest, when it is missing.
	testenv.URL(t, testenv.VersityGW)
	var gw *testenv.S3Server
	eachBackend(t, func(c *config.Config) {
		gw = s3Files(t, c)
		c.ExportRetention = time.Millisecond
	}, func(t *testing.T, s *server) {
		admin := s.admin()
		id := s.expiredExport(t, admin)
		if left := bucketFiles(t, gw); len(left) > 0 {
			t.Errorf("got objects %v left in the bucket, want the expired export's deleted", left)
		}
		s.do("GET", "/export/exports/"+id+"/download", admin, nil).wantError(t, 409, "RESOURCE_CONFLICT")
	})
}
