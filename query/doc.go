// Package query answers analytical questions about predictions, metrics and
// LLM completions from the analytical store: ClickHouse (query/clickhouse)
// or the embedded SQLite store.
package query
