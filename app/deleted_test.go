package app

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"testing"

	"github.com/vigilhq/vigil/analytics"
	"github.com/vigilhq/vigil/platform/config"
)

// TestDeletedModelEventsDropped logs predictions for two models while no
// processor runs, deletes one model, then starts the processor: the
// deleted model's events are dropped and counted, the other's stored.
func TestDeletedModelEventsDropped(t *testing.T) {
	for _, p := range pipelines {
		t.Run(p.name, func(t *testing.T) {
			cfg := p.cfg(t)
			cfg.Roles = []string{config.RoleAPI}
			s := start(t, cfg)
			admin := s.admin()
			org := s.do("GET", "/auth/me", admin, nil).want(t, 200).str("user.organization_id")
			if org == "" {
				t.Fatal("got no user.organization_id from /auth/me")
			}
			key, _ := s.key(admin, "read", "write")
			gone, kept := s.model(key, "gone", "1"), s.model(key, "kept", "1")
			for model, n := range map[string]int{gone: 7, kept: 5} {
				items := make([]map[string]any, n)
				for i := range items {
					items[i] = map[string]any{"prediction_id": fmt.Sprint("p", i), "input_data": map[string]any{}, "output_data": map[string]any{}}
				}
				s.do("POST", "/predictions/log/batch", key, map[string]any{"model_id": model, "predictions": items}).want(t, 201)
			}
			s.do("DELETE", "/models/"+gone, key, nil).want(t, 204)
			s.shutdown()

			cfg.Roles = config.AllRoles
			s = start(t, cfg)
			waitFor(t, "the kept model's predictions", func() bool {
				return s.do("GET", "/predictions/models/"+kept+"/stats?start_time=2000-01-01T00:00:00Z", key, nil).at("total_predictions") == 5.0
			})
			waitFor(t, "the deleted model's predictions counted as dropped", func() bool {
				return counter(t, s, `vigil_processor_dropped_events_total{kind="predictions",reason="model_deleted"}`) == 7
			})
			ps, err := s.app.analytics.Predictions(context.Background(), analytics.PredictionFilter{OrgID: org, ModelID: gone, Limit: 100})
			if err != nil {
				t.Fatal(err)
			}
			if len(ps) != 0 {
				t.Fatalf("got %d predictions stored for the deleted model, want 0", len(ps))
			}
		})
	}
}

// counter reads one series of a counter, named with its labels as
// /metrics prints it, from /metrics; 0 when absent.
func counter(t *testing.T, s *server, series string) float64 {
	t.Helper()
	body := string(s.do("GET", "root:/metrics", "", nil).want(t, 200).raw)
	m := regexp.MustCompile(regexp.QuoteMeta(series) + ` (\S+)`).FindStringSubmatch(body)
	if m == nil {
		return 0
	}
	n, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
