package benchmarks

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/vigilhq/vigil/eventlog"
	"github.com/vigilhq/vigil/eventlog/embeddedlog"
	"github.com/vigilhq/vigil/governance"
	"github.com/vigilhq/vigil/governance/risk"
	"github.com/vigilhq/vigil/identity"
	"github.com/vigilhq/vigil/platform/config"
	"github.com/vigilhq/vigil/platform/testenv"
	"github.com/vigilhq/vigil/processors/drafting"
	"github.com/vigilhq/vigil/registry"
	"github.com/vigilhq/vigil/sqlstore"
	"github.com/vigilhq/vigil/sqlstore/postgres"
	"github.com/vigilhq/vigil/sqlstore/sqlitestore"
)

// riskEntries is how many entries the register benchmarks hold in one
// organization.
const riskEntries = 100_000

// riskBackends are the transactional engines the register benchmarks run
// on: the embedded default, and PostgreSQL.
var riskBackends = []struct {
	name string
	// tweak configures the server; open opens the same store beside it.
	tweak func(b *testing.B) (func(*config.Config), func(cfg config.Config) (*sqlstore.DB, error))
}{
	{"sqlite", func(b *testing.B) (func(*config.Config), func(config.Config) (*sqlstore.DB, error)) {
		return nil, func(cfg config.Config) (*sqlstore.DB, error) {
			return sqlitestore.Open(context.Background(), cfg.DataDir)
		}
	}},
	{"postgres", func(b *testing.B) (func(*config.Config), func(config.Config) (*sqlstore.DB, error)) {
		pg := testenv.PostgresSchema(b)
		return func(c *config.Config) { c.PostgresURL = pg },
			func(config.Config) (*sqlstore.DB, error) { return postgres.Open(context.Background(), pg) }
	}},
}

// seedRisks writes n entries into the organization, spread over 20
// models, every likelihood x impact cell, the five statuses and three
// categories, in one transaction of plain inserts (the API would take
// minutes for 100,000), with the portfolio's counts and the list's
// tallies. Each entry names one model.
func seedRisks(b *testing.B, s *sqlstore.DB, orgID string, models []string, n int) {
	b.Helper()
	q := s.Rebind
	tx, err := s.SQL().Begin()
	if err != nil {
		b.Fatal(err)
	}
	entry, err := tx.Prepare(q(`INSERT INTO risk_entries (id, org_id, title, description, category, likelihood, impact, risk_score,
		severity, severity_rank, status, is_open, mitigation_plan, created_at, updated_at)
		VALUES (?, ?, ?, '', ?, ?, ?, ?, ?, ?, ?, ?, '', ?, ?)`))
	if err != nil {
		b.Fatal(err)
	}
	link, err := tx.Prepare(q(`INSERT INTO risk_entry_models (org_id, entry_id, model_id, created_at) VALUES (?, ?, ?, ?)`))
	if err != nil {
		b.Fatal(err)
	}
	rank := map[string]int{"critical": 4, "high": 3, "medium": 2, "low": 1}
	th := risk.Default().Thresholds
	start := time.Now().Add(-time.Duration(n) * time.Second)
	for i := range n {
		l, im := i%5+1, i/5%5+1
		sev := th.Severity(l * im)
		st := risk.Statuses[i/25%len(risk.Statuses)]
		id := uuid.NewString()
		at := start.Add(time.Duration(i) * time.Second).UnixMicro()
		if _, err := entry.Exec(id, orgID, fmt.Sprint("risk ", i), []string{"drift", "bias", "security"}[i%3], l, im, l*im, sev,
			rank[sev], string(st), st.Open(), at, at); err != nil {
			b.Fatal(err)
		}
		if _, err := link.Exec(orgID, id, models[i%len(models)], at); err != nil {
			b.Fatal(err)
		}
	}
	// The counts the store keeps for the portfolio and the list's totals,
	// as its writes would have kept them.
	for _, kept := range []string{`INSERT INTO risk_counts (org_id, likelihood, impact, severity, n)
		SELECT org_id, likelihood, impact, severity, COUNT(*) FROM risk_entries WHERE org_id = ? AND is_open = TRUE
		GROUP BY org_id, likelihood, impact, severity`, `INSERT INTO risk_tallies (org_id, status, severity, category, n)
		SELECT org_id, status, severity, category, COUNT(*) FROM risk_entries WHERE org_id = ?
		GROUP BY org_id, status, severity, category`} {
		if _, err := tx.Exec(q(kept), orgID); err != nil {
			b.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
}

// vacuum does on PostgreSQL what autovacuum does after a bulk load
// (PostgreSQL 13 and later vacuum insert-only tables too): statistics,
// and the visibility map that lets a count or a late page read an index
// alone.
func vacuum(b *testing.B, s *sqlstore.DB) {
	b.Helper()
	if s.Engine() != "postgres" {
		return
	}
	for _, q := range []string{`VACUUM ANALYZE risk_entries`, `VACUUM ANALYZE risk_entry_models`} {
		if _, err := s.SQL().Exec(q); err != nil {
			b.Fatal(err)
		}
	}
}

// getJSON sends GET url with the key and fails unless it answers 200.
func getJSON(b *testing.B, client *http.Client, url, key string) {
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Authorization", "Bearer "+key)
	res, err := client.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		b.Fatalf("GET %s: %d", url, res.StatusCode)
	}
}

// BenchmarkRiskRegister measures, over 100,000 entries in one
// organization, GET /risk-register/portfolio and filtered pages of GET
// /risk-register (50 a page) through a real server with an API key,
// one request at a time, and reports the p50 and p99 as the client sees
// them.
func BenchmarkRiskRegister(b *testing.B) {
	for _, be := range riskBackends {
		b.Run(be.name, func(b *testing.B) {
			tweak, open := be.tweak(b)
			var cfg config.Config
			base := server(b, func(c *config.Config) {
				if tweak != nil {
					tweak(c)
				}
				cfg = *c
			})
			key := apiKey(b, base)
			var me struct {
				User struct {
					Org string `json:"organization_id"`
				} `json:"user"`
			}
			req, _ := http.NewRequest("GET", base+"/auth/me", nil)
			req.Header.Set("Authorization", "Bearer "+key)
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			_ = json.NewDecoder(res.Body).Decode(&me)
			res.Body.Close()
			var models []string
			for i := range 20 {
				models = append(models, post(b, base+"/models", key, map[string]any{"name": fmt.Sprint("m", i), "model_type": "classification"})["id"].(string))
			}
			s, err := open(cfg)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			seedRisks(b, s, me.User.Org, models, riskEntries)
			vacuum(b, s)
			client := &http.Client{}
			for _, c := range []struct{ name, path string }{
				{"portfolio", "/risk-register/portfolio"},
				{"list", "/risk-register"},
				{"list-status-severity", "/risk-register?status=identified&severity=high"},
				{"list-model", "/risk-register?model_id=" + models[7]},
				{"list-category-page-100", "/risk-register?category=bias&page=100"},
			} {
				b.Run(c.name, func(b *testing.B) {
					lat := make([]time.Duration, 0, b.N)
					b.ResetTimer()
					for range b.N {
						t := time.Now()
						getJSON(b, client, base+c.path, key)
						lat = append(lat, time.Since(t))
					}
					b.StopTimer()
					reportLatency(b, lat, "request")
				})
			}
		})
	}
}

// BenchmarkRiskDrafting measures the drafter over a backlog of b.N
// governance events (b.N distinct drift reports of 20 models) on the
// embedded log: events drafted per second, from the first poll until the
// last entry is stored, on SQLite and PostgreSQL. The baseline of the same
// run, baseline-rows/s, is the same number of bare risk_entries rows
// inserted, just before, into a fresh store of the same engine in
// transactions of drafting.MaxTransaction rows by a prepared statement:
// what the store takes for the entries alone.
func BenchmarkRiskDrafting(b *testing.B) {
	for _, be := range riskBackends {
		b.Run(be.name, func(b *testing.B) { draftBacklog(b, be.name, b.N) })
	}
}

// BenchmarkRiskDraftingBacklog is BenchmarkRiskDrafting over the backlog
// of 100,000 events the issue names, once per b.N.
func BenchmarkRiskDraftingBacklog(b *testing.B) {
	for _, be := range riskBackends {
		b.Run(be.name, func(b *testing.B) {
			for range b.N {
				draftBacklog(b, be.name, 100_000)
			}
		})
	}
}

// draftBacklog drafts a backlog of n events on a fresh store of the
// engine and reports events/s and the baseline's rows/s.
func draftBacklog(b *testing.B, engine string, n int) {
	b.StopTimer()
	// The baseline first, on a fresh store of its own.
	bs, _ := freshStore(b, engine)
	org, _ := seedOrg(b, bs)
	baseline := bareInserts(b, bs, org, n)
	bs.Close()
	s, dir := freshStore(b, engine)
	defer s.Close()
	l, err := embeddedlog.Open(context.Background(), filepath.Join(dir, "log"))
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	org, models := seedOrg(b, s)
	var recs []eventlog.Record
	for i := range n {
		r, err := governance.EventRecord(governance.Event{EventID: uuid.NewString(), OrgID: org, ModelID: models[i%len(models)],
			SourceType: governance.SourceDriftReport, SourceID: uuid.NewString(), Severity: "high", Summary: "drifted"})
		if err != nil {
			b.Fatal(err)
		}
		recs = append(recs, r)
	}
	for i := 0; i < len(recs); i += 1000 {
		if err := l.Append(context.Background(), recs[i:min(i+1000, len(recs))]); err != nil {
			b.Fatal(err)
		}
	}
	d := &drafting.Drafter{Source: l.Consumer("bench"), Store: s, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	b.StartTimer()
	start := time.Now()
	wg.Go(func() { _ = d.Run(ctx) })
	for {
		_, total, err := s.RiskEntries(context.Background(), org, risk.Filter{Limit: 1})
		if err != nil {
			b.Fatal(err)
		}
		if total == int64(n) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	elapsed := time.Since(start)
	b.StopTimer()
	cancel()
	wg.Wait()
	b.ReportMetric(float64(n)/elapsed.Seconds(), "events/s")
	b.ReportMetric(float64(n)/baseline.Seconds(), "baseline-rows/s")
	b.StartTimer()
}

// freshStore opens an empty, migrated store of the engine (SQLite in a
// new folder, also returned; PostgreSQL in a new schema).
func freshStore(b *testing.B, engine string) (*sqlstore.DB, string) {
	b.Helper()
	dir := b.TempDir()
	var s *sqlstore.DB
	var err error
	if engine == "sqlite" {
		s, err = sqlitestore.Open(context.Background(), dir)
	} else {
		s, err = postgres.Open(context.Background(), testenv.PostgresSchema(b))
	}
	if err != nil {
		b.Fatal(err)
	}
	return s, dir
}

// bareInserts inserts n bare risk_entries rows of another source type in
// transactions of drafting.MaxTransaction rows, one prepared statement a
// transaction, and returns how long it took.
func bareInserts(b *testing.B, s *sqlstore.DB, org string, n int) time.Duration {
	b.Helper()
	q := `INSERT INTO risk_entries (id, org_id, title, description, category, likelihood, impact, risk_score,
		severity, severity_rank, status, is_open, mitigation_plan, source_type, source_id, created_at, updated_at)
		VALUES (?, ?, 'bare', '', 'drift', 4, 3, 12, 'high', 3, 'identified', TRUE, '', 'baseline', ?, 1, 1)`
	q = s.Rebind(q)
	start := time.Now()
	for i := 0; i < n; i += drafting.MaxTransaction {
		tx, err := s.SQL().Begin()
		if err != nil {
			b.Fatal(err)
		}
		ins, err := tx.Prepare(q)
		if err != nil {
			b.Fatal(err)
		}
		for j := i; j < min(i+drafting.MaxTransaction, n); j++ {
			if _, err := ins.Exec(uuid.NewString(), org, uuid.NewString()); err != nil {
				b.Fatal(err)
			}
		}
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
	}
	return time.Since(start)
}

// seedOrg creates an organization with its built-in roles, an admin and
// 20 models in s, and returns their ids.
func seedOrg(b *testing.B, s *sqlstore.DB) (string, []string) {
	b.Helper()
	now := time.Now().UTC()
	org := uuid.NewString()
	roles := identity.BuiltInRoles()
	for i := range roles {
		roles[i].ID, roles[i].OrgID, roles[i].CreatedAt = uuid.NewString(), org, now
	}
	admin := identity.User{ID: uuid.NewString(), OrgID: org, Username: "bench-" + org[:8], Email: "b@example.com", PasswordHash: "x",
		Role: identity.RoleAdmin, Active: true, CreatedAt: now, UpdatedAt: now}
	if err := s.CreateOrganization(context.Background(), identity.Organization{ID: org, Name: "bench", CreatedAt: now}, roles, admin); err != nil {
		b.Fatal(err)
	}
	var models []string
	for i := range 20 {
		m := registry.Model{ID: uuid.NewString(), OrgID: org, Name: fmt.Sprint("m", i), Version: "1", ModelType: "classification",
			Status: registry.StatusActive, CreatedAt: now, UpdatedAt: now}
		if err := s.CreateModel(context.Background(), m); err != nil {
			b.Fatal(err)
		}
		models = append(models, m.ID)
	}
	return org, models
}
