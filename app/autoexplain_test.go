package app

import (
	"fmt"
	"math"
	"net/http"
	"testing"
	"time"

	"github.com/vigilhq/vigil/explanation/autoexplain"
	"github.com/vigilhq/vigil/platform/config"
)

// TestAutoExplain (issue 16 point 4) on both pipelines (embedded; Kafka,
// ClickHouse, PostgreSQL and Redis): with auto_explain on at 100 % for an
// uploaded XGBoost model, every logged prediction gets one exact TreeSHAP
// explanation from the processor role (equal to shap's golden values), and
// the trust score's explained_predictions_ratio becomes 1 with the
// explainability component live; a second model at 50 % gets exactly the
// predictions its prediction ids sample, and its ratio is their share; a
// model with auto_explain off gets none and keeps no ratio.
func TestAutoExplain(t *testing.T) {
	g := loadSHAPGolden(t, "xgb_bin")
	xgb := testModelFile(t, "xgb_bin.json")
	tweak := func(c *config.Config) { c.AutoExplain.Refresh, c.AutoExplain.PerSecond = 200*time.Millisecond, 1000 }
	eachPipelineWith(t, tweak, func(t *testing.T, s *server) {
		admin := s.admin()
		key, _ := s.key(admin, "read", "write")
		all, half, off := s.model(key, "fraud", "1"), s.model(key, "fraud", "2"), s.model(key, "fraud", "3")
		for _, m := range []string{all, half, off} {
			s.do("PUT", "/models/"+m+"/artifact", key, map[string]any{"kind": "xgboost_json", "content": xgb,
				"features": explainFeatures}).want(t, 200)
		}
		s.do("PUT", "/explanations/config/"+all, key, map[string]any{"auto_explain": true, "auto_explain_rate": 1}).want(t, 200)
		c := s.do("PUT", "/explanations/config/"+half, key, map[string]any{"auto_explain": true, "auto_explain_rate": 0.5}).want(t, 200)
		if c.at("auto_explain_rate") != 0.5 {
			t.Errorf("got auto_explain_rate %v, want 0.5", c.at("auto_explain_rate"))
		}
		s.do("PUT", "/explanations/config/"+half, key, map[string]any{"auto_explain": true, "auto_explain_rate": 1.5}).
			wantField(t, "auto_explain_rate")
		if r := trustScore(t, s, admin, all); r.at("explained_predictions_ratio") != nil {
			t.Fatalf("before any prediction: got explained_predictions_ratio %v, want null", r.at("explained_predictions_ratio"))
		}

		const n = 20
		sampled := 0
		for i := range n {
			pid := fmt.Sprintf("p-auto-%d", i)
			if autoexplain.Sampled(pid, 0.5) {
				sampled++
			}
			for _, m := range []string{off, all, half} {
				s.do("POST", "/predictions/log", key, map[string]any{"model_id": m, "prediction_id": pid,
					"input_data": explainRow(g.rows[i%len(g.rows)]), "output_data": map[string]any{"score": g.output[i%len(g.rows)]}}).
					want(t, http.StatusCreated)
			}
		}
		if sampled == 0 || sampled == n {
			t.Fatalf("got %d of %d prediction ids sampled at 0.5, want a share strictly between", sampled, n)
		}
		for _, m := range []struct {
			id    string
			count int
		}{{all, n}, {half, sampled}} {
			waitFor(t, fmt.Sprint(m.count, " auto explanations of ", m.id), func() bool {
				r := s.do("GET", "/explanations?status=completed&model_id="+m.id, key, nil).want(t, 200)
				return r.at("total") == float64(m.count)
			})
		}
		list := s.do("GET", "/explanations?model_id="+all+"&limit=50", key, nil).want(t, 200)
		for _, e := range list.body["explanations"].([]any) {
			e := e.(map[string]any)
			var i int
			if _, err := fmt.Sscanf(e["prediction_id"].(string), "p-auto-%d", &i); err != nil {
				t.Fatalf("got prediction_id %v, want p-auto-N", e["prediction_id"])
			}
			row := i % len(g.rows)
			if e["algorithm"] != "tree_shap" || e["exactness"] != "exact" || math.Abs(e["base_value"].(float64)-g.base) > 1e-9 {
				t.Errorf("%v: got %v %v base %v, want tree_shap exact base %v", e["prediction_id"], e["algorithm"], e["exactness"], e["base_value"], g.base)
			}
			for j, f := range explainFeatures {
				w := e["feature_weights"].(map[string]any)[f.(string)].(float64)
				if math.Abs(w-g.values[row][j]) > 1e-9 {
					t.Errorf("%v feature_weights.%s: got %v, want %v", e["prediction_id"], f, w, g.values[row][j])
				}
			}
		}

		for _, m := range []struct {
			id    string
			ratio float64
		}{{all, 1}, {half, float64(sampled) / n}} {
			waitFor(t, fmt.Sprint("explained_predictions_ratio ", m.ratio, " of ", m.id), func() bool {
				r := trustScore(t, s, admin, m.id)
				got, ok := r.at("explained_predictions_ratio").(float64)
				return ok && math.Abs(got-m.ratio) < 1e-9 && r.at("inputs_available.explainability") == true &&
					math.Abs(r.at("explainability_component").(float64)-100*m.ratio) < 1e-9 && r.at("trust_score") != nil
			})
		}
		if r := s.do("GET", "/explanations?model_id="+off, key, nil).want(t, 200); r.at("total") != 0.0 {
			t.Errorf("model with auto_explain off: got %v explanations, want 0", r.at("total"))
		}
		if r := trustScore(t, s, admin, off); r.at("explained_predictions_ratio") != nil {
			t.Errorf("model with auto_explain off: got explained_predictions_ratio %v, want null", r.at("explained_predictions_ratio"))
		}
	})
}
