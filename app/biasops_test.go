package app

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vigilhq/vigil/bias"
	"github.com/vigilhq/vigil/eventlog"
	"github.com/vigilhq/vigil/platform/config"
)

// labelAudit is a label-supplied audit request of n seeded rows.
func labelAudit(model string, seed uint64, n int) map[string]any {
	gender, _, yTrue, yPred := biasRows(seed, n)
	return map[string]any{"model_id": model, "sensitive_attributes": []string{"gender"}, "y_true": yTrue, "y_pred": yPred,
		"group_data": map[string]any{"gender": gender}}
}

// TestBiasAuditCancelDelete: a finished audit cannot be cancelled (409 in
// the envelope), is deleted with 204, and another organization's id is a
// 404 for both. Cancelling pending and running audits is covered in
// package bias, where an audit can be held running.
func TestBiasAuditCancelDelete(t *testing.T) {
	eachPipeline(t, func(t *testing.T, s *server) {
		admin := s.admin()
		model := s.model(admin, "credit", "1")
		id := s.do("POST", "/bias/audit", admin, labelAudit(model, 3, 200)).want(t, 202).str("id")
		pollAudit(t, s, admin, id, "completed")
		if r := s.do("POST", "/bias/audits/"+id+"/cancel", admin, nil).wantError(t, 409, "RESOURCE_CONFLICT"); r.str("error.details.status") != "completed" {
			t.Errorf("got %s, want details.status completed", r.raw)
		}

		other := s.signUp("mallory")
		s.do("POST", "/bias/audits/"+id+"/cancel", other, nil).wantError(t, 404, "NOT_FOUND")
		s.do("DELETE", "/bias/audits/"+id, other, nil).wantError(t, 404, "NOT_FOUND")
		viewer := s.user(admin, "vera", "viewer")
		s.do("DELETE", "/bias/audits/"+id, viewer, nil).wantError(t, 403, "INSUFFICIENT_PERMISSIONS")
		s.do("POST", "/bias/audits/"+id+"/cancel", viewer, nil).wantError(t, 403, "INSUFFICIENT_PERMISSIONS")
		s.do("GET", "/bias/audits/"+id, admin, nil).want(t, 200)
		if l := s.do("GET", "/bias/audits?status=cancelled", admin, nil).want(t, 200); l.at("total") != 0.0 {
			t.Errorf("cancelled audits: got %s, want none", l.raw)
		}

		s.do("DELETE", "/bias/audits/"+id, admin, nil).want(t, 204)
		s.do("GET", "/bias/audits/"+id, admin, nil).wantError(t, 404, "NOT_FOUND")
		s.do("DELETE", "/bias/audits/"+id, admin, nil).wantError(t, 404, "NOT_FOUND")
		s.do("POST", "/bias/audits/"+id+"/cancel", admin, nil).wantError(t, 404, "NOT_FOUND")
	})
}

// flakyLog is an event log that refuses every append while down.
type flakyLog struct {
	eventlog.Log
	down atomic.Bool
}

func (l *flakyLog) Append(ctx context.Context, recs []eventlog.Record) error {
	if l.down.Load() {
		return errors.New("event log unreachable")
	}
	return l.Log.Append(ctx, recs)
}

// TestBiasGovernanceOutbox: on the real stores and logs, an audit
// completed while its Runner's event log refuses appends is completed and
// owes its event; once the log is back a refresh appends it, with the
// audit's id, and the debt is cleared.
func TestBiasGovernanceOutbox(t *testing.T) {
	eachPipeline(t, func(t *testing.T, s *server) {
		admin := s.admin()
		org := s.do("GET", "/auth/me", admin, nil).want(t, 200).str("user.organization_id")
		model := s.model(admin, "credit", "1")
		log := &flakyLog{Log: s.app.events}
		log.down.Store(true)
		r := &bias.Runner{Store: s.app.store, Events: log, StaleAfter: 200 * time.Millisecond}
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() { done <- r.Run(ctx) }()
		defer func() { cancel(); <-done }()

		p, err := bias.ParseRequest([]byte(fmt.Sprintf(`{"model_id": %q, "sensitive_attributes": ["g"], "y_pred": [1, 1, 0, 0], "group_data": {"g": ["a", "a", "b", "b"]}}`, model)))
		if err != nil {
			t.Fatal(err)
		}
		now := time.Now()
		a := bias.Audit{ID: "0190a000-0000-7000-8000-" + strings.Repeat("0", 11) + "1", OrgID: org, ModelID: model, Status: bias.StatusPending,
			Request: p.Summary, CreatedAt: now, UpdatedAt: now}
		if err := s.app.store.CreateBiasAudit(t.Context(), a); err != nil {
			t.Fatal(err)
		}
		if !r.Submit(a, p) {
			t.Fatal("Submit: got false, want true")
		}
		stored := func() bias.Audit {
			t.Helper()
			got, err := s.app.store.BiasAudit(t.Context(), org, a.ID)
			if err != nil {
				t.Fatal(err)
			}
			return got
		}
		waitFor(t, "the audit completing", func() bool { return stored().Status.Done() })
		if got := stored(); got.Status != bias.StatusCompleted || !got.GovernancePending {
			t.Fatalf("audit with the log down: got %s, governance pending %v, want completed and pending", got.Status, got.GovernancePending)
		}
		log.down.Store(false)
		waitFor(t, "the owed event being appended", func() bool { return !stored().GovernancePending })
		if e := governanceEvents(t, s, 1); len(e) != 1 || e[0].EventID != a.ID || e[0].SourceID != a.ID || e[0].Severity != "critical" {
			t.Fatalf("got governance events %+v, want one of id %s at critical severity", e, a.ID)
		}
	})
}

// TestBiasLimits: VIGIL_BIAS_MAX_ROWS bounds both forms; the runner runs
// with the configured workers and queue.
func TestBiasLimits(t *testing.T) {
	for _, pl := range pipelines {
		t.Run(pl.name, func(t *testing.T) {
			cfg := pl.cfg(t)
			cfg.Bias = config.Bias{Workers: 1, Queue: 4, MaxRows: 50}
			s := start(t, cfg)
			admin := s.admin()
			model := s.model(admin, "credit", "1")
			s.do("POST", "/bias/audit", admin, labelAudit(model, 4, 51)).wantField(t, "y_pred")
			pollAudit(t, s, admin, s.do("POST", "/bias/audit", admin, labelAudit(model, 4, 50)).want(t, 202).str("id"), "completed")

			items := make([]map[string]any, 80)
			for i := range items {
				items[i] = map[string]any{"prediction_id": fmt.Sprintf("p-%03d", i), "input_data": map[string]any{"gender": []string{"f", "m"}[i%2]},
					"output_data": map[string]any{"prediction": i % 3 % 2}}
			}
			s.do("POST", "/predictions/log/batch", admin, map[string]any{"model_id": model, "predictions": items}).want(t, 201)
			waitFor(t, "the batch being queryable", func() bool {
				return s.do("GET", "/predictions/models/"+model+"/stats", admin, nil).want(t, 200).at("total_predictions") == 80.0
			})
			done := pollAudit(t, s, admin, s.do("POST", "/bias/audit", admin, map[string]any{"model_id": model,
				"protected_attributes": []string{"gender"}}).want(t, 202).str("id"), "completed")
			if done.at("request.rows") != 50.0 || !strings.Contains(fmt.Sprint(done.at("recommendations")), "newest 50 predictions") {
				t.Errorf("got %s, want 50 rows read and a note on the limit", done.raw)
			}
		})
	}
}
