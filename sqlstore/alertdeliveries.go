package sqlstore

import (
	"context"
	"database/sql"
	"time"

	"github.com/vigilhq/vigil/alerts"
)

var (
	_ alerts.Deliveries = (*DB)(nil)
	_ alerts.Statistics = (*DB)(nil)
)

const deliveryColumns = `id, org_id, alert_id, rule_id, event, channel_index, channel_type, target, payload, status, attempts,
	next_attempt_at, created_at, updated_at`

func (s *DB) scanDelivery(row interface{ Scan(...any) error }) (alerts.Delivery, error) {
	var d alerts.Delivery
	var idx, next, created, updated int64
	var payload, status, attempts string
	if err := row.Scan(&d.ID, &d.OrgID, &d.AlertID, &d.RuleID, &d.Event, &idx, &d.Channel.Type, &d.Channel.Target, &payload, &status,
		&attempts, &next, &created, &updated); err != nil {
		return d, s.wrap(err)
	}
	d.ChannelIndex, d.Payload, d.Status = int(idx), []byte(payload), alerts.DeliveryStatus(status)
	d.NextAttemptAt, d.CreatedAt, d.UpdatedAt = fromMicros(next), fromMicros(created), fromMicros(updated)
	return d, fromJSON(attempts, &d.Attempts)
}

// CreateAlertDeliveries implements alerts.Deliveries.
func (s *DB) CreateAlertDeliveries(ctx context.Context, ds []alerts.Delivery) error {
	return s.inTx(ctx, func(tx *sql.Tx) error { return s.insertDeliveries(ctx, tx, ds) })
}

// insertDeliveries stores ds inside tx (an alert's write, or
// CreateAlertDeliveries').
func (s *DB) insertDeliveries(ctx context.Context, tx *sql.Tx, ds []alerts.Delivery) error {
	for _, d := range ds {
		attempts, err := toJSON(orEmpty(d.Attempts))
		if err != nil {
			return err
		}
		if _, err := s.exec(ctx, tx, `INSERT INTO alert_deliveries (`+deliveryColumns+`) VALUES (`+placeholders(14)+`)`,
			d.ID, d.OrgID, d.AlertID, d.RuleID, d.Event, int64(d.ChannelIndex), d.Channel.Type, d.Channel.Target, string(d.Payload),
			string(d.Status), attempts, micros(d.NextAttemptAt), micros(d.CreatedAt), micros(d.UpdatedAt)); err != nil {
			return err
		}
	}
	return nil
}

func orEmpty(a []alerts.Attempt) []alerts.Attempt {
	if a == nil {
		return []alerts.Attempt{}
	}
	return a
}

// ClaimAlertDeliveries implements alerts.Deliveries: each due row is
// claimed by a conditional update, so that of two dispatchers one wins.
func (s *DB) ClaimAlertDeliveries(ctx context.Context, now, lease time.Time, limit int) ([]alerts.Delivery, error) {
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT `+deliveryColumns+` FROM alert_deliveries
		WHERE status = 'pending' AND next_attempt_at <= ? ORDER BY next_attempt_at LIMIT ?`), micros(now), limit)
	if err != nil {
		return nil, s.wrap(err)
	}
	due, err := collect(rows, s.scanDelivery)
	if err != nil {
		return nil, err
	}
	var out []alerts.Delivery
	for _, d := range due {
		n, err := s.exec(ctx, s.db, `UPDATE alert_deliveries SET next_attempt_at = ? WHERE id = ? AND status = 'pending' AND next_attempt_at = ?`,
			micros(lease), d.ID, micros(d.NextAttemptAt))
		if err != nil {
			return out, err
		}
		if n == 1 {
			d.NextAttemptAt = lease
			out = append(out, d)
		}
	}
	return out, nil
}

// UpdateAlertDelivery implements alerts.Deliveries.
func (s *DB) UpdateAlertDelivery(ctx context.Context, d alerts.Delivery) error {
	attempts, err := toJSON(orEmpty(d.Attempts))
	if err != nil {
		return err
	}
	_, err = s.exec(ctx, s.db, `UPDATE alert_deliveries SET status = ?, attempts = ?, next_attempt_at = ?, updated_at = ? WHERE org_id = ? AND id = ?`,
		string(d.Status), attempts, micros(d.NextAttemptAt), micros(d.UpdatedAt), d.OrgID, d.ID)
	return err
}

// AlertDeliveries implements alerts.Deliveries.
func (s *DB) AlertDeliveries(ctx context.Context, orgID, alertID string) ([]alerts.Delivery, error) {
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT `+deliveryColumns+` FROM alert_deliveries WHERE org_id = ? AND alert_id = ?
		ORDER BY created_at, channel_index, id`), orgID, alertID)
	if err != nil {
		return nil, s.wrap(err)
	}
	out, err := collect(rows, s.scanDelivery)
	if out == nil && err == nil {
		out = []alerts.Delivery{}
	}
	return out, err
}
