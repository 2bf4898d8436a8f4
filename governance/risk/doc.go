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
// risk_score = likelihood x impact, its severity the band of the
// organization's thresholds when likelihood or impact last changed (Config);
// the allowed status moves are on Status, the review cadence on Entry, the
// audit trail (written in the transaction of each change) on Event, the
// drafting of entries by spec 1's table on Draft, the portfolio on
// API.portfolio.
//
// It imports identity and registry (the owner and the models an entry
// names), the platform and the store errors; it must not import an
// engine, the processors or the query API.
package risk
