package testenv

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// KafkaTopicPrefix returns a prefix of the test's own on the test Kafka
// broker (see KafkaPrefix).
func KafkaTopicPrefix(t testing.TB) string {
	t.Helper()
	return KafkaPrefix(t, strings.Split(URL(t, Kafka), ","))
}

// KafkaPrefix returns a topic and consumer-group prefix of the test's own
// on the cluster at brokers; the topics and groups under it are deleted
// when the test ends.
func KafkaPrefix(t testing.TB, brokers []string) string {
	t.Helper()
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	prefix := "vigil-test-" + hex.EncodeToString(b) + "."
	t.Cleanup(func() {
		cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...))
		if err != nil {
			t.Errorf("kafka client: %v", err)
			return
		}
		defer cl.Close()
		adm := kadm.NewClient(cl)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if groups, err := adm.ListGroups(ctx); err != nil {
			t.Errorf("list groups: %v", err)
		} else if mine := withPrefix(groups.Groups(), prefix); len(mine) > 0 {
			if _, err := adm.DeleteGroups(ctx, mine...); err != nil {
				t.Errorf("delete groups %v: %v", mine, err)
			}
		}
		if topics, err := adm.ListTopics(ctx); err != nil {
			t.Errorf("list topics: %v", err)
		} else if mine := withPrefix(topics.Names(), prefix); len(mine) > 0 {
			if _, err := adm.DeleteTopics(ctx, mine...); err != nil {
				t.Errorf("delete topics %v: %v", mine, err)
			}
		}
	})
	return prefix
}

func withPrefix(names []string, prefix string) []string {
	var out []string
	for _, n := range names {
		if strings.HasPrefix(n, prefix) {
			out = append(out, n)
		}
	}
	return out
}
