package review

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/vigilhq/vigil/identity"
	"github.com/vigilhq/vigil/platform/web"
	"github.com/vigilhq/vigil/store"
)

// Limits of a board.
const (
	maxName    = 200
	maxText    = 10000
	maxMembers = 200
	maxQuorum  = maxMembers
)

// memberBody is one member in a request body.
type memberBody struct {
	UserID *string `json:"user_id"`
	Role   *string `json:"role"`
}

// boardBody is the body of POST and PUT /governance/review-boards.
type boardBody struct {
	Name          *string       `json:"name"`
	Description   *string       `json:"description"`
	DefaultQuorum *web.Int      `json:"default_quorum"`
	Members       *[]memberBody `json:"members"`
}

// checkBoard validates a board body; members must be users of the
// organization.
func (a *API) checkBoard(ctx context.Context, orgID string, b boardBody) error {
	var v web.Problems
	if b.Name == nil {
		v.Add("name", "is required")
	} else {
		v.Required("name", *b.Name)
		v.MaxLen("name", *b.Name, maxName)
	}
	if b.Description != nil {
		v.MaxLen("description", *b.Description, maxText)
	}
	if b.DefaultQuorum != nil && (*b.DefaultQuorum < 1 || *b.DefaultQuorum > maxQuorum) {
		v.Add("default_quorum", fmt.Sprintf("must be between 1 and %d", maxQuorum))
	}
	if b.Members != nil {
		if len(*b.Members) > maxMembers {
			v.Add("members", fmt.Sprintf("must list at most %d members", maxMembers))
		}
		seen := map[string]bool{}
		for i, m := range *b.Members {
			if err := a.checkMember(ctx, orgID, fmt.Sprintf("members[%d].", i), m, &v); err != nil {
				return err
			}
			if m.UserID != nil && seen[*m.UserID] {
				v.Add(fmt.Sprintf("members[%d].user_id", i), "repeats a member")
			}
			if m.UserID != nil {
				seen[*m.UserID] = true
			}
		}
	}
	return v.Err()
}

// checkMember validates one member, its fields named with prefix.
func (a *API) checkMember(ctx context.Context, orgID, prefix string, m memberBody, v *web.Problems) error {
	if m.Role == nil {
		v.Add(prefix+"role", "is required")
	} else if !slices.Contains(Roles, *m.Role) {
		v.Add(prefix+"role", "must be one of chair, voter, observer")
	}
	if m.UserID == nil {
		v.Add(prefix+"user_id", "is required")
		return nil
	}
	if _, err := a.Store.User(ctx, orgID, *m.UserID); errors.Is(err, store.ErrNotFound) {
		v.Add(prefix+"user_id", "no user of the organization has this id")
	} else if err != nil {
		return err
	}
	return nil
}

// members returns the body's members, added at now.
func members(ms []memberBody, now time.Time) []Member {
	out := make([]Member, 0, len(ms))
	for _, m := range ms {
		out = append(out, Member{UserID: *m.UserID, Role: *m.Role, AddedAt: now})
	}
	return out
}

// boardError turns the store's errors of a board write into answers.
func boardError(err error) error {
	switch {
	case errors.Is(err, store.ErrConflict):
		return web.Conflict("the organization has a review board of this name")
	case errors.Is(err, store.ErrNotFound):
		return web.NotFound("review board")
	}
	return err
}

func (a *API) createBoard(c *fiber.Ctx) error {
	var b boardBody
	if err := web.Decode(c, &b); err != nil {
		return err
	}
	org := identity.OrgID(c)
	if err := a.checkBoard(c.UserContext(), org, b); err != nil {
		return err
	}
	now := a.Clock.Now()
	uid, _ := actor(c)
	board := Board{ID: uuid.Must(uuid.NewV7()).String(), OrgID: org, Name: *b.Name, CreatedBy: uid, CreatedAt: now, UpdatedAt: now}
	b.apply(&board, now)
	if err := a.Store.CreateBoard(c.UserContext(), board); err != nil {
		return boardError(err)
	}
	board, err := a.Store.Board(c.UserContext(), org, board.ID)
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderLocation, "/api/v1/governance/review-boards/"+board.ID)
	return c.Status(http.StatusCreated).JSON(newBoardView(board))
}

// apply sets the board's fields from the body (PUT replaces them all;
// members only when sent). A member already on the board keeps the time
// they were added.
func (b boardBody) apply(board *Board, now time.Time) {
	board.Name, board.Description, board.DefaultQuorum = *b.Name, "", 0
	if b.Description != nil {
		board.Description = *b.Description
	}
	if b.DefaultQuorum != nil {
		board.DefaultQuorum = int(*b.DefaultQuorum)
	}
	if b.Members == nil {
		return
	}
	next := members(*b.Members, now)
	for i, m := range next {
		if j := slices.IndexFunc(board.Members, func(o Member) bool { return o.UserID == m.UserID }); j >= 0 {
			next[i].AddedAt = board.Members[j].AddedAt
		}
	}
	board.Members = next
}

func (a *API) boardID(c *fiber.Ctx) (string, error) { return web.PathParam(c, "board_id") }

// liveBoard returns the organization's board id unless it is deleted:
// store.ErrNotFound then, as for a missing one.
func (a *API) liveBoard(ctx context.Context, orgID, id string) (Board, error) {
	b, err := a.Store.Board(ctx, orgID, id)
	if err == nil && b.DeletedAt != nil {
		return Board{}, fmt.Errorf("review board %s is deleted: %w", id, store.ErrNotFound)
	}
	return b, err
}

func (a *API) getBoard(c *fiber.Ctx) error {
	id, err := a.boardID(c)
	if err != nil {
		return err
	}
	b, err := a.liveBoard(c.UserContext(), identity.OrgID(c), id)
	if err != nil {
		return boardError(err)
	}
	return c.JSON(newBoardView(b))
}

// listBoards answers GET /governance/review-boards by name, paged with
// page and page_size (default 50, at most 1000).
func (a *API) listBoards(c *fiber.Ctx) error {
	page, size, err := web.PageQuery(c, 50, 1000)
	if err != nil {
		return err
	}
	bs, total, err := a.Store.Boards(c.UserContext(), identity.OrgID(c), size, (page-1)*size)
	if err != nil {
		return err
	}
	out := boardPage{Page: web.NewPage(total, page, size), Boards: make([]boardView, 0, len(bs))}
	for _, b := range bs {
		out.Boards = append(out.Boards, newBoardView(b))
	}
	return c.JSON(out)
}

// updateBoard answers PUT: name, description and default_quorum are
// replaced, members too when sent.
func (a *API) updateBoard(c *fiber.Ctx) error {
	id, err := a.boardID(c)
	if err != nil {
		return err
	}
	var b boardBody
	if err := web.Decode(c, &b); err != nil {
		return err
	}
	org := identity.OrgID(c)
	// The board must exist before the body is judged, so that another
	// organization's id answers 404 whatever the body.
	if _, err := a.liveBoard(c.UserContext(), org, id); err != nil {
		return boardError(err)
	}
	if err := a.checkBoard(c.UserContext(), org, b); err != nil {
		return err
	}
	now := a.Clock.Now()
	board, err := a.Store.UpdateBoard(c.UserContext(), org, id, func(board *Board) error {
		b.apply(board, now)
		board.UpdatedAt = now
		return nil
	})
	if err != nil {
		return boardError(err)
	}
	return c.JSON(newBoardView(board))
}

// addMember answers POST /{board_id}/members: the user joins the board
// with the role, or takes the role if already a member.
func (a *API) addMember(c *fiber.Ctx) error {
	id, err := a.boardID(c)
	if err != nil {
		return err
	}
	var m memberBody
	if err := web.Decode(c, &m); err != nil {
		return err
	}
	org := identity.OrgID(c)
	if _, err := a.liveBoard(c.UserContext(), org, id); err != nil {
		return boardError(err)
	}
	var v web.Problems
	if err := a.checkMember(c.UserContext(), org, "", m, &v); err != nil {
		return err
	}
	if err := v.Err(); err != nil {
		return err
	}
	now := a.Clock.Now()
	board, err := a.Store.UpdateBoard(c.UserContext(), org, id, func(b *Board) error {
		if len(b.Members) >= maxMembers && !slices.ContainsFunc(b.Members, func(o Member) bool { return o.UserID == *m.UserID }) {
			return web.Invalid("user_id", fmt.Sprintf("the board has %d members already, the most it may have", maxMembers))
		}
		if j := slices.IndexFunc(b.Members, func(o Member) bool { return o.UserID == *m.UserID }); j >= 0 {
			if b.Members[j].Role == *m.Role {
				return nil
			}
			b.Members[j].Role = *m.Role
		} else {
			b.Members = append(b.Members, Member{UserID: *m.UserID, Role: *m.Role, AddedAt: now})
		}
		b.UpdatedAt = now
		return nil
	})
	if err != nil {
		var we *web.Error
		if errors.As(err, &we) {
			return err
		}
		return boardError(err)
	}
	return c.JSON(newBoardView(board))
}

// deleteBoard answers DELETE: 204, or 409 while a request of the board is
// a draft or under review. Its finalized requests stay in the archive.
func (a *API) deleteBoard(c *fiber.Ctx) error {
	id, err := a.boardID(c)
	if err != nil {
		return err
	}
	err = a.Store.DeleteBoard(c.UserContext(), identity.OrgID(c), id, a.Clock.Now())
	switch {
	case errors.Is(err, store.ErrConflict):
		return web.Conflict("the board has requests in draft or under review; finalize them first")
	case err != nil:
		return boardError(err)
	}
	return c.SendStatus(http.StatusNoContent)
}

// boardView is a board as answered.
type boardView struct {
	ID            string       `json:"id"`
	Name          string       `json:"name"`
	Description   string       `json:"description"`
	DefaultQuorum *int         `json:"default_quorum"`
	VotingMembers int          `json:"voting_members"`
	Members       []memberView `json:"members"`
	CreatedBy     *string      `json:"created_by"`
	CreatedAt     time.Time    `json:"created_at"`
	UpdatedAt     time.Time    `json:"updated_at"`
}

type memberView struct {
	UserID   string    `json:"user_id"`
	Username string    `json:"username"`
	Role     string    `json:"role"`
	AddedAt  time.Time `json:"added_at"`
}

func newBoardView(b Board) boardView {
	v := boardView{ID: b.ID, Name: b.Name, Description: b.Description, VotingMembers: b.VotingMembers(),
		Members: make([]memberView, 0, len(b.Members)), CreatedBy: nullable(b.CreatedBy), CreatedAt: b.CreatedAt, UpdatedAt: b.UpdatedAt}
	if b.DefaultQuorum > 0 {
		v.DefaultQuorum = &b.DefaultQuorum
	}
	for _, m := range b.Members {
		v.Members = append(v.Members, memberView{UserID: m.UserID, Username: m.Username, Role: m.Role, AddedAt: m.AddedAt})
	}
	return v
}

// boardPage is the list's pagination envelope.
type boardPage struct {
	web.Page
	Boards []boardView `json:"review_boards"`
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
