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
// is stored already; it returns the keys it stored.
func (w writer) insertNew(table string, cols []string, rows [][]any) (map[eventKey]bool, error) {
	added := make(map[eventKey]bool, len(rows))
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
		var res *sql.Rows
		var err error
		if len(chunk) < chunkRows {
			res, err = w.tx.QueryContext(w.ctx, insertSQL(table, cols, len(chunk)), args...)
		} else {
			if full == nil {
				if full, err = w.tx.PrepareContext(w.ctx, insertSQL(table, cols, chunkRows)); err != nil {
					return nil, fmt.Errorf("analytics prepare: %w", err)
				}
			}
			res, err = full.QueryContext(w.ctx, args...)
		}
		if err != nil {
			return nil, fmt.Errorf("analytics insert: %w", err)
		}
		if err := returned(res, added); err != nil {
			return nil, err
		}
	}
	return added, nil
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

// insertSQL is the statement that inserts n rows of cols into table.
func insertSQL(table string, cols []string, n int) string {
	row := "(" + strings.TrimSuffix(strings.Repeat("?, ", len(cols)), ", ") + ")"
	return "INSERT INTO " + table + " (" + strings.Join(cols, ", ") + ") VALUES " +
		strings.TrimSuffix(strings.Repeat(row+", ", n), ", ") +
		" ON CONFLICT DO NOTHING RETURNING org_id, model_id, event_id"
}

// take reports whether k was stored by this write and is not counted yet,
// and marks it counted: an event repeated within a batch counts once.
// newOnly returns, in a new slice, the events of es that insertNew added,
// each once.
func newOnly[E any](es []E, added map[eventKey]bool, key func(E) eventKey) []E {
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
