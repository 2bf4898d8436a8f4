package app

import (
	"context"
	"encoding/csv"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/vigilhq/vigil/eventlog"
	"github.com/vigilhq/vigil/governance"
	"github.com/vigilhq/vigil/governance/review"
)

// reviewBase is the review boards' path.
const reviewBase = "/governance/review-boards"

// userID returns the id of the user token acts as.
func (s *server) userID(t *testing.T, token string) string {
	t.Helper()
	return s.do("GET", "/auth/me", token, nil).want(t, 200).str("user.id")
}

// reviewRequest is a valid request body with the given changes applied.
func reviewRequest(board, model string, changes map[string]any) map[string]any {
	b := map[string]any{"board_id": board, "model_id": model, "title": "Launch credit v2", "requested_decision": "deployment",
		"description": "Promote v2 to production"}
	for k, v := range changes {
		b[k] = v
	}
	return b
}

// TestReviewBoards: boards and members, requests and their moves, one
// decision per voting member, the quorum rule, my-reviews, and the 4xx
// that change nothing, on every backend.
func TestReviewBoards(t *testing.T) {
	eachBackend(t, nil, func(t *testing.T, s *server) {
		admin := s.admin()
		ann, bob := s.user(admin, "ann", "editor"), s.user(admin, "bob", "editor")
		cat, dave, eve := s.user(admin, "cat", "viewer"), s.user(admin, "dave", "editor"), s.user(admin, "eve", "editor")
		annID, bobID, catID, daveID := s.userID(t, ann), s.userID(t, bob), s.userID(t, cat), s.userID(t, dave)
		model := s.model(admin, "credit", "2")
		other := s.signUp("mallory")
		foreignUser, foreignModel := s.userID(t, other), s.model(other, "theirs", "1")
		foreignBoard := s.do("POST", reviewBase, other, map[string]any{"name": "theirs"}).want(t, 201).str("id")

		members := []map[string]any{{"user_id": annID, "role": "chair"}, {"user_id": bobID, "role": "voter"}, {"user_id": catID, "role": "observer"}}
		for field, body := range map[string]map[string]any{
			"name":               {"members": members},
			"members[0].role":    {"name": "b", "members": []map[string]any{{"user_id": annID, "role": "king"}}},
			"members[0].user_id": {"name": "b", "members": []map[string]any{{"user_id": foreignUser, "role": "voter"}}},
			"members[1].user_id": {"name": "b", "members": []map[string]any{{"user_id": annID, "role": "voter"}, {"user_id": annID, "role": "chair"}}},
			"default_quorum":     {"name": "b", "default_quorum": 0},
			"org_id":             {"name": "b", "org_id": "x"},
		} {
			s.do("POST", reviewBase, admin, body).wantField(t, field)
		}
		s.do("POST", reviewBase, admin, map[string]any{"name": strings.Repeat("n", 201)}).wantField(t, "name")
		s.do("POST", reviewBase, ann, map[string]any{"name": "b"}).wantError(t, 403, "INSUFFICIENT_PERMISSIONS")
		board := s.do("POST", reviewBase, admin, map[string]any{"name": "Model risk committee", "members": members}).want(t, 201)
		boardID := board.str("id")
		if board.at("voting_members") != 2.0 || len(board.at("members").([]any)) != 3 || board.at("default_quorum") != nil ||
			board.at("members").([]any)[0].(map[string]any)["username"] != "ann" {
			t.Fatalf("got board %s, want ann chairing, bob voting, cat observing", board.raw)
		}
		s.do("POST", reviewBase, admin, map[string]any{"name": "Model risk committee"}).wantError(t, 409, "RESOURCE_CONFLICT")
		if l := s.do("GET", reviewBase, cat, nil).want(t, 200); l.at("total") != 1.0 || l.at("review_boards").([]any)[0].(map[string]any)["id"] != boardID {
			t.Fatalf("got boards %s, want the one board: no refused create stored anything", l.raw)
		}
		// PUT keeps the members it does not send; POST members adds or
		// changes one.
		s.do("PUT", reviewBase+"/"+boardID, admin, map[string]any{"name": "MRC", "members": []map[string]any{{"user_id": foreignUser, "role": "voter"}}}).
			wantField(t, "members[0].user_id")
		s.do("PUT", reviewBase+"/"+boardID, admin, map[string]any{"name": ""}).wantField(t, "name")
		s.do("POST", reviewBase+"/"+boardID+"/members", admin, map[string]any{"user_id": annID, "role": "king"}).wantField(t, "role")
		if got := s.do("GET", reviewBase+"/"+boardID, cat, nil).want(t, 200); string(got.raw) != string(board.raw) {
			t.Fatalf("got %s after refused changes, want the board unchanged %s", got.raw, board.raw)
		}
		if r := s.do("PUT", reviewBase+"/"+boardID, admin, map[string]any{"name": "MRC", "description": "the committee"}).want(t, 200); r.str("name") != "MRC" || len(r.at("members").([]any)) != 3 {
			t.Fatalf("got %s, want renamed with its members kept", r.raw)
		}
		s.do("POST", reviewBase+"/"+boardID+"/members", admin, map[string]any{"user_id": daveID, "role": "voter"}).want(t, 200)
		if r := s.do("POST", reviewBase+"/"+boardID+"/members", admin, map[string]any{"user_id": daveID, "role": "observer"}).want(t, 200); r.at("voting_members") != 2.0 || len(r.at("members").([]any)) != 4 {
			t.Fatalf("got %s, want dave moved to observer", r.raw)
		}
		s.do("POST", reviewBase+"/"+boardID+"/members", admin, map[string]any{"user_id": foreignUser, "role": "voter"}).wantField(t, "user_id")
		s.do("POST", reviewBase+"/"+boardID+"/members", admin, map[string]any{"user_id": daveID}).wantField(t, "role")

		// Requests: 422s that store nothing, then a draft.
		for field, body := range map[string]map[string]any{
			"board_id":           reviewRequest(foreignBoard, model, nil),
			"model_id":           reviewRequest(boardID, foreignModel, nil),
			"title":              reviewRequest(boardID, model, map[string]any{"title": " "}),
			"requested_decision": reviewRequest(boardID, model, map[string]any{"requested_decision": "coronation"}),
			"quorum":             reviewRequest(boardID, model, map[string]any{"quorum": 3}),
			"status":             reviewRequest(boardID, model, map[string]any{"status": "finalized"}),
		} {
			s.do("POST", reviewBase+"/requests", ann, body).wantField(t, field)
		}
		s.do("POST", reviewBase+"/requests", ann, reviewRequest(boardID, model, map[string]any{"title": strings.Repeat("t", 501)})).wantField(t, "title")
		s.do("POST", reviewBase+"/requests", cat, reviewRequest(boardID, model, nil)).wantError(t, 403, "INSUFFICIENT_PERMISSIONS")
		if n := s.do("POST", reviewBase+"/archive/search", admin, map[string]any{}).want(t, 200).at("total"); n != 0.0 {
			t.Fatalf("got %v requests, want none stored by the refused creates", n)
		}
		req := s.do("POST", reviewBase+"/requests", eve, reviewRequest(boardID, model, nil)).want(t, 201)
		id := req.str("id")
		path := reviewBase + "/requests/" + id
		if req.str("status") != "draft" || req.at("quorum") != nil || req.at("outcome") != nil || len(req.at("reviewers").([]any)) != 0 {
			t.Fatalf("got %s, want a draft with no quorum, outcome or panel yet", req.raw)
		}

		// Moves from the wrong status answer 409 naming it.
		s.do("POST", path+"/decisions", ann, map[string]any{"decision": "approve"}).wantError(t, 409, "RESOURCE_CONFLICT")
		if r := s.do("POST", path+"/finalize", ann, nil).wantError(t, 409, "RESOURCE_CONFLICT"); r.at("error.details.status") != "draft" {
			t.Fatalf("got %s, want details naming status draft", r.raw)
		}
		sub := s.do("POST", path+"/submit", eve, nil).want(t, 200)
		if sub.str("status") != "submitted" || sub.at("quorum") != 2.0 || len(sub.at("reviewers").([]any)) != 4 || sub.at("tally.voting_members") != 2.0 {
			t.Fatalf("got %s, want submitted with the board's four members as panel and a majority quorum of 2", sub.raw)
		}
		r := s.do("POST", path+"/submit", eve, nil).wantError(t, 409, "RESOURCE_CONFLICT")
		if fmt.Sprint(r.at("error.details.allowed_from")) != "[draft]" || r.at("error.details.status") != "submitted" {
			t.Fatalf("got %s, want status submitted and allowed_from [draft]", r.raw)
		}
		// The panel is fixed: a member added now does not decide.
		s.do("POST", reviewBase+"/"+boardID+"/members", admin, map[string]any{"user_id": s.userID(t, eve), "role": "voter"}).want(t, 200)

		mine := func(token string, want float64) {
			t.Helper()
			if n := s.do("GET", reviewBase+"/my-reviews", token, nil).want(t, 200).at("total"); n != want {
				t.Errorf("my-reviews: got %v, want %v", n, want)
			}
		}
		mine(ann, 1)
		mine(bob, 1)
		mine(dave, 0)
		mine(eve, 0)

		// Who decides, and how.
		s.do("POST", path+"/decisions", cat, map[string]any{"decision": "approve"}).wantError(t, 403, "INSUFFICIENT_PERMISSIONS")
		if r := s.do("POST", path+"/decisions", dave, map[string]any{"decision": "approve"}).wantError(t, 403, "INSUFFICIENT_PERMISSIONS"); r.at("error.details.board_role") != "observer" {
			t.Fatalf("got %s, want board_role observer", r.raw)
		}
		if r := s.do("POST", path+"/decisions", eve, map[string]any{"decision": "approve"}).wantError(t, 403, "INSUFFICIENT_PERMISSIONS"); r.at("error.details.board_role") != "none" {
			t.Fatalf("got %s, want board_role none", r.raw)
		}
		s.do("POST", path+"/decisions", ann, map[string]any{"decision": "deny"}).wantField(t, "comment")
		s.do("POST", path+"/decisions", ann, map[string]any{"decision": "request_changes", "comment": "  "}).wantField(t, "comment")
		s.do("POST", path+"/decisions", ann, map[string]any{"decision": "veto", "comment": "x"}).wantField(t, "decision")
		s.do("POST", path+"/decisions", ann, map[string]any{"comment": "x"}).wantField(t, "decision")
		if r := s.do("POST", path+"/finalize", ann, nil).wantError(t, 409, "RESOURCE_CONFLICT"); r.at("error.details.decided") != 0.0 {
			t.Fatalf("got %s, want the quorum refused with no decision given", r.raw)
		}
		d := s.do("POST", path+"/decisions", ann, map[string]any{"decision": "approve", "comment": "ship it"}).want(t, 201)
		if d.str("your_decision") != "approve" || d.at("tally.approve") != 1.0 || d.at("tally.quorum_reached") != false {
			t.Fatalf("got %s, want ann's approval counted, quorum not reached", d.raw)
		}
		s.do("POST", path+"/decisions", ann, map[string]any{"decision": "deny", "comment": "second thoughts"}).wantError(t, 409, "RESOURCE_CONFLICT")
		s.do("POST", path+"/finalize", ann, nil).wantError(t, 409, "RESOURCE_CONFLICT") // 1 of 2
		mine(ann, 0)
		s.do("POST", path+"/decisions", bob, map[string]any{"decision": "deny", "comment": "fails the fairness bar"}).want(t, 201)
		st := s.do("GET", path+"/status", cat, nil).want(t, 200)
		if st.at("tally.decided") != 2.0 || st.at("tally.quorum_reached") != true || len(st.at("decisions").([]any)) != 2 ||
			st.at("decisions").([]any)[0].(map[string]any)["comment"] != "ship it" || st.at("your_decision") != nil {
			t.Fatalf("got status %s, want both decisions, ann's kept as first given, quorum reached", st.raw)
		}
		// A voter does not finalize; a chair does: one approval against one
		// denial is no majority, and deny wins the tie.
		if r := s.do("POST", path+"/finalize", bob, nil).wantError(t, 403, "INSUFFICIENT_PERMISSIONS"); r.at("error.details.board_role") == nil {
			t.Fatalf("got %s, want board_role named", r.raw)
		}
		fin := s.do("POST", path+"/finalize", ann, map[string]any{}).want(t, 200)
		if fin.str("status") != "finalized" || fin.str("outcome") != "denied" || fin.str("finalized_by") != annID || fin.at("finalized_at") == nil {
			t.Fatalf("got %s, want finalized denied by ann", fin.raw)
		}
		s.do("POST", path+"/finalize", ann, nil).wantError(t, 409, "RESOURCE_CONFLICT")
		s.do("POST", path+"/decisions", dave, map[string]any{"decision": "approve"}).wantError(t, 409, "RESOURCE_CONFLICT")
		s.do("POST", path+"/submit", ann, map[string]any{"x": 1}).wantField(t, "x")

		// An administrator finalizes without chairing; approvals that are
		// a strict majority approve.
		r2 := s.do("POST", reviewBase+"/requests", eve, reviewRequest(boardID, model, map[string]any{"title": "Retire v1", "quorum": 1, "requested_decision": "retirement"})).want(t, 201).str("id")
		s.do("POST", reviewBase+"/requests/"+r2+"/submit", eve, nil).want(t, 200)
		s.do("POST", reviewBase+"/requests/"+r2+"/decisions", bob, map[string]any{"decision": "approve"}).want(t, 201)
		if f := s.do("POST", reviewBase+"/requests/"+r2+"/finalize", admin, nil).want(t, 200); f.str("outcome") != "approved" {
			t.Fatalf("got %s, want approved by 1 of 1", f.raw)
		}

		// A board with a draft is not deleted; without one it is, and its
		// requests stay in the archive.
		draft := s.do("POST", reviewBase+"/requests", eve, reviewRequest(boardID, model, map[string]any{"title": "later"})).want(t, 201).str("id")
		s.do("DELETE", reviewBase+"/"+boardID, ann, nil).wantError(t, 403, "INSUFFICIENT_PERMISSIONS")
		s.do("DELETE", reviewBase+"/"+boardID, admin, nil).wantError(t, 409, "RESOURCE_CONFLICT")
		s.do("POST", reviewBase+"/requests/"+draft+"/submit", eve, nil).want(t, 200)
		s.do("POST", reviewBase+"/requests/"+draft+"/decisions", ann, map[string]any{"decision": "request_changes", "comment": "add a fallback"}).want(t, 201)
		s.do("POST", reviewBase+"/requests/"+draft+"/decisions", bob, map[string]any{"decision": "request_changes", "comment": "and a runbook"}).want(t, 201)
		if f := s.do("POST", reviewBase+"/requests/"+draft+"/finalize", ann, nil).want(t, 200); f.str("outcome") != "changes_requested" {
			t.Fatalf("got %s, want changes_requested", f.raw)
		}
		s.do("DELETE", reviewBase+"/"+boardID, admin, nil).want(t, 204)
		s.do("GET", reviewBase+"/"+boardID, admin, nil).wantError(t, 404, "NOT_FOUND")
		s.do("DELETE", reviewBase+"/"+boardID, admin, nil).wantError(t, 404, "NOT_FOUND")
		s.do("POST", reviewBase+"/requests", eve, reviewRequest(boardID, model, nil)).wantField(t, "board_id")
		if n := s.do("POST", reviewBase+"/archive/search", cat, map[string]any{"board_id": boardID}).want(t, 200).at("total"); n != 3.0 {
			t.Fatalf("got %v archived requests of the deleted board, want 3", n)
		}
	})
}

// TestReviewArchive: the archive's filters, the envelope, the 404s of
// foreign ids and the 422s, and both exports.
func TestReviewArchive(t *testing.T) {
	eachBackend(t, nil, func(t *testing.T, s *server) {
		admin := s.admin()
		me := s.userID(t, admin)
		m1, m2 := s.model(admin, "credit", "1"), s.model(admin, "fraud", "1")
		board := s.do("POST", reviewBase, admin, map[string]any{"name": "MRC", "members": []map[string]any{{"user_id": me, "role": "chair"}}}).want(t, 201).str("id")
		tricky := "=cmd|' /C calc'!A0, \"quoted\"\nsecond line"
		var ids []string
		for i, b := range []map[string]any{
			reviewRequest(board, m1, map[string]any{"title": "Launch CREDIT v2"}),
			reviewRequest(board, m2, map[string]any{"title": tricky, "description": "fraud rules, 100% new"}),
			reviewRequest(board, m1, map[string]any{"title": "Retire credit v1"}),
		} {
			id := s.do("POST", reviewBase+"/requests", admin, b).want(t, 201).str("id")
			ids = append(ids, id)
			if i == 2 {
				continue
			}
			s.do("POST", reviewBase+"/requests/"+id+"/submit", admin, nil).want(t, 200)
			if i == 1 {
				s.do("POST", reviewBase+"/requests/"+id+"/decisions", admin, map[string]any{"decision": "deny", "comment": "no, \"never\""}).want(t, 201)
				s.do("POST", reviewBase+"/requests/"+id+"/finalize", admin, nil).want(t, 200)
			}
		}
		search := func(body map[string]any, want ...string) {
			t.Helper()
			r := s.do("POST", reviewBase+"/archive/search", admin, body).want(t, 200)
			var got []string
			for _, it := range r.at("requests").([]any) {
				got = append(got, it.(map[string]any)["id"].(string))
			}
			if fmt.Sprint(got) != fmt.Sprint(want) || r.at("total") != float64(len(want)) {
				t.Errorf("search %v: got %v (%s), want %v", body, got, r.raw, want)
			}
		}
		search(map[string]any{}, ids[2], ids[1], ids[0])
		search(map[string]any{"status": "submitted"}, ids[0])
		search(map[string]any{"outcome": "denied"}, ids[1])
		search(map[string]any{"model_id": m1}, ids[2], ids[0])
		search(map[string]any{"board_id": board, "model_id": m2}, ids[1])
		search(map[string]any{"text": "credit"}, ids[2], ids[0])
		search(map[string]any{"text": "100%"}, ids[1])
		search(map[string]any{"text": "CREDIT V2", "status": "submitted"}, ids[0])
		search(map[string]any{"start_date": "2000-01-01T00:00:00Z", "end_date": "2000-01-02T00:00:00Z"})
		search(map[string]any{"start_date": "2000-01-01T00:00:00Z"}, ids[2], ids[1], ids[0])
		page := s.do("POST", reviewBase+"/archive/search", admin, map[string]any{"page": 2, "page_size": 2}).want(t, 200)
		if page.at("total") != 3.0 || page.at("total_pages") != 2.0 || page.at("has_prev") != true || page.at("has_next") != false ||
			page.at("prev_page") != 1.0 || page.at("next_page") != nil || len(page.at("requests").([]any)) != 1 {
			t.Fatalf("got %s, want page 2 of 2 with one request", page.raw)
		}
		for field, body := range map[string]map[string]any{
			"status":    {"status": "open"},
			"outcome":   {"outcome": "maybe"},
			"end_date":  {"start_date": "2026-01-02T00:00:00Z", "end_date": "2026-01-01T00:00:00Z"},
			"page_size": {"page_size": 1001},
			"page":      {"page": 0},
			"text":      {"text": strings.Repeat("x", 501)},
			"model_id":  {"model_id": ""},
			"sort":      {"sort": "title"},
		} {
			s.do("POST", reviewBase+"/archive/search", admin, body).wantField(t, field)
		}
		s.do("POST", reviewBase+"/archive/export", admin, map[string]any{"format": "xml"}).wantField(t, "format")

		// Exports: CSV read back cell for cell, JSON as the status answers.
		csvAns := s.do("POST", reviewBase+"/archive/export", admin, map[string]any{"model_id": m2})
		csvAns.want(t, 200)
		if ct, cd := csvAns.header.Get("Content-Type"), csvAns.header.Get("Content-Disposition"); ct != "text/csv; charset=utf-8" ||
			!strings.HasPrefix(cd, `attachment; filename="review-archive-`) || !strings.HasSuffix(cd, `.csv"`) {
			t.Fatalf("got Content-Type %q and Content-Disposition %q, want a CSV attachment", ct, cd)
		}
		rows, err := csv.NewReader(strings.NewReader(string(csvAns.raw))).ReadAll()
		if err != nil {
			t.Fatalf("read the CSV: %v\n%s", err, csvAns.raw)
		}
		if len(rows) != 2 || rows[0][0] != "id" || rows[1][0] != ids[1] || rows[1][4] != "'"+tricky || rows[1][5] != "fraud rules, 100% new" ||
			rows[1][8] != "denied" || rows[1][14] != "admin=deny: no, \"never\"" {
			t.Fatalf("got rows %q, want the denied request with its title defused and quoted", rows)
		}
		js := s.do("POST", reviewBase+"/archive/export", admin, map[string]any{"format": "json", "status": "finalized"}).want(t, 200)
		if ct, cd := js.header.Get("Content-Type"), js.header.Get("Content-Disposition"); !strings.HasPrefix(ct, "application/json") || !strings.HasSuffix(cd, `.json"`) {
			t.Fatalf("got Content-Type %q and Content-Disposition %q, want a JSON attachment", ct, cd)
		}
		items, _ := js.at("requests").([]any)
		if js.at("total") != 1.0 || len(items) != 1 || items[0].(map[string]any)["title"] != tricky || items[0].(map[string]any)["outcome"] != "denied" {
			t.Fatalf("got %s, want the denied request as it was written", js.raw)
		}
	})
}

// finalizeReview submits a request of the board about the model titled
// title, has each token decide in turn, finalizes it as chair and returns
// its id and outcome.
func finalizeReview(t *testing.T, s *server, chair, board, model, title string, decisions map[string]string) (id, outcome string) {
	t.Helper()
	id = s.do("POST", reviewBase+"/requests", chair, reviewRequest(board, model, map[string]any{"title": title})).want(t, 201).str("id")
	s.do("POST", reviewBase+"/requests/"+id+"/submit", chair, nil).want(t, 200)
	for token, d := range decisions {
		s.do("POST", reviewBase+"/requests/"+id+"/decisions", token, map[string]any{"decision": d, "comment": "reason for " + d}).want(t, 201)
	}
	return id, s.do("POST", reviewBase+"/requests/"+id+"/finalize", chair, nil).want(t, 200).str("outcome")
}

// TestReviewDraftsRisk: a request denied and one sent back each end, with
// no further call, in one drafted operational risk entry (3 x 3,
// governance_review); an approved one drafts nothing; the events appended
// again (a resend, a replay) draft nothing more; an event owed by a
// finalize whose append never happened is resent and drafts once.
// On the embedded default and on Kafka with PostgreSQL.
func TestReviewDraftsRisk(t *testing.T) {
	eachPipeline(t, func(t *testing.T, s *server) {
		admin := s.admin()
		ed := s.user(admin, "eddie", "editor")
		org := s.do("GET", "/auth/me", admin, nil).want(t, 200).str("user.organization_id")
		model := s.model(admin, "credit", "3")
		board := s.do("POST", reviewBase, admin, map[string]any{"name": "MRC", "members": []map[string]any{
			{"user_id": s.userID(t, admin), "role": "chair"}, {"user_id": s.userID(t, ed), "role": "voter"}}}).want(t, 201).str("id")

		denied, o1 := finalizeReview(t, s, admin, board, model, "Launch v3", map[string]string{admin: "deny", ed: "deny"})
		sentBack, o2 := finalizeReview(t, s, admin, board, model, "Raise the limit", map[string]string{admin: "request_changes", ed: "approve"})
		_, o3 := finalizeReview(t, s, admin, board, model, "Retire v1", map[string]string{admin: "approve", ed: "approve"})
		if o1 != "denied" || o2 != "changes_requested" || o3 != "approved" {
			t.Fatalf("got outcomes %s, %s, %s, want denied, changes_requested, approved", o1, o2, o3)
		}
		check := func(entries []response, want map[string]string) {
			t.Helper()
			for _, e := range entries {
				title, ok := want[e.str("source_id")]
				if !ok || e.str("source_type") != "governance_review" || e.str("category") != "operational" || e.at("likelihood") != 3.0 ||
					e.at("impact") != 3.0 || e.at("risk_score") != 9.0 || e.str("status") != "identified" || e.str("title") != "Governance review flagged: "+title {
					t.Errorf("got drafted entry %s, want one per request of %v: operational, 3 x 3, identified", e.raw, want)
				}
				delete(want, e.str("source_id"))
			}
		}
		want := map[string]string{denied: "Launch v3", sentBack: "Raise the limit"}
		check(waitDrafted(t, s, admin, model, 2), want)

		// The same events again, as a resend or a replay would append
		// them, then a new denial: only the new one drafts.
		ctx := t.Context()
		for _, id := range []string{denied, sentBack} {
			r, err := s.app.store.ReviewRequest(ctx, org, id)
			if err != nil {
				t.Fatal(err)
			}
			rec, err := governance.EventRecord(review.GovernanceEvent(r))
			if err != nil {
				t.Fatal(err)
			}
			if err := s.app.events.Append(ctx, []eventlog.Record{rec, rec}); err != nil {
				t.Fatal(err)
			}
		}
		again, _ := finalizeReview(t, s, admin, board, model, "Launch v3 again", map[string]string{admin: "deny", ed: "approve"})
		check(waitDrafted(t, s, admin, model, 3), map[string]string{denied: "Launch v3", sentBack: "Raise the limit", again: "Launch v3 again"})

		// A finalize committed without its append (the process stopped
		// in between): the request owes its event until a resend gets
		// through, and then drafts once.
		owed := s.do("POST", reviewBase+"/requests", admin, reviewRequest(board, model, map[string]any{"title": "Owed"})).want(t, 201).str("id")
		s.do("POST", reviewBase+"/requests/"+owed+"/submit", admin, nil).want(t, 200)
		s.do("POST", reviewBase+"/requests/"+owed+"/decisions", admin, map[string]any{"decision": "deny", "comment": "no"}).want(t, 201)
		stored, err := s.app.store.UpdateReviewRequest(ctx, org, owed, func(r *review.Request, _ review.Board) error {
			now := time.Now().UTC()
			r.Status, r.Outcome, r.FinalizedAt, r.UpdatedAt, r.GovernancePending = review.StatusFinalized, review.OutcomeDenied, &now, now, true
			return nil
		})
		if err != nil || !stored.GovernancePending {
			t.Fatalf("got %+v, %v, want the finalized request stored owing its event", stored, err)
		}
		resender := &review.Resender{Store: s.app.store, Events: s.app.events, Every: 10 * time.Millisecond}
		rctx, cancel := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() { done <- resender.Run(rctx) }()
		defer func() { cancel(); <-done }()
		waitFor(t, "the owed event resent", func() bool {
			r, err := s.app.store.ReviewRequest(ctx, org, owed)
			if err != nil {
				t.Fatal(err)
			}
			return !r.GovernancePending
		})
		check(waitDrafted(t, s, admin, model, 4), map[string]string{denied: "Launch v3", sentBack: "Raise the limit", again: "Launch v3 again", owed: "Owed"})
	})
}
