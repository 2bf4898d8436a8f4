package clickhouse

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"time"

	"github.com/vigilhq/vigil/analytics"
	"github.com/vigilhq/vigil/eventlog"
)

// tables names the rollups as reads see them: the newest version of each
// bucket.
var tables = analytics.Rollups(" FINAL")

// writePredictions stores the predictions not stored yet, then adds to
// the minute and hour rollups those it stored and those a crash left
// stored but not counted. Each row's id is kept with its origin, the log
// position it came from, and each rollup row records per log partition
// the highest offset it holds, so that:
//   - a replay after a crash between the rows and the rollups finds its
//     rows stored with its own origin, above the rollups' offsets: counted
//     now;
//   - a replay after both finds them at or below the offsets: not again;
//   - a client's retry of a prediction_id (another log record) finds the
//     id stored with another origin: neither stored nor counted again.
//
// A batch costs the same whatever its minute holds. Events without a log
// position (written straight to the Sink) are counted when first stored.
func (s *Store) writePredictions(ctx context.Context, ps []eventlog.Prediction, positions map[analytics.EventKey]analytics.Position) error {
	if len(ps) == 0 {
		return nil
	}
	fresh, count, err := s.classify(ctx, ps, positions)
	if err != nil {
		return err
	}
	if len(fresh) > 0 {
		if err := s.insertPredictions(ctx, fresh, positions); err != nil {
			return err
		}
	}
	// Each prediction's output labels are read once, for both rollups.
	byModel := map[modelKey][]labeled{}
	for _, p := range count {
		k := modelKey{p.OrgID, p.ModelID}
		byModel[k] = append(byModel[k], labeled{p, analytics.PredictionLabels(p)})
	}
	s.cache.mu.Lock()
	defer s.cache.mu.Unlock()
	written, newest, err := s.addToRollups(ctx, byModel, positions)
	if err != nil {
		s.cache.reset()
		return err
	}
	s.cache.wrote(written, newest, positions)
	return nil
}

// addToRollups adds the batch's counted predictions to their minute and
// hour buckets: one INSERT per rollup table for the whole batch, the hour
// rollup's first (each holds the log offsets it counted, so a crash
// between them is repaired table by table by the replay). A model's buckets are taken from the cache when it holds them
// fresh, else read. It returns the buckets written and, per model and
// resolution, the newest bucket start stored after the write.
func (s *Store) addToRollups(ctx context.Context, byModel map[modelKey][]labeled,
	positions map[analytics.EventKey]analytics.Position) (map[modelKey][len(resolutions)]map[int64]*counted, map[modelKey][len(resolutions)]int64, error) {
	written := map[modelKey][len(resolutions)]map[int64]*counted{}
	newest := map[modelKey][len(resolutions)]int64{}
	var tables [len(resolutions)][]bucketRow
	for i, r := range resolutions {
		var rows []bucketRow
		for k, mps := range byModel {
			buckets, stored, err := s.modelBuckets(ctx, i, r, k, mps, positions)
			if err != nil {
				return nil, nil, err
			}
			for _, p := range mps {
				start := p.Timestamp.Truncate(r.width).UnixMicro()
				c := buckets[start]
				if c == nil {
					c = &counted{offsets: map[int32]int64{}}
					buckets[start] = c
				}
				pos, logged := positions[analytics.EventKey{OrgID: p.OrgID, ModelID: p.ModelID, ID: p.PredictionID}]
				if last, ok := c.offsets[pos.Partition]; logged && ok && pos.Offset <= last {
					continue // counted before a crash cut this batch
				}
				if logged {
					c.offsets[pos.Partition] = pos.Offset
				}
				c.bucket.Predictions++
				if p.LatencyMS != nil {
					c.bucket.AddLatency(*p.LatencyMS)
				}
				c.bucket.AddOutputs(p.labels)
			}
			// The newest start stored once this write lands, its new
			// buckets included.
			n := newest[k]
			n[i] = stored
			for start, c := range buckets {
				rows = append(rows, bucketRow{k, start, c})
				n[i] = max(n[i], start)
			}
			newest[k] = n
			w := written[k]
			w[i] = buckets
			written[k] = w
		}
		tables[i] = rows
	}
	// Coarsest first: a prediction counted in the minute rollup is
	// already counted in the hour rollup, so a reader never sees a model's
	// count (the hour rollup) behind its statistics of the last minutes.
	for i := len(resolutions) - 1; i >= 0; i-- {
		if err := s.insertBuckets(ctx, resolutions[i], tables[i]); err != nil {
			return nil, nil, err
		}
	}
	return written, newest, nil
}

// modelBuckets returns one model's buckets of resolution i that ps fall
// in, as stored, and the newest bucket start the model has stored: from
// the cache when it is fresh for the model's predictions (a bucket after
// the newest is new, unread), else by one read of the newest start and
// one of the buckets' newest versions.
func (s *Store) modelBuckets(ctx context.Context, i int, r resolution, k modelKey, ps []labeled,
	positions map[analytics.EventKey]analytics.Position) (map[int64]*counted, int64, error) {
	set := map[int64]bool{}
	for _, p := range ps {
		set[p.Timestamp.Truncate(r.width).UnixMicro()] = true
	}
	found, missing, newest, fresh := s.cache.buckets(i, k, set, ps, positions)
	if !fresh {
		var err error
		if newest, err = s.newestBucket(ctx, r, k); err != nil {
			return nil, 0, err
		}
	}
	read := map[int64]bool{}
	for _, start := range missing {
		if start <= newest { // after it, a bucket is new: nothing to read
			read[start] = true
		}
	}
	if len(read) == 0 {
		return found, newest, nil
	}
	starts, lo, hi := span(read)
	loaded, err := s.loadBuckets(ctx, r, k, starts, lo, hi)
	if err != nil {
		return nil, 0, err
	}
	maps.Copy(found, loaded)
	return found, newest, nil
}

// newestBucket reads the newest bucket start of r that model k has stored,
// 0 when none: any version counts, so no FINAL.
func (s *Store) newestBucket(ctx context.Context, r resolution, k modelKey) (int64, error) {
	var newest int64
	if err := s.conn.QueryRow(ctx, `SELECT max(`+r.column+`) FROM `+r.table+` WHERE org_id = ? AND model_id = ?`,
		k.org, k.model).Scan(&newest); err != nil {
		return 0, fmt.Errorf("clickhouse rollup read: %w", err)
	}
	return newest, nil
}

// origin names where the log holds an event, "" for none.
func origin(positions map[analytics.EventKey]analytics.Position, p eventlog.Prediction) string {
	pos, ok := positions[analytics.EventKey{OrgID: p.OrgID, ModelID: p.ModelID, ID: p.PredictionID}]
	if !ok {
		return ""
	}
	return fmt.Sprintf("%d/%d", pos.Partition, pos.Offset)
}

// classify returns the predictions not stored yet (each id once), and
// those to count: these and the ones stored from this very log record (a
// replay), in the batch's order, which is the log's, as the rollups'
// offsets need. Repeats of stored ids from other records are left out.
// Only the ids a model's id filter may hold are read (toRead).
func (s *Store) classify(ctx context.Context, ps []eventlog.Prediction, positions map[analytics.EventKey]analytics.Position) (fresh, count []eventlog.Prediction, err error) {
	keys := map[modelKey][]analytics.EventKey{}
	for _, p := range ps {
		k := modelKey{p.OrgID, p.ModelID}
		keys[k] = append(keys[k], analytics.EventKey{OrgID: p.OrgID, ModelID: p.ModelID, ID: p.PredictionID})
	}
	stored := map[modelKey]map[string]string{}
	for k, list := range keys {
		read, err := s.toRead(ctx, k, list, positions)
		if err != nil {
			return nil, nil, err
		}
		if len(read) == 0 {
			continue
		}
		if stored[k], err = s.origins(ctx, k, read); err != nil {
			return nil, nil, err
		}
	}
	seen := map[analytics.EventKey]bool{}
	for _, p := range ps {
		key := analytics.EventKey{OrgID: p.OrgID, ModelID: p.ModelID, ID: p.PredictionID}
		if seen[key] {
			continue
		}
		seen[key] = true
		o, ok := stored[modelKey{p.OrgID, p.ModelID}][p.PredictionID]
		switch {
		case !ok:
			fresh, count = append(fresh, p), append(count, p)
		case o != "" && o == origin(positions, p):
			count = append(count, p)
		}
	}
	return fresh, count, nil
}

// origins returns the stored ids among ids with their origins.
func (s *Store) origins(ctx context.Context, k modelKey, ids []string) (map[string]string, error) {
	// No FINAL: every version of an id's row holds the origin it was first
	// stored from (only a replay of that record inserts it again).
	ctx, err := withList(ctx, idList, ids)
	if err != nil {
		return nil, err
	}
	rows, err := s.conn.Query(ctx, `SELECT event_id, origin FROM prediction_ids
		WHERE org_id = ? AND model_id = ? AND `+idList.in("event_id"), k.org, k.model)
	if err != nil {
		return nil, fmt.Errorf("clickhouse dedup read: %w", err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var id, o string
		if err := rows.Scan(&id, &o); err != nil {
			return nil, fmt.Errorf("clickhouse dedup read: %w", err)
		}
		out[id] = o
	}
	return out, rows.Err()
}

// resolution is one of the prediction rollups.
type resolution struct {
	table, column string
	width         time.Duration
}

var resolutions = [...]resolution{
	{"prediction_minutes", "minute", time.Minute},
	{"prediction_hours", "hour", time.Hour},
}

// counted is a rollup row being added to: its bucket and the highest log
// offset per partition it holds.
type counted struct {
	bucket  analytics.Bucket
	offsets map[int32]int64
}

// labeled is a prediction with the labels of its output.
type labeled struct {
	eventlog.Prediction
	labels []analytics.Label
}

// loadBuckets reads the newest version of one model's buckets of r that
// start in starts, within [lo, hi).
func (s *Store) loadBuckets(ctx context.Context, r resolution, k modelKey, starts []int64, lo, hi int64) (map[int64]*counted, error) {
	ctx, err := withList(ctx, startList, starts)
	if err != nil {
		return nil, err
	}
	rows, err := s.conn.Query(ctx, `SELECT `+r.column+`, offsets, `+analytics.RollupColumns+` FROM `+r.table+` FINAL
		WHERE org_id = ? AND model_id = ? AND `+r.column+` >= ? AND `+r.column+` < ? AND `+startList.in(r.column),
		k.org, k.model, lo, hi)
	if err != nil {
		return nil, fmt.Errorf("clickhouse rollup read: %w", err)
	}
	defer rows.Close()
	out := map[int64]*counted{}
	for rows.Next() {
		var start int64
		var offsets string
		c := &counted{}
		if err := c.bucket.Scan(rows, &start, &offsets); err != nil {
			return nil, fmt.Errorf("clickhouse rollup read: %w", err)
		}
		if offsets != "" {
			if err := json.Unmarshal([]byte(offsets), &c.offsets); err != nil {
				return nil, fmt.Errorf("clickhouse rollup read: stored offsets: %w", err)
			}
		}
		if c.offsets == nil {
			c.offsets = map[int32]int64{}
		}
		out[start] = c
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("clickhouse rollup read: %w", err)
	}
	return out, nil
}

// writeHours writes one model's hours as their newest version, holding no
// log offsets: analytics.FillHours's writer.
func (s *Store) writeHours(ctx context.Context, orgID, modelID string, hours map[int64]*analytics.Bucket) error {
	buckets := make(map[int64]*counted, len(hours))
	for h, b := range hours {
		buckets[h] = &counted{bucket: *b}
	}
	rows := make([]bucketRow, 0, len(hours))
	for h, c := range buckets {
		rows = append(rows, bucketRow{modelKey{orgID, modelID}, h, c})
	}
	return s.insertBuckets(ctx, resolutions[1], rows)
}

// bucketRow is one model's bucket to insert.
type bucketRow struct {
	model modelKey
	start int64
	c     *counted
}

// insertBuckets inserts buckets of r as their newest version, in one
// INSERT.
func (s *Store) insertBuckets(ctx context.Context, r resolution, rows []bucketRow) error {
	if len(rows) == 0 {
		return nil
	}
	batch, err := s.conn.PrepareBatch(ctx, `INSERT INTO `+r.table+`
		(org_id, model_id, `+r.column+`, predictions, latency_count, latency_sum, latency_min, latency_max,
		 latency_sketch, output_counts, offsets, version)`)
	if err != nil {
		return fmt.Errorf("clickhouse rollup: %w", err)
	}
	defer batch.Close() // ends the INSERT when Send is not reached
	version := uint64(time.Now().UnixNano())
	for _, row := range rows {
		c := row.c
		sketch, outputs, err := c.bucket.Encode()
		if err != nil {
			return err
		}
		offsets := []byte("{}")
		if len(c.offsets) > 0 {
			if offsets, err = json.Marshal(c.offsets); err != nil {
				return err
			}
		}
		b := &c.bucket
		if err := batch.Append(row.model.org, row.model.model, row.start, uint64(b.Predictions), uint64(b.LatencyCount), b.LatencySum,
			b.LatencyMin, b.LatencyMax, string(sketch), string(outputs), string(offsets), version); err != nil {
			return fmt.Errorf("clickhouse rollup: %w", err)
		}
	}
	if err := batch.Send(); err != nil {
		return fmt.Errorf("clickhouse rollup: %w", err)
	}
	return nil
}

func (s *Store) insertPredictions(ctx context.Context, ps []eventlog.Prediction, positions map[analytics.EventKey]analytics.Position) error {
	batch, err := s.conn.PrepareBatch(ctx, `INSERT INTO predictions
		(org_id, model_id, event_id, ts, latency_ms, input_data, output_data, metadata)`)
	if err != nil {
		return fmt.Errorf("clickhouse insert: %w", err)
	}
	defer batch.Close() // ends the INSERT when Send is not reached
	for _, p := range ps {
		in, out, meta := p.Documents()
		if err := batch.Append(p.OrgID, p.ModelID, p.PredictionID, p.Timestamp.UnixMicro(), p.LatencyMS, in, out, meta); err != nil {
			return fmt.Errorf("clickhouse insert: %w", err)
		}
	}
	if err := batch.Send(); err != nil {
		return fmt.Errorf("clickhouse insert: %w", err)
	}
	// The ids go in after the rows: a crash between the two leaves rows
	// whose replay inserts them again with the same sort key, merged away,
	// never ids without rows.
	return s.insertIDs(ctx, ps, positions)
}

func (s *Store) insertIDs(ctx context.Context, ps []eventlog.Prediction, positions map[analytics.EventKey]analytics.Position) error {
	// The filters learn the ids before they are sent (idFilters.add).
	ids := map[modelKey][]string{}
	for _, p := range ps {
		k := modelKey{p.OrgID, p.ModelID}
		ids[k] = append(ids[k], p.PredictionID)
	}
	for k, list := range ids {
		s.filters.add(k, list)
	}
	batch, err := s.conn.PrepareBatch(ctx, `INSERT INTO prediction_ids (org_id, model_id, event_id, ts, origin)`)
	if err != nil {
		return fmt.Errorf("clickhouse insert ids: %w", err)
	}
	defer batch.Close() // ends the INSERT when Send is not reached
	for _, p := range ps {
		if err := batch.Append(p.OrgID, p.ModelID, p.PredictionID, p.Timestamp.UnixMicro(), origin(positions, p)); err != nil {
			return fmt.Errorf("clickhouse insert ids: %w", err)
		}
	}
	if err := batch.Send(); err != nil {
		return fmt.Errorf("clickhouse insert ids: %w", err)
	}
	return nil
}

// span lists the bucket starts of set with the time range [lo, hi) that
// holds them, in Unix microseconds (hi is a minute past the last start).
func span(set map[int64]bool) (starts []int64, lo, hi int64) {
	lo, hi = int64(1<<63-1), int64(-1<<63)
	for m := range set {
		starts = append(starts, m)
		lo, hi = min(lo, m), max(hi, m)
	}
	return starts, lo, hi + time.Minute.Microseconds()
}
