package benchmarks

import (
	"context"
	"database/sql"
	"fmt"
	"testing"
	"time"

	"github.com/vigilhq/vigil/governance/risk"
)

// BenchmarkRiskList measures, over 100,000 entries in one organization,
// the store's filtered page of the register (risk.Store.RiskEntries, 50 a
// page, with its total) against, as the baseline of the same run on the
// same rows, the two statements the store ran before issue 13's point 8
// (an exact COUNT(*) of the matching entries, then the page's rows by
// LIMIT and OFFSET; both on today's indexes, which the former page also
// gains from), and reports each one's best of 5 as ms.
func BenchmarkRiskList(b *testing.B) {
	for _, engine := range []string{"sqlite", "postgres"} {
		b.Run(engine, func(b *testing.B) {
			s, _ := freshStore(b, engine)
			defer s.Close()
			org, models := seedOrg(b, s)
			seedRisks(b, s, org, models, riskEntries)
			vacuum(b, s)
			for _, c := range []struct {
				name   string
				f      risk.Filter
				before string // the former FROM and WHERE
				args   []any
			}{
				{"all", risk.Filter{}, `risk_entries e WHERE e.org_id = ?`, []any{org}},
				{"status-severity", risk.Filter{Status: risk.StatusIdentified, Severity: "high"},
					`risk_entries e WHERE e.org_id = ? AND e.severity = ? AND e.status = ?`, []any{org, "high", "identified"}},
				{"model", risk.Filter{ModelID: models[7]}, `risk_entry_models m JOIN risk_entries e ON e.id = m.entry_id
					WHERE m.org_id = ? AND m.model_id = ?`, []any{org, models[7]}},
				{"category-page-100", risk.Filter{Category: "bias", Offset: 4950}, `risk_entries e WHERE e.org_id = ? AND e.category = ?`,
					[]any{org, "bias"}},
			} {
				b.Run(c.name, func(b *testing.B) {
					order := `e.created_at DESC, e.id DESC`
					if c.f.ModelID != "" {
						order = `m.created_at DESC, m.entry_id DESC`
					}
					count := s.Rebind(`SELECT COUNT(*) FROM ` + c.before)
					page := s.Rebind(`SELECT e.* FROM ` + c.before + ` ORDER BY ` + order + fmt.Sprintf(` LIMIT 50 OFFSET %d`, c.f.Offset))
					c.f.Limit = 50
					for range b.N {
						b.ReportMetric(best(b, func() error {
							_, _, err := s.RiskEntries(context.Background(), org, c.f)
							return err
						}), "store-ms")
						b.ReportMetric(best(b, func() error { return drain(s.SQL().Query(count, c.args...)) }), "before-count-ms")
						b.ReportMetric(best(b, func() error { return drain(s.SQL().Query(page, c.args...)) }), "before-page-ms")
					}
				})
			}
		})
	}
}

// best runs fn 5 times and returns its fastest run in ms.
func best(b *testing.B, fn func() error) float64 {
	b.Helper()
	fastest := time.Hour
	for range 5 {
		start := time.Now()
		if err := fn(); err != nil {
			b.Fatal(err)
		}
		fastest = min(fastest, time.Since(start))
	}
	return float64(fastest.Microseconds()) / 1000
}

// drain reads every row of a query's answer.
func drain(rows *sql.Rows, err error) error {
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
	}
	return rows.Err()
}
