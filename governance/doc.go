// Package governance holds what feeds the risk register (governance/risk)
// and, later, the trust score and the review boards: the governance events
// (Event) that drift reports and bias audits raise on the event log, and
// the Outbox that delivers each one at least once. processors/drafting
// reads them and drafts risk entries.
//
// It imports the eventlog contract; it must not import the ingest
// endpoints, the processors or the stores' engines.
package governance
