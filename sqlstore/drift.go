package sqlstore

import (
	"context"
	"database/sql"
	"errors"

	"github.com/vigilhq/vigil/drift"
	"github.com/vigilhq/vigil/store"
)

var _ drift.Store = (*DB)(nil)

const driftColumns = `model_id, org_id, feature_configs, concept_drift_config, alert_config, schedule_config,
	threshold_config, created_at, updated_at`

// driftParts are the JSON columns of a configuration, in column order.
func driftParts(c *drift.Config) []any {
	return []any{&c.Features, &c.ConceptDrift, &c.Alerts, &c.Schedule, &c.Thresholds}
}

// driftArgs returns c's values in driftColumns order.
func driftArgs(c *drift.Config) ([]any, error) {
	// The reference window's times are kept as every stored time: UTC,
	// whole microseconds.
	r := &c.Schedule.Reference
	r.Start, r.End = fromNullMicros(nullMicros(r.Start)), fromNullMicros(nullMicros(r.End))
	parts, err := encodeAll(driftParts(c))
	if err != nil {
		return nil, err
	}
	args := append([]any{c.ModelID, c.OrgID}, parts...)
	return append(args, nullMicros(c.CreatedAt), nullMicros(c.UpdatedAt)), nil
}

func (s *DB) scanDrift(row interface{ Scan(...any) error }) (drift.Config, error) {
	var c drift.Config
	var parts [5]string
	var created, updated sql.NullInt64
	if err := row.Scan(&c.ModelID, &c.OrgID, &parts[0], &parts[1], &parts[2], &parts[3], &parts[4], &created, &updated); err != nil {
		return c, s.wrap(err)
	}
	for i, dst := range driftParts(&c) {
		if err := fromJSON(parts[i], dst); err != nil {
			return c, err
		}
	}
	c.CreatedAt, c.UpdatedAt = fromNullMicros(created), fromNullMicros(updated)
	return c, nil
}

// DriftConfig implements drift.Store.
func (s *DB) DriftConfig(ctx context.Context, orgID, modelID string) (drift.Config, error) {
	return s.readDrift(ctx, s.db, orgID, modelID, "")
}

// readDrift reads a configuration, with suffix (a row lock) appended.
func (s *DB) readDrift(ctx context.Context, qr querier, orgID, modelID, suffix string) (drift.Config, error) {
	return s.scanDrift(qr.QueryRowContext(ctx, s.q(`SELECT `+driftColumns+` FROM drift_configs WHERE org_id = ? AND model_id = ?`+suffix),
		orgID, modelID))
}

// insertDrift inserts c when the organization has the model: the model is
// checked in the same statement, so another organization's model id is
// store.ErrNotFound. A configuration on file already is store.ErrConflict.
func (s *DB) insertDrift(ctx context.Context, qr querier, c drift.Config) error {
	args, err := driftArgs(&c)
	if err != nil {
		return err
	}
	// The times are cast: PostgreSQL types a bare parameter of a SELECT as text.
	n, err := s.exec(ctx, qr, `INSERT INTO drift_configs (`+driftColumns+`) SELECT `+placeholders(len(args)-2)+
		`, CAST(? AS BIGINT), CAST(? AS BIGINT) WHERE EXISTS (SELECT 1 FROM models WHERE org_id = ? AND id = ?)`, append(args, c.OrgID, c.ModelID)...)
	if err == nil && n == 0 {
		err = store.ErrNotFound
	}
	return err
}

// lockModel locks the model's row until the transaction ends (SQLite
// serialises writers already), so that the writers of a model's drift
// configuration and of the alert rule it manages (a user's configuration,
// the scheduler's default rule) take turns: otherwise neither sees the
// rule the other has inserted but not committed, and the second insert
// fails on the managed rules' unique index. store.ErrNotFound when the
// organization has no such model.
func (s *DB) lockModel(ctx context.Context, tx *sql.Tx, orgID, modelID string) error {
	var one int
	return s.wrap(tx.QueryRowContext(ctx, s.q(`SELECT 1 FROM models WHERE org_id = ? AND id = ?`+s.d.ForUpdate), orgID, modelID).Scan(&one))
}

// CreateDriftConfig implements drift.Store; the alert rule c's
// alert_config manages is created in the same transaction.
func (s *DB) CreateDriftConfig(ctx context.Context, c drift.Config) error {
	return s.inTx(ctx, func(tx *sql.Tx) error {
		if err := s.lockModel(ctx, tx, c.OrgID, c.ModelID); err != nil {
			return err
		}
		if err := s.insertDrift(ctx, tx, c); err != nil {
			return err
		}
		return s.syncDriftRule(ctx, tx, c)
	})
}

// UpdateDriftConfig implements drift.Store; the alert rule the
// configuration's alert_config manages is created, updated or deleted in
// the same transaction.
func (s *DB) UpdateDriftConfig(ctx context.Context, base drift.Config, change func(*drift.Config) error) (drift.Config, error) {
	var c drift.Config
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if err := s.lockModel(ctx, tx, base.OrgID, base.ModelID); err != nil {
			return err
		}
		var err error
		c, err = s.readDrift(ctx, tx, base.OrgID, base.ModelID, s.d.ForUpdate)
		exists := err == nil
		switch {
		case errors.Is(err, store.ErrNotFound):
			c = base
		case err != nil:
			return err
		}
		if err := change(&c); err != nil {
			return err
		}
		c.OrgID, c.ModelID = base.OrgID, base.ModelID
		if exists {
			err = s.updateDrift(ctx, tx, c)
		} else {
			err = s.insertDrift(ctx, tx, c)
		}
		if err != nil {
			return err
		}
		c, err = s.readDrift(ctx, tx, c.OrgID, c.ModelID, "")
		if err != nil {
			return err
		}
		return s.syncDriftRule(ctx, tx, c)
	})
	return c, err
}

// updateDrift overwrites the stored configuration with c.
func (s *DB) updateDrift(ctx context.Context, tx *sql.Tx, c drift.Config) error {
	args, err := driftArgs(&c)
	if err != nil {
		return err
	}
	_, err = s.exec(ctx, tx, `UPDATE drift_configs SET `+assignments(driftColumns, 2)+` WHERE org_id = ? AND model_id = ?`,
		append(args[2:], c.OrgID, c.ModelID)...)
	return err
}
