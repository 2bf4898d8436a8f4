package review

import (
	"bytes"
	"encoding/csv"
	"flag"
	"os"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// TestOutcome holds the quorum rule at its boundaries: approvals must be
// a strict majority of the decisions given, deny wins ties with
// request_changes.
func TestOutcome(t *testing.T) {
	f := func(approve, deny, changes int, want string) {
		t.Helper()
		got := Tally{Approve: approve, Deny: deny, RequestChanges: changes}.Outcome()
		if got != want {
			t.Errorf("%d approve, %d deny, %d request_changes: got %s, want %s", approve, deny, changes, got, want)
		}
	}
	f(1, 0, 0, OutcomeApproved)
	f(2, 1, 0, OutcomeApproved)
	f(3, 1, 1, OutcomeApproved)
	f(1, 1, 0, OutcomeDenied)           // half is no majority
	f(2, 1, 1, OutcomeDenied)           // half again; deny ties request_changes
	f(1, 0, 1, OutcomeChangesRequested) // half; request_changes outnumber deny
	f(0, 1, 2, OutcomeChangesRequested)
	f(0, 2, 2, OutcomeDenied)
	f(0, 0, 1, OutcomeChangesRequested)
	f(0, 1, 0, OutcomeDenied)
	f(0, 0, 0, OutcomeDenied)
}

// TestQuorum: finalizing needs at least quorum decisions; the default
// quorum is a majority of the voting members.
func TestQuorum(t *testing.T) {
	f := func(decided, quorum int, want bool) {
		t.Helper()
		tl := Tally{Approve: decided, Quorum: quorum}
		if got := tl.QuorumReached(); got != want {
			t.Errorf("%d decisions of quorum %d: got reached %v, want %v", decided, quorum, got, want)
		}
	}
	f(1, 2, false)
	f(2, 2, true)
	f(3, 2, true)
	f(0, 0, false)
	for n, want := range map[int]int{1: 1, 2: 2, 3: 2, 4: 3, 5: 3} {
		if got := Majority(n); got != want {
			t.Errorf("Majority(%d): got %d, want %d", n, got, want)
		}
	}
	r := Request{Quorum: 2, Panel: []Reviewer{{Role: RoleChair}, {Role: RoleVoter}, {Role: RoleObserver}},
		Decisions: []Decision{{Decision: DecisionDeny}, {Decision: DecisionRequestChanges}}}
	if tl := r.Tally(); tl.Voting != 2 || tl.Deny != 1 || tl.RequestChanges != 1 || !tl.QuorumReached() || tl.Outcome() != OutcomeDenied {
		t.Errorf("tally: got %+v, want 2 voting, quorum reached, denied", tl)
	}
}

// TestWriteCSV: quotes, commas, line breaks and formulas survive a round
// trip through a CSV reader, against testdata/archive.csv.
func TestWriteCSV(t *testing.T) {
	at := time.Date(2026, 11, 25, 10, 0, 0, 123000000, time.UTC)
	fin := at.Add(time.Hour)
	rs := []Request{{ID: "r1", BoardID: "b1", BoardName: "Model risk, \"MRC\"", ModelID: "m1",
		Title: "=HYPERLINK(\"http://evil\")", Description: "line one\nline two, with \"quotes\"", RequestedDecision: "deployment",
		Quorum: 2, Status: StatusFinalized, Outcome: OutcomeDenied, CreatedBy: "u1", CreatedAt: at, SubmittedAt: &at,
		FinalizedAt: &fin, FinalizedBy: "u2", Panel: []Reviewer{{UserID: "u2", Role: RoleChair}, {UserID: "u3", Role: RoleVoter}},
		Decisions: []Decision{{Username: "ann", Decision: DecisionDeny, Comment: "-1 on this"}, {Username: "bob", Decision: DecisionApprove}}},
		{ID: "r2", BoardID: "b1", BoardName: "plain", ModelID: "m1", Title: "@SUM(A1)", RequestedDecision: "other",
			Status: StatusDraft, CreatedAt: at}}
	var buf bytes.Buffer
	if err := WriteCSV(&buf, rs); err != nil {
		t.Fatal(err)
	}
	golden := "testdata/archive.csv"
	if *update {
		if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("got CSV\n%s\nwant\n%s", buf.Bytes(), want)
	}
	rows, err := csv.NewReader(bytes.NewReader(buf.Bytes())).ReadAll()
	if err != nil {
		t.Fatalf("read the CSV back: %v", err)
	}
	if len(rows) != 3 || len(rows[0]) != len(CSVColumns) {
		t.Fatalf("got %d rows of %d cells, want a header and 2 rows of %d", len(rows), len(rows[0]), len(CSVColumns))
	}
	for col, want := range map[int]string{2: "Model risk, \"MRC\"", 4: "'=HYPERLINK(\"http://evil\")",
		5: "line one\nline two, with \"quotes\"", 8: "denied", 9: "2", 12: "1", 14: "ann=deny: -1 on this | bob=approve",
		16: "2026-11-25T10:00:00.123Z", 18: "2026-11-25T11:00:00.123Z"} {
		if rows[1][col] != want {
			t.Errorf("row 1, %s: got %q, want %q", CSVColumns[col], rows[1][col], want)
		}
	}
	if rows[2][4] != "'@SUM(A1)" || rows[2][8] != "" || rows[2][9] != "" || rows[2][17] != "" {
		t.Errorf("row 2: got %q, want the formula defused and no outcome, quorum or submission", rows[2])
	}
}
