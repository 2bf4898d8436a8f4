package eventlog

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"testing"
	"time"
)

// samePrediction fails t unless p's binary record decodes to the
// prediction encoding/json reads back from its JSON record (today's log
// format before the binary record): the same ids, documents (compacted and
// escaped as encoding/json writes them), latency and instant. It checks
// too that DecodeEvent still reads that JSON record to the same value, and
// that AppendJSON writes what encoding/json does.
func samePrediction(t *testing.T, p Prediction) {
	t.Helper()
	sameAsMarshal(t, p)
	old, wantErr := json.Marshal(p)
	rec, gotErr := EncodeEvent(p)
	if (gotErr == nil) != (wantErr == nil) {
		t.Fatalf("encoding %+v: got error %v, want %v", p, gotErr, wantErr)
	}
	if wantErr != nil {
		return
	}
	if !IsBinary(rec) {
		t.Fatalf("encoding %+v: got %q, want a binary record", p, rec)
	}
	var want, got, fromOld Prediction
	if err := json.Unmarshal(old, &want); err != nil {
		t.Fatal(err)
	}
	if err := DecodeEvent(rec, &got); err != nil {
		t.Fatalf("decoding %q: %v", rec, err)
	}
	if err := DecodeEvent(old, &fromOld); err != nil {
		t.Fatalf("decoding the JSON record %q: %v", old, err)
	}
	for _, e := range []Prediction{got, fromOld} {
		if !e.Timestamp.Equal(want.Timestamp) {
			t.Fatalf("decoding %+v: got timestamp %v, want %v", p, e.Timestamp, want.Timestamp)
		}
		e.Timestamp = want.Timestamp
		if !reflect.DeepEqual(e, want) {
			t.Fatalf("decoding %+v:\ngot  %+v\nwant %+v", p, e, want)
		}
	}
	if org, model, ok := RecordModel(rec); !ok || org != want.OrgID || model != want.ModelID {
		t.Fatalf("RecordModel(%q): got %q %q %v, want %q %q", rec, org, model, ok, want.OrgID, want.ModelID)
	}
}

// TestOldRecordsStillRead reads logtest/testdata/v0-predictions.jsonl, prediction
// records as the log held them before the binary record (JSON, one a
// line; written by gen-v0.sh with the code of main at e1e257b), and
// checks each decodes to the prediction written again as a binary record.
func TestOldRecordsStillRead(t *testing.T) {
	f, err := os.Open("logtest/testdata/v0-predictions.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	n := 0
	for sc.Scan() {
		line := bytes.Clone(sc.Bytes())
		var old Prediction
		if err := DecodeEvent(line, &old); err != nil {
			t.Fatalf("line %d: %v", n+1, err)
		}
		rec, err := EncodeEvent(old)
		if err != nil {
			t.Fatal(err)
		}
		var again Prediction
		if err := DecodeEvent(rec, &again); err != nil {
			t.Fatal(err)
		}
		if !again.Timestamp.Equal(old.Timestamp) {
			t.Fatalf("line %d: got timestamp %v, want %v", n+1, again.Timestamp, old.Timestamp)
		}
		again.Timestamp = old.Timestamp
		if !reflect.DeepEqual(again, old) {
			t.Fatalf("line %d:\ngot  %+v\nwant %+v", n+1, again, old)
		}
		n++
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n < 10 {
		t.Fatalf("got %d old records, want at least 10", n)
	}
}

func TestMalformedBinaryRecords(t *testing.T) {
	lat := 1.5
	rec, err := EncodeEvent(Prediction{OrgID: "o", ModelID: "m", PredictionID: "p", LatencyMS: &lat,
		InputData: json.RawMessage(`{"a":1}`), OutputData: json.RawMessage(`{}`), Timestamp: time.Unix(1, 2)})
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(rec); i++ {
		var p Prediction
		if err := DecodeEvent(rec[:i], &p); err == nil {
			t.Errorf("decoding the record cut to %d bytes: got no error, want one", i)
		}
	}
	bad := bytes.Clone(rec)
	bad[1] = 9
	var p Prediction
	if err := DecodeEvent(bad, &p); err == nil {
		t.Error("decoding version 9: got no error, want one")
	}
}
