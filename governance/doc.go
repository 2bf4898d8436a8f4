// Package governance is where the risk register, the trust score and the
// review boards will live; today it holds what feeds them: the governance
// events (Event) that drift reports and bias audits raise on the event
// log, and the Outbox that delivers each one at least once.
//
// It imports the eventlog contract; it must not import the ingest
// endpoints, the processors or the stores' engines.
package governance
