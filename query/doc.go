// Package query is the read-side API over the analytical store
// (analytics.Store): predictions, their statistics, metric and LLM series,
// evaluation metrics computed on request, exports, and dead letters.
// query/tabular writes rows as JSON, CSV, Arrow or Parquet.
//
// It imports the analytics contract and never one of its engines; nothing
// upstream of it (ingest, the event log, the processors) may import it.
package query
