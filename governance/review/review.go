package review

import (
	"context"
	"slices"
	"time"

	"github.com/vigilhq/vigil/identity"
	"github.com/vigilhq/vigil/registry"
)

// Permissions of the review boards: viewers read, editors write requests
// and vote, admins configure the boards.
const (
	PermRead      = "governance:read"
	PermWrite     = "governance:write"
	PermConfigure = "governance:configure"
	PermReview    = "governance:review"
)

// Roles of a board member: a chair votes and finalizes, a voter votes, an
// observer follows the requests and does not vote.
const (
	RoleChair    = "chair"
	RoleVoter    = "voter"
	RoleObserver = "observer"
)

// Roles lists the member roles.
var Roles = []string{RoleChair, RoleVoter, RoleObserver}

// Voting reports whether a member of role votes.
func Voting(role string) bool { return role == RoleChair || role == RoleVoter }

// Member is one user of a board and the role they hold on it.
type Member struct {
	UserID string
	// Username is the user's, read with the board.
	Username string
	Role     string
	AddedAt  time.Time
}

// Board is a review board of an organization.
//
// A member is a user of the organization with the role chair (votes and
// finalizes), voter (votes) or observer (follows, does not vote). PUT
// replaces name, description and default_quorum, and the members when it
// sends them; POST /members adds one member or changes their role. A
// deleted board leaves the boards and frees its name; its requests stay
// in the archive. A board with a request in draft or under review cannot
// be deleted (409).
type Board struct {
	ID          string
	OrgID       string
	Name        string
	Description string
	// DefaultQuorum is the quorum of a request that names none (0: a
	// majority of the voting members).
	DefaultQuorum int
	Members       []Member
	CreatedBy     string
	CreatedAt     time.Time
	UpdatedAt     time.Time
	// DeletedAt is set once the board is deleted: it is gone from the
	// boards, and its requests stay in the archive naming it.
	DeletedAt *time.Time
}

// VotingMembers counts the board's chairs and voters.
func (b Board) VotingMembers() int {
	n := 0
	for _, m := range b.Members {
		if Voting(m.Role) {
			n++
		}
	}
	return n
}

// Status is where a request is: draft, then submitted, then finalized.
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
type Status string

// The statuses of a request, in order.
const (
	StatusDraft     Status = "draft"
	StatusSubmitted Status = "submitted"
	StatusFinalized Status = "finalized"
)

// Statuses lists every status, in order.
var Statuses = []Status{StatusDraft, StatusSubmitted, StatusFinalized}

// Outcomes of a finalized request.
const (
	OutcomeApproved         = "approved"
	OutcomeDenied           = "denied"
	OutcomeChangesRequested = "changes_requested"
)

// Outcomes lists the outcomes.
var Outcomes = []string{OutcomeApproved, OutcomeDenied, OutcomeChangesRequested}

// Decisions a voting member gives.
const (
	DecisionApprove        = "approve"
	DecisionDeny           = "deny"
	DecisionRequestChanges = "request_changes"
)

// DecisionValues lists the decisions.
var DecisionValues = []string{DecisionApprove, DecisionDeny, DecisionRequestChanges}

// RequestedDecisions are what a request asks the board to decide.
var RequestedDecisions = []string{"deployment", "model_change", "retirement", "risk_acceptance", "exception", "other"}

// Reviewer is one member of a request's panel: the board's members as
// they were when the request was submitted.
type Reviewer struct {
	UserID   string
	Username string
	Role     string
}

// Decision is one voting member's decision on a request.
type Decision struct {
	ID        string
	RequestID string
	UserID    string
	Username  string
	Decision  string
	Comment   string
	CreatedAt time.Time
}

// Request is a request for a board's decision about a model.
type Request struct {
	ID        string
	OrgID     string
	BoardID   string
	BoardName string
	ModelID   string
	Title     string
	// Description and RequestedDecision say what is asked.
	Description       string
	RequestedDecision string
	// Quorum is the decisions finalizing needs; 0 on a draft that names
	// none, fixed on submission.
	Quorum int
	Status Status
	// Outcome is set on finalizing ("" before).
	Outcome   string
	Panel     []Reviewer
	Decisions []Decision
	CreatedBy string
	CreatedAt time.Time
	UpdatedAt time.Time
	// SubmittedAt, FinalizedAt and FinalizedBy record the moves.
	SubmittedAt *time.Time
	FinalizedAt *time.Time
	FinalizedBy string
	// GovernancePending is set, in the write that finalizes the request
	// denied or sent back, until its governance event is on the log.
	GovernancePending bool
}

// reviewer returns the panel's entry of the user, if any.
func (r Request) reviewer(userID string) (Reviewer, bool) {
	i := slices.IndexFunc(r.Panel, func(p Reviewer) bool { return p.UserID == userID })
	if i < 0 {
		return Reviewer{}, false
	}
	return r.Panel[i], true
}

// decided reports whether the user has decided.
func (r Request) decided(userID string) bool {
	return slices.ContainsFunc(r.Decisions, func(d Decision) bool { return d.UserID == userID })
}

// Tally counts a request's decisions against its quorum.
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
type Tally struct {
	Approve        int
	Deny           int
	RequestChanges int
	// Voting is the panel's chairs and voters.
	Voting int
	Quorum int
}

// Decided is how many decisions were given.
func (t Tally) Decided() int { return t.Approve + t.Deny + t.RequestChanges }

// QuorumReached reports whether finalizing is allowed: at least Quorum
// decisions given (and a quorum of at least one).
func (t Tally) QuorumReached() bool { return t.Quorum > 0 && t.Decided() >= t.Quorum }

// Outcome is the rule of finalizing: approved when approvals are a strict
// majority of the decisions given; otherwise denied, unless more members
// asked for changes than denied (a tie of deny and request_changes is
// denied: deny wins ties).
func (t Tally) Outcome() string {
	switch {
	case 2*t.Approve > t.Decided():
		return OutcomeApproved
	case t.RequestChanges > t.Deny:
		return OutcomeChangesRequested
	}
	return OutcomeDenied
}

// Tally counts r's decisions.
func (r Request) Tally() Tally {
	t := Tally{Quorum: r.Quorum}
	for _, p := range r.Panel {
		if Voting(p.Role) {
			t.Voting++
		}
	}
	for _, d := range r.Decisions {
		switch d.Decision {
		case DecisionApprove:
			t.Approve++
		case DecisionDeny:
			t.Deny++
		case DecisionRequestChanges:
			t.RequestChanges++
		}
	}
	return t
}

// Majority is the quorum of a panel of n voting members that no request
// or board sets: more than half of them.
func Majority(n int) int { return n/2 + 1 }

// Filter selects requests of one organization, newest first.
type Filter struct {
	Status  Status
	Outcome string
	ModelID string
	BoardID string
	// Text matches title or description, case-insensitively, as a
	// substring.
	Text string
	// From and To bound created_at: From inclusive, To exclusive (zero:
	// unbounded).
	From, To time.Time
	// Awaiting, a user id, keeps the submitted requests on whose panel the
	// user votes and has not decided yet (my-reviews).
	Awaiting string
	// Limit and Offset page the list; Limit 0 means no limit.
	Limit, Offset int
}

// Store keeps the boards and the requests. Every method takes the
// caller's organization; another organization's board or request is
// store.ErrNotFound like a missing one.
type Store interface {
	registry.Finder
	User(ctx context.Context, orgID, id string) (identity.User, error)
	// CreateBoard stores a board and its members; store.ErrConflict when
	// the organization has a board of the name, store.ErrNotFound when a
	// member is no user of the organization.
	CreateBoard(ctx context.Context, b Board) error
	// Board returns one board, deleted or not, members by role then
	// username.
	Board(ctx context.Context, orgID, id string) (Board, error)
	// Boards returns a page of the boards not deleted, by name, and how
	// many there are.
	Boards(ctx context.Context, orgID string, limit, offset int) ([]Board, int64, error)
	// UpdateBoard reads the board, locked, calls change, and stores the
	// board and its members as change leaves them; an error from change is
	// returned and nothing is stored. store.ErrConflict on a taken name,
	// store.ErrNotFound when the board is deleted or a member is no user
	// of the organization.
	UpdateBoard(ctx context.Context, orgID, id string, change func(*Board) error) (Board, error)
	// DeleteBoard marks the board deleted (its requests stay in the
	// archive, naming it; its name is free again); store.ErrNotFound when
	// it is deleted already, store.ErrConflict while it has a draft or
	// submitted request.
	DeleteBoard(ctx context.Context, orgID, id string, at time.Time) error
	// CreateReviewRequest stores a draft; store.ErrNotFound when its
	// board or model is not the organization's.
	CreateReviewRequest(ctx context.Context, r Request) error
	// ReviewRequest returns one request with its panel and decisions.
	ReviewRequest(ctx context.Context, orgID, id string) (Request, error)
	// UpdateReviewRequest reads the request, locked, with its board, calls
	// change and stores in one transaction what change did: its fields,
	// the panel when it was empty, the decisions appended (a second
	// decision of a user is store.ErrConflict). An error from change is
	// returned and nothing is stored.
	UpdateReviewRequest(ctx context.Context, orgID, id string, change func(*Request, Board) error) (Request, error)
	// ReviewRequests returns a page of requests matching f, newest first,
	// and how many match.
	ReviewRequests(ctx context.Context, orgID string, f Filter) ([]Request, int64, error)
	// ReviewGovernancePending returns up to limit requests, of every
	// organization, that owe their governance event, oldest finalization
	// first.
	ReviewGovernancePending(ctx context.Context, limit int) ([]Request, error)
	// ReviewGovernanceSent records the event of the request on the log.
	ReviewGovernanceSent(ctx context.Context, orgID, id string) error
}
