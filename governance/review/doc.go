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
// # Boards
//
// A member is a user of the organization with the role chair (votes and
// finalizes), voter (votes) or observer (follows, does not vote). PUT
// replaces name, description and default_quorum, and the members when it
// sends them; POST /members adds one member or changes their role. A
// deleted board leaves the boards and frees its name; its requests stay
// in the archive. A board with a request in draft or under review cannot
// be deleted (409).
//
// # Requests and their moves
//
//	(create)   -> draft
//	draft      -> submitted   POST .../submit
//	submitted  -> finalized   POST .../finalize, once the quorum is reached
//
// Any other move answers 409 naming the status and the statuses the move
// starts from (details.status, details.allowed_from), as alert moves do.
// Submitting fixes the request's panel (the board's members at that time:
// a later change of the board does not change who decides) and its
// quorum: the request's own, else the board's default_quorum, else a
// majority of the voting members (n/2+1); a quorum above the panel's
// voting members answers 409. finalized is final: a request sent back is
// revised in a new request.
//
// # Decisions and the quorum rule
//
// Each chair and voter of the panel decides once, while the request is
// submitted: approve, deny or request_changes, with a comment (required
// to deny or request changes). A second decision of the same member is
// refused with 409 (decisions are final, the archive keeps them as given);
// an observer, or a user off the panel, is refused with 403.
//
// A chair of the panel, or a caller holding governance:configure,
// finalizes once at least quorum decisions are given (409 before). The
// outcome: approved when approvals are a strict majority of the decisions
// given; otherwise changes_requested when request_changes outnumber deny,
// else denied (a tie, approvals against the rest or deny against
// request_changes, never approves, and deny wins ties).
//
// # Risk drafting
//
// A request finalized denied or changes_requested owes a governance event
// (governance.Event, source_type governance_review, severity the outcome,
// summary the title, event and source id the request's): the write that
// finalizes it sets governance_pending in the same transaction, the API
// appends the event after the commit and clears the debt, and Resender
// appends whatever is still owed (governance.Outbox). processors/drafting
// drafts one operational risk entry, likelihood 3 and impact 3, per request.
//
// # Archive
//
// Search and export take the filters status, outcome, model_id, board_id,
// start_date and end_date (over created_at; start inclusive, end
// exclusive) and text (a case-insensitive substring of the title or the
// description); search pages with page and page_size in its body and
// answers the pagination envelope with the requests under "requests". The
// export (format csv, the default, or json) is an attachment of at most
// MaxExport requests; a CSV cell a spreadsheet would evaluate is written
// with a leading apostrophe.
//
// It imports the eventlog contract, governance, identity and registry,
// the platform and the store errors; it must not import an engine, the
// processors or the query API.
package review
