package app

import (
	"bytes"
	"net/mail"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/vigilhq/vigil/export"
	"github.com/vigilhq/vigil/platform/config"
	"github.com/vigilhq/vigil/platform/testenv"
)

// TestReportRecipients: a scheduled report's recipients get the report
// by e-mail (through a real SMTP server), and a configuration's delivery
// entries are carried out when it runs (email to its recipients, a
// webhook through the integration it names, download); each delivery is
// listed with its outcome. An entry that needs an integration and names
// none, or one of another type, answers 422 naming it; another
// organization's integration 404.
func TestReportRecipients(t *testing.T) {
	for _, p := range pipelines {
		t.Run(p.name, func(t *testing.T) {
			cfg := p.cfg(t)
			smtp, hook := testenv.StartSMTP(t), newHookReceiver(t)
			cfg.OutboundAllow = []string{"127.0.0.1"}
			cfg.SMTP = config.SMTP{Addr: smtp.Addr, From: "vigil@example.com", CAFile: smtp.CAFile, RequireTLS: true}
			s := start(t, cfg)
			admin := s.admin()
			model := s.model(admin, "churn", "1")

			body := map[string]any{"name": "weekly", "template_id": export.Builtins()[0].ID, "format": "csv",
				"cron_expression": "0 9 * * 1", "model_ids": []string{model}, "recipients": []string{"cfo@example.com", "risk@example.com"}}
			id := s.do("POST", "/export/scheduled-reports", admin, body).want(t, 201).str("id")
			exportID := s.do("POST", "/export/scheduled-reports/"+id+"/run", admin, nil).want(t, 202).str("export_id")
			s.exportDone(t, admin, exportID)
			if status := s.deliveryOutcomes(t, admin, exportID, 1); status["email"] != "sent: " {
				t.Fatalf("got the schedule's deliveries %v, want the e-mail to its recipients sent", status)
			}
			d := s.do("GET", "/export/exports/"+exportID+"/deliveries", admin, nil).want(t, 200).at("deliveries").([]any)[0].(map[string]any)
			if d["integration_id"] != nil || d["method"] != "email" || len(d["recipients"].([]any)) != 2 {
				t.Errorf("got the delivery %v, want an email to the two recipients without an integration", d)
			}
			if got := mailedTo(t, smtp); !slices.Equal(got, []string{"cfo@example.com", "risk@example.com"}) {
				t.Errorf("got mails to %v, want one to each recipient", got)
			}
			testConfigDelivery(t, s, smtp, hook, model)
		})
	}
}

// testConfigDelivery: a configuration's delivery entries are carried out
// when it runs.
func testConfigDelivery(t *testing.T, s *server, smtp *testenv.SMTPServer, hook *hookReceiver, model string) {
	admin := s.admin()
	webhook := s.do("POST", "/export/integrations", admin, map[string]any{"name": "archive", "type": "webhook",
		"settings": map[string]any{"url": hook.URL + "/vigil"}, "secrets": map[string]any{"signing_secret": "whsec-0123456789abcdef"}}).
		want(t, 201).str("id")
	mailbox := s.do("POST", "/export/integrations", admin, map[string]any{"name": "mailbox", "type": "email",
		"settings": map[string]any{"recipients": []string{"box@example.com"}}}).want(t, 201).str("id")
	cfg := configBody(model)
	cfg["format"] = "json"
	for _, c := range []struct {
		entry  map[string]any
		status int
		field  string
	}{
		{map[string]any{"method": "webhook"}, 422, "delivery[2].integration_id"},
		{map[string]any{"method": "webhook", "integration_id": mailbox}, 422, "delivery[2].integration_id"},
		{map[string]any{"method": "webhook", "integration_id": uuid.NewString()}, 404, ""},
	} {
		cfg["delivery"] = []map[string]any{{"method": "email", "recipients": []string{"audit@example.com"}}, {"method": "download"}, c.entry}
		if c.status == 404 {
			s.do("POST", "/export/configs", admin, cfg).wantError(t, 404, "NOT_FOUND")
		} else {
			s.do("POST", "/export/configs", admin, cfg).wantField(t, c.field)
		}
	}
	cfg["delivery"] = []map[string]any{{"method": "email", "recipients": []string{"audit@example.com"}}, {"method": "download"},
		{"method": "webhook", "integration_id": webhook}}
	config := s.do("POST", "/export/configs", admin, cfg).want(t, 201).str("id")
	run := s.do("POST", "/export/configs/"+config+"/run", admin, nil).want(t, 202).str("export_id")
	s.exportDone(t, admin, run)
	status := s.deliveryOutcomes(t, admin, run, 3)
	if status["email"] != "sent: " || status["download"] != "sent: " || status[webhook] != "sent: " {
		t.Errorf("got the configuration's deliveries %v, want its email, download and webhook entries sent", status)
	}
	file := s.do("GET", "/export/exports/"+run+"/download", admin, nil).want(t, 200).raw
	if got, _ := hook.got(); !bytes.Equal(got, file) {
		t.Errorf("got %d bytes posted to the webhook, want the export's %d", len(got), len(file))
	}
	if got := mailedTo(t, smtp); !slices.Contains(got, "audit@example.com") {
		t.Errorf("got mails to %v, want one to the configuration's recipient", got)
	}
}

// mailedTo lists the To address of every mail the server received, in
// order.
func mailedTo(t *testing.T, smtp *testenv.SMTPServer) []string {
	t.Helper()
	var out []string
	for _, m := range smtp.Messages(t) {
		msg, err := mail.ReadMessage(strings.NewReader(m))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, msg.Header.Get("To"))
	}
	slices.Sort(out)
	return out
}
