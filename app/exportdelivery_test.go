package app

import (
	"bytes"
	"encoding/base64"
	"mime"
	"mime/multipart"
	"net/mail"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/vigilhq/vigil/alerts/channels"
	"github.com/vigilhq/vigil/export"
	"github.com/vigilhq/vigil/platform/config"
	"github.com/vigilhq/vigil/platform/testenv"
)

// TestScheduledDelivery: a schedule's export goes to every integration
// it names once completed: attached to an e-mail (through a real SMTP
// server), posted to a signed webhook, put in a bucket of a real
// S3-compatible server (versitygw), written to a real SFTP server
// (OpenSSH) whose host key is pinned, left for the API; an SFTP server
// whose host key is not the pinned one is refused at once; every outcome
// is listed with the export.
func TestScheduledDelivery(t *testing.T) {
	for _, p := range pipelines {
		t.Run(p.name, func(t *testing.T) {
			cfg := p.cfg(t)
			targets := deliveryTargets{hook: newHookReceiver(t), smtp: testenv.StartSMTP(t), s3: testenv.StartS3(t, "reports"),
				sftp: testenv.StartSFTP(t)}
			cfg.OutboundAllow = []string{"127.0.0.1"}
			cfg.SMTP = config.SMTP{Addr: targets.smtp.Addr, From: "vigil@example.com", CAFile: targets.smtp.CAFile, RequireTLS: true}
			testScheduledDelivery(t, start(t, cfg), targets)
		})
	}
}

// deliveryTargets are the real servers an export is delivered to.
type deliveryTargets struct {
	hook *hookReceiver
	smtp *testenv.SMTPServer
	s3   *testenv.S3Server
	sftp *testenv.SFTPServer
}

func testScheduledDelivery(t *testing.T, s *server, to deliveryTargets) {
	hook, smtp := to.hook, to.smtp
	admin := s.admin()
	model := s.model(admin, "churn", "1")
	secret := "whsec-0123456789abcdef"
	integration := func(body map[string]any) string {
		return s.do("POST", "/export/integrations", admin, body).want(t, 201).str("id")
	}
	email := integration(map[string]any{"name": "auditors", "type": "email", "settings": map[string]any{"recipients": []string{"auditor@example.com"}}})
	webhook := integration(map[string]any{"name": "archive", "type": "webhook", "settings": map[string]any{"url": hook.URL + "/vigil"},
		"secrets": map[string]any{"signing_secret": secret}})
	api := integration(map[string]any{"name": "api", "type": "api"})
	bucket := integration(map[string]any{"name": "bucket", "type": "s3", "settings": map[string]any{"endpoint": to.s3.Endpoint,
		"bucket": "reports", "prefix": "/vigil/weekly/", "region": to.s3.Region, "path_style": true},
		"secrets": map[string]any{"access_key_id": to.s3.AccessKey, "secret_access_key": to.s3.SecretKey}})
	sftpSettings := func(hostKey string) map[string]any {
		return map[string]any{"host": to.sftp.Host, "port": to.sftp.Port, "username": to.sftp.User, "directory": to.sftp.Dir,
			"host_key": hostKey}
	}
	files := integration(map[string]any{"name": "files", "type": "sftp", "settings": sftpSettings(to.sftp.HostKey),
		"secrets": map[string]any{"private_key": to.sftp.PrivateKey}})
	otherKey, _ := testenv.NewSSHKey(t)
	impostor := integration(map[string]any{"name": "impostor", "type": "sftp", "settings": sftpSettings(otherKey),
		"secrets": map[string]any{"private_key": to.sftp.PrivateKey}})
	body := map[string]any{"name": "weekly", "template_id": export.Builtins()[0].ID, "format": "csv", "cron_expression": "0 9 * * 1",
		"model_ids": []string{model}, "integration_ids": []string{email, webhook, api, uuid.NewString()}}
	s.do("POST", "/export/scheduled-reports", admin, body).wantError(t, 404, "NOT_FOUND")
	body["integration_ids"] = []string{email, webhook, api, bucket, files, impostor}
	id := s.do("POST", "/export/scheduled-reports", admin, body).want(t, 201).str("id")
	exportID := s.do("POST", "/export/scheduled-reports/"+id+"/run", admin, nil).want(t, 202).str("export_id")
	s.exportDone(t, admin, exportID)
	file := s.do("GET", "/export/exports/"+exportID+"/download", admin, nil).want(t, 200).raw

	status := s.deliveryOutcomes(t, admin, exportID, 6)
	for id, want := range map[string]string{email: "sent: ", webhook: "sent: ", api: "sent: ", bucket: "sent: ", files: "sent: "} {
		if status[id] != want {
			t.Errorf("got delivery %q, want %q", status[id], want)
		}
	}
	if !strings.HasPrefix(status[impostor], "failed: ") || !strings.Contains(status[impostor], "host key is not the pinned one") {
		t.Errorf("got the delivery to a server with another host key %q, want it refused", status[impostor])
	}
	name := "vigil-" + export.Builtins()[0].ReportCategory + "-" + exportID + ".csv"
	if got := to.s3.Object(t, "reports", "vigil/weekly/"+name); !bytes.Equal(got, file) {
		t.Errorf("got %d bytes in the bucket, want the export's %d", len(got), len(file))
	}
	if got, err := os.ReadFile(filepath.Join(to.sftp.Dir, name)); err != nil || !bytes.Equal(got, file) {
		t.Errorf("got %d bytes on the SFTP server (%v), want the export's %d", len(got), err, len(file))
	}
	if left, _ := filepath.Glob(filepath.Join(to.sftp.Dir, "*.part")); len(left) > 0 {
		t.Errorf("got partial files %v left on the SFTP server, want none", left)
	}

	testDeliveredExport(t, s, to, model, bucket, files)

	// The mail carries the file, attached.
	msgs := smtp.Messages(t)
	if len(msgs) != 1 {
		t.Fatalf("got %d mails, want 1", len(msgs))
	}
	m, err := mail.ReadMessage(strings.NewReader(msgs[0]))
	if err != nil {
		t.Fatal(err)
	}
	_, params, err := mime.ParseMediaType(m.Header.Get("Content-Type"))
	if err != nil || m.Header.Get("To") != "auditor@example.com" {
		t.Fatalf("got headers %v (%v), want a multipart mail to the auditor", m.Header, err)
	}
	parts := multipart.NewReader(m.Body, params["boundary"])
	var attached []byte
	for {
		p, err := parts.NextPart()
		if err != nil {
			break
		}
		if p.FileName() != "" {
			var b bytes.Buffer
			_, _ = b.ReadFrom(base64.NewDecoder(base64.StdEncoding, p))
			attached = b.Bytes()
		}
	}
	if !bytes.Equal(attached, file) {
		t.Errorf("got %d bytes attached, want the export's %d", len(attached), len(file))
	}

	// The webhook got the file, signed.
	got, head := hook.got()
	if !bytes.Equal(got, file) {
		t.Errorf("got %d bytes posted, want the export's %d", len(got), len(file))
	}
	if err := channels.Verify([]byte(secret), got, head.Get(channels.HeaderTimestamp), head.Get(channels.HeaderSignature),
		time.Now(), 5*time.Minute); err != nil || head.Get(channels.HeaderEvent) != "export.completed" {
		t.Errorf("got headers %v: %v, want a valid signature of export.completed", head, err)
	}
}

// deliveryOutcomes waits until the n deliveries of the export are final
// and returns each destination's "status: error", keyed by the
// integration's id or, for a delivery that names none, its method.
func (s *server) deliveryOutcomes(t *testing.T, token, exportID string, n int) map[string]string {
	t.Helper()
	status := map[string]string{}
	waitFor(t, "every delivery final", func() bool {
		list := s.do("GET", "/export/exports/"+exportID+"/deliveries", token, nil).want(t, 200)
		for _, d := range list.at("deliveries").([]any) {
			m := d.(map[string]any)
			key, _ := m["integration_id"].(string)
			if key == "" {
				key = m["method"].(string)
			}
			status[key] = m["status"].(string) + ": " + m["error"].(string)
		}
		for _, st := range status {
			if strings.HasPrefix(st, "pending") {
				return false
			}
		}
		return len(status) == n
	})
	return status
}

// testDeliveredExport: one export asked for with deliveries goes to each
// integration it names once completed (an integration not the
// organization's: 404, one named twice: 422, nothing stored).
func testDeliveredExport(t *testing.T, s *server, to deliveryTargets, model, bucket, files string) {
	admin := s.admin()
	body := func(deliveries ...string) map[string]any {
		return map[string]any{"template_id": export.Builtins()[0].ID, "model_ids": []string{model}, "format": "json",
			"start": "2026-01-01", "end": "2026-01-30", "deliveries": deliveries}
	}
	before := s.do("GET", "/export/exports", admin, nil).want(t, 200).at("total")
	s.do("POST", "/export/exports", admin, body(bucket, uuid.NewString())).wantError(t, 404, "NOT_FOUND")
	s.do("POST", "/export/exports", admin, body(bucket, bucket)).wantField(t, "deliveries[1]")
	if after := s.do("GET", "/export/exports", admin, nil).want(t, 200).at("total"); after != before {
		t.Fatalf("got %v exports after two refused requests, want %v", after, before)
	}
	id := s.do("POST", "/export/exports", admin, body(bucket, files)).want(t, 202).str("export_id")
	s.exportDone(t, admin, id)
	file := s.do("GET", "/export/exports/"+id+"/download", admin, nil).want(t, 200).raw
	status := s.deliveryOutcomes(t, admin, id, 2)
	if status[bucket] != "sent: " || status[files] != "sent: " {
		t.Fatalf("got deliveries %v, want both sent", status)
	}
	name := "vigil-" + export.Builtins()[0].ReportCategory + "-" + id + ".json"
	if got := to.s3.Object(t, "reports", "vigil/weekly/"+name); !bytes.Equal(got, file) {
		t.Errorf("got %d bytes in the bucket, want the export's %d", len(got), len(file))
	}
	if got, err := os.ReadFile(filepath.Join(to.sftp.Dir, name)); err != nil || !bytes.Equal(got, file) {
		t.Errorf("got %d bytes on the SFTP server (%v), want the export's %d", len(got), err, len(file))
	}

	// A configuration run as an export: its template, sections, models,
	// format and date range as of today, delivered where the run says.
	cfg := configBody(model)
	cfg["format"], cfg["delivery"] = "markdown", []map[string]any{{"method": "download"}}
	config := s.do("POST", "/export/configs", admin, cfg).want(t, 201).str("id")
	s.do("POST", "/export/configs/"+uuid.NewString()+"/run", admin, nil).wantError(t, 404, "NOT_FOUND")
	s.do("POST", "/export/configs/"+config+"/run", admin, map[string]any{"deliveries": []string{uuid.NewString()}}).
		wantError(t, 404, "NOT_FOUND")
	run := s.do("POST", "/export/configs/"+config+"/run", admin, map[string]any{"deliveries": []string{bucket}}).want(t, 202)
	today := time.Now().UTC()
	if run.str("format") != "markdown" || run.str("end") != today.Format(time.DateOnly) ||
		run.str("start") != today.AddDate(0, 0, -29).Format(time.DateOnly) || run.str("template_id") != export.Builtins()[0].ID {
		t.Errorf("got the run %s, want the configuration's markdown report of the last 30 days", run.raw)
	}
	s.exportDone(t, admin, run.str("export_id"))
	if status := s.deliveryOutcomes(t, admin, run.str("export_id"), 2); status[bucket] != "sent: " || status["download"] != "sent: " {
		t.Errorf("got the run's deliveries %v, want it sent to the bucket and left for download", status)
	}
	md := string(s.do("GET", "/export/exports/"+run.str("export_id")+"/download", admin, nil).want(t, 200).raw)
	if !strings.Contains(md, "Trust score") || strings.Contains(md, "Daily metrics") {
		t.Errorf("got a report without the configuration's sections (trust score, executive summary only):\n%.600s", md)
	}
}
