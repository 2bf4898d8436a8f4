package logtest

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/vigilhq/vigil/eventlog"
)

// v0Predictions are prediction records as the log held them before the
// binary record: JSON, one a line, written by testdata/gen-v0.sh with the
// code of main at e1e257b.
//
//go:embed testdata/v0-predictions.jsonl
var v0Predictions []byte

// OldRecords returns the records of v0Predictions, ready to append.
func OldRecords() []eventlog.Record {
	var recs []eventlog.Record
	for line := range bytes.Lines(v0Predictions) {
		v := bytes.TrimSuffix(line, []byte("\n"))
		var p struct {
			OrgID   string `json:"org_id"`
			ModelID string `json:"model_id"`
		}
		if json.Unmarshal(v, &p) != nil {
			panic("logtest: testdata/v0-predictions.jsonl holds a line that is not JSON")
		}
		recs = append(recs, eventlog.Record{Kind: eventlog.KindPrediction, Key: p.OrgID + "/" + p.ModelID, Value: bytes.Clone(v)})
	}
	return recs
}

// testOldRecords appends records of today's JSON format and of the binary
// one side by side and checks both decode, after the trip through the
// engine, to the same predictions: an old log is read as it is.
func testOldRecords(t *testing.T, log eventlog.Log, consumer func(string) eventlog.Source) {
	old := OldRecords()
	var recs []eventlog.Record
	want := map[string]eventlog.Prediction{}
	for _, r := range old {
		var p eventlog.Prediction
		if err := json.Unmarshal(r.Value, &p); err != nil {
			t.Fatal(err)
		}
		bin, err := eventlog.EncodeEvent(p)
		if err != nil {
			t.Fatal(err)
		}
		want[p.PredictionID] = p
		recs = append(recs, r, eventlog.Record{Kind: r.Kind, Key: r.Key, Value: bin})
	}
	appendAll(t, log, recs)
	src := open(t, consumer, "old-records")
	got := poll(t, src, len(recs))
	binary := 0
	for _, m := range got {
		if eventlog.IsBinary(m.Value) {
			binary++
		}
		var p eventlog.Prediction
		if err := eventlog.DecodeEvent(m.Value, &p); err != nil {
			t.Fatalf("decoding %q: %v", m.Value, err)
		}
		w := want[p.PredictionID]
		if !p.Timestamp.Equal(w.Timestamp) {
			t.Fatalf("prediction %s: got timestamp %v, want %v", p.PredictionID, p.Timestamp, w.Timestamp)
		}
		p.Timestamp = w.Timestamp
		if !reflect.DeepEqual(p, w) {
			t.Fatalf("decoding %q:\ngot  %+v\nwant %+v", m.Value, p, w)
		}
	}
	if binary != len(old) {
		t.Fatalf("got %d binary records of %d, want %d", binary, len(got), len(old))
	}
}
