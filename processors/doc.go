// Package processors is the processor role: the consume loop that polls
// the event log (eventlog.Source), drops events of unknown models, writes
// each batch to the analytical store (analytics.Sink), folds predictions
// into hourly feature profiles, sets aside the events the store refuses
// for good (dead letters), and only then commits the log. Over the
// embedded log, which commits a prefix of what it handed out, reading,
// storing and profiling run as stages one batch apart (ahead.go).
// Scheduled drift reports run in processors/schedule.
//
// It imports the contracts it reads and writes (eventlog, analytics) and
// the maths tree; it must never import an engine of either, nor the ingest
// endpoints or the query API.
package processors
