package app

import (
	"fmt"
	"net/http"
	"testing"
	"time"
)

// ledger accounts for every prediction a fault test sends: acknowledged
// (2xx), rejected (a 4xx: refused, never recorded) or ambiguous (a 5xx or
// no answer at all: it may or may not have reached the log). After the backlog drains, check proves that
// every acknowledged prediction is stored exactly once and that nothing is
// stored that was never sent.
type ledger struct {
	s     *server
	key   string
	model string
	next  int
	// prefix starts every prediction id ("e-").
	prefix string

	acked, rejected, ambiguous map[string]bool
}

func newLedger(s *server, key, model string) *ledger {
	return &ledger{s: s, key: key, model: model, prefix: "e-",
		acked: map[string]bool{}, rejected: map[string]bool{}, ambiguous: map[string]bool{}}
}

// send logs n new predictions in one batch call and files each id by the
// answer; it returns the status (0 for no answer).
func (l *ledger) send(t *testing.T, n int) int {
	t.Helper()
	ids := make([]string, n)
	items := make([]map[string]any, n)
	for i := range items {
		ids[i] = fmt.Sprintf("%s%06d", l.prefix, l.next)
		l.next++
		items[i] = map[string]any{"prediction_id": ids[i], "input_data": map[string]any{"i": l.next},
			"output_data": map[string]any{"y": 1}, "latency_ms": 1}
	}
	status, err := l.s.post("/predictions/log/batch", l.key, map[string]any{"model_id": l.model, "predictions": items})
	file := l.ambiguous
	switch {
	case err != nil:
	case status == http.StatusCreated:
		file = l.acked
	case status < 500:
		file = l.rejected
	}
	for _, id := range ids {
		file[id] = true
	}
	return status
}

// check waits up to wait for every acknowledged prediction to be stored,
// then checks the accounts.
func (l *ledger) check(t *testing.T, wait time.Duration) {
	t.Helper()
	deadline := time.Now().Add(wait)
	var stored map[string]int
	for {
		stored = l.stored(t)
		missing := 0
		for id := range l.acked {
			if stored[id] == 0 {
				missing++
			}
		}
		if missing == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d acknowledged predictions not stored after %v", missing, len(l.acked), wait)
		}
		time.Sleep(200 * time.Millisecond)
	}
	for id, n := range stored {
		if n > 1 {
			t.Errorf("prediction %s stored %d times, want once", id, n)
		}
		if !l.acked[id] && !l.ambiguous[id] && !l.rejected[id] {
			t.Errorf("prediction %s stored but never sent", id)
		}
		if l.rejected[id] {
			t.Errorf("prediction %s stored although its request was refused", id)
		}
	}
	// On ClickHouse a batch's rows are visible a moment before its minute
	// rollups are rewritten: stats catch up rather than agree at once.
	var total any
	for {
		total = l.s.do("GET", "/predictions/models/"+l.model+"/stats?start_time=2000-01-01T00:00:00Z", l.key, nil).want(t, 200).at("total_predictions")
		if total == float64(len(stored)) || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if total != float64(len(stored)) {
		t.Errorf("got stats total %v, want %d, the stored predictions", total, len(stored))
	}
	t.Logf("acknowledged %d, rejected %d, ambiguous %d, stored %d", len(l.acked), len(l.rejected), len(l.ambiguous), len(stored))
}

// stored counts the model's stored predictions by id.
func (l *ledger) stored(t *testing.T) map[string]int {
	t.Helper()
	out := map[string]int{}
	for offset := 0; ; offset += 1000 {
		r := l.s.do("POST", "/predictions/query", l.key, map[string]any{"model_id": l.model, "limit": 1000, "offset": offset}).want(t, 200)
		for _, p := range r.list {
			out[p.(map[string]any)["prediction_id"].(string)]++
		}
		if len(r.list) < 1000 {
			return out
		}
	}
}
