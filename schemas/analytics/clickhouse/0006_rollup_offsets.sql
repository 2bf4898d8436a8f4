-- The prediction rollups are kept incrementally: each batch's new events
-- are added to the stored minute and hour, and the rollup row records, per
-- log partition, the highest offset added (JSON text), so that an event
-- counted before a crash is not counted again when the log replays it.
-- prediction_ids keeps each id's origin, the log position of the record
-- that stored it ("partition/offset", '' for none), so that a replay is
-- told from a client's retry of the same prediction_id.
-- Statements are separated by lines holding only ";".

ALTER TABLE prediction_minutes ADD COLUMN offsets String
;
ALTER TABLE prediction_hours ADD COLUMN offsets String
;
ALTER TABLE prediction_ids ADD COLUMN origin String
