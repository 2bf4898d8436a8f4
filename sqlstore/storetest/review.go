package storetest

import (
	"errors"
	"fmt"
	"testing"

	"github.com/vigilhq/vigil/governance/review"
	"github.com/vigilhq/vigil/identity"
	"github.com/vigilhq/vigil/store"
)

var reviewTests = []test{
	{"Review/Boards", testReviewBoards},
	{"Review/BoardDelete", testReviewBoardDelete},
	{"Review/Requests", testReviewRequests},
	{"Review/OneDecision", testReviewOneDecision},
	{"Review/Search", testReviewSearch},
	{"Review/Owed", testReviewOwed},
}

// reviewOrg is an organization with a model and three more users.
type reviewOrg struct {
	org
	ModelID       string
	Ann, Bob, Cat identity.User
}

func newReviewOrg(t *testing.T, s Store) reviewOrg {
	t.Helper()
	o := reviewOrg{org: newOrg(t, s)}
	m := newModel(o.ID, "credit", "1", 1)
	must(t, s.CreateModel(ctx(t), m), "CreateModel")
	o.ModelID = m.ID
	o.Ann, o.Bob, o.Cat = newUser(o.ID, "ann-"+o.ID[:8], identity.RoleEditor, at(1)),
		newUser(o.ID, "bob-"+o.ID[:8], identity.RoleEditor, at(1)), newUser(o.ID, "cat-"+o.ID[:8], identity.RoleViewer, at(1))
	for _, u := range []identity.User{o.Ann, o.Bob, o.Cat} {
		must(t, s.CreateUser(ctx(t), u), "CreateUser")
	}
	return o
}

// newBoard is a board of o created n seconds after base: Ann chairs, Bob
// votes, Cat observes.
func newBoard(o reviewOrg, name string, n int) review.Board {
	return review.Board{ID: newID(), OrgID: o.ID, Name: name, Description: "about " + name, DefaultQuorum: 2,
		Members: []review.Member{{UserID: o.Ann.ID, Username: o.Ann.Username, Role: review.RoleChair, AddedAt: stored(at(n))},
			{UserID: o.Bob.ID, Username: o.Bob.Username, Role: review.RoleVoter, AddedAt: stored(at(n))},
			{UserID: o.Cat.ID, Username: o.Cat.Username, Role: review.RoleObserver, AddedAt: stored(at(n))}},
		CreatedBy: o.Admin.ID, CreatedAt: stored(at(n)), UpdatedAt: stored(at(n))}
}

// newRequest is a draft about o's model on board b, created n seconds
// after base.
func newRequest(o reviewOrg, b review.Board, title string, n int) review.Request {
	return review.Request{ID: newID(), OrgID: o.ID, BoardID: b.ID, BoardName: b.Name, ModelID: o.ModelID, Title: title,
		Description: "please review " + title, RequestedDecision: "deployment", Status: review.StatusDraft,
		CreatedBy: o.Admin.ID, CreatedAt: stored(at(n)), UpdatedAt: stored(at(n))}
}

// submit moves r to submitted with b's members as its panel, at n.
func submit(t *testing.T, s Store, r review.Request, n int) review.Request {
	t.Helper()
	got, err := s.UpdateReviewRequest(ctx(t), r.OrgID, r.ID, func(r *review.Request, b review.Board) error {
		for _, m := range b.Members {
			r.Panel = append(r.Panel, review.Reviewer{UserID: m.UserID, Username: m.Username, Role: m.Role})
		}
		r.Quorum, r.Status, r.SubmittedAt, r.UpdatedAt = 2, review.StatusSubmitted, ptr(stored(at(n))), stored(at(n))
		return nil
	})
	must(t, err, "UpdateReviewRequest (submit)")
	return got
}

// decide adds u's decision to r at n.
func decide(t *testing.T, s Store, r review.Request, u identity.User, decision string, n int) (review.Request, error) {
	return s.UpdateReviewRequest(ctx(t), r.OrgID, r.ID, func(r *review.Request, _ review.Board) error {
		r.Decisions = append(r.Decisions, review.Decision{ID: newID(), RequestID: r.ID, UserID: u.ID, Username: u.Username,
			Decision: decision, Comment: "because " + decision, CreatedAt: stored(at(n))})
		r.UpdatedAt = stored(at(n))
		return nil
	})
}

// finalize closes r with outcome at n, owing its event unless approved.
func finalize(t *testing.T, s Store, r review.Request, outcome string, n int) review.Request {
	t.Helper()
	got, err := s.UpdateReviewRequest(ctx(t), r.OrgID, r.ID, func(r *review.Request, _ review.Board) error {
		r.Status, r.Outcome, r.FinalizedAt, r.FinalizedBy, r.UpdatedAt = review.StatusFinalized, outcome, ptr(stored(at(n))), r.CreatedBy, stored(at(n))
		r.GovernancePending = outcome != review.OutcomeApproved
		return nil
	})
	must(t, err, "UpdateReviewRequest (finalize)")
	return got
}

func testReviewBoards(t *testing.T, s Store) {
	o, other := newReviewOrg(t, s), newReviewOrg(t, s)
	b := newBoard(o, "model risk committee", 2)
	must(t, s.CreateBoard(ctx(t), b), "CreateBoard")
	got, err := s.Board(ctx(t), o.ID, b.ID)
	must(t, err, "Board")
	equal(t, "board", got, b)
	_, err = s.Board(ctx(t), other.ID, b.ID)
	wantErr(t, err, store.ErrNotFound, "Board of another organization")

	dup := newBoard(o, b.Name, 3)
	wantErr(t, s.CreateBoard(ctx(t), dup), store.ErrConflict, "CreateBoard with a taken name")
	must(t, s.CreateBoard(ctx(t), newBoard(other, b.Name, 3)), "CreateBoard of the name in another organization")
	foreign := newBoard(o, "foreign members", 3)
	foreign.Members[1].UserID = other.Bob.ID
	wantErr(t, s.CreateBoard(ctx(t), foreign), store.ErrNotFound, "CreateBoard naming another organization's user")
	_, err = s.Board(ctx(t), o.ID, foreign.ID)
	wantErr(t, err, store.ErrNotFound, "Board refused whole")

	// Update: the change is stored whole, an error of change stores nothing.
	upd, err := s.UpdateBoard(ctx(t), o.ID, b.ID, func(b *review.Board) error {
		b.Name, b.DefaultQuorum, b.UpdatedAt = "renamed", 0, stored(at(4))
		b.Members = b.Members[1:]
		b.Members[1].Role = review.RoleVoter
		return nil
	})
	must(t, err, "UpdateBoard")
	want := b
	want.Name, want.DefaultQuorum, want.UpdatedAt = "renamed", 0, stored(at(4))
	want.Members = []review.Member{b.Members[1], b.Members[2]}
	want.Members[1].Role = review.RoleVoter
	if want.Members[0].Username > want.Members[1].Username {
		want.Members[0], want.Members[1] = want.Members[1], want.Members[0]
	}
	equal(t, "updated board", upd, want)
	boom := errors.New("boom")
	_, err = s.UpdateBoard(ctx(t), o.ID, b.ID, func(b *review.Board) error { b.Name = "lost"; return boom })
	wantErr(t, err, boom, "UpdateBoard whose change fails")
	_, err = s.UpdateBoard(ctx(t), other.ID, b.ID, func(*review.Board) error { t.Error("change called for another organization"); return nil })
	wantErr(t, err, store.ErrNotFound, "UpdateBoard of another organization")
	got, err = s.Board(ctx(t), o.ID, b.ID)
	must(t, err, "Board")
	equal(t, "board after the refused updates", got, want)

	// The list: by name, paged.
	must(t, s.CreateBoard(ctx(t), newBoard(o, "alpha", 5)), "CreateBoard")
	must(t, s.CreateBoard(ctx(t), newBoard(o, "zulu", 6)), "CreateBoard")
	page, total, err := s.Boards(ctx(t), o.ID, 2, 1)
	must(t, err, "Boards")
	if total != 3 || len(page) != 2 || page[0].Name != "renamed" || page[1].Name != "zulu" || len(page[0].Members) != 2 {
		t.Errorf("Boards from the second, two at most: got total %d, %d boards %v, want renamed and zulu of 3", total, len(page), page)
	}
}

func testReviewBoardDelete(t *testing.T, s Store) {
	o := newReviewOrg(t, s)
	b := newBoard(o, "committee", 2)
	must(t, s.CreateBoard(ctx(t), b), "CreateBoard")
	r := newRequest(o, b, "launch", 3)
	must(t, s.CreateReviewRequest(ctx(t), r), "CreateReviewRequest")
	wantErr(t, s.DeleteBoard(ctx(t), o.ID, b.ID, at(4)), store.ErrConflict, "DeleteBoard with a draft")
	submit(t, s, r, 5)
	wantErr(t, s.DeleteBoard(ctx(t), o.ID, b.ID, at(6)), store.ErrConflict, "DeleteBoard with a submitted request")
	finalize(t, s, r, review.OutcomeApproved, 7)
	must(t, s.DeleteBoard(ctx(t), o.ID, b.ID, at(8)), "DeleteBoard")
	wantErr(t, s.DeleteBoard(ctx(t), o.ID, b.ID, at(9)), store.ErrNotFound, "DeleteBoard twice")
	got, err := s.Board(ctx(t), o.ID, b.ID)
	must(t, err, "Board of a deleted board")
	if got.DeletedAt == nil || !got.DeletedAt.Equal(stored(at(8))) {
		t.Errorf("deleted board: got deleted_at %v, want %v", got.DeletedAt, stored(at(8)))
	}
	_, err = s.UpdateBoard(ctx(t), o.ID, b.ID, func(*review.Board) error { return nil })
	wantErr(t, err, store.ErrNotFound, "UpdateBoard of a deleted board")
	wantErr(t, s.CreateReviewRequest(ctx(t), newRequest(o, b, "late", 9)), store.ErrNotFound, "CreateReviewRequest on a deleted board")
	if _, total, err := s.Boards(ctx(t), o.ID, 0, 0); err != nil || total != 0 {
		t.Errorf("Boards after the delete: got %d (%v), want 0", total, err)
	}
	must(t, s.CreateBoard(ctx(t), newBoard(o, "committee", 10)), "CreateBoard with a deleted board's name")
	kept, err := s.ReviewRequest(ctx(t), o.ID, r.ID)
	must(t, err, "ReviewRequest of a deleted board")
	if kept.BoardName != "committee" || kept.Outcome != review.OutcomeApproved {
		t.Errorf("archived request: got %+v, want it kept naming its board", kept)
	}
}

func testReviewRequests(t *testing.T, s Store) {
	o, other := newReviewOrg(t, s), newReviewOrg(t, s)
	b := newBoard(o, "committee", 2)
	must(t, s.CreateBoard(ctx(t), b), "CreateBoard")
	r := newRequest(o, b, "launch v2", 3)
	r.Quorum = 2
	must(t, s.CreateReviewRequest(ctx(t), r), "CreateReviewRequest")
	got, err := s.ReviewRequest(ctx(t), o.ID, r.ID)
	must(t, err, "ReviewRequest")
	equal(t, "draft", got, r)
	_, err = s.ReviewRequest(ctx(t), other.ID, r.ID)
	wantErr(t, err, store.ErrNotFound, "ReviewRequest of another organization")
	_, err = s.UpdateReviewRequest(ctx(t), other.ID, r.ID, func(*review.Request, review.Board) error {
		t.Error("change called for another organization")
		return nil
	})
	wantErr(t, err, store.ErrNotFound, "UpdateReviewRequest of another organization")

	foreignModel := newRequest(o, b, "x", 4)
	foreignModel.ModelID = other.ModelID
	wantErr(t, s.CreateReviewRequest(ctx(t), foreignModel), store.ErrNotFound, "CreateReviewRequest about another organization's model")
	foreignBoard := newRequest(other, b, "y", 4)
	wantErr(t, s.CreateReviewRequest(ctx(t), foreignBoard), store.ErrNotFound, "CreateReviewRequest on another organization's board")

	sub := submit(t, s, r, 5)
	if sub.Status != review.StatusSubmitted || len(sub.Panel) != 3 || sub.Panel[0].Role != review.RoleChair || sub.SubmittedAt == nil {
		t.Fatalf("submitted: got %+v, want the board's three members as its panel", sub)
	}
	// The panel is fixed: a later change of the board does not reach it.
	_, err = s.UpdateBoard(ctx(t), o.ID, b.ID, func(b *review.Board) error { b.Members = b.Members[:1]; return nil })
	must(t, err, "UpdateBoard")
	d1, err := decide(t, s, sub, o.Ann, review.DecisionDeny, 6)
	must(t, err, "decide")
	d2, err := decide(t, s, d1, o.Bob, review.DecisionApprove, 7)
	must(t, err, "decide")
	if len(d2.Panel) != 3 || len(d2.Decisions) != 2 || d2.Decisions[0].UserID != o.Ann.ID || d2.Decisions[1].Comment != "because approve" ||
		!d2.Decisions[1].CreatedAt.Equal(stored(at(7))) {
		t.Fatalf("decided: got %+v, want the panel kept and both decisions in order", d2)
	}
	boom := errors.New("boom")
	_, err = s.UpdateReviewRequest(ctx(t), o.ID, r.ID, func(r *review.Request, _ review.Board) error {
		r.Status = review.StatusFinalized
		return boom
	})
	wantErr(t, err, boom, "UpdateReviewRequest whose change fails")
	fin := finalize(t, s, d2, review.OutcomeDenied, 8)
	again, err := s.ReviewRequest(ctx(t), o.ID, r.ID)
	must(t, err, "ReviewRequest")
	equal(t, "finalized", again, fin)
	if fin.Status != review.StatusFinalized || fin.Outcome != review.OutcomeDenied || !fin.GovernancePending || fin.FinalizedBy != o.Admin.ID {
		t.Errorf("finalized: got %+v, want denied and owing its event", fin)
	}
}

func testReviewOneDecision(t *testing.T, s Store) {
	o := newReviewOrg(t, s)
	b := newBoard(o, "committee", 2)
	must(t, s.CreateBoard(ctx(t), b), "CreateBoard")
	r := newRequest(o, b, "launch", 3)
	must(t, s.CreateReviewRequest(ctx(t), r), "CreateReviewRequest")
	sub := submit(t, s, r, 4)
	// Ten racing decisions of one member: one is stored, the others are
	// conflicts.
	errs := parallel(10, func(i int) error {
		_, err := decide(t, s, sub, o.Bob, review.DecisionValues[i%3], 5+i)
		return err
	})
	ok := 0
	for _, err := range errs {
		switch {
		case err == nil:
			ok++
		case !errors.Is(err, store.ErrConflict):
			t.Errorf("racing decision: got %v, want nil or ErrConflict", err)
		}
	}
	got, err := s.ReviewRequest(ctx(t), o.ID, r.ID)
	must(t, err, "ReviewRequest")
	if ok != 1 || len(got.Decisions) != 1 {
		t.Errorf("racing decisions of one member: got %d stored (%d accepted), want 1", len(got.Decisions), ok)
	}
}

func testReviewSearch(t *testing.T, s Store) {
	o, other := newReviewOrg(t, s), newReviewOrg(t, s)
	b1, b2 := newBoard(o, "one", 1), newBoard(o, "two", 1)
	must(t, s.CreateBoard(ctx(t), b1), "CreateBoard")
	must(t, s.CreateBoard(ctx(t), b2), "CreateBoard")
	m2 := newModel(o.ID, "fraud", "1", 1)
	must(t, s.CreateModel(ctx(t), m2), "CreateModel")
	draft := newRequest(o, b1, "Draft of 100% LAUNCH", 10)
	waiting := newRequest(o, b1, "waiting", 20)
	waiting.Description = "Ünïcode Réview"
	denied := newRequest(o, b2, "denied one", 30)
	denied.ModelID = m2.ID
	for _, r := range []review.Request{draft, waiting, denied} {
		must(t, s.CreateReviewRequest(ctx(t), r), "CreateReviewRequest")
	}
	ob := newBoard(other, "one", 1)
	must(t, s.CreateBoard(ctx(t), ob), "CreateBoard")
	must(t, s.CreateReviewRequest(ctx(t), newRequest(other, ob, "other's launch", 15)), "CreateReviewRequest")
	submit(t, s, waiting, 21)
	d := submit(t, s, denied, 31)
	d, err := decide(t, s, d, o.Ann, review.DecisionDeny, 32)
	must(t, err, "decide")
	finalize(t, s, d, review.OutcomeDenied, 33)

	f := func(what string, fl review.Filter, want ...review.Request) {
		t.Helper()
		got, total, err := s.ReviewRequests(ctx(t), o.ID, fl)
		must(t, err, what)
		var ids, wantIDs []string
		for _, r := range got {
			ids = append(ids, r.Title)
		}
		for _, r := range want {
			wantIDs = append(wantIDs, r.Title)
		}
		if fmt.Sprint(ids) != fmt.Sprint(wantIDs) || (fl.Limit == 0 && total != int64(len(want))) {
			t.Errorf("%s: got %v (total %d), want %v", what, ids, total, wantIDs)
		}
	}
	f("all, newest first", review.Filter{}, denied, waiting, draft)
	f("status", review.Filter{Status: review.StatusSubmitted}, waiting)
	f("outcome", review.Filter{Outcome: review.OutcomeDenied}, denied)
	f("model", review.Filter{ModelID: m2.ID}, denied)
	f("board", review.Filter{BoardID: b1.ID}, waiting, draft)
	f("text, any case", review.Filter{Text: "launch"}, draft)
	f("text, literal percent", review.Filter{Text: "100%"}, draft)
	f("text, wildcard is no wildcard", review.Filter{Text: "d_aft"})
	f("text in the description, folded beyond ASCII", review.Filter{Text: "ünïcode réview"}, waiting)
	f("from inclusive", review.Filter{From: at(20)}, denied, waiting)
	f("to exclusive", review.Filter{To: at(20)}, draft)
	f("awaiting the chair", review.Filter{Awaiting: o.Ann.ID}, waiting)
	f("awaiting no observer", review.Filter{Awaiting: o.Cat.ID})
	f("paged", review.Filter{Limit: 1, Offset: 1}, waiting)
	got, total, err := s.ReviewRequests(ctx(t), o.ID, review.Filter{Limit: 1, Offset: 1})
	must(t, err, "ReviewRequests")
	if total != 3 || len(got[0].Panel) != 3 {
		t.Errorf("paged: got total %d and panel %v, want 3 and the panel filled", total, got[0].Panel)
	}
}

func testReviewOwed(t *testing.T, s Store) {
	o, other := newReviewOrg(t, s), newReviewOrg(t, s)
	var owed []review.Request
	for i, x := range []reviewOrg{o, other, o} {
		b := newBoard(x, fmt.Sprint("board ", i), 1)
		must(t, s.CreateBoard(ctx(t), b), "CreateBoard")
		r := newRequest(x, b, fmt.Sprint("r", i), 2)
		must(t, s.CreateReviewRequest(ctx(t), r), "CreateReviewRequest")
		r = submit(t, s, r, 3)
		outcome := []string{review.OutcomeDenied, review.OutcomeChangesRequested, review.OutcomeApproved}[i]
		r = finalize(t, s, r, outcome, 10-i)
		if outcome != review.OutcomeApproved {
			owed = append(owed, r)
		}
	}
	got, err := s.ReviewGovernancePending(ctx(t), 10)
	must(t, err, "ReviewGovernancePending")
	if len(got) != 2 || got[0].ID != owed[1].ID || got[1].ID != owed[0].ID {
		t.Fatalf("owed: got %v, want the two requests not approved, oldest finalization first", got)
	}
	if one, _ := s.ReviewGovernancePending(ctx(t), 1); len(one) != 1 {
		t.Errorf("owed with limit 1: got %d, want 1", len(one))
	}
	must(t, s.ReviewGovernanceSent(ctx(t), other.ID, owed[0].ID), "ReviewGovernanceSent by another organization")
	must(t, s.ReviewGovernanceSent(ctx(t), o.ID, owed[0].ID), "ReviewGovernanceSent")
	got, err = s.ReviewGovernancePending(ctx(t), 10)
	must(t, err, "ReviewGovernancePending")
	if len(got) != 1 || got[0].ID != owed[1].ID {
		t.Errorf("owed after one was sent: got %v, want %s alone", got, owed[1].ID)
	}
}
