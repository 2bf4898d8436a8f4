package review

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/vigilhq/vigil/eventlog"
	"github.com/vigilhq/vigil/identity"
	"github.com/vigilhq/vigil/platform/clock"
	"github.com/vigilhq/vigil/platform/web"
	"github.com/vigilhq/vigil/store"
)

// API serves /governance/review-boards.
type API struct {
	Store Store
	// Events, when set, receives the governance event of every request
	// finalized denied or sent back (see Resender for what is still owed).
	Events eventlog.Log
	// Clock defaults to the system clock; Log to slog.Default().
	Clock clock.Clock
	Log   *slog.Logger
}

// Routes lists the operations of this package. The fixed paths come
// before /governance/review-boards/{board_id}, which would otherwise take
// them.
func (a *API) Routes() []web.Route {
	const base = "/governance/review-boards"
	return []web.Route{
		{Method: fiber.MethodPost, Path: base, Permission: PermConfigure, Handler: a.createBoard},
		{Method: fiber.MethodGet, Path: base, Permission: PermRead, Handler: a.listBoards},
		{Method: fiber.MethodGet, Path: base + "/my-reviews", Permission: PermRead, Handler: a.myReviews},
		{Method: fiber.MethodPost, Path: base + "/archive/search", Permission: PermRead, Handler: a.search},
		{Method: fiber.MethodPost, Path: base + "/archive/export", Permission: PermRead, Bucket: web.BucketReports, Handler: a.export},
		{Method: fiber.MethodPost, Path: base + "/requests", Permission: PermWrite, Handler: a.createRequest},
		{Method: fiber.MethodPost, Path: base + "/requests/:request_id/submit", Permission: PermWrite, Handler: a.submit},
		{Method: fiber.MethodPost, Path: base + "/requests/:request_id/decisions", Permission: PermReview, Handler: a.decide},
		{Method: fiber.MethodGet, Path: base + "/requests/:request_id/status", Permission: PermRead, Handler: a.status},
		{Method: fiber.MethodPost, Path: base + "/requests/:request_id/finalize", Permission: PermReview, Handler: a.finalize},
		{Method: fiber.MethodGet, Path: base + "/:board_id", Permission: PermRead, Handler: a.getBoard},
		{Method: fiber.MethodPut, Path: base + "/:board_id", Permission: PermConfigure, Handler: a.updateBoard},
		{Method: fiber.MethodDelete, Path: base + "/:board_id", Permission: PermConfigure, Handler: a.deleteBoard},
		{Method: fiber.MethodPost, Path: base + "/:board_id/members", Permission: PermConfigure, Handler: a.addMember},
	}
}

// actor is the acting user of the request.
func actor(c *fiber.Ctx) (id, name string) {
	p := identity.FromCtx(c)
	if p == nil {
		return "", ""
	}
	return p.UserID, p.Username
}

// Limits of a request.
const maxTitle = 500

// requestBody is the body of POST /governance/review-boards/requests.
type requestBody struct {
	BoardID           *string  `json:"board_id"`
	ModelID           *string  `json:"model_id"`
	Title             *string  `json:"title"`
	Description       *string  `json:"description"`
	RequestedDecision *string  `json:"requested_decision"`
	Quorum            *web.Int `json:"quorum"`
}

func (a *API) createRequest(c *fiber.Ctx) error {
	var b requestBody
	if err := web.Decode(c, &b); err != nil {
		return err
	}
	org := identity.OrgID(c)
	ctx := c.UserContext()
	var v web.Problems
	for name, p := range map[string]*string{"board_id": b.BoardID, "model_id": b.ModelID, "title": b.Title, "requested_decision": b.RequestedDecision} {
		if p == nil {
			v.Add(name, "is required")
		} else {
			v.Required(name, *p)
		}
	}
	if b.Title != nil {
		v.MaxLen("title", *b.Title, maxTitle)
	}
	if b.Description != nil {
		v.MaxLen("description", *b.Description, maxText)
	}
	if b.RequestedDecision != nil {
		v.OneOf("requested_decision", *b.RequestedDecision, RequestedDecisions...)
	}
	if b.Quorum != nil && (*b.Quorum < 1 || *b.Quorum > maxQuorum) {
		v.Add("quorum", fmt.Sprintf("must be between 1 and %d", maxQuorum))
	}
	if err := v.Err(); err != nil {
		return err
	}
	board, err := a.liveBoard(ctx, org, *b.BoardID)
	if errors.Is(err, store.ErrNotFound) {
		v.Add("board_id", "no review board of the organization has this id")
	} else if err != nil {
		return err
	}
	if _, err := a.Store.Model(ctx, org, *b.ModelID); errors.Is(err, store.ErrNotFound) {
		v.Add("model_id", "no model of the organization has this id")
	} else if err != nil {
		return err
	}
	if board.ID != "" && board.VotingMembers() == 0 {
		v.Add("board_id", "the board has no voting member (chair or voter)")
	}
	if board.ID != "" && b.Quorum != nil && int(*b.Quorum) > board.VotingMembers() {
		v.Add("quorum", fmt.Sprintf("must be at most the board's %d voting members", board.VotingMembers()))
	}
	if err := v.Err(); err != nil {
		return err
	}
	now := a.Clock.Now()
	uid, _ := actor(c)
	r := Request{ID: uuid.Must(uuid.NewV7()).String(), OrgID: org, BoardID: board.ID, BoardName: board.Name, ModelID: *b.ModelID,
		Title: *b.Title, RequestedDecision: *b.RequestedDecision, Status: StatusDraft, CreatedBy: uid, CreatedAt: now, UpdatedAt: now}
	if b.Description != nil {
		r.Description = *b.Description
	}
	if b.Quorum != nil {
		r.Quorum = int(*b.Quorum)
	}
	if err := a.Store.CreateReviewRequest(ctx, r); errors.Is(err, store.ErrNotFound) {
		return web.Invalid("board_id", "names a board or model the organization no longer has")
	} else if err != nil {
		return err
	}
	c.Set(fiber.HeaderLocation, "/api/v1/governance/review-boards/requests/"+r.ID+"/status")
	return c.Status(http.StatusCreated).JSON(newRequestView(r, ""))
}

func (a *API) requestID(c *fiber.Ctx) (string, error) { return web.PathParam(c, "request_id") }

// requestNotFound turns the store's ErrNotFound into the request's 404.
func requestNotFound(err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return web.NotFound("review request")
	}
	return err
}

// illegal is the 409 of a move the request's status does not allow,
// naming the status and the statuses the move starts from.
func illegal(move string, r Request, from ...Status) *web.Error {
	e := web.Conflict("cannot " + move + " a request that is " + string(r.Status))
	allowed := make([]string, len(from))
	for i, s := range from {
		allowed[i] = string(s)
	}
	e.Details = map[string]any{"status": string(r.Status), "allowed_from": allowed}
	return e
}

// move runs change on the request under its lock and answers the request.
func (a *API) move(c *fiber.Ctx, change func(*Request, Board) error) (Request, error) {
	id, err := a.requestID(c)
	if err != nil {
		return Request{}, err
	}
	r, err := a.Store.UpdateReviewRequest(c.UserContext(), identity.OrgID(c), id, change)
	var we *web.Error
	if err != nil && !errors.As(err, &we) {
		err = requestNotFound(err)
	}
	return r, err
}

// submit moves a draft to submitted: the board's members as they are now
// become the request's panel, and its quorum is fixed (the request's, or
// the board's default, or a majority of the voting members).
func (a *API) submit(c *fiber.Ctx) error {
	if err := web.NoBody(c); err != nil {
		return err
	}
	now := a.Clock.Now()
	r, err := a.move(c, func(r *Request, b Board) error {
		if r.Status != StatusDraft {
			return illegal("submit", *r, StatusDraft)
		}
		r.Panel = r.Panel[:0]
		for _, m := range b.Members {
			r.Panel = append(r.Panel, Reviewer{UserID: m.UserID, Username: m.Username, Role: m.Role})
		}
		n := b.VotingMembers()
		q := r.Quorum
		if q == 0 {
			q = b.DefaultQuorum
		}
		if q == 0 {
			q = Majority(n)
		}
		if n == 0 || q > n {
			e := web.Conflict(fmt.Sprintf("the board has %d voting members, fewer than the quorum of %d", n, q))
			e.Details = map[string]any{"quorum": q, "voting_members": n}
			return e
		}
		r.Quorum, r.Status, r.SubmittedAt, r.UpdatedAt = q, StatusSubmitted, &now, now
		return nil
	})
	if err != nil {
		return err
	}
	return c.JSON(newRequestView(r, ""))
}

// decisionBody is the body of POST .../decisions.
type decisionBody struct {
	Decision *string `json:"decision"`
	Comment  *string `json:"comment"`
}

// decide records the caller's decision: once per voting member of the
// panel, while the request is submitted. A second decision is refused
// (409); observers and users off the panel are refused (403).
func (a *API) decide(c *fiber.Ctx) error {
	id, err := a.requestID(c)
	if err != nil {
		return err
	}
	var b decisionBody
	if err := web.Decode(c, &b); err != nil {
		return err
	}
	org := identity.OrgID(c)
	if _, err := a.Store.ReviewRequest(c.UserContext(), org, id); err != nil {
		return requestNotFound(err)
	}
	var v web.Problems
	if b.Decision == nil {
		v.Add("decision", "is required")
	} else if !slices.Contains(DecisionValues, *b.Decision) {
		v.Add("decision", "must be one of "+strings.Join(DecisionValues, ", "))
	}
	comment := ""
	if b.Comment != nil {
		comment = *b.Comment
		v.MaxLen("comment", comment, maxText)
	}
	if b.Decision != nil && *b.Decision != DecisionApprove && strings.TrimSpace(comment) == "" {
		v.Add("comment", "is required to deny or request changes")
	}
	if err := v.Err(); err != nil {
		return err
	}
	uid, uname := actor(c)
	now := a.Clock.Now()
	r, err := a.move(c, func(r *Request, _ Board) error {
		if r.Status != StatusSubmitted {
			return illegal("decide on", *r, StatusSubmitted)
		}
		p, ok := r.reviewer(uid)
		if !ok || !Voting(p.Role) {
			role := "none"
			if ok {
				role = p.Role
			}
			return &web.Error{Status: http.StatusForbidden, Code: web.CodeInsufficientPermissions,
				Message: "only the chairs and voters of the request's panel decide", Details: map[string]any{"board_role": role}}
		}
		if r.decided(uid) {
			return alreadyDecided
		}
		r.Decisions = append(r.Decisions, Decision{ID: uuid.Must(uuid.NewV7()).String(), RequestID: r.ID, UserID: uid,
			Username: uname, Decision: *b.Decision, Comment: comment, CreatedAt: now})
		r.UpdatedAt = now
		return nil
	})
	if errors.Is(err, store.ErrConflict) {
		return alreadyDecided
	}
	if err != nil {
		return err
	}
	return c.Status(http.StatusCreated).JSON(newRequestView(r, uid))
}

// alreadyDecided is the 409 of a second decision by one member.
var alreadyDecided = &web.Error{Status: http.StatusConflict, Code: web.CodeConflict,
	Message: "you have decided on this request already; a decision is final", Details: map[string]any{"decision": "given already"}}

func (a *API) status(c *fiber.Ctx) error {
	id, err := a.requestID(c)
	if err != nil {
		return err
	}
	r, err := a.Store.ReviewRequest(c.UserContext(), identity.OrgID(c), id)
	if err != nil {
		return requestNotFound(err)
	}
	uid, _ := actor(c)
	return c.JSON(newRequestView(r, uid))
}

// finalize closes a submitted request by the rule of Tally.Outcome once
// its quorum of decisions is given; a chair of the panel or a caller who
// configures the boards (governance:configure) finalizes. A request
// denied or sent back owes its governance event from the same write.
func (a *API) finalize(c *fiber.Ctx) error {
	if err := web.NoBody(c); err != nil {
		return err
	}
	uid, _ := actor(c)
	admin := identity.FromCtx(c).Can(PermConfigure)
	now := a.Clock.Now()
	r, err := a.move(c, func(r *Request, _ Board) error {
		if r.Status != StatusSubmitted {
			return illegal("finalize", *r, StatusSubmitted)
		}
		if p, ok := r.reviewer(uid); !admin && (!ok || p.Role != RoleChair) {
			return &web.Error{Status: http.StatusForbidden, Code: web.CodeInsufficientPermissions,
				Message: "only a chair of the request's panel, or an administrator of the boards, finalizes",
				Details: map[string]any{"board_role": "chair required"}}
		}
		t := r.Tally()
		if !t.QuorumReached() {
			e := web.Conflict(fmt.Sprintf("the quorum is not reached: %d of %d decisions given", t.Decided(), t.Quorum))
			e.Details = map[string]any{"quorum": t.Quorum, "decided": t.Decided()}
			return e
		}
		r.Outcome, r.Status, r.FinalizedAt, r.FinalizedBy, r.UpdatedAt = t.Outcome(), StatusFinalized, &now, uid, now
		r.GovernancePending = r.Outcome != OutcomeApproved
		return nil
	})
	if err != nil {
		return err
	}
	if r.GovernancePending {
		a.govern(c.UserContext(), r)
	}
	return c.JSON(newRequestView(r, uid))
}

// myReviews answers GET /governance/review-boards/my-reviews: the
// submitted requests on whose panel the caller votes and has not decided,
// newest first, paged with page and page_size (default 50, at most 1000).
func (a *API) myReviews(c *fiber.Ctx) error {
	page, size, err := web.PageQuery(c, 50, 1000)
	if err != nil {
		return err
	}
	uid, _ := actor(c)
	rs, total, err := a.Store.ReviewRequests(c.UserContext(), identity.OrgID(c), Filter{Awaiting: uid, Limit: size, Offset: (page - 1) * size})
	if err != nil {
		return err
	}
	return c.JSON(newRequestPage(rs, total, page, size, uid))
}

// requestView is a request as answered.
type requestView struct {
	ID                string         `json:"id"`
	BoardID           string         `json:"board_id"`
	BoardName         string         `json:"board_name"`
	ModelID           string         `json:"model_id"`
	Title             string         `json:"title"`
	Description       string         `json:"description"`
	RequestedDecision string         `json:"requested_decision"`
	Quorum            *int           `json:"quorum"`
	Status            Status         `json:"status"`
	Outcome           *string        `json:"outcome"`
	Tally             tallyView      `json:"tally"`
	Reviewers         []reviewerView `json:"reviewers"`
	Decisions         []decisionView `json:"decisions"`
	// YourDecision is the caller's decision, if any.
	YourDecision *string    `json:"your_decision"`
	CreatedBy    *string    `json:"created_by"`
	CreatedAt    time.Time  `json:"created_at"`
	UpdatedAt    time.Time  `json:"updated_at"`
	SubmittedAt  *time.Time `json:"submitted_at"`
	FinalizedAt  *time.Time `json:"finalized_at"`
	FinalizedBy  *string    `json:"finalized_by"`
}

type tallyView struct {
	Approve        int  `json:"approve"`
	Deny           int  `json:"deny"`
	RequestChanges int  `json:"request_changes"`
	Decided        int  `json:"decided"`
	VotingMembers  int  `json:"voting_members"`
	Quorum         *int `json:"quorum"`
	QuorumReached  bool `json:"quorum_reached"`
}

type reviewerView struct {
	UserID   string  `json:"user_id"`
	Username string  `json:"username"`
	Role     string  `json:"role"`
	Decision *string `json:"decision"`
}

type decisionView struct {
	ID        string    `json:"id"`
	UserID    string    `json:"user_id"`
	Username  string    `json:"username"`
	Decision  string    `json:"decision"`
	Comment   string    `json:"comment"`
	CreatedAt time.Time `json:"created_at"`
}

// newRequestView is r as answered to the user uid.
func newRequestView(r Request, uid string) requestView {
	t := r.Tally()
	v := requestView{ID: r.ID, BoardID: r.BoardID, BoardName: r.BoardName, ModelID: r.ModelID, Title: r.Title,
		Description: r.Description, RequestedDecision: r.RequestedDecision, Status: r.Status, Outcome: nullable(r.Outcome),
		Tally: tallyView{Approve: t.Approve, Deny: t.Deny, RequestChanges: t.RequestChanges, Decided: t.Decided(),
			VotingMembers: t.Voting, QuorumReached: t.QuorumReached()},
		Reviewers: make([]reviewerView, 0, len(r.Panel)), Decisions: make([]decisionView, 0, len(r.Decisions)),
		CreatedBy: nullable(r.CreatedBy), CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt, SubmittedAt: r.SubmittedAt,
		FinalizedAt: r.FinalizedAt, FinalizedBy: nullable(r.FinalizedBy)}
	if r.Quorum > 0 {
		v.Quorum, v.Tally.Quorum = &r.Quorum, &r.Quorum
	}
	by := map[string]string{}
	for _, d := range r.Decisions {
		by[d.UserID] = d.Decision
		v.Decisions = append(v.Decisions, decisionView{ID: d.ID, UserID: d.UserID, Username: d.Username, Decision: d.Decision,
			Comment: d.Comment, CreatedAt: d.CreatedAt})
	}
	for _, p := range r.Panel {
		v.Reviewers = append(v.Reviewers, reviewerView{UserID: p.UserID, Username: p.Username, Role: p.Role, Decision: nullable(by[p.UserID])})
	}
	if d, ok := by[uid]; ok && uid != "" {
		v.YourDecision = &d
	}
	return v
}

// requestPage is a list of requests in the pagination envelope.
type requestPage struct {
	web.Page
	Requests []requestView `json:"requests"`
}

func newRequestPage(rs []Request, total int64, page, size int, uid string) requestPage {
	out := requestPage{Page: web.NewPage(total, page, size), Requests: make([]requestView, 0, len(rs))}
	for _, r := range rs {
		out.Requests = append(out.Requests, newRequestView(r, uid))
	}
	return out
}
