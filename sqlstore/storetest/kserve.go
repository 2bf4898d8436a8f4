package storetest

import (
	"encoding/json"
	"testing"

	"github.com/vigilhq/vigil/integrations/kserve"
)

var kserveTests = []test{
	{"KServe/Pairs", testKServePairs},
}

// testKServePairs: a first half is stored alone; the second completes the
// row and the upsert returns both; a half sent again keeps the first
// payload; another organization's pair of the same id is its own; stale
// pairs are read oldest first, and a deleted pair is gone.
func testKServePairs(t *testing.T, s Store) {
	a, b := newOrg(t, s), newOrg(t, s)
	t1, t2 := at(1), at(2)
	req := kserve.Pair{OrgID: a.ID, EventID: "ev-1", ModelID: "m-1", Request: json.RawMessage(`{"instances":[[1,2]]}`),
		RequestAt: &t1, Metadata: json.RawMessage(`{"source":"kserve"}`), FirstAt: at(10)}
	got, err := s.PutHalf(ctx(t), req)
	must(t, err, "PutHalf request")
	if got.Complete() || string(got.Request) != `{"instances":[[1,2]]}` || got.Response != nil {
		t.Fatalf("got %+v, want the request alone", got)
	}
	other := req
	other.OrgID, other.Request = b.ID, json.RawMessage(`{"instances":[[9]]}`)
	_, err = s.PutHalf(ctx(t), other)
	must(t, err, "PutHalf of another organization")
	resp := kserve.Pair{OrgID: a.ID, EventID: "ev-1", ModelID: "m-2", Response: json.RawMessage(`{"predictions":[1]}`),
		ResponseAt: &t2, Metadata: json.RawMessage(`{}`), FirstAt: at(11)}
	got, err = s.PutHalf(ctx(t), resp)
	must(t, err, "PutHalf response")
	if !got.Complete() || string(got.Request) != `{"instances":[[1,2]]}` || string(got.Response) != `{"predictions":[1]}` ||
		got.ModelID != "m-1" || !got.RequestAt.Equal(stored(t1)) || !got.ResponseAt.Equal(stored(t2)) ||
		!got.FirstAt.Equal(stored(at(10))) {
		t.Fatalf("got %+v, want the pair complete, the first half's model and time kept", got)
	}
	again := req
	again.Request = json.RawMessage(`{"instances":[[3]]}`)
	got, err = s.PutHalf(ctx(t), again)
	must(t, err, "PutHalf request again")
	if string(got.Request) != `{"instances":[[1,2]]}` {
		t.Errorf("got request %s, want the first one kept", got.Request)
	}
	stale, err := s.StalePairs(ctx(t), at(11), 10)
	must(t, err, "StalePairs")
	if len(stale) != 2 || string(stale[0].Request)+string(stale[1].Request) == "" {
		t.Fatalf("got %d stale pairs, want both organizations' (first taken at 10)", len(stale))
	}
	stale, err = s.StalePairs(ctx(t), at(10), 10)
	must(t, err, "StalePairs")
	if len(stale) != 0 {
		t.Errorf("got %d pairs stale before 10, want none", len(stale))
	}
	must(t, s.DeletePair(ctx(t), a.ID, "ev-1"), "DeletePair")
	stale, err = s.StalePairs(ctx(t), at(11), 10)
	must(t, err, "StalePairs")
	if len(stale) != 1 || stale[0].OrgID != b.ID {
		t.Errorf("got %+v, want only the other organization's pair left", stale)
	}
}
