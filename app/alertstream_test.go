package app

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vigilhq/vigil/alerts/channels"
	"github.com/vigilhq/vigil/platform/config"
	"github.com/vigilhq/vigil/platform/testenv"
)

// hookReceiver is a webhook receiver on loopback that keeps what it gets:
// the last request's body and headers, and every body.
type hookReceiver struct {
	*httptest.Server
	mu     sync.Mutex
	body   []byte
	head   http.Header
	bodies []string
}

func newHookReceiver(t *testing.T) *hookReceiver {
	h := &hookReceiver{}
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		h.mu.Lock()
		h.body, h.head = b, r.Header.Clone()
		h.bodies = append(h.bodies, string(b))
		h.mu.Unlock()
	}))
	t.Cleanup(h.Close)
	return h
}

func (h *hookReceiver) got() ([]byte, http.Header) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.body, h.head
}

// mentions counts the requests whose body names id.
func (h *hookReceiver) mentions(id string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, b := range h.bodies {
		if strings.Contains(b, id) {
			n++
		}
	}
	return n
}

// skewTo moves the process's clock so that it reads t now.
func (s *server) skewTo(t time.Time) { s.app.skew.Store(int64(time.Until(t))) }

// TestAlertsOnTheStream: on both pipelines, slow predictions make a rule on
// p95 latency fire once their minute is complete and page someone by a
// signed webhook and by e-mail through a real SMTP server (STARTTLS), with
// no endpoint polled; the dry run of a disabled twin says it would fire and
// creates nothing; fast predictions in a later minute resolve the alert
// automatically.
func TestAlertsOnTheStream(t *testing.T) {
	for _, p := range pipelines {
		t.Run(p.name, func(t *testing.T) {
			cfg := p.cfg(t)
			cfg.AlertTick = 50 * time.Millisecond
			hook := newHookReceiver(t)
			smtp := testenv.StartSMTP(t)
			cfg.OutboundAllow = []string{"127.0.0.1"}
			cfg.SMTP = config.SMTP{Addr: smtp.Addr, From: "vigil@example.com", CAFile: smtp.CAFile, RequireTLS: true}
			s := start(t, cfg)
			admin := s.admin()
			key, _ := s.key(admin, "read", "write")
			model := s.model(key, "fraud", "1")
			paged := slowRule(model)
			paged["notification_channels"] = []any{map[string]any{"type": "webhook", "target": hook.URL + "/vigil"},
				map[string]any{"type": "email", "target": "oncall@example.com"}}
			rule := s.do("POST", "/alerts/rules", key, paged).want(t, 201).str("id")
			twin := slowRule(model)
			twin["enabled"] = false
			twinID := s.do("POST", "/alerts/rules", key, twin).want(t, 201).str("id")

			traffic := func(latency float64, n int) {
				t.Helper()
				items := make([]map[string]any, n)
				for i := range items {
					items[i] = map[string]any{"input_data": map[string]any{"x": i}, "output_data": map[string]any{"y": 1},
						"latency_ms": latency + float64(i%10)}
				}
				s.do("POST", "/predictions/log/batch", key, map[string]any{"model_id": model, "predictions": items}).want(t, 201)
			}
			// Slow traffic early in a minute of the process's clock.
			minute := time.Now().UTC().Truncate(time.Minute).Add(2 * time.Minute)
			s.skewTo(minute.Add(time.Second))
			traffic(900, 50)
			s.waitStored(t, key, model, 50)

			// The minute is over: the alert opens within the evaluation's
			// settle time.
			s.skewTo(minute.Add(time.Minute + 3*time.Second))
			var alert response
			waitFor(t, "the alert opened", func() bool {
				alert = s.do("GET", "/alerts/instances?rule_id="+rule, key, nil).want(t, 200)
				return alert.at("total") == 1.0
			})
			in := alert.at("alerts").([]any)[0].(map[string]any)
			obs := in["observations"].([]any)[0].(map[string]any)
			if in["status"] != "open" || in["model_id"] != model || obs["value"].(float64) < 900 || obs["holds"] != true {
				t.Fatalf("got alert %v, want open on the model with p95 of at least 900", in)
			}
			// Someone is paged, by webhook and by e-mail.
			waitFor(t, "the webhook delivered", func() bool { b, _ := hook.got(); return b != nil })
			body, head := hook.got()
			secret := s.do("GET", "/alerts/webhook-secret", key, nil).want(t, 200).str("secret")
			if err := channels.Verify([]byte(secret), body, head.Get(channels.HeaderTimestamp), head.Get(channels.HeaderSignature),
				time.Now().Add(time.Duration(s.app.skew.Load())), 5*time.Minute); err != nil || !strings.Contains(string(body), in["id"].(string)) {
				t.Fatalf("webhook: got %s with headers %v (%v), want the alert signed with the organization's secret", body, head, err)
			}
			waitFor(t, "the e-mail delivered", func() bool { return len(smtp.Messages(t)) == 1 })
			if m := smtp.Messages(t)[0]; !strings.Contains(m, "To: oncall@example.com") || !strings.Contains(m, "slow predictions") {
				t.Fatalf("e-mail: got %s, want the alert to oncall@example.com", m)
			}
			waitFor(t, "both deliveries logged", func() bool {
				log := s.do("GET", "/alerts/instances/"+in["id"].(string)+"/deliveries", key, nil).want(t, 200)
				ds, _ := log.at("deliveries").([]any)
				return len(ds) == 2 && ds[0].(map[string]any)["status"] == "delivered" && ds[1].(map[string]any)["status"] == "delivered"
			})
			// An operator sees them counted by channel and outcome.
			waitFor(t, "both deliveries counted", func() bool {
				f := s.scrape(t)
				hooks, _ := sum(f, "vigil_alert_deliveries_total", map[string]string{"channel": "webhook", "outcome": "delivered"})
				mails, _ := sum(f, "vigil_alert_deliveries_total", map[string]string{"channel": "email", "outcome": "delivered"})
				return hooks == 1 && mails == 1
			})

			dry := s.do("POST", "/alerts/rules/"+twinID+"/evaluate", key, nil).want(t, 200)
			m := dry.at("models").([]any)[0].(map[string]any)
			if dry.at("would_fire") != true || m["model_id"] != model || m["observations"].([]any)[0].(map[string]any)["value"].(float64) < 900 {
				t.Fatalf("dry run of the disabled twin: got %s, want it to fire on the model's p95", dry.raw)
			}
			if l := s.do("GET", "/alerts/instances?rule_id="+twinID, key, nil).want(t, 200); l.at("total") != 0.0 {
				t.Fatalf("after the dry run: got %s, want no alert of the twin", l.raw)
			}

			// Fast traffic in the next minute; once it is over the alert
			// resolves itself.
			traffic(20, 50)
			s.waitStored(t, key, model, 100)
			s.skewTo(minute.Add(2*time.Minute + 3*time.Second))
			waitFor(t, "the alert resolved", func() bool {
				return s.do("GET", "/alerts/instances/"+in["id"].(string), key, nil).want(t, 200).str("status") == "resolved"
			})
			got := s.do("GET", "/alerts/instances/"+in["id"].(string), key, nil).want(t, 200)
			if got.str("resolution") != "auto" || got.str("resolved_by") != "system" {
				t.Fatalf("got %s, want resolved automatically by the system", got.raw)
			}
		})
	}
}
