package analytics

import (
	"context"
	"fmt"
	"time"
)

// hourMicros is an hour in Unix microseconds.
const hourMicros = int64(time.Hour / time.Microsecond)

// SumHours sums one model's minute rollups (t.PredictionMinutes) in the
// hours that overlap [from, to), Unix microseconds, into hours keyed by
// their start: how a store fills its hour rollup from minutes kept before
// it had one (PredictionHours).
func SumHours(ctx context.Context, read Reader, t RollupTables, orgID, modelID string, from, to int64) (map[int64]*Bucket, error) {
	// CAST(... AS Int64) is integer division on both engines, as in
	// ReadMetricSeries.
	from -= from % hourMicros
	if r := to % hourMicros; r != 0 && to < 1<<63-1-hourMicros {
		to += hourMicros - r
	}
	rows, err := read(ctx, `SELECT CAST(minute / ? AS Int64) * ?, `+RollupColumns+` FROM `+t.PredictionMinutes+`
		WHERE org_id = ? AND model_id = ? AND minute >= ? AND minute < ?`,
		hourMicros, hourMicros, orgID, modelID, from, to)
	if err != nil {
		return nil, fmt.Errorf("sum hours: %w", err)
	}
	defer rows.Close()
	hours := map[int64]*Bucket{}
	for rows.Next() {
		var h int64
		var one Bucket
		if err := one.Scan(rows, &h); err != nil {
			return nil, fmt.Errorf("sum hours: %w", err)
		}
		b := hours[h]
		if b == nil {
			b = &Bucket{}
			hours[h] = b
		}
		if err := b.Merge(&one); err != nil {
			return nil, fmt.Errorf("sum hours: %w", err)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sum hours: %w", err)
	}
	return hours, nil
}

// HourWriter stores one model's hour rollups, replacing what the hours
// held.
type HourWriter func(ctx context.Context, orgID, modelID string, hours map[int64]*Bucket) error

// PredictionHours returns the FillHours step that sums each model's
// prediction minutes into hours and stores them with write.
func PredictionHours(read Reader, t RollupTables, write HourWriter) func(ctx context.Context, orgID, modelID string) error {
	return func(ctx context.Context, orgID, modelID string) error {
		hours, err := SumHours(ctx, read, t, orgID, modelID, -1<<63, 1<<63-1)
		if err != nil {
			return err
		}
		return write(ctx, orgID, modelID, hours)
	}
}

// FillHours builds an hour rollup (hoursTable) from its minute rollup
// (minutesTable) when the first is empty and the second is not, as in a
// store kept before hours existed: fill runs once for each model the
// minutes hold. It is a no-op once the hours hold anything, and
// idempotent when fill is.
func FillHours(ctx context.Context, read Reader, hoursTable, minutesTable string, fill func(ctx context.Context, orgID, modelID string) error) error {
	// Every start asks: one row of each table answers, never a count.
	if full, err := hasRows(ctx, read, hoursTable); err != nil || full {
		return err
	}
	if full, err := hasRows(ctx, read, minutesTable); err != nil || !full {
		return err
	}
	rows, err := read(ctx, `SELECT DISTINCT org_id, model_id FROM `+minutesTable)
	if err != nil {
		return fmt.Errorf("fill %s: %w", hoursTable, err)
	}
	var models [][2]string
	for rows.Next() {
		var m [2]string
		if err := rows.Scan(&m[0], &m[1]); err != nil {
			rows.Close()
			return fmt.Errorf("fill %s: %w", hoursTable, err)
		}
		models = append(models, m)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("fill %s: %w", hoursTable, err)
	}
	for _, m := range models {
		if err := fill(ctx, m[0], m[1]); err != nil {
			return fmt.Errorf("fill %s: %w", hoursTable, err)
		}
	}
	return nil
}

// hasRows reports whether table holds a row, reading at most one.
func hasRows(ctx context.Context, read Reader, table string) (bool, error) {
	rows, err := read(ctx, `SELECT 1 FROM `+table+` LIMIT 1`)
	if err != nil {
		return false, err
	}
	defer rows.Close()
	found := rows.Next()
	return found, rows.Err()
}
