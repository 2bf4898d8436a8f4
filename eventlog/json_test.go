package eventlog

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
	"time"
)

// sameAsMarshal checks p.AppendJSON against encoding/json.Marshal: the same
// bytes, or both an error.
func sameAsMarshal(t *testing.T, p Prediction) {
	t.Helper()
	want, wantErr := json.Marshal(p)
	got, err := p.AppendJSON([]byte("prefix"))
	switch {
	case (err != nil) != (wantErr != nil):
		t.Errorf("%+v: got error %v, want %v", p, err, wantErr)
	case err == nil && !bytes.Equal(got, append([]byte("prefix"), want...)):
		t.Errorf("%+v:\ngot  %s\nwant prefix%s", p, got, want)
	}
}

func TestAppendJSON(t *testing.T) {
	at := time.Date(2026, 11, 27, 13, 4, 5, 120_000_000, time.UTC)
	f := func(v float64) *float64 { return &v }
	base := Prediction{ModelID: "m1", PredictionID: "p-1", InputData: json.RawMessage(`{"a":1}`),
		OutputData: json.RawMessage(`{"score":0.5}`), Metadata: json.RawMessage(`{}`), Timestamp: at}
	edit := func(change func(*Prediction)) Prediction {
		p := base
		change(&p)
		return p
	}
	for _, p := range []Prediction{
		base,
		edit(func(p *Prediction) { p.OrgID = "org-1" }),
		edit(func(p *Prediction) { p.LatencyMS = f(12.5) }),
		edit(func(p *Prediction) { p.LatencyMS = f(0) }),
		edit(func(p *Prediction) { p.LatencyMS = f(-1e-7) }),
		edit(func(p *Prediction) { p.LatencyMS = f(1e21) }),
		edit(func(p *Prediction) { p.LatencyMS = f(123456789.125) }),
		edit(func(p *Prediction) { p.LatencyMS = f(5e-324) }),
		edit(func(p *Prediction) { p.LatencyMS = f(math.MaxFloat64) }),
		edit(func(p *Prediction) { p.LatencyMS = f(math.NaN()) }),
		edit(func(p *Prediction) { p.LatencyMS = f(math.Inf(1)) }),
		edit(func(p *Prediction) { p.ModelID = `a"b\c<d>e&f` + "\n\t\x00\x7f\u2028é\xff" }),
		edit(func(p *Prediction) { p.PredictionID = "" }),
		edit(func(p *Prediction) { p.InputData = json.RawMessage("{ \"a\" : [1, 2],\n\"h\": \"<b>&\u2028\" }") }),
		edit(func(p *Prediction) { p.Metadata = nil }),
		edit(func(p *Prediction) { p.OutputData = json.RawMessage(`{"x":`) }),
		edit(func(p *Prediction) { p.Timestamp = at.Truncate(time.Second) }),
		edit(func(p *Prediction) { p.Timestamp = at.In(time.FixedZone("x", 5*3600+30*60)) }),
		edit(func(p *Prediction) { p.Timestamp = at.In(time.FixedZone("y", 25*3600)) }),
		edit(func(p *Prediction) { p.Timestamp = at.AddDate(9000, 0, 0) }),
		edit(func(p *Prediction) { p.Timestamp = time.Time{} }),
	} {
		sameAsMarshal(t, p)
	}
}

func TestAppendJSONAllocations(t *testing.T) {
	lat := 3.25
	p := Prediction{ModelID: "m1", PredictionID: "0193a5b2-7c4d-7e8f-9a0b-1c2d3e4f5a6b", InputData: json.RawMessage(`{"a":1}`),
		OutputData: json.RawMessage(`{"score":0.5}`), LatencyMS: &lat, Metadata: json.RawMessage(`{}`), Timestamp: time.Now().UTC()}
	buf := make([]byte, 0, 512)
	if n := testing.AllocsPerRun(100, func() { _, _ = p.AppendJSON(buf[:0]) }); n != 0 {
		t.Errorf("got %v allocations, want 0", n)
	}
}

// FuzzAppendJSON holds AppendJSON to encoding/json.Marshal. Run it with
//
//	go test -run '^$' -fuzz FuzzAppendJSON -fuzztime 2m ./eventlog/
func FuzzAppendJSON(f *testing.F) {
	f.Add("m", "p", []byte(`{"a":1}`), 1.5, int64(1795000000123456789), 0)
	f.Add("m<", "\xff\u2028", []byte(" { \"a\" : \"&\" } "), 1e-7, int64(-62135596800000000), 3600)
	f.Fuzz(func(t *testing.T, model, id string, doc []byte, lat float64, ns int64, off int) {
		if !json.Valid(doc) {
			return
		}
		p := Prediction{ModelID: model, PredictionID: id, InputData: doc, OutputData: doc, LatencyMS: &lat,
			Timestamp: time.Unix(0, ns).In(time.FixedZone("z", off%(48*3600)))}
		sameAsMarshal(t, p)
	})
}

// BenchmarkAppendJSON writes one prediction as the 201 answer and the JSON
// exports do, beside encoding/json.Marshal of the same value (the
// baseline of the same run).
func BenchmarkAppendJSON(b *testing.B) {
	lat := 3.25
	p := Prediction{ModelID: "0193a5b2-7c4d-7e8f-9a0b-1c2d3e4f5a6b", PredictionID: "0193a5b2-7c4d-7e8f-9a0b-1c2d3e4f5a6c",
		InputData:  json.RawMessage(`{"age":42,"income":52000.5,"tenure_months":18,"plan":"premium","region":"eu-west-1"}`),
		OutputData: json.RawMessage(`{"prediction":1,"probability":0.8731}`), LatencyMS: &lat,
		Metadata: json.RawMessage(`{"request_id":"req-00000042"}`), Timestamp: time.Now().UTC()}
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(p); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("AppendJSON", func(b *testing.B) {
		b.ReportAllocs()
		buf := make([]byte, 0, 512)
		for b.Loop() {
			if _, err := p.AppendJSON(buf[:0]); err != nil {
				b.Fatal(err)
			}
		}
	})
}
