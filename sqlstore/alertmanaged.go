package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"reflect"
	"time"

	"github.com/google/uuid"

	"github.com/vigilhq/vigil/alerts"
	"github.com/vigilhq/vigil/drift"
	"github.com/vigilhq/vigil/store"
)

// syncDriftRule makes the alert rule that c's alert_config manages
// (alerts.DriftRule) match it, inside the drift configuration's own
// transaction tx: created when alert_config is enabled and no rule is on
// file, updated when it differs (the instances of the old conditions
// resolved, as UpdateAlertRule does), deleted when alert_config is
// disabled (its open instances resolved and kept, as DeleteAlertRule
// does).
func (s *DB) syncDriftRule(ctx context.Context, tx *sql.Tx, c drift.Config) error {
	at := time.Now().UTC()
	if c.UpdatedAt != nil {
		at = *c.UpdatedAt
	}
	cur, err := s.scanRule(tx.QueryRowContext(ctx, s.q(`SELECT `+ruleColumns+` FROM alert_rules WHERE org_id = ? AND managed_by = ?`+s.d.ForUpdate),
		c.OrgID, alerts.ManagedByDrift(c.ModelID)))
	exists := err == nil
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	want, ok := alerts.DriftRule(c)
	switch {
	case !ok && !exists:
		return nil
	case !ok:
		if _, err := s.exec(ctx, tx, `DELETE FROM alert_rules WHERE org_id = ? AND id = ?`, cur.OrgID, cur.ID); err != nil {
			return err
		}
		return s.resolveOpen(ctx, tx, cur.OrgID, cur.ID, "", alerts.SystemUser, at, "the drift configuration's alert_config was disabled")
	case !exists:
		want.ID, want.CreatedAt, want.UpdatedAt = uuid.NewString(), at, at
		args, err := ruleArgs(want)
		if err != nil {
			return err
		}
		_, err = s.exec(ctx, tx, `INSERT INTO alert_rules (`+ruleColumns+`) VALUES (`+placeholders(len(args))+`)`, args...)
		return err
	}
	want.ID, want.CreatedBy, want.CreatedAt, want.UpdatedAt = cur.ID, cur.CreatedBy, cur.CreatedAt, cur.UpdatedAt
	if reflect.DeepEqual(want, cur) {
		return nil
	}
	want.UpdatedAt = at
	args, err := ruleArgs(want)
	if err != nil {
		return err
	}
	if _, err := s.exec(ctx, tx, `UPDATE alert_rules SET `+assignments(ruleColumns, 2)+` WHERE org_id = ? AND id = ?`,
		append(args[2:], want.OrgID, want.ID)...); err != nil {
		return err
	}
	return s.resolveOpen(ctx, tx, want.OrgID, want.ID, want.ConditionKey(), alerts.SystemUser, at, "rule conditions changed")
}

// EnsureDefaultDriftRule implements schedule.DefaultRules: for a model
// without a drift configuration on file, the rule the default
// configuration's alert_config manages (drift.Default) is created, or
// brought back to it; a model with a configuration on file is left to it.
// The model's row is locked first, as every writer of its drift
// configuration locks it, so a first configuration written at the same
// time either sees this rule and changes it, or is seen here and left
// alone. Another organization's
// model is store.ErrNotFound.
func (s *DB) EnsureDefaultDriftRule(ctx context.Context, orgID, modelID string, at time.Time) error {
	return s.inTx(ctx, func(tx *sql.Tx) error {
		if err := s.lockModel(ctx, tx, orgID, modelID); err != nil {
			return err
		}
		var id string
		err := tx.QueryRowContext(ctx, s.q(`SELECT id FROM alert_rules WHERE org_id = ? AND managed_by = ?`+s.d.ForUpdate),
			orgID, alerts.ManagedByDrift(modelID)).Scan(&id)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return s.wrap(err)
		}
		switch _, err := s.readDrift(ctx, tx, orgID, modelID, ""); {
		case err == nil:
			return nil // the configuration on file manages the rule
		case !errors.Is(err, store.ErrNotFound):
			return err
		}
		c := drift.Default(orgID, modelID)
		c.UpdatedAt = &at
		return s.syncDriftRule(ctx, tx, c)
	})
}
