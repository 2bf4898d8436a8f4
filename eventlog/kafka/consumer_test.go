package kafka_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/vigilhq/vigil/eventlog"
	"github.com/vigilhq/vigil/eventlog/kafka"
	"github.com/vigilhq/vigil/eventlog/kafka/kafkatest"
	"github.com/vigilhq/vigil/eventlog/logtest"
	"github.com/vigilhq/vigil/platform/testenv"
)

// TestContract runs the event log's contract suite on the real broker.
func TestContract(t *testing.T) {
	brokers := strings.Split(testenv.URL(t, testenv.Kafka), ",")
	logtest.Run(t, newLog(brokers))
}

// TestContractFake runs the suite on kfake, franz-go's in-process fake.
func TestContractFake(t *testing.T) {
	logtest.Run(t, func(t *testing.T) (eventlog.Log, func(string) eventlog.Source) {
		return newLog(fake(t).ListenAddrs())(t)
	})
}

// TestProgress checks the admin-API reading of progress on the real broker.
func TestProgress(t *testing.T) {
	brokers := strings.Split(testenv.URL(t, testenv.Kafka), ",")
	logtest.RunProgress(t, func(t *testing.T) (eventlog.Log, func(string) eventlog.Source, eventlog.Progress, func(string) string) {
		p, consumer := kafkatest.Log(t, brokers, kafka.Options{PollMax: 1000})
		return p, func(group string) eventlog.Source { return consumer(group) },
			kafka.NewProgress(p.Client(), p.Prefix()), func(group string) string { return p.Prefix() + group }
	})
}

// newLog returns the suite's constructor for brokers: topics of 3
// partitions and groups under a prefix of the test's own, both deleted
// when the test ends.
func newLog(brokers []string) logtest.NewFunc {
	return func(t *testing.T) (eventlog.Log, func(string) eventlog.Source) {
		p, consumer := kafkatest.Log(t, brokers, kafka.Options{PollMax: 1000})
		return p, func(group string) eventlog.Source { return consumer(group) }
	}
}

func source(t *testing.T, brokers []string, prefix, group string) *kafka.Source {
	t.Helper()
	s, err := kafka.New(kafka.Options{Brokers: brokers, Group: group, Prefix: prefix, PollMax: 1000})
	if err != nil {
		t.Fatalf("kafka.New: %v", err)
	}
	return s
}

// produce appends n records over every kind and 10 keys and returns them
// by value.
func produce(t *testing.T, brokers []string, prefix string, n int) map[string]eventlog.Record {
	t.Helper()
	return produceFrom(t, brokers, prefix, 0, n)
}

// produceFrom is produce of the records numbered from to from+n-1.
func produceFrom(t *testing.T, brokers []string, prefix string, from, n int) map[string]eventlog.Record {
	t.Helper()
	p, err := kafka.NewProducer(brokers, kafka.ProducerOptions{Prefix: prefix})
	if err != nil {
		t.Fatalf("NewProducer: %v", err)
	}
	defer p.Close()
	if err := kafka.EnsureTopics(t.Context(), p.Client(), prefix, 4, 1); err != nil {
		t.Fatalf("EnsureTopics: %v", err)
	}
	recs := make([]eventlog.Record, n)
	want := make(map[string]eventlog.Record, n)
	for i := range recs {
		recs[i] = eventlog.Record{Kind: eventlog.Kinds[i%3], Key: fmt.Sprintf("org/%d", i%10), Value: fmt.Appendf(nil, "v%05d", from+i)}
		want[string(recs[i].Value)] = recs[i]
	}
	if err := p.Append(t.Context(), recs); err != nil {
		t.Fatalf("Append: %v", err)
	}
	return want
}

// committed returns the group's committed offsets.
func committed(t *testing.T, brokers []string, group string) map[string]map[int32]int64 {
	t.Helper()
	cl, err := kafka.NewClient(brokers)
	if err != nil {
		t.Fatalf("client: %v", err)
	}
	defer cl.Close()
	resp, err := kadm.NewClient(cl).FetchOffsets(t.Context(), group)
	if err != nil {
		t.Fatalf("FetchOffsets: %v", err)
	}
	out := map[string]map[int32]int64{}
	resp.Each(func(o kadm.OffsetResponse) {
		if o.Err != nil {
			t.Fatalf("FetchOffsets %s[%d]: %v", o.Topic, o.Partition, o.Err)
		}
		if out[o.Topic] == nil {
			out[o.Topic] = map[int32]int64{}
		}
		out[o.Topic][o.Partition] = o.At
	})
	return out
}

// next returns, per topic and partition, the offset after the last of
// msgs.
func next(prefix string, msgs []eventlog.Message) map[string]map[int32]int64 {
	out := map[string]map[int32]int64{}
	for _, m := range msgs {
		topic := kafka.Topic(prefix, m.Kind)
		if out[topic] == nil {
			out[topic] = map[int32]int64{}
		}
		out[topic][m.Partition] = max(out[topic][m.Partition], m.Offset+1)
	}
	return out
}

func pollOnce(t *testing.T, s eventlog.Source) []eventlog.Message {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	msgs, err := s.Poll(ctx)
	if err != nil {
		t.Fatalf("Poll: %v", err)
	}
	return msgs
}

// TestCommitsOnlyProcessed shows that the group's committed offsets are
// exactly those of the messages Commit covered: records polled but not
// committed are not committed by Close (nor its revoke), and are read
// again.
func TestCommitsOnlyProcessed(t *testing.T) { onBoth(t, testCommitsOnlyProcessed) }

func testCommitsOnlyProcessed(t *testing.T, brokers []string, prefix string) {
	group := prefix + "only-processed"
	want := produce(t, brokers, prefix, 300)

	a, err := kafka.New(kafka.Options{Brokers: brokers, Group: group, Prefix: prefix, PollMax: 40})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	first := pollOnce(t, a)
	if err := a.Commit(t.Context()); err != nil {
		t.Fatalf("Commit: %v", err)
	}
	second := pollOnce(t, a) // processing, when the member stops
	if err := a.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if got, want := committed(t, brokers, group), next(prefix, first); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("committed offsets: got %v, want %v (those of the first batch only)", got, want)
	}

	b := source(t, brokers, prefix, group)
	defer b.Close()
	seen := map[string]bool{}
	for _, m := range first {
		seen[string(m.Value)] = true
	}
	var again []eventlog.Message
	for len(seen) < len(want) {
		for _, m := range pollOnce(t, b) {
			if seen[string(m.Value)] {
				t.Fatalf("message %s of the committed batch read again", m.Value)
			}
			seen[string(m.Value)] = true
			again = append(again, m)
		}
	}
	redelivered := map[string]bool{}
	for _, m := range again {
		redelivered[string(m.Value)] = true
	}
	for _, m := range second {
		if !redelivered[string(m.Value)] {
			t.Fatalf("message %s polled but not committed: not read again", m.Value)
		}
	}
}

// TestRebalance shows that a second member joining while the first holds
// an uncommitted batch waits for its Commit (rebalancing is blocked from
// Poll to Commit), and that afterwards the two split the partitions with
// no message lost, none read twice, and every offset committed.
func TestRebalance(t *testing.T) { onBoth(t, testRebalance) }

func testRebalance(t *testing.T, brokers []string, prefix string) {
	group := prefix + "rebalance"
	const n = 600
	want := produce(t, brokers, prefix, n)

	member := func() *kafka.Source {
		s, err := kafka.New(kafka.Options{Brokers: brokers, Group: group, Prefix: prefix, PollMax: 10})
		if err != nil {
			t.Fatalf("New: %v", err)
		}
		return s
	}
	a := member()
	batch := pollOnce(t, a)

	tally := newTally()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	defer func() { cancel(); wg.Wait() }() // also when the test fails early
	loop := func(member string, s eventlog.Source) {
		defer wg.Done()
		for tally.count() < n && ctx.Err() == nil {
			pctx, pcancel := context.WithTimeout(ctx, 500*time.Millisecond)
			msgs, err := s.Poll(pctx)
			pcancel()
			if err != nil {
				if pctx.Err() == nil {
					t.Errorf("%s: Poll: %v", member, err)
				}
				continue
			}
			tally.add(member, msgs)
			time.Sleep(20 * time.Millisecond) // processing: time for the other member to join
			if err := s.Commit(ctx); err != nil && ctx.Err() == nil {
				t.Errorf("%s: Commit: %v", member, err)
			}
		}
	}

	b := member()
	wg.Add(1)
	go loop("b", b)

	// b's join waits for a, which holds its batch.
	time.Sleep(2 * time.Second)
	if early := tally.of("b"); early != 0 {
		t.Fatalf("b processed %d messages while a held an uncommitted batch, want 0", early)
	}
	tally.add("a", batch)
	if err := a.Commit(t.Context()); err != nil {
		t.Fatalf("Commit: %v", err)
	}
	wg.Add(1)
	go loop("a", a)
	wg.Wait()
	if t.Failed() {
		return
	}
	split(t, brokers, prefix, group, tally, want, a, b)
}

// onBoth runs test on kfake and on the real broker, with a prefix of its
// own for topics and groups, deleted at the end.
func onBoth(t *testing.T, test func(t *testing.T, brokers []string, prefix string)) {
	t.Run("kfake", func(t *testing.T) {
		brokers := fake(t).ListenAddrs()
		test(t, brokers, testenv.KafkaPrefix(t, brokers))
	})
	t.Run("kafka", func(t *testing.T) {
		brokers := strings.Split(testenv.URL(t, testenv.Kafka), ",")
		test(t, brokers, testenv.KafkaPrefix(t, brokers))
	})
}

func endOffsets(t *testing.T, brokers []string, prefix string) map[string]map[int32]int64 {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...))
	if err != nil {
		t.Fatalf("client: %v", err)
	}
	defer cl.Close()
	topics := make([]string, len(eventlog.Kinds))
	for i, k := range eventlog.Kinds {
		topics[i] = kafka.Topic(prefix, k)
	}
	resp, err := kadm.NewClient(cl).ListEndOffsets(t.Context(), topics...)
	if err != nil {
		t.Fatalf("ListEndOffsets: %v", err)
	}
	out := map[string]map[int32]int64{}
	resp.Each(func(o kadm.ListedOffset) {
		if o.Offset == 0 {
			return // nothing there, nothing committed
		}
		if out[o.Topic] == nil {
			out[o.Topic] = map[int32]int64{}
		}
		out[o.Topic][o.Partition] = o.Offset
	})
	return out
}

// TestPollGathers: a Poll with fewer than MinBatch messages keeps fetching
// for up to Linger, so that records appended meanwhile join its batch;
// once Linger has passed it returns what it has, without an error.
func TestPollGathers(t *testing.T) { onBoth(t, testPollGathers) }

func testPollGathers(t *testing.T, brokers []string, prefix string) {
	produce(t, brokers, prefix, 10)
	open := func(group string, minBatch int, linger time.Duration) *kafka.Source {
		t.Helper()
		s, err := kafka.New(kafka.Options{Brokers: brokers, Group: prefix + group, Prefix: prefix, MinBatch: minBatch, Linger: linger})
		if err != nil {
			t.Fatalf("kafka.New: %v", err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}

	s := open("gather", 20, time.Minute)
	p, err := kafka.NewProducer(brokers, kafka.ProducerOptions{Prefix: prefix})
	if err != nil {
		t.Fatalf("NewProducer: %v", err)
	}
	defer p.Close()
	appended := make(chan error, 1)
	go func() {
		time.Sleep(500 * time.Millisecond) // while the Poll below waits for more
		recs := make([]eventlog.Record, 10)
		for i := range recs {
			recs[i] = eventlog.Record{Kind: eventlog.Kinds[i%3], Key: fmt.Sprintf("org/%d", i), Value: fmt.Appendf(nil, "late%02d", i)}
		}
		appended <- p.Append(context.WithoutCancel(t.Context()), recs)
	}()
	msgs := pollOnce(t, s)
	if err := <-appended; err != nil {
		t.Fatalf("Append: %v", err)
	}
	if len(msgs) != 20 {
		t.Fatalf("one Poll with MinBatch 20: got %d messages, want 20 (the 10 appended while it lingered included)", len(msgs))
	}

	s = open("linger-ends", 100, 300*time.Millisecond)
	if msgs := pollOnce(t, s); len(msgs) != 20 {
		t.Fatalf("one Poll with MinBatch 100 and Linger 300ms over 20 records: got %d messages, want 20", len(msgs))
	}
}

// tally counts the messages each member processed, by value.
type tally struct {
	mu       sync.Mutex
	seen     map[string]int
	byMember map[string]int
}

func newTally() *tally { return &tally{seen: map[string]int{}, byMember: map[string]int{}} }

// add counts msgs as processed by member.
func (c *tally) add(member string, msgs []eventlog.Message) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, m := range msgs {
		c.seen[string(m.Value)]++
		c.byMember[member]++
	}
}

// count is how many distinct messages were processed.
func (c *tally) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.seen)
}

// of is how many messages member processed.
func (c *tally) of(member string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.byMember[member]
}

// check fails t unless every message of want was processed exactly once,
// nothing else was, and member processed some.
func (c *tally) check(t *testing.T, want map[string]eventlog.Record, member string) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	for v, n := range c.seen {
		if _, ok := want[v]; !ok || n != 1 {
			t.Fatalf("message %s: got it %d times (expected %v), want once", v, n, ok)
		}
	}
	if len(c.seen) != len(want) || c.byMember[member] == 0 {
		t.Fatalf("got %d distinct messages, by member %v; want %d, %s among them", len(c.seen), c.byMember, len(want), member)
	}
}

// split checks how members a and b shared the group's messages: every
// message of want processed once, b processing some, and, once both have
// closed, every offset committed.
func split(t *testing.T, brokers []string, prefix, group string, c *tally, want map[string]eventlog.Record, a, b eventlog.Source) {
	t.Helper()
	c.check(t, want, "b")
	a.Close()
	b.Close()
	end := endOffsets(t, brokers, prefix)
	if got := committed(t, brokers, group); fmt.Sprint(got) != fmt.Sprint(end) {
		t.Fatalf("committed offsets: got %v, want the end offsets %v", got, end)
	}
}
