package alerting_test

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/vigilhq/vigil/eventlog"
	"github.com/vigilhq/vigil/eventlog/embeddedlog"
	"github.com/vigilhq/vigil/processors/alerting"
)

// TestLandingWaitsForTheProcessors: with a Landing, a settled minute whose
// events the processors have not committed is not evaluated, however long
// after its end; it is as soon as they commit, and a later minute the
// idle processors already covered is evaluated on its first look.
func TestLandingWaitsForTheProcessors(t *testing.T) {
	for _, eng := range engines {
		t.Run(eng.name, func(t *testing.T) {
			s, an := eng.open(t)
			f := newFixture(t, s, an)
			log, err := embeddedlog.Open(t.Context(), t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { log.Close() })
			processors := log.Consumer("processors")
			t.Cleanup(func() { processors.Close() })
			e := f.evaluator()
			e.Landing = &alerting.Landing{Progress: log, Group: "processors"}
			reg := prometheus.NewRegistry()
			e.Metrics = alerting.NewMetrics(reg)

			// Minute 0's events are in the log; the processors have
			// stored some of them but committed none.
			recs := make([]eventlog.Record, 4)
			for i := range recs {
				recs[i] = eventlog.Record{Kind: eventlog.KindPrediction, Key: f.orgID + "/" + f.model, Value: []byte{byte(i)}}
			}
			if err := log.Append(t.Context(), recs); err != nil {
				t.Fatal(err)
			}
			f.log(0, 600, 700, 800, 900)
			f.at(0)
			f.run(e, alerting.Result{})
			f.now = base.Add(time.Minute + 59*time.Second) // long settled, still not landed
			f.run(e, alerting.Result{})
			if n := len(f.instances()); n != 0 {
				t.Fatalf("before the processors commit: got %d alerts, want 0", n)
			}

			if _, err := processors.Poll(t.Context()); err != nil {
				t.Fatal(err)
			}
			if err := processors.Commit(t.Context()); err != nil {
				t.Fatal(err)
			}
			f.run(e, alerting.Result{Evaluated: 1, Fired: 1})
			if got := f.instances(); len(got) != 1 || !got[0].WindowEnd.Equal(base.Add(time.Minute)) {
				t.Fatalf("after the commit: got %+v, want one alert for the window ending 09:01", got)
			}
			// Nothing appended since: minute 1 is landed on its first look.
			f.log(1, 10, 20, 30)
			f.at(1)
			f.run(e, alerting.Result{Evaluated: 1, Resolved: 1})

			// Minute 0 was taken up 59 s after its end, minute 1 3 s after.
			if n, sum := histogram(t, reg, "vigil_alert_minute_delay_seconds"); n != 2 || sum != 62 {
				t.Fatalf("vigil_alert_minute_delay_seconds: got %d minutes summing %v s, want 2 summing 62 s", n, sum)
			}
		})
	}
}

// histogram returns the count and sum of the histogram name in reg.
func histogram(t *testing.T, reg *prometheus.Registry, name string) (uint64, float64) {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() == name {
			h := f.GetMetric()[0].GetHistogram()
			return h.GetSampleCount(), h.GetSampleSum()
		}
	}
	t.Fatalf("no metric %s", name)
	return 0, 0
}
