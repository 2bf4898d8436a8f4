package app

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/vigilhq/vigil/eventlog"
	"github.com/vigilhq/vigil/eventlog/embeddedlog"
	"github.com/vigilhq/vigil/eventlog/kafka"
	"github.com/vigilhq/vigil/governance"
	"github.com/vigilhq/vigil/platform/config"
)

// TestDriftOnTheStream: a model gets reference traffic, a day passes,
// shifted traffic arrives, and the processor role's schedule writes a
// data-drift and a prediction-drift report by itself, and puts a
// governance event on the log.
func TestDriftOnTheStream(t *testing.T) {
	for _, p := range pipelines {
		t.Run(p.name, func(t *testing.T) {
			s := startDrift(t, p.cfg(t))
			admin := s.admin()
			key, _ := s.key(admin, "read", "write")
			model := s.model(key, "fraud", "1")
			traffic := func(shift float64) { t.Helper(); shiftedTraffic(t, s, key, model, shift) }
			// A fair audit before the shift: the model's trust score is
			// fairness alone, 100.
			fairAudit(t, s, admin, model)
			wantScore(t, trustScore(t, s, key, model), 100.0)
			traffic(0)
			s.waitStored(t, key, model, 300)
			s.app.skew.Store(int64(25 * time.Hour))
			traffic(5)
			s.waitStored(t, key, model, 600)
			var reports []any
			waitFor(t, "two drift reports", func() bool {
				reports, _ = s.do("GET", "/drift/reports?model_id="+model, key, nil).want(t, 200).at("reports").([]any)
				return len(reports) == 2
			})
			byType := map[string]map[string]any{}
			for _, r := range reports {
				m := r.(map[string]any)
				byType[m["drift_type"].(string)] = m
			}
			data, pred := byType["data"], byType["prediction"]
			if data == nil || pred == nil {
				t.Fatalf("got reports %v, want a data and a prediction report", reports)
			}
			x, _ := data["features"].(map[string]any)["x"].(map[string]any)
			c, _ := data["features"].(map[string]any)["c"].(map[string]any)
			if data["drift_detected"] != true || x["drift_detected"] != true || x["severity"] != "high" || c["drift_detected"] != false {
				t.Fatalf("got data report %v, want x drifted at high severity and c not", data)
			}
			if pred["drift_detected"] != true || pred["severity"] != "high" {
				t.Fatalf("got prediction report %v, want drift at high severity", pred)
			}
			one := s.do("GET", "/drift/reports/"+data["id"].(string), key, nil).want(t, 200)
			if one.str("id") != data["id"] || one.str("drift_type") != "data" {
				t.Fatalf("got report %s, want %v", one.raw, data["id"])
			}
			filtered := s.do("GET", "/drift/reports?model_id="+model+"&drift_type=data&severity=high", key, nil).want(t, 200)
			if filtered.at("total") != 1.0 {
				t.Fatalf("got %s, want the data report alone", filtered.raw)
			}
			trend := s.do("GET", "/drift/trend?model_id="+model+"&days=7", key, nil).want(t, 200)
			if pts, _ := trend.at("data").([]any); len(pts) != 1 || pts[0].(map[string]any)["severity"] != "high" {
				t.Fatalf("got trend %s, want one point at high severity", trend.raw)
			}
			daily := s.do("GET", "/drift/trend?model_id="+model+"&drift_type=prediction&interval=day", key, nil).want(t, 200)
			if pts, _ := daily.at("data").([]any); len(pts) != 1 || pts[0].(map[string]any)["reports"] != 1.0 ||
				pts[0].(map[string]any)["severity"] != "high" || daily.str("interval") != "day" {
				t.Fatalf("got daily trend %s, want one day of one report at high severity", daily.raw)
			}
			s.do("GET", "/drift/trend?model_id="+model+"&interval=week", key, nil).wantField(t, "interval")

			other := s.signUp("other-admin")
			otherKey, _ := s.key(other, "read", "write")
			s.do("GET", "/drift/reports?model_id="+model, otherKey, nil).wantError(t, http.StatusNotFound, "MODEL_NOT_FOUND")
			s.do("GET", "/drift/reports/"+data["id"].(string), otherKey, nil).wantError(t, http.StatusNotFound, "NOT_FOUND")
			s.do("GET", "/drift/trend?model_id="+model, otherKey, nil).wantError(t, http.StatusNotFound, "MODEL_NOT_FOUND")
			s.do("GET", "/drift/reports", key, nil).wantField(t, "model_id")
			s.do("GET", "/drift/reports?model_id="+model+"&drift_type=label", key, nil).wantField(t, "drift_type")
			s.do("GET", "/drift/reports?model_id="+model+"&severity=critical", key, nil).wantField(t, "severity")
			s.do("GET", "/drift/reports?model_id="+model+"&start_date=yesterday", key, nil).wantField(t, "start_date")

			events := governanceEvents(t, s, 2)
			ids := map[string]bool{data["id"].(string): true, pred["id"].(string): true}
			if len(events) != 2 {
				t.Fatalf("got %d governance events, want 2: %+v", len(events), events)
			}
			for _, e := range events {
				if !ids[e.SourceID] || e.SourceType != governance.SourceDriftReport || e.ModelID != model || e.Severity != "high" || e.Summary == "" {
					t.Errorf("got governance event %+v, want one of reports %v at high severity", e, ids)
				}
			}
			// The reports lowered the trust score, with no endpoint called:
			// the worst drift type's component, weighted with fairness.
			drifted := min(driftComponent(data), driftComponent(pred))
			ts := trustScore(t, s, key, model)
			wantScore(t, ts, (0.4*100+0.4*drifted)/0.8)
			if ts.at("drift_component") != drifted || ts.at("inputs_available.drift") != true {
				t.Fatalf("got trust score %s, want drift component %v", ts.raw, drifted)
			}
			if h := s.do("GET", "/trust-score/models/"+model+"/history", key, nil).want(t, 200); h.str("trend_direction") != "declining" ||
				len(h.at("data_points").([]any)) != 3 {
				t.Fatalf("got trust history %s, want the audit's point and one per report, declining", h.raw)
			}
			// The default configuration's alert_config is on: the model has
			// its managed rule, and the high drift opened an alert, with no
			// endpoint called.
			// A minute is judged once it has ended: move the clock past the
			// reports' minute.
			s.app.skew.Store(int64(25*time.Hour + time.Minute))
			var alert map[string]any
			waitFor(t, "a drift alert", func() bool {
				list, _ := s.do("GET", "/alerts/instances?model_id="+model, key, nil).want(t, 200).at("alerts").([]any)
				if len(list) == 1 {
					alert = list[0].(map[string]any)
				}
				return alert != nil
			})
			rules, _ := s.do("GET", "/alerts/rules?model_id="+model, key, nil).want(t, 200).at("rules").([]any)
			if len(rules) != 1 || rules[0].(map[string]any)["managed_by"] != "drift_config:"+model ||
				alert["rule_id"] != rules[0].(map[string]any)["id"] || alert["alert_type"] != "drift" || alert["status"] != "open" {
				t.Fatalf("got rules %v and alert %v, want the default drift configuration's rule and an open drift alert of it", rules, alert)
			}
			// The processor role's drafter turns the first into a risk
			// entry, with no endpoint called, and adds the second to its
			// trail while it is open rather than opening another.
			e := waitDrafted(t, s, key, model, 1)[0]
			if !ids[e.str("source_id")] || e.str("source_type") != "drift_report" || e.str("category") != "drift" ||
				e.at("likelihood") != 4.0 || e.at("impact") != 3.0 || e.str("severity") != "high" || e.str("status") != "identified" ||
				e.str("title") != "High-severity drift detected for fraud (version 1)" {
				t.Errorf("got drafted entry %s, want one for both reports: drift, 4 x 3, high, identified", e.raw)
			}
			var evs []any
			waitFor(t, "the second report on the entry's trail", func() bool {
				evs, _ = s.do("GET", "/risk-register/"+e.str("id")+"/history", key, nil).want(t, 200).at("events").([]any)
				return len(evs) >= 2
			})
			repeat := evs[1].(map[string]any)
			if src, _ := repeat["details"].(map[string]any)["source_id"].(string); len(evs) != 2 || repeat["event_action"] != "repeat_trigger" ||
				!ids[src] || src == e.str("source_id") {
				t.Errorf("got the trail %v, want the other report's repeat trigger after the create", evs)
			}
			if n := s.do("GET", "/risk-register?model_id="+model, key, nil).want(t, 200).at("total"); n != 1.0 {
				t.Errorf("got %v entries of the model, want the one", n)
			}
		})
	}
}

// waitDrafted waits until the register holds n entries drafted for the
// model and returns them, each checked to open its history with its
// create event by "system".
func waitDrafted(t *testing.T, s *server, token, model string, n int) []response {
	t.Helper()
	var items []any
	waitFor(t, fmt.Sprint(n, " drafted risk entries"), func() bool {
		items, _ = s.do("GET", "/risk-register?model_id="+model, token, nil).want(t, 200).at("risk_entries").([]any)
		return len(items) >= n
	})
	if len(items) != n {
		t.Fatalf("got %d drafted entries, want %d", len(items), n)
	}
	var out []response
	for _, it := range items {
		id := it.(map[string]any)["id"].(string)
		out = append(out, s.do("GET", "/risk-register/"+id, token, nil).want(t, 200))
		h := s.do("GET", "/risk-register/"+id+"/history", token, nil).want(t, 200)
		if evs, _ := h.at("events").([]any); len(evs) == 0 || evs[0].(map[string]any)["event_action"] != "create" ||
			evs[0].(map[string]any)["username"] != "system" {
			t.Errorf("got history %s, want its create by system", h.raw)
		}
	}
	return out
}

// startDrift starts a server whose drift schedule looks for due models
// every 100 ms.
// shiftedTraffic logs 300 predictions of the model: x spread over
// [shift, shift+1), c alternating a and b, a score that moves with x.
func shiftedTraffic(t *testing.T, s *server, key, model string, shift float64) {
	t.Helper()
	items := make([]map[string]any, 300)
	for i := range items {
		v := float64(i) / float64(len(items))
		items[i] = map[string]any{"input_data": map[string]any{"x": v + shift, "c": []string{"a", "b"}[i%2]},
			"output_data": map[string]any{"score": 0.1 + v/5 + shift/10}}
	}
	s.do("POST", "/predictions/log/batch", key, map[string]any{"model_id": model, "predictions": items}).want(t, 201)
}

func startDrift(t *testing.T, cfg config.Config) *server {
	t.Helper()
	cfg.DriftTick = 100 * time.Millisecond
	return start(t, cfg)
}

// governanceEvents reads the governance events on s's event log through a
// consumer group of the test's own, until want distinct ones are read or
// 30 s pass. An event appended twice (the outbox appends at least once:
// a completing audit's append and a refresh's may both land) is one
// event to its readers, who know it by its event_id; it is kept once.
func governanceEvents(t *testing.T, s *server, want int) []governance.Event {
	t.Helper()
	var src eventlog.Source
	switch l := s.app.events.(type) {
	case *embeddedlog.Log:
		src = l.Consumer("test-governance")
	case *kafka.Producer:
		var err error
		src, err = kafka.New(kafka.Options{Brokers: s.app.cfg.KafkaBrokers, Group: l.Prefix() + "test-governance",
			Prefix: l.Prefix(), Kinds: []string{eventlog.KindGovernance}})
		if err != nil {
			t.Fatal(err)
		}
	default:
		t.Fatalf("unknown event log %T", l)
	}
	defer src.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out []governance.Event
	seen := map[string]bool{}
	for len(out) < want && ctx.Err() == nil {
		msgs, err := src.Poll(ctx)
		if err != nil && ctx.Err() == nil {
			t.Fatalf("poll: %v", err)
		}
		for _, m := range msgs {
			if m.Kind != eventlog.KindGovernance {
				continue
			}
			var e governance.Event
			if err := json.Unmarshal(m.Value, &e); err != nil {
				t.Fatalf("governance event %s: %v", m.Value, err)
			}
			if !seen[e.EventID] {
				seen[e.EventID] = true
				out = append(out, e)
			}
		}
	}
	return out
}

// driftComponent is the trust score's mapping of a drift report, as
// governance/trust documents it: 100 × (1 − score), at most 80, 60 or 30
// when drift was detected at low, medium or high severity.
func driftComponent(report map[string]any) float64 {
	c := 100 * (1 - min(1, max(0, report["overall_drift_score"].(float64))))
	if report["drift_detected"] == true {
		c = min(c, map[string]float64{"low": 80, "medium": 60, "high": 30}[report["severity"].(string)])
	}
	return c
}
