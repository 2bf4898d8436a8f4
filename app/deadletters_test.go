package app

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/vigilhq/vigil/eventlog"
)

// TestDeadLetters puts an event no store can hold (no time, as a foreign
// producer might log it) into the log beside a good one, on both
// pipelines: the good one is stored, the bad one is listed by GET
// /dead-letters for its organization only and counted on /metrics, and the
// log moves on.
func TestDeadLetters(t *testing.T) {
	eachPipeline(t, func(t *testing.T, s *server) {
		admin := s.admin()
		org := s.do("GET", "/auth/me", admin, nil).want(t, 200).str("user.organization_id")
		if org == "" {
			t.Fatal("got no user.organization_id from /auth/me")
		}
		key, _ := s.key(admin, "read", "write")
		model := s.model(key, "poisoned", "1")
		var recs []eventlog.Record
		for _, p := range []eventlog.Prediction{
			{OrgID: org, ModelID: model, PredictionID: "bad", InputData: json.RawMessage(`{"x":1}`)},
			{OrgID: org, ModelID: model, PredictionID: "good", InputData: json.RawMessage(`{}`), Timestamp: time.Now()},
		} {
			v, err := json.Marshal(p)
			if err != nil {
				t.Fatal(err)
			}
			recs = append(recs, eventlog.Record{Kind: eventlog.KindPrediction, Key: org + "/" + model, Value: v})
		}
		if err := s.app.events.Append(context.Background(), recs); err != nil {
			t.Fatal(err)
		}
		var list response
		waitFor(t, "the bad event listed", func() bool {
			list = s.do("GET", "/dead-letters", key, nil).want(t, 200)
			return len(list.list) == 1
		})
		d := list.list[0].(map[string]any)
		event, _ := d["event"].(map[string]any)
		if d["kind"] != "predictions" || d["model_id"] != model || d["event_id"] != "bad" || d["reason"] == "" || event == nil {
			t.Fatalf("got dead letter %v, want the prediction bad of the model with a reason", d)
		}
		if _, ok := event["org_id"]; ok || event["input_data"].(map[string]any)["x"] != 1.0 {
			t.Fatalf("got event %v, want it as logged without org_id", event)
		}
		waitFor(t, "the good event stored", func() bool {
			return s.do("GET", "/predictions/models/"+model+"/stats?start_time=2000-01-01T00:00:00Z", key, nil).at("total_predictions") == 1.0
		})
		if n := counter(t, s, `vigil_processor_dead_letters_total{kind="predictions"}`); n != 1 {
			t.Fatalf("got vigil_processor_dead_letters_total %v, want 1", n)
		}
		other, _ := s.key(s.signUp("other"), "read")
		if n := len(s.do("GET", "/dead-letters", other, nil).want(t, 200).list); n != 0 {
			t.Fatalf("got %d dead letters for another organization, want 0", n)
		}
		s.do("GET", "/dead-letters?limit=0", key, nil).wantError(t, 422, "VALIDATION_ERROR")
	})
}
