// Package ingest is HTTP intake: it validates the predictions, metrics
// and LLM completions callers log and appends them durably to the event
// log (eventlog.Log), answering only once they are.
//
// It imports the eventlog contract, identity, registry, the platform and
// the store errors; it must not import an engine of the log, the
// processors, the analytical store or the query API.
package ingest
