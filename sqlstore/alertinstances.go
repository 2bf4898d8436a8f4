package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/vigilhq/vigil/alerts"
	"github.com/vigilhq/vigil/store"
)

const instanceColumns = `id, org_id, rule_id, model_id, condition_key, rule_name, alert_type, severity, status, observations,
	hold_count, window_end, triggered_at, last_triggered_at, acknowledged_at, acknowledged_by, snoozed_until, resolved_at,
	resolved_by, resolution, history, updated_at`

// instanceArgs are in's values in instanceColumns' order.
func instanceArgs(in alerts.Instance) ([]any, error) {
	obs, err := toJSON(in.Observations)
	if err != nil {
		return nil, err
	}
	hist, err := toJSON(in.History)
	if err != nil {
		return nil, err
	}
	return []any{in.ID, in.OrgID, in.RuleID, in.ModelID, in.ConditionKey, in.RuleName, in.AlertType, in.Severity, string(in.Status), obs,
		in.Count, micros(in.WindowEnd), micros(in.TriggeredAt), micros(in.LastTriggeredAt), nullMicros(in.AcknowledgedAt), in.AcknowledgedBy,
		nullMicros(in.SnoozedUntil), nullMicros(in.ResolvedAt), in.ResolvedBy, in.Resolution, hist, micros(in.UpdatedAt)}, nil
}

func (s *DB) scanInstance(row interface{ Scan(...any) error }) (alerts.Instance, error) {
	var in alerts.Instance
	var status, obs, hist string
	var windowEnd, triggered, last, updated int64
	var acked, snoozed, resolved sql.NullInt64
	if err := row.Scan(&in.ID, &in.OrgID, &in.RuleID, &in.ModelID, &in.ConditionKey, &in.RuleName, &in.AlertType, &in.Severity, &status, &obs,
		&in.Count, &windowEnd, &triggered, &last, &acked, &in.AcknowledgedBy, &snoozed, &resolved, &in.ResolvedBy, &in.Resolution, &hist,
		&updated); err != nil {
		return in, s.wrap(err)
	}
	in.Status, in.WindowEnd, in.TriggeredAt, in.LastTriggeredAt = alerts.Status(status), fromMicros(windowEnd), fromMicros(triggered), fromMicros(last)
	in.AcknowledgedAt, in.SnoozedUntil, in.ResolvedAt, in.UpdatedAt = fromNullMicros(acked), fromNullMicros(snoozed), fromNullMicros(resolved), fromMicros(updated)
	if err := fromJSON(obs, &in.Observations); err != nil {
		return in, err
	}
	return in, fromJSON(hist, &in.History)
}

// writeInstance stores every column of in but its identity.
func (s *DB) writeInstance(ctx context.Context, qr querier, in alerts.Instance) error {
	args, err := instanceArgs(in)
	if err != nil {
		return err
	}
	_, err = s.exec(ctx, qr, `UPDATE alert_instances SET `+assignments(instanceColumns, 4)+` WHERE org_id = ? AND id = ?`,
		append(args[4:], in.OrgID, in.ID)...)
	return err
}

// AlertInstance implements alerts.Store.
func (s *DB) AlertInstance(ctx context.Context, orgID, id string) (alerts.Instance, error) {
	return s.scanInstance(s.db.QueryRowContext(ctx, s.q(`SELECT `+instanceColumns+` FROM alert_instances WHERE org_id = ? AND id = ?`), orgID, id))
}

// AlertInstances implements alerts.Store, newest trigger first.
func (s *DB) AlertInstances(ctx context.Context, orgID string, f alerts.InstanceFilter) ([]alerts.Instance, int64, error) {
	where, args := []string{"org_id = ?"}, []any{orgID}
	add := func(cond string, v any) { where, args = append(where, cond), append(args, v) }
	if f.Status != "" {
		add("status = ?", string(f.Status))
	}
	if f.Severity != "" {
		add("severity = ?", f.Severity)
	}
	if f.ModelID != "" {
		add("model_id = ?", f.ModelID)
	}
	if f.RuleID != "" {
		add("rule_id = ?", f.RuleID)
	}
	if !f.From.IsZero() {
		add("triggered_at >= ?", micros(f.From))
	}
	if !f.To.IsZero() {
		add("triggered_at < ?", micros(f.To))
	}
	return page(ctx, s, "alert_instances", instanceColumns, strings.Join(where, " AND "), "triggered_at DESC, id DESC", args, f.Limit, f.Offset, s.scanInstance)
}

// UpdateAlertInstance implements alerts.Store.
func (s *DB) UpdateAlertInstance(ctx context.Context, orgID, id string, change func(*alerts.Instance) error) (alerts.Instance, error) {
	return updateLocked(ctx, s, "alert_instances", instanceColumns, orgID, id, s.scanInstance, change, func(tx *sql.Tx, in *alerts.Instance) error {
		in.ID, in.OrgID = id, orgID
		return s.writeInstance(ctx, tx, *in)
	})
}

// OpenAlert implements alerts.Ledger.
func (s *DB) OpenAlert(ctx context.Context, orgID, ruleID, modelID, key string) (alerts.Instance, error) {
	return s.scanInstance(s.db.QueryRowContext(ctx, s.q(`SELECT `+instanceColumns+` FROM alert_instances
		WHERE org_id = ? AND rule_id = ? AND model_id = ? AND condition_key = ? AND status <> 'resolved'`), orgID, ruleID, modelID, key))
}

// FireAlert implements alerts.Ledger as a batch of one.
func (s *DB) FireAlert(ctx context.Context, in alerts.Instance, since time.Time, change func(*alerts.Instance) error,
	outbox alerts.Outbox) (alerts.Instance, bool, error) {
	out, err := s.FireAlerts(ctx, []alerts.Fire{{Instance: in, Since: since, Change: change, Outbox: outbox}})
	if err != nil {
		return alerts.Instance{}, false, err
	}
	return out[0].Instance, out[0].Created, nil
}

// FireAlerts implements alerts.Ledger in one transaction. The rows are
// written in the order of their unique key, so two replicas writing the
// same batch wait on each other rather than deadlock; a concurrent insert
// of the same rule, model and key fails on the partial unique index and
// the whole transaction is run again, finding the winner's row to update.
func (s *DB) FireAlerts(ctx context.Context, fires []alerts.Fire) ([]alerts.Fired, error) {
	order := make([]int, len(fires))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		x, y := fires[a].Instance, fires[b].Instance
		return cmp.Or(strings.Compare(x.OrgID, y.OrgID), strings.Compare(x.RuleID, y.RuleID),
			strings.Compare(x.ModelID, y.ModelID), strings.Compare(x.ConditionKey, y.ConditionKey))
	})
	for attempt := 0; ; attempt++ {
		out, err := s.fireOnce(ctx, fires, order)
		if attempt < 3 && isConflict(err) {
			continue
		}
		return out, err
	}
}

func (s *DB) fireOnce(ctx context.Context, fires []alerts.Fire, order []int) ([]alerts.Fired, error) {
	out := make([]alerts.Fired, len(fires))
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		var ds []alerts.Delivery
		for _, i := range order {
			f := fires[i]
			in, created, err := s.fireIn(ctx, tx, f.Instance, f.Since, f.Change)
			if err != nil {
				return err
			}
			out[i] = alerts.Fired{Instance: in, Created: created}
			if f.Outbox == nil || in.ID == "" {
				continue
			}
			owed, err := f.Outbox(in, created)
			if err != nil {
				return fmt.Errorf("the alert's deliveries: %w", err)
			}
			ds = append(ds, owed...)
		}
		return s.insertDeliveries(ctx, tx, ds)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// fireIn is FireAlert's write of the instance inside tx: the instance
// written and whether it was inserted, or the zero Instance in a cooldown.
func (s *DB) fireIn(ctx context.Context, tx *sql.Tx, in alerts.Instance, since time.Time, change func(*alerts.Instance) error) (alerts.Instance, bool, error) {
	cur, err := s.scanInstance(tx.QueryRowContext(ctx, s.q(`SELECT `+instanceColumns+` FROM alert_instances
		WHERE org_id = ? AND rule_id = ? AND model_id = ? AND condition_key = ? AND status <> 'resolved'`+s.d.ForUpdate),
		in.OrgID, in.RuleID, in.ModelID, in.ConditionKey))
	switch {
	case err == nil:
		if change != nil {
			if err := change(&cur); err != nil {
				return alerts.Instance{}, false, err
			}
		}
		return cur, false, s.writeInstance(ctx, tx, cur)
	case !errors.Is(err, store.ErrNotFound):
		return alerts.Instance{}, false, err
	}
	var recent int
	err = tx.QueryRowContext(ctx, s.q(`SELECT 1 FROM alert_instances WHERE org_id = ? AND rule_id = ? AND model_id = ?
		AND resolved_at >= ? LIMIT 1`), in.OrgID, in.RuleID, in.ModelID, micros(since)).Scan(&recent)
	if err == nil {
		return alerts.Instance{}, false, nil // cooling down
	} else if !errors.Is(err, sql.ErrNoRows) {
		return alerts.Instance{}, false, s.wrap(err)
	}
	args, err := instanceArgs(in)
	if err != nil {
		return alerts.Instance{}, false, err
	}
	if _, err := s.exec(ctx, tx, `INSERT INTO alert_instances (`+instanceColumns+`) VALUES (`+placeholders(len(args))+`)`, args...); err != nil {
		return alerts.Instance{}, false, err
	}
	return in, true, nil
}

// ActiveAlertCounts implements the app's model health: the
// organization's alert instances open or snoozed, by model.
func (s *DB) ActiveAlertCounts(ctx context.Context, orgID string) (map[string]int64, error) {
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT model_id, COUNT(*) FROM alert_instances
		WHERE org_id = ? AND status IN (?, ?) GROUP BY model_id`), orgID, string(alerts.StatusOpen), string(alerts.StatusSnoozed))
	return s.counts(rows, err, map[string]int64{})
}

// AlertStatistics implements alerts.Statistics. A time to acknowledge or
// resolve that would be negative (a move stored before Apply kept moves in
// order) counts as zero.
func (s *DB) AlertStatistics(ctx context.Context, orgID, modelID string, from, to time.Time) ([]alerts.StatGroup, error) {
	where, args := "org_id = ? AND triggered_at >= ? AND triggered_at < ?", []any{orgID, micros(from), micros(to)}
	if modelID != "" {
		where, args = where+" AND model_id = ?", append(args, modelID)
	}
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT rule_id, MAX(rule_name), status, severity, resolution, COUNT(*),
		CAST(SUM(CASE WHEN acknowledged_at IS NULL THEN 0 ELSE 1 END) AS BIGINT),
		CAST(SUM(CASE WHEN acknowledged_at > triggered_at THEN acknowledged_at - triggered_at ELSE 0 END) AS BIGINT),
		CAST(SUM(CASE WHEN resolved_at IS NULL THEN 0 ELSE 1 END) AS BIGINT),
		CAST(SUM(CASE WHEN resolved_at > triggered_at THEN resolved_at - triggered_at ELSE 0 END) AS BIGINT)
		FROM alert_instances WHERE `+where+` GROUP BY rule_id, status, severity, resolution`), args...)
	if err != nil {
		return nil, s.wrap(err)
	}
	return collect(rows, func(row interface{ Scan(...any) error }) (alerts.StatGroup, error) {
		var g alerts.StatGroup
		var status string
		var ack, res int64
		err := row.Scan(&g.RuleID, &g.RuleName, &status, &g.Severity, &g.Resolution, &g.Count, &g.Acknowledged, &ack, &g.Resolved, &res)
		g.Status, g.AckTotal, g.ResolveTotal = alerts.Status(status), time.Duration(ack)*time.Microsecond, time.Duration(res)*time.Microsecond
		return g, s.wrap(err)
	})
}
