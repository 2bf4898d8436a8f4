package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/vigilhq/vigil/governance/risk"
	"github.com/vigilhq/vigil/store"
)

var _ risk.Store = (*DB)(nil)

const riskColumns = `id, org_id, title, description, category, likelihood, impact, risk_score, severity, severity_rank,
	status, is_open, owner_id, mitigation_plan, target_resolution_date, review_cadence_days, next_review_at,
	source_type, source_id, closed_at, created_by, created_at, updated_at`

// severityRank orders the severities for the portfolio's top risks.
func severityRank(s string) int {
	for i, v := range risk.Severities {
		if v == s {
			return len(risk.Severities) - i
		}
	}
	return 0
}

func nullText(s string) sql.NullString { return sql.NullString{String: s, Valid: s != ""} }

func nullInt(n int) sql.NullInt64 { return sql.NullInt64{Int64: int64(n), Valid: n != 0} }

// riskArgs are e's values in the order of riskColumns.
func riskArgs(e risk.Entry) []any {
	return []any{e.ID, e.OrgID, e.Title, e.Description, e.Category, e.Likelihood, e.Impact, e.Score, e.Severity,
		severityRank(e.Severity), string(e.Status), e.Status.Open(), nullText(e.OwnerID), e.MitigationPlan,
		nullText(e.TargetDate), nullInt(e.Cadence), nullMicros(e.NextReview), nullText(e.SourceType),
		nullText(e.SourceID), nullMicros(e.ClosedAt), nullText(e.CreatedBy), micros(e.CreatedAt), micros(e.UpdatedAt)}
}

func (s *DB) scanRisk(row interface{ Scan(...any) error }) (risk.Entry, error) {
	var e risk.Entry
	var status string
	var rank int
	var open bool
	var owner, target, srcType, srcID, createdBy sql.NullString
	var cadence, next, closed sql.NullInt64
	var created, updated int64
	err := row.Scan(&e.ID, &e.OrgID, &e.Title, &e.Description, &e.Category, &e.Likelihood, &e.Impact, &e.Score,
		&e.Severity, &rank, &status, &open, &owner, &e.MitigationPlan, &target, &cadence, &next, &srcType, &srcID,
		&closed, &createdBy, &created, &updated)
	if err != nil {
		return e, s.wrap(err)
	}
	e.Status, e.OwnerID, e.TargetDate, e.Cadence = risk.Status(status), owner.String, target.String, int(cadence.Int64)
	e.NextReview, e.SourceType, e.SourceID, e.ClosedAt = fromNullMicros(next), srcType.String, srcID.String, fromNullMicros(closed)
	e.CreatedBy, e.CreatedAt, e.UpdatedAt = createdBy.String, fromMicros(created), fromMicros(updated)
	return e, nil
}

// RiskConfig implements risk.Store.
func (s *DB) RiskConfig(ctx context.Context, orgID string) (risk.Override, error) {
	var o risk.Override
	var doc string
	var at int64
	err := s.db.QueryRowContext(ctx, s.q(`SELECT override, updated_at FROM risk_configs WHERE org_id = ?`), orgID).Scan(&doc, &at)
	if errors.Is(err, sql.ErrNoRows) {
		return o, nil
	} else if err != nil {
		return o, s.wrap(err)
	}
	if err := fromJSON(doc, &o); err != nil {
		return o, err
	}
	o.UpdatedAt = fromMicros(at)
	return o, nil
}

// PutRiskConfig implements risk.Store.
func (s *DB) PutRiskConfig(ctx context.Context, orgID string, o risk.Override, at time.Time) error {
	doc, err := toJSON(o)
	if err != nil {
		return err
	}
	_, err = s.exec(ctx, s.db, `INSERT INTO risk_configs (org_id, override, updated_at) VALUES (?, ?, ?)
		ON CONFLICT (org_id) DO UPDATE SET override = excluded.override, updated_at = excluded.updated_at`, orgID, doc, micros(at))
	return err
}

// CreateRiskEntry implements risk.Store: the entry, its models and its
// create event in one transaction. A drafted entry whose source is on
// file already inserts nothing (ON CONFLICT DO NOTHING on the unique
// source key), so replicas racing for one event store one entry.
func (s *DB) CreateRiskEntry(ctx context.Context, e risk.Entry, ev risk.Event) (bool, error) {
	created := false
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		n, err := s.exec(ctx, tx, `INSERT INTO risk_entries (`+riskColumns+`) VALUES (`+placeholders(23)+`)
			ON CONFLICT (org_id, source_type, source_id) DO NOTHING`, riskArgs(e)...)
		if err != nil || n == 0 {
			return err
		}
		created = true
		if err := s.linkModels(ctx, tx, e); err != nil {
			return err
		}
		if err := s.insertRiskEvents(ctx, tx, []risk.Event{ev}); err != nil {
			return err
		}
		return s.countRisks(ctx, tx, counted{e, 1})
	})
	if err != nil {
		created = false
	}
	return created, err
}

// CreateRiskEntries stores a batch of drafted entries in one transaction,
// each as CreateRiskEntry would: at most once per source (an entry whose
// source is on file, or is earlier in the batch, is not created), its
// models, its create event and the counts. A drift report's or bias
// audit's entry is not created either while an entry drafted from the
// same source type for its model is open: its source is added to that
// entry's trail instead (risk.Repeat, once per source). It reports which
// were created. store.ErrNotFound (nothing stored) when a model id is not
// the organization's.
func (s *DB) CreateRiskEntries(ctx context.Context, ds []risk.Drafted) ([]bool, error) {
	created := make([]bool, len(ds))
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		var deltas []counted
		for i, d := range ds {
			repeated, err := s.repeatDraft(ctx, tx, d)
			if err != nil {
				return err
			}
			if repeated {
				continue
			}
			n, err := s.exec(ctx, tx, `INSERT INTO risk_entries (`+riskColumns+`) VALUES (`+placeholders(23)+`)
				ON CONFLICT (org_id, source_type, source_id) DO NOTHING`, riskArgs(d.Entry)...)
			if err != nil {
				return err
			}
			if n == 0 {
				continue
			}
			created[i] = true
			if err := s.linkModels(ctx, tx, d.Entry); err != nil {
				return err
			}
			if err := s.insertRiskEvents(ctx, tx, []risk.Event{d.Event}); err != nil {
				return err
			}
			deltas = append(deltas, counted{d.Entry, 1})
		}
		return s.countRisks(ctx, tx, deltas...)
	})
	if err != nil {
		return make([]bool, len(ds)), err
	}
	return created, nil
}

// repeatDraft adds d to the open entry drafted from its source type for
// its one model, if there is one and d's source has no entry of its own:
// true when it did (or had before: the repeat event's id is on file).
func (s *DB) repeatDraft(ctx context.Context, tx *sql.Tx, d risk.Drafted) (bool, error) {
	e := d.Entry
	if !risk.Repeats(e.SourceType) || len(e.ModelIDs) != 1 {
		return false, nil
	}
	var id string
	err := tx.QueryRowContext(ctx, s.q(`SELECT id FROM risk_entries WHERE org_id = ? AND source_type = ? AND source_id = ?`),
		e.OrgID, e.SourceType, e.SourceID).Scan(&id)
	if err == nil {
		return true, nil // its own entry is on file: a replay
	} else if !errors.Is(err, sql.ErrNoRows) {
		return false, s.wrap(err)
	}
	err = tx.QueryRowContext(ctx, s.q(`SELECT e.id FROM risk_entries e JOIN risk_entry_models m ON m.entry_id = e.id
		WHERE m.org_id = ? AND m.model_id = ? AND e.source_type = ? AND e.is_open = TRUE ORDER BY e.created_at, e.id LIMIT 1`),
		e.OrgID, e.ModelIDs[0], e.SourceType).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	} else if err != nil {
		return false, s.wrap(err)
	}
	open, err := s.readRisk(ctx, tx, e.OrgID, id, s.d.ForUpdate)
	if err != nil {
		return false, err
	}
	after, evs := risk.Repeat(open, d)
	var one int
	err = tx.QueryRowContext(ctx, s.q(`SELECT 1 FROM risk_events WHERE id = ?`), evs[0].ID).Scan(&one)
	if err == nil {
		return true, nil // added before: a replay
	} else if !errors.Is(err, sql.ErrNoRows) {
		return false, s.wrap(err)
	}
	if err := s.countRisks(ctx, tx, counted{open, -1}, counted{after, 1}); err != nil {
		return false, err
	}
	args := riskArgs(after)
	if _, err := s.exec(ctx, tx, `UPDATE risk_entries SET `+assignments(riskColumns, 2)+` WHERE org_id = ? AND id = ?`,
		append(args[2:], after.OrgID, after.ID)...); err != nil {
		return false, err
	}
	return true, s.insertRiskEvents(ctx, tx, evs)
}

// linkModels stores e's models, each checked to be the organization's:
// store.ErrNotFound when one is not.
func (s *DB) linkModels(ctx context.Context, tx *sql.Tx, e risk.Entry) error {
	for _, m := range e.ModelIDs {
		n, err := s.exec(ctx, tx, `INSERT INTO risk_entry_models (org_id, entry_id, model_id, created_at)
			SELECT ?, ?, id, CAST(? AS BIGINT) FROM models WHERE org_id = ? AND id = ?`, e.OrgID, e.ID, micros(e.CreatedAt), e.OrgID, m)
		if err != nil {
			return err
		}
		if n == 0 {
			return store.ErrNotFound
		}
	}
	return nil
}

func (s *DB) insertRiskEvents(ctx context.Context, tx *sql.Tx, evs []risk.Event) error {
	for _, ev := range evs {
		details := ev.Details
		if details == nil {
			details = map[string]any{}
		}
		doc, err := toJSON(details)
		if err != nil {
			return err
		}
		if _, err := s.exec(ctx, tx, `INSERT INTO risk_events (id, org_id, entry_id, action, description, details, user_id, username, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, ev.ID, ev.OrgID, ev.EntryID, ev.Action, ev.Description, doc,
			nullText(ev.UserID), ev.Username, micros(ev.CreatedAt)); err != nil {
			return err
		}
	}
	return nil
}

// RiskEntry implements risk.Store.
func (s *DB) RiskEntry(ctx context.Context, orgID, id string) (risk.Entry, error) {
	return s.readRisk(ctx, s.db, orgID, id, "")
}

func (s *DB) readRisk(ctx context.Context, qr querier, orgID, id, lock string) (risk.Entry, error) {
	e, err := s.scanRisk(qr.QueryRowContext(ctx, s.q(`SELECT `+riskColumns+` FROM risk_entries WHERE org_id = ? AND id = ?`+lock), orgID, id))
	if err != nil {
		return e, err
	}
	es := []risk.Entry{e}
	if err := s.riskModels(ctx, qr, es); err != nil {
		return e, err
	}
	return es[0], nil
}

// riskModels fills the model ids of es, entries of the organization
// already, sorted. The look-up is by entry id alone, so that it takes the
// primary key rather than the organization's model index.
func (s *DB) riskModels(ctx context.Context, qr querier, es []risk.Entry) error {
	if len(es) == 0 {
		return nil
	}
	var args []any
	at := map[string]int{}
	for i, e := range es {
		args = append(args, e.ID)
		at[e.ID] = i
	}
	rows, err := qr.QueryContext(ctx, s.q(`SELECT entry_id, model_id FROM risk_entry_models WHERE entry_id IN (`+
		placeholders(len(es))+`) ORDER BY entry_id, model_id`), args...)
	if err != nil {
		return s.wrap(err)
	}
	defer rows.Close()
	for rows.Next() {
		var entry, model string
		if err := rows.Scan(&entry, &model); err != nil {
			return s.wrap(err)
		}
		es[at[entry]].ModelIDs = append(es[at[entry]].ModelIDs, model)
	}
	return s.wrap(rows.Err())
}

// RiskEntries implements risk.Store, newest first. With a model, the
// model's links lead (their index holds each entry's creation time), so
// that a page of one model's entries reads that model's rows alone. The
// total sums the kept tallies unless an owner or a model is filtered on
// (then it counts in the filter's index), and a page first reads its 50
// ids in the filter's index, skipping the earlier pages there, then those
// entries by id.
func (s *DB) RiskEntries(ctx context.Context, orgID string, f risk.Filter) ([]risk.Entry, int64, error) {
	from, order, idCol := `risk_entries e`, `e.created_at DESC, e.id DESC`, `e.id`
	where, args := []string{"e.org_id = ?"}, []any{orgID}
	if f.ModelID != "" {
		from, order, idCol = `risk_entry_models m`, `m.created_at DESC, m.entry_id DESC`, `m.entry_id`
		where, args = []string{"m.org_id = ?", "m.model_id = ?"}, []any{orgID, f.ModelID}
	}
	byEntry := false
	for _, c := range riskFilters(f) {
		where, args, byEntry = append(where, "e."+c[0]+" = ?"), append(args, c[1]), true
	}
	if f.ModelID != "" && byEntry {
		from += ` JOIN risk_entries e ON e.id = m.entry_id`
	}
	cond := strings.Join(where, " AND ")
	total, err := s.riskTotal(ctx, orgID, f, from, cond, args)
	if err != nil {
		return nil, 0, err
	}
	if f.Limit <= 0 {
		if f.ModelID != "" && !byEntry {
			from += ` JOIN risk_entries e ON e.id = m.entry_id`
		}
		es, err := s.riskRows(ctx, `SELECT `+qualify("e", riskColumns)+` FROM `+from+` WHERE `+cond+
			` ORDER BY `+order+` LIMIT ? OFFSET ?`, append(args, int64(1)<<62, f.Offset)...)
		return es, total, err
	}
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT `+idCol+` FROM `+from+` WHERE `+cond+` ORDER BY `+order+` LIMIT ? OFFSET ?`),
		append(args, f.Limit, f.Offset)...)
	if err != nil {
		return nil, 0, s.wrap(err)
	}
	ids, err := collect(rows, func(row interface{ Scan(...any) error }) (string, error) {
		var id string
		return id, s.wrap(row.Scan(&id))
	})
	if err != nil || len(ids) == 0 {
		return []risk.Entry{}, total, err
	}
	// The ids are the organization's: looked up by primary key alone, so
	// that no engine walks the organization's index for them.
	var byID []any
	at := make(map[string]int, len(ids))
	for i, id := range ids {
		byID, at[id] = append(byID, id), i
	}
	es, err := s.riskRows(ctx, `SELECT `+riskColumns+` FROM risk_entries WHERE id IN (`+placeholders(len(ids))+`)`, byID...)
	if err != nil {
		return nil, 0, err
	}
	slices.SortFunc(es, func(a, b risk.Entry) int { return at[a.ID] - at[b.ID] })
	return es, total, nil
}

// riskFilters are the entry columns f filters on, with their values.
func riskFilters(f risk.Filter) [][2]string {
	var out [][2]string
	for _, c := range [][2]string{{"category", f.Category}, {"owner_id", f.OwnerID}, {"severity", f.Severity}, {"status", string(f.Status)}} {
		if c[1] != "" {
			out = append(out, c)
		}
	}
	return out
}

// riskTotal is the number of entries f selects: the sum of the kept
// tallies when f filters on status, severity and category alone, else a
// count of the filter's rows (from and cond).
func (s *DB) riskTotal(ctx context.Context, orgID string, f risk.Filter, from, cond string, args []any) (int64, error) {
	var total int64
	if f.ModelID != "" || f.OwnerID != "" {
		err := s.db.QueryRowContext(ctx, s.q(`SELECT COUNT(*) FROM `+from+` WHERE `+cond), args...).Scan(&total)
		return total, s.wrap(err)
	}
	where, targs := []string{"org_id = ?"}, []any{orgID}
	for _, c := range riskFilters(f) {
		where, targs = append(where, c[0]+" = ?"), append(targs, c[1])
	}
	err := s.db.QueryRowContext(ctx, s.q(`SELECT COALESCE(SUM(n), 0) FROM risk_tallies WHERE `+strings.Join(where, " AND ")), targs...).Scan(&total)
	return total, s.wrap(err)
}

// qualify qualifies each of the comma-separated columns with the table
// alias.
func qualify(alias, columns string) string {
	cols := strings.Split(columns, ",")
	for i, c := range cols {
		cols[i] = alias + "." + strings.TrimSpace(c)
	}
	return strings.Join(cols, ", ")
}

// riskRows runs a query of riskColumns and fills the entries' models.
func (s *DB) riskRows(ctx context.Context, query string, args ...any) ([]risk.Entry, error) {
	rows, err := s.db.QueryContext(ctx, s.q(query), args...)
	if err != nil {
		return nil, s.wrap(err)
	}
	es, err := collect(rows, s.scanRisk)
	if err != nil {
		return nil, err
	}
	return es, s.riskModels(ctx, s.db, es)
}

// UpdateRiskEntry implements risk.Store.
func (s *DB) UpdateRiskEntry(ctx context.Context, orgID, id string, change func(*risk.Entry) ([]risk.Event, error)) (risk.Entry, error) {
	var e risk.Entry
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		var err error
		if e, err = s.readRisk(ctx, tx, orgID, id, s.d.ForUpdate); err != nil {
			return err
		}
		before := e
		evs, err := change(&e)
		if err != nil || len(evs) == 0 {
			return err
		}
		if err := s.countRisks(ctx, tx, counted{before, -1}, counted{e, 1}); err != nil {
			return err
		}
		e.OrgID, e.ID = orgID, id
		args := riskArgs(e)
		if _, err := s.exec(ctx, tx, `UPDATE risk_entries SET `+assignments(riskColumns, 2)+` WHERE org_id = ? AND id = ?`,
			append(args[2:], orgID, id)...); err != nil {
			return err
		}
		if !slices.Equal(before.ModelIDs, e.ModelIDs) {
			if _, err := s.exec(ctx, tx, `DELETE FROM risk_entry_models WHERE org_id = ? AND entry_id = ?`, orgID, id); err != nil {
				return err
			}
			if err := s.linkModels(ctx, tx, e); err != nil {
				return err
			}
		}
		if err := s.insertRiskEvents(ctx, tx, evs); err != nil {
			return err
		}
		e, err = s.readRisk(ctx, tx, orgID, id, "")
		return err
	})
	return e, err
}

// RiskHistory implements risk.Store: store.ErrNotFound when the
// organization has no such entry.
func (s *DB) RiskHistory(ctx context.Context, orgID, id string) ([]risk.Event, error) {
	var one int
	if err := s.db.QueryRowContext(ctx, s.q(`SELECT 1 FROM risk_entries WHERE org_id = ? AND id = ?`), orgID, id).Scan(&one); err != nil {
		return nil, s.wrap(err)
	}
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT id, org_id, entry_id, action, description, details, user_id, username, created_at
		FROM risk_events WHERE org_id = ? AND entry_id = ? ORDER BY created_at, id`), orgID, id)
	if err != nil {
		return nil, s.wrap(err)
	}
	return collect(rows, func(row interface{ Scan(...any) error }) (risk.Event, error) {
		var ev risk.Event
		var doc string
		var user sql.NullString
		var at int64
		if err := row.Scan(&ev.ID, &ev.OrgID, &ev.EntryID, &ev.Action, &ev.Description, &doc, &user, &ev.Username, &at); err != nil {
			return ev, s.wrap(err)
		}
		ev.UserID, ev.CreatedAt = user.String, fromMicros(at)
		return ev, fromJSON(doc, &ev.Details)
	})
}

// counted is an entry counted in (delta 1) or out (delta -1).
type counted struct {
	e     risk.Entry
	delta int
}

// countRisks applies the entries' deltas to the counts the writes keep:
// the open entries per cell and severity (risk_counts), then every entry
// per status, severity and category (risk_tallies). The deltas are summed
// per row and the rows written in key order, so that transactions
// counting several entries lock the rows in one order and never wait on
// each other in a cycle.
func (s *DB) countRisks(ctx context.Context, tx *sql.Tx, cs ...counted) error {
	type cell struct {
		org             string
		likelihood, imp int
		severity        string
	}
	type tally struct{ org, status, severity, category string }
	cells, tallies := map[cell]int{}, map[tally]int{}
	for _, c := range cs {
		if c.e.Status.Open() {
			cells[cell{c.e.OrgID, c.e.Likelihood, c.e.Impact, c.e.Severity}] += c.delta
		}
		tallies[tally{c.e.OrgID, string(c.e.Status), c.e.Severity, c.e.Category}] += c.delta
	}
	err := addSorted(ctx, s, tx, cells, func(a, b cell) int {
		return cmp.Or(cmp.Compare(a.org, b.org), cmp.Compare(a.likelihood, b.likelihood), cmp.Compare(a.imp, b.imp), cmp.Compare(a.severity, b.severity))
	}, func(k cell) []any { return []any{k.org, k.likelihood, k.imp, k.severity} },
		`INSERT INTO risk_counts (org_id, likelihood, impact, severity, n) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (org_id, likelihood, impact, severity) DO UPDATE SET n = risk_counts.n + excluded.n`)
	if err != nil {
		return err
	}
	return addSorted(ctx, s, tx, tallies, func(a, b tally) int {
		return cmp.Or(cmp.Compare(a.org, b.org), cmp.Compare(a.status, b.status), cmp.Compare(a.severity, b.severity), cmp.Compare(a.category, b.category))
	}, func(k tally) []any { return []any{k.org, k.status, k.severity, k.category} },
		`INSERT INTO risk_tallies (org_id, status, severity, category, n) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (org_id, status, severity, category) DO UPDATE SET n = risk_tallies.n + excluded.n`)
}

// addSorted runs upsert, with key's columns then its delta, for each key
// of deltas whose delta is not 0, in the order of compare.
func addSorted[K comparable](ctx context.Context, s *DB, tx *sql.Tx, deltas map[K]int, compare func(a, b K) int,
	columns func(K) []any, upsert string) error {
	for _, k := range slices.SortedFunc(maps.Keys(deltas), compare) {
		if deltas[k] == 0 {
			continue
		}
		if _, err := s.exec(ctx, tx, upsert, append(columns(k), deltas[k])...); err != nil {
			return err
		}
	}
	return nil
}

// RiskCounts implements risk.Store from the counts the writes keep.
func (s *DB) RiskCounts(ctx context.Context, orgID string) (risk.Counts, error) {
	c := risk.Counts{Cells: map[int]int{}, BySeverity: map[string]int{}}
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT likelihood, impact, severity, n FROM risk_counts
		WHERE org_id = ? AND n <> 0`), orgID)
	if err != nil {
		return c, s.wrap(err)
	}
	defer rows.Close()
	for rows.Next() {
		var l, i, n int
		var sev string
		if err := rows.Scan(&l, &i, &sev, &n); err != nil {
			return c, s.wrap(err)
		}
		c.Cells[l*10+i] += n
		c.BySeverity[sev] += n
	}
	return c, s.wrap(rows.Err())
}

// TopRisks implements risk.Store.
func (s *DB) TopRisks(ctx context.Context, orgID string, limit int) ([]risk.Entry, error) {
	return s.riskRows(ctx, `SELECT `+riskColumns+` FROM risk_entries WHERE org_id = ? AND is_open = TRUE
		ORDER BY severity_rank DESC, risk_score DESC, created_at DESC, id DESC LIMIT ?`, orgID, limit)
}
