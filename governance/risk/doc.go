// Package risk is the AI risk register (spec 1): entries with a
// likelihood x impact score, an owner, a mitigation plan, a workflow
// status and an audit trail, the organization's scoring configuration, the
// portfolio view, and the drafting of entries from governance events.
//
// # Routes
//
// POST and GET /risk-register, GET and PATCH /risk-register/{entry_id},
// GET /risk-register/{entry_id}/history (the audit trail), GET
// /risk-register/portfolio (heat map, top risks, counts of open entries),
// GET and PUT /risk-register/config. Reads need risk:read (viewers),
// writes risk:write (editors), PUT of the configuration risk:configure
// (admins). Another organization's entry answers 404 like a missing one.
//
// # Scoring
//
// risk_score = likelihood x impact; severity is the score's band under
// the organization's severity_thresholds at the time likelihood or impact
// last changed: a later change of thresholds restates no stored entry.
// PUT /risk-register/config overrides only the parts it sends; is_default
// is true while nothing is overridden.
//
// # Workflow
//
// A new entry is identified. The allowed moves (a PATCH with status and
// status_reason; any other move answers 422 naming status):
//
//	identified          -> assessed, closed
//	assessed            -> identified, mitigation_planned, closed
//	mitigation_planned  -> assessed, mitigated, closed
//	mitigated           -> mitigation_planned, closed
//	closed              -> identified (reopen)
//
// Sending the current status is no move and writes nothing. closed_at is
// set on closing and cleared on reopening. Every status other than closed
// is open.
//
// # Reviews
//
// With review_cadence_days set, next_review_at is the time of the last
// review plus the cadence; creating the entry and every PATCH that changes
// something count as a review. A closed entry has none.
//
// # Audit trail
//
// Every create (event_action create), field edit (update: details field,
// from, to; one event per field) and status change (status_change:
// details from, to, reason) is written in the transaction that makes it,
// with the acting user's id and username and the time.
//
// # Drafting
//
// Draft turns a governance event into an entry by spec 1's table: a bias
// audit at high or critical severity is "Bias/fairness threshold breach
// for <model>" (bias, likelihood 4 or 5, impact 4), a drift report at high
// or critical severity "High-severity drift detected for <model>" (drift,
// 4 or 5, 3), a review request denied or sent back "Governance review
// flagged: <request title>" (operational, 3, 3); status identified, no
// creator, source_type and source_id naming the record. The category is
// the table's whatever the organization's taxonomy holds. The store keeps
// one entry per source record (processors/drafting runs it), and, for
// drift reports and bias audits, one open entry per model and source
// type: while it is open, a later qualifying result of the model is added
// to its trail (Repeat: an event naming the source, the likelihood raised
// when the new one is higher) instead of opening another.
//
// # Portfolio
//
// The heat map and the counts come from per-cell counts of open entries
// that every write keeps in its own transaction; the top risks are the
// open entries ordered by severity, score, then newest.
//
// It imports identity and registry (the owner and the models an entry
// names), the platform and the store errors; it must not import an
// engine, the processors or the query API.
package risk
