-- Each minute's latencies as a DDSketch (processors/quantile), merged in
-- the same transaction as the counts, for p50/p95/p99 over any range.
ALTER TABLE prediction_minutes ADD COLUMN latency_sketch BLOB;
