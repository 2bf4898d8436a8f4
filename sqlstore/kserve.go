package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"

	"github.com/vigilhq/vigil/integrations/kserve"
)

var _ kserve.Store = (*DB)(nil)

const kservePairColumns = `org_id, event_id, model_id, request, response, request_at, response_at, metadata, first_at`

// PutHalf implements kserve.Store: one upsert keeps the half that came
// already and returns the row, so that two halves taken at once see each
// other (PostgreSQL locks the row for the second; SQLite has one writer).
func (s *DB) PutHalf(ctx context.Context, p kserve.Pair) (kserve.Pair, error) {
	row := s.db.QueryRowContext(ctx, s.q(`INSERT INTO kserve_pairs (`+kservePairColumns+`)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (org_id, event_id) DO UPDATE SET
			request = COALESCE(kserve_pairs.request, excluded.request),
			response = COALESCE(kserve_pairs.response, excluded.response),
			request_at = COALESCE(kserve_pairs.request_at, excluded.request_at),
			response_at = COALESCE(kserve_pairs.response_at, excluded.response_at)
		RETURNING `+kservePairColumns),
		p.OrgID, p.EventID, p.ModelID, nullJSON(p.Request), nullJSON(p.Response), nullMicros(p.RequestAt),
		nullMicros(p.ResponseAt), string(p.Metadata), micros(p.FirstAt))
	return scanPair(row)
}

// DeletePair implements kserve.Store.
func (s *DB) DeletePair(ctx context.Context, orgID, eventID string) error {
	_, err := s.exec(ctx, s.db, `DELETE FROM kserve_pairs WHERE org_id = ? AND event_id = ?`, orgID, eventID)
	return err
}

// StalePairs implements kserve.Store.
func (s *DB) StalePairs(ctx context.Context, before time.Time, limit int) ([]kserve.Pair, error) {
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT `+kservePairColumns+` FROM kserve_pairs
		WHERE first_at < ? ORDER BY first_at, org_id, event_id LIMIT ?`), micros(before), limit)
	if err != nil {
		return nil, s.wrap(err)
	}
	defer rows.Close()
	var out []kserve.Pair
	for rows.Next() {
		p, err := scanPair(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, s.wrap(rows.Err())
}

func scanPair(row interface{ Scan(...any) error }) (kserve.Pair, error) {
	var p kserve.Pair
	var req, resp sql.NullString
	var reqAt, respAt sql.NullInt64
	var meta string
	var first int64
	if err := row.Scan(&p.OrgID, &p.EventID, &p.ModelID, &req, &resp, &reqAt, &respAt, &meta, &first); err != nil {
		return p, err
	}
	if req.Valid {
		p.Request = json.RawMessage(req.String)
	}
	if resp.Valid {
		p.Response = json.RawMessage(resp.String)
	}
	p.RequestAt, p.ResponseAt = fromNullMicros(reqAt), fromNullMicros(respAt)
	p.Metadata, p.FirstAt = json.RawMessage(meta), fromMicros(first)
	return p, nil
}

// nullJSON is a payload, NULL when it has not come.
func nullJSON(b json.RawMessage) sql.NullString {
	return sql.NullString{String: string(b), Valid: b != nil}
}
