package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/vigilhq/vigil/governance/review"
	"github.com/vigilhq/vigil/store"
)

var _ review.Store = (*DB)(nil)

const boardColumns = `id, org_id, name, description, default_quorum, created_by, created_at, updated_at, deleted_at`

func (s *DB) scanBoard(row interface{ Scan(...any) error }) (review.Board, error) {
	var b review.Board
	var quorum sql.NullInt64
	var by sql.NullString
	var created, updated int64
	var deleted sql.NullInt64
	if err := row.Scan(&b.ID, &b.OrgID, &b.Name, &b.Description, &quorum, &by, &created, &updated, &deleted); err != nil {
		return b, s.wrap(err)
	}
	b.DefaultQuorum, b.CreatedBy = int(quorum.Int64), by.String
	b.CreatedAt, b.UpdatedAt, b.DeletedAt = fromMicros(created), fromMicros(updated), fromNullMicros(deleted)
	return b, nil
}

// CreateBoard implements review.Store.
func (s *DB) CreateBoard(ctx context.Context, b review.Board) error {
	return s.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := s.exec(ctx, tx, `INSERT INTO review_boards (`+boardColumns+`) VALUES (`+placeholders(9)+`)`,
			b.ID, b.OrgID, b.Name, b.Description, nullInt(b.DefaultQuorum), nullText(b.CreatedBy), micros(b.CreatedAt),
			micros(b.UpdatedAt), nullMicros(b.DeletedAt)); err != nil {
			return err
		}
		return s.insertMembers(ctx, tx, b)
	})
}

// insertMembers stores b's members, each checked to be a user of the
// organization: store.ErrNotFound when one is not.
func (s *DB) insertMembers(ctx context.Context, tx *sql.Tx, b review.Board) error {
	for _, m := range b.Members {
		n, err := s.exec(ctx, tx, `INSERT INTO review_board_members (org_id, board_id, user_id, role, added_at)
			SELECT ?, ?, id, ?, CAST(? AS BIGINT) FROM users WHERE org_id = ? AND id = ?`,
			b.OrgID, b.ID, m.Role, micros(m.AddedAt), b.OrgID, m.UserID)
		if err != nil {
			return err
		}
		if n == 0 {
			return fmt.Errorf("member %s: %w", m.UserID, store.ErrNotFound)
		}
	}
	return nil
}

// Board implements review.Store.
func (s *DB) Board(ctx context.Context, orgID, id string) (review.Board, error) {
	return s.readBoard(ctx, s.db, orgID, id, "")
}

func (s *DB) readBoard(ctx context.Context, qr querier, orgID, id, lock string) (review.Board, error) {
	b, err := s.scanBoard(qr.QueryRowContext(ctx, s.q(`SELECT `+boardColumns+` FROM review_boards WHERE org_id = ? AND id = ?`+lock), orgID, id))
	if err != nil {
		return b, err
	}
	bs := []review.Board{b}
	if err := s.boardMembers(ctx, qr, bs); err != nil {
		return b, err
	}
	return bs[0], nil
}

// boardMembers fills the members of bs, by role (chairs, voters,
// observers) then username.
func (s *DB) boardMembers(ctx context.Context, qr querier, bs []review.Board) error {
	if len(bs) == 0 {
		return nil
	}
	args := make([]any, 0, len(bs))
	at := map[string]int{}
	for i, b := range bs {
		args = append(args, b.ID)
		at[b.ID] = i
	}
	rows, err := qr.QueryContext(ctx, s.q(`SELECT m.board_id, m.user_id, u.username, m.role, m.added_at
		FROM review_board_members m JOIN users u ON u.id = m.user_id WHERE m.board_id IN (`+placeholders(len(bs))+`)
		ORDER BY m.board_id, CASE m.role WHEN 'chair' THEN 0 WHEN 'voter' THEN 1 ELSE 2 END, u.username`), args...)
	if err != nil {
		return s.wrap(err)
	}
	defer rows.Close()
	for rows.Next() {
		var board string
		var m review.Member
		var added int64
		if err := rows.Scan(&board, &m.UserID, &m.Username, &m.Role, &added); err != nil {
			return s.wrap(err)
		}
		m.AddedAt = fromMicros(added)
		bs[at[board]].Members = append(bs[at[board]].Members, m)
	}
	return s.wrap(rows.Err())
}

// Boards implements review.Store.
func (s *DB) Boards(ctx context.Context, orgID string, limit, offset int) ([]review.Board, int64, error) {
	bs, total, err := listPage(ctx, s, "review_boards", boardColumns, "org_id = ? AND deleted_at IS NULL", "name, id",
		[]any{orgID}, offset, limit, s.scanBoard)
	if err != nil {
		return nil, 0, err
	}
	return bs, total, s.boardMembers(ctx, s.db, bs)
}

// UpdateBoard implements review.Store.
func (s *DB) UpdateBoard(ctx context.Context, orgID, id string, change func(*review.Board) error) (review.Board, error) {
	var b review.Board
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		var err error
		if b, err = s.readBoard(ctx, tx, orgID, id, s.d.ForUpdate); err != nil {
			return err
		}
		if b.DeletedAt != nil {
			return fmt.Errorf("review board %s is deleted: %w", id, store.ErrNotFound)
		}
		if err := change(&b); err != nil {
			return err
		}
		b.OrgID, b.ID = orgID, id
		if _, err := s.exec(ctx, tx, `UPDATE review_boards SET name = ?, description = ?, default_quorum = ?, updated_at = ?
			WHERE org_id = ? AND id = ?`, b.Name, b.Description, nullInt(b.DefaultQuorum), micros(b.UpdatedAt), orgID, id); err != nil {
			return err
		}
		if _, err := s.exec(ctx, tx, `DELETE FROM review_board_members WHERE board_id = ?`, id); err != nil {
			return err
		}
		if err := s.insertMembers(ctx, tx, b); err != nil {
			return err
		}
		b, err = s.readBoard(ctx, tx, orgID, id, "")
		return err
	})
	return b, err
}

// DeleteBoard implements review.Store.
func (s *DB) DeleteBoard(ctx context.Context, orgID, id string, at time.Time) error {
	return s.inTx(ctx, func(tx *sql.Tx) error {
		b, err := s.readBoard(ctx, tx, orgID, id, s.d.ForUpdate)
		if err != nil {
			return err
		}
		if b.DeletedAt != nil {
			return fmt.Errorf("review board %s is deleted: %w", id, store.ErrNotFound)
		}
		var open int64
		if err := tx.QueryRowContext(ctx, s.q(`SELECT COUNT(*) FROM review_requests WHERE board_id = ? AND status <> ?`),
			id, string(review.StatusFinalized)).Scan(&open); err != nil {
			return s.wrap(err)
		}
		if open > 0 {
			return fmt.Errorf("review board %s has %d open requests: %w", id, open, store.ErrConflict)
		}
		_, err = s.exec(ctx, tx, `UPDATE review_boards SET deleted_at = ?, updated_at = ? WHERE org_id = ? AND id = ?`,
			micros(at), micros(at), orgID, id)
		return err
	})
}

const requestColumns = `r.id, r.org_id, r.board_id, b.name, r.model_id, r.title, r.description, r.requested_decision, r.quorum,
	r.status, r.outcome, r.created_by, r.created_at, r.updated_at, r.submitted_at, r.finalized_at, r.finalized_by, r.governance_pending`

// requestFrom is the requests joined with their boards' names.
const requestFrom = `review_requests r JOIN review_boards b ON b.id = r.board_id`

func (s *DB) scanRequest(row interface{ Scan(...any) error }) (review.Request, error) {
	var r review.Request
	var quorum sql.NullInt64
	var status string
	var outcome, by, finBy sql.NullString
	var created, updated int64
	var submitted, finalized sql.NullInt64
	err := row.Scan(&r.ID, &r.OrgID, &r.BoardID, &r.BoardName, &r.ModelID, &r.Title, &r.Description, &r.RequestedDecision,
		&quorum, &status, &outcome, &by, &created, &updated, &submitted, &finalized, &finBy, &r.GovernancePending)
	if err != nil {
		return r, s.wrap(err)
	}
	r.Quorum, r.Status, r.Outcome, r.CreatedBy = int(quorum.Int64), review.Status(status), outcome.String, by.String
	r.CreatedAt, r.UpdatedAt, r.SubmittedAt, r.FinalizedAt = fromMicros(created), fromMicros(updated), fromNullMicros(submitted), fromNullMicros(finalized)
	r.FinalizedBy = finBy.String
	return r, nil
}

// requestSearchText is what the archive's text filter matches: title and
// description, lower-cased in Go as searchText does for models.
func requestSearchText(r review.Request) string {
	return strings.ToLower(r.Title + "\n" + r.Description)
}

// CreateReviewRequest implements review.Store.
func (s *DB) CreateReviewRequest(ctx context.Context, r review.Request) error {
	return s.inTx(ctx, func(tx *sql.Tx) error {
		var one int
		if err := tx.QueryRowContext(ctx, s.q(`SELECT 1 FROM models WHERE org_id = ? AND id = ?`), r.OrgID, r.ModelID).Scan(&one); err != nil {
			return s.wrap(err)
		}
		n, err := s.exec(ctx, tx, `INSERT INTO review_requests (id, org_id, board_id, model_id, title, description, search_text,
			requested_decision, quorum, status, outcome, created_by, created_at, updated_at, submitted_at, finalized_at,
			finalized_by, governance_pending)
			SELECT ?, ?, id, ?, ?, ?, ?, ?, CAST(? AS INTEGER), ?, CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS BIGINT), CAST(? AS BIGINT),
				CAST(? AS BIGINT), CAST(? AS BIGINT), CAST(? AS TEXT), CAST(? AS BOOLEAN)
			FROM review_boards WHERE org_id = ? AND id = ? AND deleted_at IS NULL`,
			r.ID, r.OrgID, r.ModelID, r.Title, r.Description, requestSearchText(r), r.RequestedDecision, nullInt(r.Quorum),
			string(r.Status), nullText(r.Outcome), nullText(r.CreatedBy), micros(r.CreatedAt), micros(r.UpdatedAt),
			nullMicros(r.SubmittedAt), nullMicros(r.FinalizedAt), nullText(r.FinalizedBy), r.GovernancePending, r.OrgID, r.BoardID)
		if err == nil && n == 0 {
			err = fmt.Errorf("review board %s: %w", r.BoardID, store.ErrNotFound)
		}
		return err
	})
}

// ReviewRequest implements review.Store.
func (s *DB) ReviewRequest(ctx context.Context, orgID, id string) (review.Request, error) {
	return s.readRequest(ctx, s.db, orgID, id, "")
}

func (s *DB) readRequest(ctx context.Context, qr querier, orgID, id, lock string) (review.Request, error) {
	if lock != "" {
		lock += " OF r"
	}
	r, err := s.scanRequest(qr.QueryRowContext(ctx, s.q(`SELECT `+requestColumns+` FROM `+requestFrom+`
		WHERE r.org_id = ? AND r.id = ?`+lock), orgID, id))
	if err != nil {
		return r, err
	}
	rs := []review.Request{r}
	if err := s.requestDetails(ctx, qr, rs); err != nil {
		return r, err
	}
	return rs[0], nil
}

// requestDetails fills the panels (by role, then username) and the
// decisions (in the order given) of rs.
func (s *DB) requestDetails(ctx context.Context, qr querier, rs []review.Request) error {
	if len(rs) == 0 {
		return nil
	}
	args := make([]any, 0, len(rs))
	at := map[string]int{}
	for i, r := range rs {
		args = append(args, r.ID)
		at[r.ID] = i
	}
	in := `(` + placeholders(len(rs)) + `)`
	rows, err := qr.QueryContext(ctx, s.q(`SELECT request_id, user_id, username, role FROM review_panel WHERE request_id IN `+in+`
		ORDER BY request_id, CASE role WHEN 'chair' THEN 0 WHEN 'voter' THEN 1 ELSE 2 END, username`), args...)
	if err != nil {
		return s.wrap(err)
	}
	_, err = collect(rows, func(row interface{ Scan(...any) error }) (review.Reviewer, error) {
		var p review.Reviewer
		var req string
		err := row.Scan(&req, &p.UserID, &p.Username, &p.Role)
		if err == nil {
			rs[at[req]].Panel = append(rs[at[req]].Panel, p)
		}
		return p, s.wrap(err)
	})
	if err != nil {
		return err
	}
	rows, err = qr.QueryContext(ctx, s.q(`SELECT id, request_id, user_id, username, decision, comment, created_at
		FROM review_decisions WHERE request_id IN `+in+` ORDER BY request_id, created_at, id`), args...)
	if err != nil {
		return s.wrap(err)
	}
	_, err = collect(rows, func(row interface{ Scan(...any) error }) (review.Decision, error) {
		var d review.Decision
		var created int64
		err := row.Scan(&d.ID, &d.RequestID, &d.UserID, &d.Username, &d.Decision, &d.Comment, &created)
		if err == nil {
			d.CreatedAt = fromMicros(created)
			rs[at[d.RequestID]].Decisions = append(rs[at[d.RequestID]].Decisions, d)
		}
		return d, s.wrap(err)
	})
	return err
}

// UpdateReviewRequest implements review.Store.
func (s *DB) UpdateReviewRequest(ctx context.Context, orgID, id string, change func(*review.Request, review.Board) error) (review.Request, error) {
	var r review.Request
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		var err error
		if r, err = s.readRequest(ctx, tx, orgID, id, s.d.ForUpdate); err != nil {
			return err
		}
		b, err := s.readBoard(ctx, tx, orgID, r.BoardID, "")
		if err != nil {
			return err
		}
		panel, decided := len(r.Panel), len(r.Decisions)
		if err := change(&r, b); err != nil {
			return err
		}
		if _, err := s.exec(ctx, tx, `UPDATE review_requests SET quorum = ?, status = ?, outcome = ?, updated_at = ?, submitted_at = ?,
			finalized_at = ?, finalized_by = ?, governance_pending = ? WHERE org_id = ? AND id = ?`,
			nullInt(r.Quorum), string(r.Status), nullText(r.Outcome), micros(r.UpdatedAt), nullMicros(r.SubmittedAt),
			nullMicros(r.FinalizedAt), nullText(r.FinalizedBy), r.GovernancePending, orgID, id); err != nil {
			return err
		}
		if panel == 0 {
			for _, p := range r.Panel {
				if _, err := s.exec(ctx, tx, `INSERT INTO review_panel (org_id, request_id, user_id, username, role) VALUES (?, ?, ?, ?, ?)`,
					orgID, id, p.UserID, p.Username, p.Role); err != nil {
					return err
				}
			}
		}
		for _, d := range r.Decisions[decided:] {
			if _, err := s.exec(ctx, tx, `INSERT INTO review_decisions (id, org_id, request_id, user_id, username, decision, comment, created_at)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, d.ID, orgID, id, d.UserID, d.Username, d.Decision, d.Comment, micros(d.CreatedAt)); err != nil {
				return err
			}
		}
		r, err = s.readRequest(ctx, tx, orgID, id, "")
		return err
	})
	return r, err
}

// ReviewRequests implements review.Store, newest first.
func (s *DB) ReviewRequests(ctx context.Context, orgID string, f review.Filter) ([]review.Request, int64, error) {
	where, args := []string{"r.org_id = ?"}, []any{orgID}
	add := func(cond string, v ...any) { where, args = append(where, cond), append(args, v...) }
	for _, c := range [][2]string{{"r.status", string(f.Status)}, {"r.outcome", f.Outcome}, {"r.model_id", f.ModelID}, {"r.board_id", f.BoardID}} {
		if c[1] != "" {
			add(c[0]+" = ?", c[1])
		}
	}
	if f.Text != "" {
		add(`r.search_text LIKE ? ESCAPE '\'`, "%"+escapeLike(strings.ToLower(f.Text))+"%")
	}
	if !f.From.IsZero() {
		add("r.created_at >= ?", micros(f.From))
	}
	if !f.To.IsZero() {
		add("r.created_at < ?", micros(f.To))
	}
	if f.Awaiting != "" {
		add(`r.status = ? AND EXISTS (SELECT 1 FROM review_panel p WHERE p.request_id = r.id AND p.user_id = ? AND p.role IN ('chair', 'voter'))
			AND NOT EXISTS (SELECT 1 FROM review_decisions d WHERE d.request_id = r.id AND d.user_id = ?)`,
			string(review.StatusSubmitted), f.Awaiting, f.Awaiting)
	}
	rs, total, err := listPage(ctx, s, requestFrom, requestColumns, strings.Join(where, " AND "), "r.created_at DESC, r.id DESC",
		args, f.Offset, f.Limit, s.scanRequest)
	if err != nil {
		return nil, 0, err
	}
	return rs, total, s.requestDetails(ctx, s.db, rs)
}

// ReviewGovernancePending implements review.Store.
func (s *DB) ReviewGovernancePending(ctx context.Context, limit int) ([]review.Request, error) {
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT `+requestColumns+` FROM `+requestFrom+`
		WHERE r.governance_pending ORDER BY r.finalized_at, r.id LIMIT ?`), limit)
	if err != nil {
		return nil, s.wrap(err)
	}
	return collect(rows, s.scanRequest)
}

// ReviewGovernanceSent implements review.Store.
func (s *DB) ReviewGovernanceSent(ctx context.Context, orgID, id string) error {
	return s.governanceSent(ctx, "review_requests", orgID, id)
}
