package app

import (
	"testing"

	"github.com/vigilhq/vigil/platform/config"
	"github.com/vigilhq/vigil/platform/testenv"
)

// backends are the configurations every HTTP case runs on: the embedded
// default, and PostgreSQL with Redis.
var backends = []struct {
	name string
	cfg  func(t *testing.T) config.Config
}{
	{"sqlite+memory", testConfig},
	{"postgres+redis", engineConfig},
}

// pipelines are the configurations the ingest pipeline runs on: the
// embedded default (log and analytics in SQLite), and Kafka with ClickHouse
// beside PostgreSQL and Redis.
var pipelines = []struct {
	name string
	cfg  func(t *testing.T) config.Config
}{
	{"embedded", testConfig},
	{"kafka+clickhouse", kafkaConfig},
}

// kafkaConfig is engineConfig with Kafka as the event log (topics and
// consumer group of the test's own) and ClickHouse (a database of the
// test's own) as the analytical store.
func kafkaConfig(t *testing.T) config.Config {
	t.Helper()
	cfg := engineConfig(t)
	cfg.KafkaBrokers = []string{testenv.URL(t, testenv.Kafka)}
	cfg.KafkaTopicPrefix = testenv.KafkaTopicPrefix(t)
	cfg.ClickHouseURL = testenv.ClickHouseDatabase(t)
	return cfg
}

// eachPipeline runs f against a fresh server on every pipeline.
func eachPipeline(t *testing.T, f func(t *testing.T, s *server)) {
	t.Helper()
	eachPipelineWith(t, nil, f)
}

// eachPipelineWith is eachPipeline, changing the configuration with tweak
// first when it is not nil.
func eachPipelineWith(t *testing.T, tweak func(*config.Config), f func(t *testing.T, s *server)) {
	t.Helper()
	for _, p := range pipelines {
		t.Run(p.name, func(t *testing.T) {
			cfg := p.cfg(t)
			if tweak != nil {
				tweak(&cfg)
			}
			f(t, start(t, cfg))
		})
	}
}

// eachBackend runs f against a fresh server on every backend, changing the
// configuration with tweak first when it is not nil.
func eachBackend(t *testing.T, tweak func(*config.Config), f func(t *testing.T, s *server)) {
	t.Helper()
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			cfg := b.cfg(t)
			if tweak != nil {
				tweak(&cfg)
			}
			f(t, start(t, cfg))
		})
	}
}
