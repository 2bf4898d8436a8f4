package web

import (
	"encoding/json"
	"testing"
)

// TestKeyedPage: the envelope's members, then the items under the key,
// as a struct embedding Page encodes them; no items is [], not null.
func TestKeyedPage(t *testing.T) {
	type row struct {
		ID string `json:"id"`
	}
	embedded := struct {
		Page
		Rows []row `json:"rows"`
	}{NewPage(3, 2, 1), []row{{"b"}}}
	want, err := json.Marshal(embedded)
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.Marshal(keyedPage[row]{page: NewPage(3, 2, 1), key: "rows", items: []row{{"b"}}})
	if err != nil || string(got) != string(want) {
		t.Errorf("got %s (%v), want %s", got, err, want)
	}
	got, _ = json.Marshal(keyedPage[row]{page: NewPage(0, 1, 50), key: "rows", items: []row{}})
	if want := `{"total":0,"page":1,"page_size":50,"total_pages":0,"has_next":false,"has_prev":false,"next_page":null,"prev_page":null,"rows":[]}`; string(got) != want {
		t.Errorf("got %s, want %s", got, want)
	}
}
