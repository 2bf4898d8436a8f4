package app

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vigilhq/vigil/analytics/clickhouse"
)

// TestStuckProcessorVisible: ClickHouse refuses every batch of
// predictions (a table the write reads renamed away) while ingest goes
// on acknowledging. The processor retries the batch; once it has failed
// for longer than VIGIL_PROCESSOR_STUCK_AFTER (the process's clock moved
// past it), /readyz fails the pipeline:analytics check, and /metrics shows
// how long and how many attempts failed. With the table back the batch
// lands, every acknowledged prediction once, and both clear.
func TestStuckProcessorVisible(t *testing.T) {
	cfg := kafkaConfig(t)
	cfg.ProcessorStuckAfter = time.Hour
	s := start(t, cfg)
	key, _ := s.key(s.admin(), "read", "write")
	l := newLedger(s, key, s.model(key, "churn", "1"))
	l.send(t, 10)
	l.check(t, time.Minute)

	conn, err := clickhouse.Open(cfg.ClickHouseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	rename := func(from, to string) {
		t.Helper()
		if err := conn.Exec(context.Background(), "RENAME TABLE "+from+" TO "+to); err != nil {
			t.Fatal(err)
		}
	}
	rename("prediction_ids", "prediction_ids_away")
	if status := l.send(t, 10); status != http.StatusCreated {
		t.Fatalf("got %d for a batch while ClickHouse refuses the processor, want 201: the log takes it", status)
	}
	metric := func(name string) float64 {
		t.Helper()
		return s.metricValue(t, name+`{pipeline="analytics"}`)
	}
	waitFor(t, "a failed attempt counted", func() bool { return metric("vigil_processor_batch_failures_total") >= 1 })
	if got := s.check(t, "pipeline:analytics"); got != "ok" {
		t.Fatalf("got pipeline:analytics = %q within the bound, want ok", got)
	}

	s.app.skew.Store(int64(time.Hour + time.Minute))
	states, reasons := checkStates(t, s.do("GET", "root:/readyz?verbose", "", nil).want(t, http.StatusServiceUnavailable))
	if got := reasons["pipeline:analytics"]; states["pipeline:analytics"] != stateFailing || !strings.Contains(got, "processor analytics stuck") {
		t.Fatalf("got pipeline:analytics %s %q past the bound, want failing, the processor stuck", states["pipeline:analytics"], got)
	}
	if got := metric("vigil_processor_batch_failing_seconds"); got < 3600 {
		t.Fatalf("got vigil_processor_batch_failing_seconds %v past the bound, want at least 3600", got)
	}

	rename("prediction_ids_away", "prediction_ids")
	waitFor(t, "the processor finishing its batch", func() bool {
		return s.check(t, "pipeline:analytics") == "ok" && metric("vigil_processor_batch_failing_seconds") == 0
	})
	l.check(t, time.Minute)
}

// check returns the state /readyz?verbose gives one check.
func (s *server) check(t *testing.T, name string) string {
	t.Helper()
	states, _ := checkStates(t, s.do("GET", "root:/readyz?verbose", "", nil))
	return states[name]
}

// metricValue returns the value of one series of /metrics, -1 when it is
// absent.
func (s *server) metricValue(t *testing.T, series string) float64 {
	t.Helper()
	body := string(s.do("GET", "root:/metrics", "", nil).want(t, http.StatusOK).raw)
	for _, line := range strings.Split(body, "\n") {
		if v, ok := strings.CutPrefix(line, series+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatalf("%s: %v", series, err)
			}
			return f
		}
	}
	return -1
}
