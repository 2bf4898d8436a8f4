// Package governance holds what feeds the risk register (governance/risk):
// the governance events (Event) that drift reports, bias audits and review
// requests (governance/review) raise on the event log, and the Outbox that
// delivers each one at least once. processors/drafting reads them and
// drafts risk entries. The trust score (governance/trust) reads no event:
// the store snapshots it in the transaction that changes one of its
// inputs.
//
// It imports the eventlog contract; it must not import the ingest
// endpoints, the processors or the stores' engines.
package governance
