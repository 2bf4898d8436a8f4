// Package governance holds what feeds the risk register (governance/risk)
// and, later, the trust score: the governance events (Event) that drift
// reports, bias audits and review requests (governance/review) raise on
// the event log, and
// the Outbox that delivers each one at least once. processors/drafting
// reads them and drafts risk entries.
//
// It imports the eventlog contract; it must not import the ingest
// endpoints, the processors or the stores' engines.
package governance
