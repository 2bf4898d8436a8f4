package tabular_test

import (
	"bytes"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/vigilhq/vigil/eventlog"
	"github.com/vigilhq/vigil/query/tabular"
	"github.com/vigilhq/vigil/query/tabular/tabulartest"
)

// predictions are n predictions with what trips formats up: no latency,
// quotes, commas and line breaks in text, non-ASCII text, nested
// documents, times with microseconds.
func predictions(n int) []eventlog.Prediction {
	base := time.Date(2026, 3, 1, 12, 0, 0, 123456000, time.UTC)
	ps := make([]eventlog.Prediction, n)
	for i := range ps {
		l := float64(i) + 0.25
		ps[i] = eventlog.Prediction{ModelID: "m-1", PredictionID: fmt.Sprintf("p,\"%d\"\nline", i),
			InputData:  fmt.Appendf(nil, `{"x":%d,"text":"héllo, \"world\"\n","nested":{"a":[1,"b"]}}`, i),
			OutputData: fmt.Appendf(nil, `{"y":%t}`, i%2 == 0), LatencyMS: &l, Metadata: []byte(`{}`),
			Timestamp: base.Add(time.Duration(i) * time.Microsecond * 1001)}
		if i%3 == 0 {
			ps[i].LatencyMS = nil
		}
	}
	return ps
}

func write(f tabular.Format, o tabular.Options, ps []eventlog.Prediction) ([]byte, error) {
	var b bytes.Buffer
	w := f.New(&b, o)
	if err := w.Begin(); err != nil {
		return nil, err
	}
	for _, p := range ps {
		p.OrgID = "o-secret"
		if err := w.Write(p); err != nil {
			return nil, err
		}
	}
	err := w.Close()
	return b.Bytes(), err
}

func TestRoundTrip(t *testing.T) {
	for _, f := range tabular.Formats {
		for _, n := range []int{0, 1, 100} {
			t.Run(fmt.Sprintf("%s/%d", f.Name, n), func(t *testing.T) {
				ps := predictions(n)
				b, err := write(f, tabular.Options{}, ps)
				if err != nil {
					t.Fatal(err)
				}
				if bytes.Contains(b, []byte("o-secret")) {
					t.Fatal("got the organization in the output, want it left out")
				}
				got, err := tabulartest.Read(f.Name, b)
				if err != nil {
					t.Fatalf("read back: %v", err)
				}
				if err := tabulartest.Same(got.Predictions, ps); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

// TestJSONIsTheAPIShape: the JSON array is byte for byte what the API
// answered before formats existed, encoding/json's rendering of the list.
func TestJSONIsTheAPIShape(t *testing.T) {
	for _, c := range []struct {
		n    int
		want string
	}{{0, `[]`}, {1, `[{"model_id":"m-1","prediction_id":"p,\"0\"\nline"`}} {
		b, err := write(tabular.JSON, tabular.Options{}, predictions(c.n))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(b, []byte(c.want)) {
			t.Errorf("got %s, want it to start %s", b, c.want)
		}
	}
}

// TestBatches: the columnar formats write a batch (a record batch, a row
// group) whenever the rows or the bytes reach their bound, and the rest at
// the end.
func TestBatches(t *testing.T) {
	ps := predictions(25)
	for _, f := range []tabular.Format{tabular.Arrow, tabular.Parquet} {
		for _, c := range []struct {
			o    tabular.Options
			want int
		}{
			{tabular.Options{BatchRows: 10}, 3},
			{tabular.Options{BatchRows: 25}, 1},
			{tabular.Options{BatchBytes: 1}, 25},
			{tabular.Options{}, 1},
		} {
			b, err := write(f, c.o, ps)
			if err != nil {
				t.Fatal(err)
			}
			got, err := tabulartest.Read(f.Name, b)
			if err != nil {
				t.Fatal(err)
			}
			if got.Batches != c.want || len(got.Predictions) != 25 {
				t.Errorf("%s %+v: got %d batches of %d rows, want %d of 25", f.Name, c.o, got.Batches, len(got.Predictions), c.want)
			}
		}
	}
}

// failing fails every write after the first n bytes.
type failing struct{ n int }

func (f *failing) Write(p []byte) (int, error) {
	if len(p) > f.n {
		return 0, errors.New("connection reset")
	}
	f.n -= len(p)
	return len(p), nil
}

// TestWriteErrors: a failing underlying writer surfaces as an error, by
// Close at the latest.
func TestWriteErrors(t *testing.T) {
	for _, f := range tabular.Formats {
		w := f.New(&failing{n: 10}, tabular.Options{BatchRows: 2})
		err := w.Begin()
		for _, p := range predictions(50) {
			if err != nil {
				break
			}
			err = w.Write(p)
		}
		if err == nil {
			err = w.Close()
		}
		if err == nil {
			t.Errorf("%s: got no error from a failing writer, want one", f.Name)
		}
	}
}
