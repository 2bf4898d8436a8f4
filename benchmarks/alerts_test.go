package benchmarks

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/vigilhq/vigil/alerts"
	"github.com/vigilhq/vigil/analytics"
	"github.com/vigilhq/vigil/analytics/clickhouse"
	"github.com/vigilhq/vigil/analytics/sqlite"
	"github.com/vigilhq/vigil/eventlog"
	"github.com/vigilhq/vigil/identity"
	"github.com/vigilhq/vigil/platform/testenv"
	"github.com/vigilhq/vigil/processors/alerting"
	"github.com/vigilhq/vigil/registry"
	"github.com/vigilhq/vigil/sqlstore"
	"github.com/vigilhq/vigil/sqlstore/postgres"
	"github.com/vigilhq/vigil/sqlstore/sqlitestore"
)

// Sizes of the alert evaluation benchmark: rules over models, and the
// predictions each model logged in the minute evaluated.
const (
	benchModels        = 1000
	benchRulesPerModel = 10
	benchPredictions   = 20
)

// alertStores are the engines BenchmarkAlertTick runs on: the embedded
// default, and PostgreSQL with ClickHouse.
var alertStores = []struct {
	name string
	open func(b *testing.B) (*sqlstore.DB, alertAnalytics)
}{
	{"sqlite", func(b *testing.B) (*sqlstore.DB, alertAnalytics) {
		dir := b.TempDir()
		st, err := sqlitestore.Open(b.Context(), dir)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { st.Close() })
		an, err := sqlite.Open(b.Context(), dir)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { an.Close() })
		return st, an
	}},
	{"postgres+clickhouse", func(b *testing.B) (*sqlstore.DB, alertAnalytics) {
		st, err := postgres.Open(b.Context(), testenv.PostgresSchema(b))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { st.Close() })
		conn, err := clickhouse.Open(testenv.ClickHouseDatabase(b))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { conn.Close() })
		return st, clickhouse.New(conn)
	}},
}

// alertAnalytics is what the benchmark writes and the evaluation reads.
type alertAnalytics interface {
	analytics.Sink
	alerts.Readings
	alerts.ReadingsByModel
}

// modelByModel hides the batched read: the evaluation reads each model's
// predictions alone, as it did before.
type modelByModel struct{ alerts.Readings }

// BenchmarkAlertTick evaluates 10,000 rules (10 per model, 5 conditions
// between them) over 1,000 models, each with 20 predictions in the minute,
// on the embedded default and on PostgreSQL with ClickHouse: one op is one
// tick of a fresh evaluator (every pair evaluated; the rules that hold
// update their alert). tick is the evaluation as it runs (one prediction
// read per window for all models, holding pairs written FireBatch to a
// transaction); tick-before reads model by model and writes each holding
// pair in its own transaction, as before. The baselines are the rollup
// reads alone: reads, one PredictionStats per model (what the shared
// observer reduced a tick's reads to before), and reads-batched, the one
// PredictionStatsByModel a tick makes now.
func BenchmarkAlertTick(b *testing.B) {
	for _, eng := range alertStores {
		b.Run(eng.name, func(b *testing.B) { benchAlertTick(b, eng.open) })
	}
}

func benchAlertTick(b *testing.B, open func(b *testing.B) (*sqlstore.DB, alertAnalytics)) {
	ctx := b.Context()
	st, an := open(b)
	base := time.Now().UTC().Truncate(time.Minute).Add(-time.Minute)
	orgID := uuid.NewString()
	if err := st.CreateOrganization(ctx, identity.Organization{ID: orgID, Name: "bench", CreatedAt: base}, nil,
		identity.User{ID: uuid.NewString(), OrgID: orgID, Username: "bench", Email: "b@example.com", Role: identity.RoleAdmin,
			Active: true, PasswordHash: "x", CreatedAt: base, UpdatedAt: base}); err != nil {
		b.Fatal(err)
	}
	models := make([]string, benchModels)
	var batch analytics.Batch
	for i := range models {
		models[i] = uuid.NewString()
		if err := st.CreateModel(ctx, registry.Model{ID: models[i], OrgID: orgID, Name: fmt.Sprint("m", i), Version: "1",
			ModelType: "classification", Status: registry.StatusActive, CreatedAt: base, UpdatedAt: base}); err != nil {
			b.Fatal(err)
		}
		for j := range benchPredictions {
			l := float64(100 + (i*7+j*13)%900)
			batch.Predictions = append(batch.Predictions, eventlog.Prediction{OrgID: orgID, ModelID: models[i], PredictionID: fmt.Sprint(i, "-", j),
				InputData: json.RawMessage(`{}`), OutputData: json.RawMessage(`{}`), Metadata: json.RawMessage(`{}`), LatencyMS: &l,
				Timestamp: base.Add(time.Duration(j) * time.Second)})
		}
	}
	if err := an.Write(ctx, batch); err != nil {
		b.Fatal(err)
	}
	metrics := []string{"latency_p95_ms", "latency_p99_ms", "latency_avg_ms", "latency_p50_ms", "prediction_count"}
	for i, m := range models {
		for k := range benchRulesPerModel {
			r := alerts.Rule{ID: uuid.NewString(), OrgID: orgID, Name: fmt.Sprint("r", i, "-", k), AlertType: "performance", Severity: "high",
				ModelID: m, Enabled: true, CreatedAt: base, UpdatedAt: base,
				Conditions: []alerts.Condition{{MetricName: metrics[k%len(metrics)], Operator: "gt", Threshold: float64(100 * k), WindowMinutes: 1}}}
			if err := st.CreateAlertRule(ctx, r); err != nil {
				b.Fatal(err)
			}
		}
	}
	now := func() time.Time { return base.Add(time.Minute + 3*time.Second) }
	tick := func(name string, e func() *alerting.Evaluator) {
		b.Run(name, func(b *testing.B) {
			var holding int
			for b.Loop() {
				res, err := e().RunOnce(ctx)
				if err != nil {
					b.Fatal(err)
				}
				if res.Evaluated != benchModels*benchRulesPerModel {
					b.Fatalf("evaluated %d pairs, want %d", res.Evaluated, benchModels*benchRulesPerModel)
				}
				holding = res.Evaluated - res.Resolved - countNotHolding(b, st, orgID, res)
			}
			b.ReportMetric(float64(holding), "holding")
			b.ReportMetric(float64(benchModels*benchRulesPerModel)*float64(b.N)/b.Elapsed().Seconds(), "rules/s")
		})
	}
	tick("tick-before", func() *alerting.Evaluator {
		return &alerting.Evaluator{Ledger: st, Readings: modelByModel{an}, Clock: now, Batch: 1}
	})
	tick("tick", func() *alerting.Evaluator { return &alerting.Evaluator{Ledger: st, Readings: an, Clock: now} })
	r := analytics.Range{From: base, To: base.Add(time.Minute)}
	b.Run("reads", func(b *testing.B) {
		for b.Loop() {
			for _, m := range models {
				if _, err := an.PredictionStats(ctx, orgID, m, r); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("reads-batched", func(b *testing.B) {
		for b.Loop() {
			if _, err := an.PredictionStatsByModel(ctx, orgID, models, r); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// countNotHolding is how many evaluated pairs neither fired nor updated
// an alert, nor had one to resolve: those whose rule did not hold.
func countNotHolding(b *testing.B, st *sqlstore.DB, orgID string, res alerting.Result) int {
	b.Helper()
	_, open, err := st.AlertInstances(b.Context(), orgID, alerts.InstanceFilter{Status: alerts.StatusOpen})
	if err != nil {
		b.Fatal(err)
	}
	return res.Evaluated - int(open)
}
