package clickhouse

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/vigilhq/vigil/analytics"
	"github.com/vigilhq/vigil/eventlog"
)

// TestIDFilterRate fills a filter to its capacity: every id added is
// held, and ids never added are held at about the stated false rate.
func TestIDFilterRate(t *testing.T) {
	f := newIDFilter(50_000)
	for i := range f.capacity {
		f.add(idHash(fmt.Sprintf("stored-%d", i)))
	}
	for i := range f.capacity {
		if id := fmt.Sprintf("stored-%d", i); !f.mayHold(idHash(id)) {
			t.Fatalf("got %s not held, want every added id held", id)
		}
	}
	const tries = 1_000_000
	wrong := 0
	for i := range tries {
		if f.mayHold(idHash(fmt.Sprintf("never-%d", i))) {
			wrong++
		}
	}
	if rate := float64(wrong) / tries; rate > 2*idFilterFalseRate {
		t.Errorf("got a false rate of %.2g at capacity, want about %g", rate, idFilterFalseRate)
	}
	if f.full() {
		t.Errorf("got full at capacity, want full only past it")
	}
}

// TestIDHashIsClickHouses checks idHash against the server's cityHash64,
// which filters are loaded with.
func TestIDHashIsClickHouses(t *testing.T) {
	conn := openConn(t)
	for _, id := range []string{"", "p1", "0b6f7f1e-4a1c-4f57-9c7a-0d3a3c0b7d11", string(make([]byte, 200))} {
		var got uint64
		if err := conn.QueryRow(context.Background(), `SELECT cityHash64(?)`, id).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if want := idHash(id); got != want {
			t.Errorf("%q: got cityHash64 %d from ClickHouse, want idHash's %d", id, got, want)
		}
	}
}

// TestIDFilterSparesReads writes logged batches of one model through two
// stores on one database, as two processor replicas between which a
// rebalance moves the model's partition (each assignment a new consumer
// epoch), with clients' retries among them: a store reads prediction_ids
// only for the ids its filter may hold, and loads the filter anew in a new
// epoch, where another writer may have stored ids, so a retry is never
// stored or counted twice; a batch of new ids after the first reads no
// id, gap in its offsets or not.
func TestIDFilterSparesReads(t *testing.T) {
	conn := openConn(t)
	counter := &countingConn{Conn: conn}
	a, b, ctx := New(counter), New(conn), context.Background()
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	// batch holds the ids at offsets first, first+1, ... of partition 3,
	// read in the consumer's epoch.
	batch := func(epoch uint64, first int, ids ...string) analytics.Batch {
		out := analytics.Batch{Positions: map[analytics.EventKey]analytics.Position{}}
		for i, id := range ids {
			p := eventlog.Prediction{OrgID: "o1", ModelID: "m1", PredictionID: id, InputData: []byte(`{}`),
				OutputData: []byte(`{}`), Metadata: []byte(`{}`), Timestamp: at.Add(time.Duration(first+i) * time.Millisecond)}
			out.Predictions = append(out.Predictions, p)
			out.Positions[analytics.EventKey{OrgID: "o1", ModelID: "m1", ID: id}] = analytics.Position{Partition: 3, Offset: int64(first + i), Epoch: epoch}
		}
		return out
	}
	ids := func(prefix string, n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf("%s%03d", prefix, i)
		}
		return out
	}
	steps := []struct {
		name    string
		s       *Store
		batch   analytics.Batch
		idReads bool // whether a's step may read prediction_ids
	}{
		{"a's first batch loads its filter", a, batch(1, 0, ids("a", 100)...), true},
		{"new ids", a, batch(1, 100, ids("b", 100)...), false},
		{"the partition moves to b", b, batch(1, 200, ids("c", 100)...), false},
		{"and back to a, with a retry of c007", a, batch(2, 300, append([]string{"c007"}, ids("d", 99)...)...), true},
		{"a retry of a001, loaded from ClickHouse", a, batch(2, 400, append([]string{"a001"}, ids("e", 99)...)...), true},
		{"a retry of e005, which a stored after loading its filter", a, batch(2, 500, append([]string{"e005"}, ids("f", 99)...)...), true},
		{"new ids after a gap (events of other kinds)", a, batch(2, 650, ids("g", 100)...), false},
	}
	for _, st := range steps {
		counter.reset()
		if err := st.s.Write(ctx, st.batch); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if got := counter.idReads.Load(); st.s == a && !st.idReads && got != 0 {
			t.Errorf("%s: got %d reads of prediction_ids, want none", st.name, got)
		}
	}
	r := analytics.Range{From: at, To: at.Add(time.Hour)}
	if st, err := a.PredictionStats(ctx, "o1", "m1", r); err != nil || st.TotalPredictions != 697 {
		t.Errorf("got %d predictions (%v), want 697 (700 logged, 3 of them retries)", st.TotalPredictions, err)
	}
	var rows uint64
	if err := conn.QueryRow(ctx, `SELECT count() FROM predictions FINAL`).Scan(&rows); err != nil || rows != 697 {
		t.Errorf("got %d stored predictions (%v), want 697", rows, err)
	}
}

// TestIDFilterBudget keeps filters within their budget, dropping the least
// recently used.
func TestIDFilterBudget(t *testing.T) {
	var fs idFilters
	size := newIDFilter(0).size()
	k := func(i int) modelKey { return modelKey{"o", fmt.Sprint(i)} }
	for i := range 3 {
		fs.put(k(i), newIDFilter(0), 2*size)
		if i == 1 {
			fs.candidates(k(0), 0, nil) // model 0 used after model 1
		}
	}
	for i, want := range []bool{true, false, true} {
		if _, got := fs.candidates(k(i), 0, nil); got != want {
			t.Errorf("model %d: got a filter %t, want %t", i, got, want)
		}
	}
	if fs.bytes != 2*size {
		t.Errorf("got %d bytes held, want %d", fs.bytes, 2*size)
	}
	fs.put(k(9), newIDFilter(10_000_000), 2*size)
	if _, ok := fs.candidates(k(9), 0, nil); ok {
		t.Errorf("got a filter larger than the budget kept, want none")
	}
}
