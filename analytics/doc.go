// Package analytics is the contract of the analytical store: predictions,
// metrics and LLM completions with their per-minute and per-hour rollups,
// hourly feature profiles and dead letters. The processors write it
// (Sink, ProfileStore, DeadLetters); the query API, drift, bias audits
// and the registry read it (Store, Series). Writers are idempotent by
// event id and durable before nil; an error wrapping ErrPermanent says
// the data is at fault, any other says retry.
//
// Beside the interfaces it holds the SQL that both engines share (the
// rollup columns, readers of rows, series, hours and profiles), so that a
// dialect's differences stay in its engine: analytics/sqlite (the embedded
// default) and analytics/clickhouse. analytics/analyticstest is the
// contract every engine passes.
//
// It imports the eventlog contract, the store errors, the platform's
// plumbing and the maths tree; it must never import its engines or the
// code that uses it (processors, query, drift, bias).
package analytics
