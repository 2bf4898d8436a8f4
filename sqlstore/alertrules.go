package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/vigilhq/vigil/alerts"
	"github.com/vigilhq/vigil/store"
)

var (
	_ alerts.Store  = (*DB)(nil)
	_ alerts.Ledger = (*DB)(nil)
)

const ruleColumns = `id, org_id, name, description, alert_type, severity, model_id, conditions, notification_channels,
	enabled, cooldown_minutes, managed_by, created_by, created_at, updated_at`

// ruleArgs are r's values in ruleColumns' order.
func ruleArgs(r alerts.Rule) ([]any, error) {
	conds, err := toJSON(r.Conditions)
	if err != nil {
		return nil, err
	}
	chans, err := toJSON(r.Channels)
	if err != nil {
		return nil, err
	}
	model := sql.NullString{String: r.ModelID, Valid: r.ModelID != ""}
	return []any{r.ID, r.OrgID, r.Name, r.Description, r.AlertType, r.Severity, model, conds, chans,
		r.Enabled, int64(r.CooldownMinutes), r.ManagedBy, r.CreatedBy, micros(r.CreatedAt), micros(r.UpdatedAt)}, nil
}

func (s *DB) scanRule(row interface{ Scan(...any) error }) (alerts.Rule, error) {
	var r alerts.Rule
	var model sql.NullString
	var conds, chans string
	var cooldown, created, updated int64
	if err := row.Scan(&r.ID, &r.OrgID, &r.Name, &r.Description, &r.AlertType, &r.Severity, &model, &conds, &chans,
		&r.Enabled, &cooldown, &r.ManagedBy, &r.CreatedBy, &created, &updated); err != nil {
		return r, s.wrap(err)
	}
	r.ModelID, r.CooldownMinutes, r.CreatedAt, r.UpdatedAt = model.String, int(cooldown), fromMicros(created), fromMicros(updated)
	if err := fromJSON(conds, &r.Conditions); err != nil {
		return r, err
	}
	return r, fromJSON(chans, &r.Channels)
}

// checkModel is store.ErrNotFound unless the organization has the model
// ("" names none and passes).
func (s *DB) checkModel(ctx context.Context, qr querier, orgID, modelID string) error {
	if modelID == "" {
		return nil
	}
	var one int
	return s.wrap(qr.QueryRowContext(ctx, s.q(`SELECT 1 FROM models WHERE org_id = ? AND id = ?`), orgID, modelID).Scan(&one))
}

// CreateAlertRule implements alerts.Store.
func (s *DB) CreateAlertRule(ctx context.Context, r alerts.Rule) error {
	args, err := ruleArgs(r)
	if err != nil {
		return err
	}
	return s.inTx(ctx, func(tx *sql.Tx) error {
		if err := s.checkModel(ctx, tx, r.OrgID, r.ModelID); err != nil {
			return err
		}
		_, err := s.exec(ctx, tx, `INSERT INTO alert_rules (`+ruleColumns+`) VALUES (`+placeholders(len(args))+`)`, args...)
		return err
	})
}

// AlertRule implements alerts.Store.
func (s *DB) AlertRule(ctx context.Context, orgID, id string) (alerts.Rule, error) {
	return s.scanRule(s.db.QueryRowContext(ctx, s.q(`SELECT `+ruleColumns+` FROM alert_rules WHERE org_id = ? AND id = ?`), orgID, id))
}

// AlertRules implements alerts.Store, newest first.
func (s *DB) AlertRules(ctx context.Context, orgID string, f alerts.RuleFilter) ([]alerts.Rule, int64, error) {
	where, args := []string{"org_id = ?"}, []any{orgID}
	if f.ModelID != "" {
		where, args = append(where, "model_id = ?"), append(args, f.ModelID)
	}
	if f.Enabled != nil {
		where, args = append(where, "enabled = ?"), append(args, *f.Enabled)
	}
	return page(ctx, s, "alert_rules", ruleColumns, strings.Join(where, " AND "), "created_at DESC, id DESC", args, f.Limit, f.Offset, s.scanRule)
}

// UserAlertRules implements alerts.Resealer: every organization's rules
// users define.
func (s *DB) UserAlertRules(ctx context.Context) ([]alerts.Rule, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+ruleColumns+` FROM alert_rules WHERE managed_by = '' ORDER BY org_id, id`)
	if err != nil {
		return nil, s.wrap(err)
	}
	return collect(rows, s.scanRule)
}

// page reads one page of table's rows matching cond, in order, and how
// many match in all.
func page[T any](ctx context.Context, s *DB, table, columns, cond, order string, args []any, limit, offset int,
	scan func(interface{ Scan(...any) error }) (T, error)) ([]T, int64, error) {
	var total int64
	if err := s.db.QueryRowContext(ctx, s.q(`SELECT COUNT(*) FROM `+table+` WHERE `+cond), args...).Scan(&total); err != nil {
		return nil, 0, s.wrap(err)
	}
	n := int64(limit)
	if n <= 0 {
		n = 1 << 62
	}
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT `+columns+` FROM `+table+` WHERE `+cond+` ORDER BY `+order+` LIMIT ? OFFSET ?`),
		append(args, n, offset)...)
	if err != nil {
		return nil, 0, s.wrap(err)
	}
	out, err := collect(rows, scan)
	return out, total, err
}

// UpdateAlertRule implements alerts.Store.
func (s *DB) UpdateAlertRule(ctx context.Context, orgID, id string, change func(*alerts.Rule) error) (alerts.Rule, error) {
	return updateLocked(ctx, s, "alert_rules", ruleColumns, orgID, id, s.scanRule, change, func(tx *sql.Tx, r *alerts.Rule) error {
		r.ID, r.OrgID = id, orgID
		if err := s.checkModel(ctx, tx, orgID, r.ModelID); err != nil {
			return err
		}
		args, err := ruleArgs(*r)
		if err != nil {
			return err
		}
		if _, err = s.exec(ctx, tx, `UPDATE alert_rules SET `+assignments(ruleColumns, 2)+` WHERE org_id = ? AND id = ?`, append(args[2:], orgID, id)...); err != nil {
			return err
		}
		return s.resolveOpen(ctx, tx, orgID, id, r.ConditionKey(), alerts.SystemUser, r.UpdatedAt, "rule conditions changed")
	})
}

// updateLocked reads the organization's row id of table with its row
// locked, applies change and stores the result with write, in one
// transaction; an error from change aborts it.
func updateLocked[T any](ctx context.Context, s *DB, table, columns, orgID, id string, scan func(interface{ Scan(...any) error }) (T, error),
	change func(*T) error, write func(tx *sql.Tx, v *T) error) (T, error) {
	var v T
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		var err error
		v, err = scan(tx.QueryRowContext(ctx, s.q(`SELECT `+columns+` FROM `+table+` WHERE org_id = ? AND id = ?`+s.d.ForUpdate), orgID, id))
		if err != nil {
			return err
		}
		if err := change(&v); err != nil {
			return err
		}
		return write(tx, &v)
	})
	return v, err
}

// resolveOpen resolves the rule's instances that are not resolved, but
// those of condition key keep ("" keeps none), by userID at at with note.
func (s *DB) resolveOpen(ctx context.Context, tx *sql.Tx, orgID, ruleID, keep, userID string, at time.Time, note string) error {
	rows, err := tx.QueryContext(ctx, s.q(`SELECT `+instanceColumns+` FROM alert_instances
		WHERE org_id = ? AND rule_id = ? AND status <> 'resolved' AND condition_key <> ?`+s.d.ForUpdate), orgID, ruleID, keep)
	if err != nil {
		return s.wrap(err)
	}
	open, err := collect(rows, s.scanInstance)
	if err != nil {
		return err
	}
	for _, in := range open {
		if err := in.Apply(alerts.ActionResolve, userID, at, nil, note); err != nil {
			return err
		}
		if err := s.writeInstance(ctx, tx, in); err != nil {
			return err
		}
	}
	return nil
}

// DeleteAlertRule implements alerts.Store.
func (s *DB) DeleteAlertRule(ctx context.Context, orgID, id, userID string, at time.Time) error {
	return s.inTx(ctx, func(tx *sql.Tx) error {
		n, err := s.exec(ctx, tx, `DELETE FROM alert_rules WHERE org_id = ? AND id = ?`, orgID, id)
		if err != nil {
			return err
		}
		if n == 0 {
			return store.ErrNotFound
		}
		return s.resolveOpen(ctx, tx, orgID, id, "", userID, at, "rule deleted")
	})
}

// AlertTargets implements alerts.Ledger.
func (s *DB) AlertTargets(ctx context.Context) ([]alerts.Target, error) {
	cols := "r." + strings.Join(strings.Split(strings.ReplaceAll(ruleColumns, "\n\t", " "), ", "), ", r.")
	// Two joins an index answers each, rather than one on "r.model_id IS
	// NULL OR r.model_id = m.id" that pairs every rule with every model of
	// its organization before filtering: a rule of one model meets it by
	// the models' primary key, a rule of every model meets the models of
	// its organization by models_org_created.
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT * FROM (SELECT `+cols+`, m.id AS target_model FROM alert_rules r JOIN models m
		ON m.id = r.model_id AND m.org_id = r.org_id
		WHERE r.enabled AND r.model_id IS NOT NULL AND m.status <> 'archived'
		UNION ALL SELECT `+cols+`, m.id AS target_model FROM alert_rules r JOIN models m ON m.org_id = r.org_id
		WHERE r.enabled AND r.model_id IS NULL AND m.status <> 'archived') t
		ORDER BY org_id, id, target_model`))
	if err != nil {
		return nil, s.wrap(err)
	}
	return collect(rows, func(row interface{ Scan(...any) error }) (alerts.Target, error) {
		var t alerts.Target
		r, err := s.scanRule(scanPlus{row, &t.ModelID})
		t.Rule = r
		return t, err
	})
}

// scanPlus scans a row's leading columns with the wrapped scanner's
// destinations and the trailing ones into more.
type scanPlus struct {
	row  interface{ Scan(...any) error }
	more any
}

func (p scanPlus) Scan(dest ...any) error { return p.row.Scan(append(dest, p.more)...) }

// isConflict reports a unique-key violation.
func isConflict(err error) bool { return errors.Is(err, store.ErrConflict) }
