package sqlstore

import (
	"context"
	"database/sql"
	"time"

	"github.com/vigilhq/vigil/pricing"
)

var _ pricing.Store = (*DB)(nil)

// Prices implements pricing.Store.
func (s *DB) Prices(ctx context.Context, orgID string) ([]pricing.Price, error) {
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT provider, model, input_per_million, output_per_million
		FROM llm_prices WHERE org_id = ? ORDER BY provider, model`), orgID)
	if err != nil {
		return nil, s.wrap(err)
	}
	defer rows.Close()
	out := []pricing.Price{}
	for rows.Next() {
		var p pricing.Price
		if err := rows.Scan(&p.Provider, &p.Model, &p.InputPerMillion, &p.OutputPerMillion); err != nil {
			return nil, s.wrap(err)
		}
		out = append(out, p)
	}
	return out, s.wrap(rows.Err())
}

// PutPrices implements pricing.Store: the organization's rows are deleted
// and ps inserted in one transaction.
func (s *DB) PutPrices(ctx context.Context, orgID string, ps []pricing.Price, at time.Time) error {
	return s.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := s.exec(ctx, tx, `DELETE FROM llm_prices WHERE org_id = ?`, orgID); err != nil {
			return err
		}
		for _, p := range ps {
			if _, err := s.exec(ctx, tx, `INSERT INTO llm_prices (org_id, provider, model, input_per_million,
				output_per_million, updated_at) VALUES (?, ?, ?, ?, ?, ?)`,
				orgID, p.Provider, p.Model, p.InputPerMillion, p.OutputPerMillion, micros(at)); err != nil {
				return err
			}
		}
		return nil
	})
}
