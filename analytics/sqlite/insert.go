package sqlite

import (
	"database/sql"
	"fmt"
	"strings"
)

// eventKey identifies a stored event: organization, model and event id,
// the primary key of every event table.
type eventKey [3]string

// chunkRows is how many rows one INSERT statement carries: one statement
// per row spends most of its time outside the B-tree, and 100 rows of the
// widest table stay far below SQLite's 32,766 parameters.
const chunkRows = 100

// insertNew inserts rows into table, each row the values of cols whose
// first three are org_id, model_id and event_id, skipping those whose key
// is stored already; it returns the keys it stored, or nil when it stored
// every row (each key once), the common case: the rows go in without
// RETURNING, and only when fewer were stored than given (a replay, a
// retried id) is the insert rolled back to a savepoint and done again with
// RETURNING, to learn which.
func (w writer) insertNew(table string, cols []string, rows [][]any) (map[eventKey]bool, error) {
	if _, err := w.tx.ExecContext(w.ctx, "SAVEPOINT insert_new"); err != nil {
		return nil, fmt.Errorf("analytics insert: %w", err)
	}
	stored := 0
	err := w.chunks(table, cols, rows, false, func(st *sql.Stmt, q string, args []any) error {
		var res sql.Result
		var err error
		if st != nil {
			res, err = st.ExecContext(w.ctx, args...)
		} else {
			res, err = w.tx.ExecContext(w.ctx, q, args...)
		}
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		stored += int(n)
		return err
	})
	if err != nil {
		return nil, err
	}
	if stored == len(rows) {
		if _, err := w.tx.ExecContext(w.ctx, "RELEASE insert_new"); err != nil {
			return nil, fmt.Errorf("analytics insert: %w", err)
		}
		return nil, nil
	}
	if _, err := w.tx.ExecContext(w.ctx, "ROLLBACK TO insert_new; RELEASE insert_new"); err != nil {
		return nil, fmt.Errorf("analytics insert: %w", err)
	}
	added := make(map[eventKey]bool, len(rows))
	err = w.chunks(table, cols, rows, true, func(st *sql.Stmt, q string, args []any) error {
		var res *sql.Rows
		var err error
		if st != nil {
			res, err = st.QueryContext(w.ctx, args...)
		} else {
			res, err = w.tx.QueryContext(w.ctx, q, args...)
		}
		if err != nil {
			return err
		}
		return returned(res, added)
	})
	if err != nil {
		return nil, err
	}
	return added, nil
}

// chunks runs the INSERT of rows in statements of chunkRows rows: run gets
// the statement prepared once for full chunks, or the text of the last,
// shorter one, with its arguments.
func (w writer) chunks(table string, cols []string, rows [][]any, returning bool, run func(st *sql.Stmt, q string, args []any) error) error {
	var full *sql.Stmt // prepared once: parsing a 100-row statement costs as much as running it
	defer func() {
		if full != nil {
			full.Close()
		}
	}()
	for lo := 0; lo < len(rows); lo += chunkRows {
		chunk := rows[lo:min(lo+chunkRows, len(rows))]
		args := make([]any, 0, len(chunk)*len(cols))
		for _, r := range chunk {
			args = append(args, r...)
		}
		var err error
		if len(chunk) < chunkRows {
			err = run(nil, insertSQL(table, cols, len(chunk), returning), args)
		} else {
			if full == nil {
				if full, err = w.tx.PrepareContext(w.ctx, insertSQL(table, cols, chunkRows, returning)); err != nil {
					return fmt.Errorf("analytics prepare: %w", err)
				}
			}
			err = run(full, "", args)
		}
		if err != nil {
			return fmt.Errorf("analytics insert: %w", err)
		}
	}
	return nil
}

// returned adds the keys an INSERT ... RETURNING org_id, model_id,
// event_id returned to added, and closes res.
func returned(res *sql.Rows, added map[eventKey]bool) error {
	defer res.Close()
	for res.Next() {
		var k eventKey
		if err := res.Scan(&k[0], &k[1], &k[2]); err != nil {
			return fmt.Errorf("analytics insert: %w", err)
		}
		added[k] = true
	}
	if err := res.Err(); err != nil {
		return fmt.Errorf("analytics insert: %w", err)
	}
	return nil
}

// insertSQL is the statement that inserts n rows of cols into table, the
// keys stored returned or not.
func insertSQL(table string, cols []string, n int, returning bool) string {
	row := "(" + strings.TrimSuffix(strings.Repeat("?, ", len(cols)), ", ") + ")"
	q := "INSERT INTO " + table + " (" + strings.Join(cols, ", ") + ") VALUES " +
		strings.TrimSuffix(strings.Repeat(row+", ", n), ", ") + " ON CONFLICT DO NOTHING"
	if returning {
		q += " RETURNING org_id, model_id, event_id"
	}
	return q
}

// take reports whether k was stored by this write and is not counted yet,
// and marks it counted: an event repeated within a batch counts once.
// newOnly returns the events of es that insertNew added, each once: es
// itself when added is nil (every one was).
func newOnly[E any](es []E, added map[eventKey]bool, key func(E) eventKey) []E {
	if added == nil {
		return es
	}
	out := make([]E, 0, len(added))
	for _, e := range es {
		if take(added, key(e)) {
			out = append(out, e)
		}
	}
	return out
}

func take(added map[eventKey]bool, k eventKey) bool {
	if !added[k] {
		return false
	}
	delete(added, k)
	return true
}
