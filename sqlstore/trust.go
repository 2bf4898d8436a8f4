package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"time"

	"github.com/vigilhq/vigil/drift"
	"github.com/vigilhq/vigil/governance/trust"
	"github.com/vigilhq/vigil/registry"
	"github.com/vigilhq/vigil/store"
)

var _ trust.Store = (*DB)(nil)

const snapshotColumns = `org_id, model_id, seq, snapshot_at, cause_type, cause_id, trust_score, fairness_component,
	drift_component, explainability_component, fairness_weight, drift_weight, explainability_weight,
	last_bias_audit_at, last_drift_report_at, explained_predictions_ratio`

// TrustConfig implements trust.Store.
func (s *DB) TrustConfig(ctx context.Context, orgID string) (trust.Config, error) {
	return s.trustConfig(ctx, s.db, orgID)
}

func (s *DB) trustConfig(ctx context.Context, qr querier, orgID string) (trust.Config, error) {
	var w trust.Weights
	var at int64
	err := qr.QueryRowContext(ctx, s.q(`SELECT fairness_weight, drift_weight, explainability_weight, updated_at
		FROM trust_configs WHERE org_id = ?`), orgID).Scan(&w.Fairness, &w.Drift, &w.Explainability, &at)
	if errors.Is(err, sql.ErrNoRows) {
		return trust.Config{Weights: trust.DefaultWeights, IsDefault: true}, nil
	} else if err != nil {
		return trust.Config{}, s.wrap(err)
	}
	t := fromMicros(at)
	return trust.Config{Weights: w, UpdatedAt: &t}, nil
}

// PutTrustConfig implements trust.Store.
func (s *DB) PutTrustConfig(ctx context.Context, orgID string, w trust.Weights, changeID string, at time.Time) error {
	return s.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := s.exec(ctx, tx, `INSERT INTO trust_configs (org_id, fairness_weight, drift_weight, explainability_weight, updated_at)
			VALUES (?, ?, ?, ?, ?) ON CONFLICT (org_id) DO UPDATE SET fairness_weight = excluded.fairness_weight,
			drift_weight = excluded.drift_weight, explainability_weight = excluded.explainability_weight, updated_at = excluded.updated_at`,
			orgID, w.Fairness, w.Drift, w.Explainability, micros(at)); err != nil {
			return err
		}
		rows, err := tx.QueryContext(ctx, s.q(`SELECT id FROM models m WHERE org_id = ? AND (
			EXISTS (SELECT 1 FROM drift_reports r WHERE r.org_id = m.org_id AND r.model_id = m.id) OR
			EXISTS (SELECT 1 FROM bias_audits b WHERE b.org_id = m.org_id AND b.model_id = m.id AND b.status = 'completed') OR
			EXISTS (SELECT 1 FROM explanation_coverage c WHERE c.model_id = m.id))
			ORDER BY id`), orgID)
		if err != nil {
			return s.wrap(err)
		}
		ids, err := collect(rows, func(row interface{ Scan(...any) error }) (string, error) {
			var id string
			return id, s.wrap(row.Scan(&id))
		})
		if err != nil {
			return err
		}
		cfg, err := s.trustConfig(ctx, tx, orgID)
		if err != nil {
			return err
		}
		for _, id := range ids {
			if err := s.snapshotTrustUnder(ctx, tx, &cfg.Weights, orgID, id, trust.CauseConfig, changeID, at); err != nil {
				return err
			}
		}
		return nil
	})
}

// snapshotTrust takes the model's trust snapshot in tx, the transaction
// that changed one of its inputs: it bumps the model's head (which holds
// its row until commit, so that another snapshot of the model waits and
// then reads this transaction's inputs), reads the inputs and the weights,
// and stores the result.
func (s *DB) snapshotTrust(ctx context.Context, tx *sql.Tx, orgID, modelID, causeType, causeID string, at time.Time) error {
	return s.snapshotTrustUnder(ctx, tx, nil, orgID, modelID, causeType, causeID, at)
}

// snapshotTrustUnder is snapshotTrust under weights w, the ones tx itself
// wrote, read once for every model it snapshots; nil reads the
// organization's after the head is held.
func (s *DB) snapshotTrustUnder(ctx context.Context, tx *sql.Tx, w *trust.Weights, orgID, modelID, causeType, causeID string, at time.Time) error {
	var seq int64
	if err := tx.QueryRowContext(ctx, s.q(`INSERT INTO trust_heads (model_id, org_id, seq) VALUES (?, ?, 1)
		ON CONFLICT (model_id) DO UPDATE SET seq = trust_heads.seq + 1 RETURNING seq`), modelID, orgID).Scan(&seq); err != nil {
		return s.wrap(err)
	}
	if w == nil {
		cfg, err := s.trustConfig(ctx, tx, orgID)
		if err != nil {
			return err
		}
		w = &cfg.Weights
	}
	in, err := s.trustInputs(ctx, tx, orgID, modelID)
	if err != nil {
		return err
	}
	r := trust.Compute(in, *w)
	c := r.Components
	_, err = s.exec(ctx, tx, `INSERT INTO trust_snapshots (`+snapshotColumns+`) VALUES (`+placeholders(16)+`)`,
		orgID, modelID, seq, micros(at), causeType, causeID, r.Score, c.Fairness, c.Drift, c.Explainability,
		r.Weights.Fairness, r.Weights.Drift, r.Weights.Explainability,
		nullMicros(r.LastBiasAuditAt), nullMicros(r.LastDriftReportAt), r.ExplainedRatio)
	return err
}

// trustInputs reads the model's trust inputs: the overall fairness score
// of its newest completed audit that has one, and its newest drift report
// of each type (data, prediction, concept), and its
// explained_predictions_ratio as the auto-explainer keeps it
// (explanation_coverage; nil while none is kept).
func (s *DB) trustInputs(ctx context.Context, qr querier, orgID, modelID string) (trust.Inputs, error) {
	var in trust.Inputs
	rows, err := qr.QueryContext(ctx, s.q(`SELECT result, completed_at FROM bias_audits
		WHERE org_id = ? AND model_id = ? AND status = 'completed' ORDER BY completed_at DESC, id DESC`), orgID, modelID)
	if err != nil {
		return in, s.wrap(err)
	}
	defer rows.Close()
	for rows.Next() {
		var doc sql.NullString
		var done sql.NullInt64
		if err := rows.Scan(&doc, &done); err != nil {
			return in, s.wrap(err)
		}
		var res struct {
			Score *float64 `json:"overall_fairness_score"`
		}
		if !doc.Valid {
			continue
		}
		if err := fromJSON(doc.String, &res); err != nil {
			return in, err
		}
		if res.Score != nil {
			in.FairnessScore, in.BiasAuditAt = res.Score, fromNullMicros(done)
			break
		}
	}
	if err := rows.Err(); err != nil {
		return in, s.wrap(err)
	}
	rows.Close()
	for _, typ := range []string{drift.TypeData, drift.TypePrediction, drift.TypeConcept} {
		d := trust.DriftReading{DriftType: typ}
		var at int64
		err := qr.QueryRowContext(ctx, s.q(`SELECT id, overall_drift_score, severity, drift_detected, created_at FROM drift_reports
			WHERE org_id = ? AND model_id = ? AND drift_type = ? ORDER BY created_at DESC, id DESC LIMIT 1`), orgID, modelID, typ).
			Scan(&d.ReportID, &d.Score, &d.Severity, &d.Detected, &at)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		} else if err != nil {
			return in, s.wrap(err)
		}
		d.At = fromMicros(at)
		in.Drift = append(in.Drift, d)
	}
	in.ExplainedRatio, err = s.explainedRatio(ctx, qr, orgID, modelID)
	return in, err
}

func (s *DB) scanSnapshot(row interface{ Scan(...any) error }) (trust.Snapshot, error) {
	var t trust.Snapshot
	var at int64
	var audit, report sql.NullInt64
	c, w := &t.Components, &t.Weights
	if err := row.Scan(&t.OrgID, &t.ModelID, &t.Seq, &at, &t.CauseType, &t.CauseID, &t.Score, &c.Fairness, &c.Drift,
		&c.Explainability, &w.Fairness, &w.Drift, &w.Explainability, &audit, &report, &t.ExplainedRatio); err != nil {
		return t, s.wrap(err)
	}
	t.At, t.LastBiasAuditAt, t.LastDriftReportAt = fromMicros(at), fromNullMicros(audit), fromNullMicros(report)
	t.Available = trust.Available{Fairness: c.Fairness != nil, Drift: c.Drift != nil, Explainability: c.Explainability != nil}
	return t, nil
}

// TrustLatest implements trust.Store.
func (s *DB) TrustLatest(ctx context.Context, orgID, modelID string) (trust.Snapshot, error) {
	t, err := s.scanSnapshot(s.db.QueryRowContext(ctx, s.q(`SELECT `+snapshotColumns+` FROM trust_snapshots
		WHERE org_id = ? AND model_id = ? ORDER BY seq DESC LIMIT 1`), orgID, modelID))
	if errors.Is(err, store.ErrNotFound) {
		return trust.Snapshot{OrgID: orgID, ModelID: modelID}, nil
	}
	return t, err
}

// TrustAsOf returns the model's newest snapshot taken before at, as the
// score stood then; Seq 0 when none was.
func (s *DB) TrustAsOf(ctx context.Context, orgID, modelID string, at time.Time) (trust.Snapshot, error) {
	t, err := s.scanSnapshot(s.db.QueryRowContext(ctx, s.q(`SELECT `+snapshotColumns+` FROM trust_snapshots
		WHERE model_id = ? AND org_id = ? AND snapshot_at < ? ORDER BY snapshot_at DESC, seq DESC LIMIT 1`), modelID, orgID, micros(at)))
	if errors.Is(err, store.ErrNotFound) {
		return trust.Snapshot{OrgID: orgID, ModelID: modelID}, nil
	}
	return t, err
}

// TrustPortfolio implements trust.Store: the organization's models, then
// the snapshots their heads name.
func (s *DB) TrustPortfolio(ctx context.Context, orgID string) ([]trust.Latest, error) {
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT id, name, version FROM models WHERE org_id = ? ORDER BY name, version, id`), orgID)
	if err != nil {
		return nil, s.wrap(err)
	}
	out, err := collect(rows, func(row interface{ Scan(...any) error }) (trust.Latest, error) {
		l := trust.Latest{Model: registry.Model{OrgID: orgID}}
		err := row.Scan(&l.Model.ID, &l.Model.Name, &l.Model.Version)
		l.Snapshot.OrgID, l.Snapshot.ModelID = orgID, l.Model.ID
		return l, s.wrap(err)
	})
	if err != nil {
		return nil, err
	}
	rows, err = s.db.QueryContext(ctx, s.q(`SELECT `+qualify("t", snapshotColumns)+` FROM trust_heads h
		JOIN trust_snapshots t ON t.model_id = h.model_id AND t.seq = h.seq WHERE h.org_id = ?`), orgID)
	if err != nil {
		return nil, s.wrap(err)
	}
	snaps, err := collect(rows, s.scanSnapshot)
	if err != nil {
		return nil, err
	}
	byModel := make(map[string]trust.Snapshot, len(snaps))
	for _, t := range snaps {
		byModel[t.ModelID] = t
	}
	for i, l := range out {
		if t, ok := byModel[l.Model.ID]; ok {
			out[i].Snapshot = t
		}
	}
	return out, nil
}

// TrustHistory implements trust.Store.
func (s *DB) TrustHistory(ctx context.Context, orgID, modelID string, from time.Time, limit int) ([]trust.Snapshot, error) {
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT `+snapshotColumns+` FROM trust_snapshots
		WHERE org_id = ? AND model_id = ? AND snapshot_at >= ? ORDER BY seq DESC LIMIT ?`), orgID, modelID, micros(from), limit)
	if err != nil {
		return nil, s.wrap(err)
	}
	out, err := collect(rows, s.scanSnapshot)
	slices.Reverse(out)
	return out, err
}
