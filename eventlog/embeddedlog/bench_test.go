package embeddedlog_test

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/vigilhq/vigil/eventlog"
	"github.com/vigilhq/vigil/eventlog/embeddedlog"
)

// benchValue is a small prediction event, about the size the API appends.
var benchValue = []byte(`{"event_id":"0190f7a2-6b1e-7c3d-9f00-1234567890ab","model_id":"m","features":{"a":1.5,"b":"x"},"prediction":0.93}`)

func benchRecords(n int) []eventlog.Record {
	recs := make([]eventlog.Record, n)
	for i := range recs {
		recs[i] = eventlog.Record{Kind: eventlog.KindPrediction, Key: fmt.Sprintf("org/model-%d", i%8), Value: benchValue}
	}
	return recs
}

func reportRate(b *testing.B, records int, start time.Time) {
	b.ReportMetric(float64(records)/time.Since(start).Seconds(), "records/s")
}

// BenchmarkAppendBatch appends 1000 records a call from one goroutine:
// one fsynced transaction each.
func BenchmarkAppendBatch(b *testing.B) {
	l := open(b, b.TempDir(), embeddedlog.Options{TrimInterval: -1})
	recs := benchRecords(1000)
	start := time.Now()
	for b.Loop() {
		if err := l.Append(b.Context(), recs); err != nil {
			b.Fatal(err)
		}
	}
	reportRate(b, b.N*len(recs), start)
}

// BenchmarkAppendConcurrent appends one record a call from many
// goroutines: group commit writes what waits in one transaction.
func BenchmarkAppendConcurrent(b *testing.B) {
	for _, par := range []int{16, 64, 256} {
		b.Run(fmt.Sprintf("goroutines=%d", par), func(b *testing.B) {
			l := open(b, b.TempDir(), embeddedlog.Options{TrimInterval: -1})
			recs := benchRecords(1)
			b.SetParallelism(max(1, par/max(1, runtime.GOMAXPROCS(0))))
			start := time.Now()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if err := l.Append(b.Context(), recs); err != nil {
						b.Error(err)
						return
					}
				}
			})
			reportRate(b, b.N, start)
		})
	}
}

// BenchmarkAppendConcurrentBatch appends 100 records a call from 16
// goroutines, as busy batch endpoints do.
func BenchmarkAppendConcurrentBatch(b *testing.B) {
	l := open(b, b.TempDir(), embeddedlog.Options{TrimInterval: -1})
	recs := benchRecords(100)
	b.SetParallelism(max(1, 16/runtime.GOMAXPROCS(0)))
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := l.Append(b.Context(), recs); err != nil {
				b.Error(err)
				return
			}
		}
	})
	reportRate(b, b.N*len(recs), start)
}

// BenchmarkConsume reads, with three consumer groups (as the processor,
// the auto-explainer and the drafter do), each batch of 1000 records right
// after it is appended: from the in-memory tail, and from the file as
// without it, in the same run. Only the Polls and Commits are timed; ns/op
// is per batch of 1000 records and three groups.
func BenchmarkConsume(b *testing.B) {
	for _, c := range []struct {
		name string
		opts embeddedlog.Options
	}{
		{"tail", embeddedlog.Options{TrimInterval: -1}},
		{"file", embeddedlog.Options{TrimInterval: -1, TailRecords: -1}},
	} {
		b.Run(c.name, func(b *testing.B) {
			l := open(b, b.TempDir(), c.opts)
			recs := benchRecords(1000)
			groups := []*embeddedlog.Consumer{l.Consumer("a"), l.Consumer("b"), l.Consumer("c", eventlog.KindPrediction)}
			b.ReportAllocs()
			for b.Loop() {
				b.StopTimer()
				if err := l.Append(b.Context(), recs); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				for _, g := range groups {
					for n := 0; n < len(recs); {
						msgs, err := g.Poll(b.Context())
						if err != nil {
							b.Fatal(err)
						}
						n += len(msgs)
					}
					if err := g.Commit(b.Context()); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
