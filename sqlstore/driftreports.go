package sqlstore

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"github.com/vigilhq/vigil/drift"
	"github.com/vigilhq/vigil/governance/trust"
	"github.com/vigilhq/vigil/store"
)

var _ drift.ReportStore = (*DB)(nil)

const reportColumns = `id, org_id, model_id, drift_type, window_start, window_end, reference, drift_detected,
	overall_drift_score, severity, features, skipped_features, problems, concept, created_at`

// reportDocs are the JSON columns of a report, in column order.
func reportDocs(r *drift.Report) []any {
	return []any{&r.Features, &r.Skipped, &r.Problems, &r.Concept}
}

// CreateDriftReport implements drift.ReportStore. The model is checked in
// the same statement, so another organization's model id is
// store.ErrNotFound. A report at high severity is stored owing its
// governance event, and the model's trust score is snapshotted in the same
// transaction.
func (s *DB) CreateDriftReport(ctx context.Context, r drift.Report) error {
	ref := r.Reference
	ref.Start, ref.End = fromNullMicros(nullMicros(ref.Start)), fromNullMicros(nullMicros(ref.End))
	refDoc, err := toJSON(ref)
	if err != nil {
		return err
	}
	docs, err := encodeAll(reportDocs(&r))
	if err != nil {
		return err
	}
	// Casts type the bare parameters of the SELECT for PostgreSQL.
	args := []any{r.ID, r.OrgID, r.ModelID, r.DriftType, micros(r.WindowStart), micros(r.WindowEnd), refDoc,
		r.DriftDetected, r.OverallDriftScore, string(r.Severity), docs[0], docs[1], docs[2], docs[3], micros(r.CreatedAt),
		r.Severity == drift.High, r.OrgID, r.ModelID}
	return s.inTx(ctx, func(tx *sql.Tx) error {
		n, err := s.exec(ctx, tx, `INSERT INTO drift_reports (`+reportColumns+`, governance_pending)
			SELECT ?, ?, ?, ?, CAST(? AS BIGINT), CAST(? AS BIGINT), ?,
			CAST(? AS BOOLEAN), CAST(? AS DOUBLE PRECISION), ?, ?, ?, ?, ?, CAST(? AS BIGINT), CAST(? AS BOOLEAN)
			WHERE EXISTS (SELECT 1 FROM models WHERE org_id = ? AND id = ?)`, args...)
		if err == nil && n == 0 {
			err = store.ErrNotFound
		}
		if err != nil {
			return err
		}
		return s.snapshotTrust(ctx, tx, r.OrgID, r.ModelID, trust.CauseDriftReport, r.ID, r.CreatedAt)
	})
}

func (s *DB) scanReport(row interface{ Scan(...any) error }) (drift.Report, error) {
	var r drift.Report
	var ref, severity string
	var docs [4]sql.NullString
	var start, end, created int64
	if err := row.Scan(&r.ID, &r.OrgID, &r.ModelID, &r.DriftType, &start, &end, &ref, &r.DriftDetected,
		&r.OverallDriftScore, &severity, &docs[0], &docs[1], &docs[2], &docs[3], &created); err != nil {
		return r, s.wrap(err)
	}
	r.WindowStart, r.WindowEnd, r.CreatedAt, r.Severity = fromMicros(start), fromMicros(end), fromMicros(created), drift.Severity(severity)
	if err := fromJSON(ref, &r.Reference); err != nil {
		return r, err
	}
	for i, dst := range reportDocs(&r) {
		if !docs[i].Valid {
			continue // concept: NULL on data and prediction reports
		}
		if err := fromJSON(docs[i].String, dst); err != nil {
			return r, err
		}
	}
	return r, nil
}

// DriftReport implements drift.ReportStore.
func (s *DB) DriftReport(ctx context.Context, orgID, id string) (drift.Report, error) {
	return s.scanReport(s.db.QueryRowContext(ctx, s.q(`SELECT `+reportColumns+` FROM drift_reports WHERE org_id = ? AND id = ?`), orgID, id))
}

// DriftReports implements drift.ReportStore.
func (s *DB) DriftReports(ctx context.Context, f drift.ReportFilter) ([]drift.Report, int64, error) {
	where := []string{"org_id = ?", "model_id = ?"}
	args := []any{f.OrgID, f.ModelID}
	add := func(cond string, v any) {
		where, args = append(where, cond), append(args, v)
	}
	if f.DriftType != "" {
		add("drift_type = ?", f.DriftType)
	}
	if f.Severity != "" {
		add("severity = ?", string(f.Severity))
	}
	if f.From != nil {
		add("created_at >= ?", micros(*f.From))
	}
	if f.To != nil {
		add("created_at < ?", micros(*f.To))
	}
	cond := strings.Join(where, " AND ")
	var total int64
	if err := s.db.QueryRowContext(ctx, s.q(`SELECT COUNT(*) FROM drift_reports WHERE `+cond), args...).Scan(&total); err != nil {
		return nil, 0, s.wrap(err)
	}
	order := "DESC"
	if f.Oldest {
		order = "ASC"
	}
	limit := int64(f.Limit)
	if limit <= 0 {
		limit = 1 << 62
	}
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT `+reportColumns+` FROM drift_reports WHERE `+cond+
		` ORDER BY created_at `+order+`, id `+order+` LIMIT ? OFFSET ?`), append(args, limit, f.Offset)...)
	if err != nil {
		return nil, 0, s.wrap(err)
	}
	out, err := collect(rows, s.scanReport)
	return out, total, err
}

// NewestDriftReports returns, in one read, the newest report (any drift
// type; created_at, then id, breaking ties as DriftReports orders) of each
// model of the organization that has one created at or after from, by
// model id.
func (s *DB) NewestDriftReports(ctx context.Context, orgID string, from time.Time) ([]drift.Report, error) {
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT `+reportColumns+` FROM drift_reports r
		WHERE org_id = ? AND created_at >= ? AND NOT EXISTS (SELECT 1 FROM drift_reports n
			WHERE n.org_id = r.org_id AND n.model_id = r.model_id AND n.created_at >= ?
			AND (n.created_at > r.created_at OR n.created_at = r.created_at AND n.id > r.id))
		ORDER BY model_id`), orgID, micros(from), micros(from))
	if err != nil {
		return nil, s.wrap(err)
	}
	return collect(rows, s.scanReport)
}

// DriftDue implements drift.ReportStore.
func (s *DB) DriftDue(ctx context.Context) ([]drift.Due, error) {
	// A report of POST /drift/detect (reference type request) is no run of
	// the schedule.
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT m.org_id, m.id, r.drift_type, MAX(r.created_at) FROM models m
		LEFT JOIN drift_reports r ON r.org_id = m.org_id AND r.model_id = m.id AND r.reference NOT LIKE ?
		GROUP BY m.org_id, m.id, r.drift_type ORDER BY m.org_id, m.id`), `%"type":"`+drift.ReferenceRequest+`"%`)
	if err != nil {
		return nil, s.wrap(err)
	}
	type typeLast struct {
		drift.Due
		typ  sql.NullString
		last sql.NullInt64
	}
	all, err := collect(rows, func(row interface{ Scan(...any) error }) (typeLast, error) {
		var r typeLast
		err := row.Scan(&r.OrgID, &r.ModelID, &r.typ, &r.last)
		return r, s.wrap(err)
	})
	if err != nil {
		return nil, err
	}
	var out []drift.Due
	for _, r := range all {
		if n := len(out); n == 0 || out[n-1].OrgID != r.OrgID || out[n-1].ModelID != r.ModelID {
			out = append(out, drift.Due{OrgID: r.OrgID, ModelID: r.ModelID, Last: map[string]time.Time{}})
		}
		if r.typ.Valid && r.last.Valid {
			out[len(out)-1].Last[r.typ.String] = fromMicros(r.last.Int64)
		}
	}
	return out, nil
}

// GovernancePending implements drift.ReportStore: oldest first.
func (s *DB) GovernancePending(ctx context.Context, limit int) ([]drift.Report, error) {
	return governancePending(ctx, s, "drift_reports", reportColumns, "created_at", limit, s.scanReport)
}

// GovernanceSent implements drift.ReportStore.
func (s *DB) GovernanceSent(ctx context.Context, orgID, id string) error {
	return s.governanceSent(ctx, "drift_reports", orgID, id)
}
