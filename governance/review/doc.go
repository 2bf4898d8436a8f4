// Package review is the governance review boards (spec 3): boards with
// members and their voting roles, requests for a board's decision about a
// model, the members' decisions, finalizing by a quorum rule, the
// caller's pending reviews, and the decision archive with its search and
// its CSV and JSON export.
//
// # Routes
//
// Under /governance/review-boards: POST and GET (boards), GET, PUT and
// DELETE /{board_id}, POST /{board_id}/members, POST /requests, POST
// /requests/{request_id}/submit, /decisions and /finalize, GET
// /requests/{request_id}/status, GET /my-reviews, POST /archive/search and
// /archive/export. Reads need governance:read (viewers), requests and their
// submission governance:write (editors), decisions and finalizing
// governance:review (editors; an API key needs the scope naming it), the
// boards themselves governance:configure (admins). Another organization's
// board or request answers 404 like a missing one.
//
// The rules sit on the code: what a board holds on Board, a request's
// states and moves on Status, decisions and the quorum rule on Tally, the
// risk drafted from a decision on GovernanceEvent, the archive's search
// and export on API.search.
//
// It imports the eventlog contract, governance, identity and registry,
// the platform and the store errors; it must not import an engine, the
// processors or the query API.
package review
