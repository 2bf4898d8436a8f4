package benchmarks

import (
	"slices"
	"testing"
	"time"

	"github.com/vigilhq/vigil/platform/config"
	"github.com/vigilhq/vigil/platform/testenv"
)

// eachPipeline runs f as a sub-benchmark on the embedded default and on
// Kafka with ClickHouse (and PostgreSQL, Redis), each with a Vigil of its
// own: f gets the API base URL.
func eachPipeline(b *testing.B, f func(b *testing.B, base string)) { eachPipelineWith(b, nil, f) }

// eachPipelineWith is eachPipeline with tweak applied to both servers'
// configuration.
func eachPipelineWith(b *testing.B, tweak func(*config.Config), f func(b *testing.B, base string)) {
	b.Run("embedded", func(b *testing.B) { f(b, server(b, tweak)) })
	b.Run("kafka+clickhouse", func(b *testing.B) {
		pg, redis := testenv.PostgresSchema(b), testenv.URL(b, testenv.Redis)
		brokers, prefix := testenv.URL(b, testenv.Kafka), testenv.KafkaTopicPrefix(b)
		ch := testenv.ClickHouseDatabase(b)
		f(b, server(b, func(c *config.Config) {
			c.PostgresURL, c.RedisURL, c.RedisPrefix = pg, redis, "vigil-bench:"+prefix
			c.KafkaBrokers, c.KafkaTopicPrefix, c.ClickHouseURL = []string{brokers}, prefix, ch
			if tweak != nil {
				tweak(c)
			}
		}))
	})
}

// quantile is the q-quantile of ds (nearest rank); it sorts ds.
func quantile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	return ds[min(int(q*float64(len(ds))), len(ds)-1)]
}

// reportLatency reports the p50 and p99 of ds in milliseconds under name.
func reportLatency(b *testing.B, ds []time.Duration, name string) {
	b.ReportMetric(float64(quantile(ds, 0.50).Microseconds())/1000, name+"-p50-ms")
	b.ReportMetric(float64(quantile(ds, 0.99).Microseconds())/1000, name+"-p99-ms")
}
