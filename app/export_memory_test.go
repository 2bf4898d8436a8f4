package app

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/vigilhq/vigil/analytics"
	"github.com/vigilhq/vigil/eventlog"
	"github.com/vigilhq/vigil/query/tabular"
)

// TestExportConstantMemory exports 60,000 and 240,000 predictions in every
// format from the embedded store, reading the answer slowly and sampling
// the live heap (after a collection) every MiB read and every 20 ms. The server holds at
// most one batch of rows, which both sizes fill (a Parquet row group's 8
// MiB of text is some 48,000 of these rows): the peak must not grow with
// the row count. Holding the rows instead would take well over 100 MiB.
func TestExportConstantMemory(t *testing.T) {
	s := start(t, testConfig(t))
	key, _ := s.key(s.admin(), "read", "write")
	org := s.do("GET", "/auth/me", key, nil).want(t, 200).str("user.organization_id")
	sizes := map[string]int{s.model(key, "small", "1"): 60_000, s.model(key, "large", "1"): 240_000}
	for model, n := range sizes {
		fill(t, s, org, model, n)
	}
	for _, f := range tabular.Formats {
		peak := map[int]uint64{}
		for model, n := range sizes {
			peak[n] = exportPeak(t, s, key, model, f.Name, n)
		}
		t.Logf("%s: live heap peak above the start %.1f MiB for 60k rows, %.1f MiB for 240k", f.Name, mib(peak[60_000]), mib(peak[240_000]))
		if grew := int64(peak[240_000]) - int64(peak[60_000]); grew > 16<<20 {
			t.Errorf("%s: the live heap's peak grew by %.1f MiB from 60k to 240k rows, want it flat (at most 16 MiB of noise)",
				f.Name, mib(uint64(grew)))
		}
	}
}

// fill writes n predictions of model straight into the analytical store.
func fill(t *testing.T, s *server, org, model string, n int) {
	t.Helper()
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for lo := 0; lo < n; lo += 10_000 {
		ps := make([]eventlog.Prediction, 0, 10_000)
		for i := lo; i < min(lo+10_000, n); i++ {
			l := float64(i % 100)
			ps = append(ps, eventlog.Prediction{OrgID: org, ModelID: model, PredictionID: fmt.Sprintf("p-%07d", i),
				InputData:  fmt.Appendf(nil, `{"age":%d,"income":%g,"city":"Lyon"}`, i%90, float64(i)*1.5),
				OutputData: fmt.Appendf(nil, `{"churn":%t,"score":0.25}`, i%3 == 0), LatencyMS: &l,
				Metadata: []byte(`{"run":"memory"}`), Timestamp: base.Add(time.Duration(i) * time.Millisecond)})
		}
		if err := s.app.analytics.Write(context.Background(), analytics.Batch{Predictions: ps}); err != nil {
			t.Fatal(err)
		}
	}
}

// exportPeak exports model in format, reading 32 KiB at a time, and
// returns the highest live heap seen above the one before the request,
// sampled after a collection every MiB read and every 20 ms.
func exportPeak(t *testing.T, s *server, key, model, format string, rows int) uint64 {
	t.Helper()
	req, err := http.NewRequest("GET", s.base+"/predictions/export?format="+format+"&model_id="+model, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	// The peak is counted above the live heap just before the export: the
	// rest of the test process (servers of earlier tests winding down, the
	// package's caches) holds tens of MiB that come and go between exports.
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("%s: got status %d, want 200", format, res.StatusCode)
	}
	// Sampled by time as well as by bytes read: a format that sends its
	// rows in bursts (a Parquet row group at a time) builds its peak while
	// nothing is read, and the smaller export sends too few MiB to be
	// sampled there often enough.
	var mu sync.Mutex
	var peak uint64
	sample := func() {
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		mu.Lock()
		peak = max(peak, ms.HeapAlloc)
		mu.Unlock()
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				sample()
			}
		}
	})
	buf := make([]byte, 32<<10)
	total, next := 0, 0
	for {
		n, err := res.Body.Read(buf)
		total += n
		if total >= next {
			sample()
			next += 1 << 20
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			close(stop)
			wg.Wait()
			t.Fatalf("%s: read after %d bytes: %v", format, total, err)
		}
	}
	close(stop)
	wg.Wait()
	t.Logf("%s: %d rows, %.1f MiB", format, rows, mib(uint64(total)))
	return peak - min(peak, before.HeapAlloc)
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }
