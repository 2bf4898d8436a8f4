package analytics

import (
	"time"
)

// DeadLetterColumns are the columns ScanDeadLetters reads, in order; every
// analytical store keeps dead letters under these names, failed_at in
// Unix microseconds.
const DeadLetterColumns = `org_id, kind, model_id, event_id, event, reason, failed_at`

// DeadLetterArgs are a dead letter's values in DeadLetterColumns' order.
func DeadLetterArgs(d DeadLetter) []any {
	return []any{d.OrgID, d.Kind, d.ModelID, d.EventID, string(d.Event), d.Reason, d.FailedAt.UnixMicro()}
}

// ScanDeadLetters reads every row of DeadLetterColumns; never nil.
func ScanDeadLetters(rows Rows) ([]DeadLetter, error) {
	out := []DeadLetter{}
	for rows.Next() {
		var d DeadLetter
		var event string
		var at int64
		if err := rows.Scan(&d.OrgID, &d.Kind, &d.ModelID, &d.EventID, &event, &d.Reason, &at); err != nil {
			return nil, err
		}
		d.Event, d.FailedAt = []byte(event), time.UnixMicro(at).UTC()
		out = append(out, d)
	}
	return out, rows.Err()
}
