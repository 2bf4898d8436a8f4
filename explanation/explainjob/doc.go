// Package explainjob computes pending explanations in the API role (spec
// 3, issue 16). The store is the queue: POST /explanations/generate and
// /explanations/bulk store pending explanations and wake the Runner,
// which reads the oldest pending ones on start, on every tick and when
// woken, computes them Workers at a time (explanation.Execute) and stores
// each outcome or failure. A job therefore outlives a restart, and two
// replicas computing one job store the same values (the first wins).
// While a job runs its progress is stored: the first report, at most one
// a second, and the last.
//
// It imports explanation (the jobs, their store and their computation),
// the platform and the store errors; it must not import the event log,
// the analytical store or an engine.
package explainjob
