package kafka_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/vigilhq/vigil/eventlog"
	"github.com/vigilhq/vigil/eventlog/kafka"
	"github.com/vigilhq/vigil/platform/testenv"
)

var benchValue = []byte(`{"event_id":"0190f7a2-6b1e-7c3d-9f00-1234567890ab","model_id":"m","features":{"a":1.5,"b":"x"},"prediction":0.93}`)

// benchProducer returns a producer on the real broker with topics of 3
// partitions under a fresh prefix, deleted at the end.
func benchProducer(b *testing.B) *kafka.Producer {
	brokers := strings.Split(testenv.URL(b, testenv.Kafka), ",")
	raw := make([]byte, 6)
	_, _ = rand.Read(raw)
	prefix := "vigilbench-" + hex.EncodeToString(raw) + "."
	p, err := kafka.NewProducer(brokers, kafka.ProducerOptions{Prefix: prefix})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		topics := make([]string, len(eventlog.Kinds))
		for i, k := range eventlog.Kinds {
			topics[i] = kafka.Topic(prefix, k)
		}
		if _, err := kadm.NewClient(p.Client()).DeleteTopics(ctx, topics...); err != nil {
			b.Errorf("delete topics: %v", err)
		}
		p.Close()
	})
	if err := kafka.EnsureTopics(b.Context(), p.Client(), prefix, 3, 1); err != nil {
		b.Fatal(err)
	}
	// Warm up: metadata of the new topics, producer id.
	if err := p.Append(b.Context(), benchRecords(100)); err != nil {
		b.Fatal(err)
	}
	return p
}

func benchRecords(n int) []eventlog.Record {
	recs := make([]eventlog.Record, n)
	for i := range recs {
		recs[i] = eventlog.Record{Kind: eventlog.KindPrediction, Key: fmt.Sprintf("org/model-%d", i%8), Value: benchValue}
	}
	return recs
}

// BenchmarkAppendBatch appends 1000 records a call to the real broker.
func BenchmarkAppendBatch(b *testing.B) {
	p := benchProducer(b)
	recs := benchRecords(1000)
	start := time.Now()
	for b.Loop() {
		if err := p.Append(b.Context(), recs); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*len(recs))/time.Since(start).Seconds(), "records/s")
}

// BenchmarkAppendConcurrent appends one record a call from 64 goroutines.
func BenchmarkAppendConcurrent(b *testing.B) {
	p := benchProducer(b)
	recs := benchRecords(1)
	b.SetParallelism(32)
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := p.Append(b.Context(), recs); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "records/s")
}
