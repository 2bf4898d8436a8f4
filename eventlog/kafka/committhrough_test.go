package kafka_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/vigilhq/vigil/eventlog"
	"github.com/vigilhq/vigil/eventlog/kafka"
)

// TestCommitThrough: committing through a batch commits it and the ones
// polled before it, not those polled after, which the group's next member
// reads; committing through an earlier batch again changes nothing; and a
// CommitThrough does not wait for a Poll waiting in another goroutine.
func TestCommitThrough(t *testing.T) { onBoth(t, testCommitThrough) }

func testCommitThrough(t *testing.T, brokers []string, prefix string) {
	group := prefix + "commit-through"
	want := produce(t, brokers, prefix, 300)
	s, err := kafka.New(kafka.Options{Brokers: brokers, Group: group, Prefix: prefix, PollMax: 40})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	first, second := pollOnce(t, s), pollOnce(t, s)
	var rest []eventlog.Message // every message after the second batch
	for len(first)+len(second)+len(rest) < len(want) {
		rest = append(rest, pollOnce(t, s)...)
	}

	ctx, cancel := context.WithCancel(t.Context())
	waiting := make(chan error, 1)
	go func() { _, err := s.Poll(ctx); waiting <- err }() // nothing left: it waits
	answered := make(chan error, 1)
	go func() { answered <- s.CommitThrough(t.Context(), second) }()
	select {
	case err := <-answered:
		if err != nil {
			t.Fatalf("CommitThrough: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("CommitThrough waited for the Poll in another goroutine")
	}
	cancel()
	<-waiting
	if err := s.CommitThrough(t.Context(), first); err != nil {
		t.Fatalf("CommitThrough of an earlier batch: %v", err)
	}
	s.Close()
	through := append(append([]eventlog.Message(nil), first...), second...)
	if got, want := committed(t, brokers, group), next(prefix, through); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("committed offsets: got %v, want %v (those of the first two batches)", got, want)
	}

	again := map[string]bool{}
	b := source(t, brokers, prefix, group)
	defer b.Close()
	for len(again) < len(rest) {
		for _, m := range pollOnce(t, b) {
			again[string(m.Value)] = true
		}
	}
	for _, m := range rest {
		if !again[string(m.Value)] {
			t.Fatalf("message %s polled after the batch committed through: not read by the next member", m.Value)
		}
	}
	for _, m := range through {
		if again[string(m.Value)] {
			t.Fatalf("message %s of a batch committed through: read again", m.Value)
		}
	}
}

// TestRebalanceWaitsForBatchesInHand: a member that reads ahead holds a
// batch when a second member joins, and polls again before committing it;
// the rebalance waits until the batch is committed through (the Poll
// after that lets it run), and the two members then split the partitions
// with no message lost, none read twice and every offset committed. With
// the eager balancer every partition moves, the held batch's among them;
// with the default (cooperative) one, some.
func TestRebalanceWaitsForBatchesInHand(t *testing.T) {
	for name, balancer := range map[string]kgo.GroupBalancer{"eager": kgo.RangeBalancer(), "cooperative": kgo.CooperativeStickyBalancer()} {
		t.Run(name, func(t *testing.T) {
			onBoth(t, func(t *testing.T, brokers []string, prefix string) {
				testRebalanceWaitsForBatchesInHand(t, brokers, prefix, balancer)
			})
		})
	}
}

func testRebalanceWaitsForBatchesInHand(t *testing.T, brokers []string, prefix string, balancer kgo.GroupBalancer) {
	group := prefix + "read-ahead"
	const n = 600
	want := produce(t, brokers, prefix, n)
	member := func() *kafka.Source {
		// Heartbeats every 100 ms: a learns of b's join well within
		// the two seconds it holds its batch before reading on.
		s, err := kafka.New(kafka.Options{Brokers: brokers, Group: group, Prefix: prefix, PollMax: 10},
			kgo.Balancers(balancer), kgo.HeartbeatInterval(100*time.Millisecond))
		if err != nil {
			t.Fatalf("New: %v", err)
		}
		return s
	}
	tally := newTally()
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	defer func() { cancel(); wg.Wait() }()
	// loop reads one batch ahead of the one it processes and commits
	// through, as the processor does, starting with ahead in hand.
	loop := func(who string, s *kafka.Source, ahead []eventlog.Message) {
		defer wg.Done()
		for tally.count() < n && ctx.Err() == nil {
			pctx, pcancel := context.WithTimeout(ctx, 500*time.Millisecond)
			msgs, err := s.Poll(pctx)
			pcancel()
			if err != nil && pctx.Err() == nil {
				t.Errorf("%s: Poll: %v", who, err)
			}
			if len(ahead) > 0 {
				tally.add(who, ahead)
				if err := s.CommitThrough(ctx, ahead); err != nil && ctx.Err() == nil {
					t.Errorf("%s: CommitThrough: %v", who, err)
				}
			}
			ahead = msgs
		}
		if len(ahead) > 0 {
			tally.add(who, ahead)
			s.CommitThrough(ctx, ahead)
		}
	}

	a := member()
	first := pollOnce(t, a)
	b := member()
	wg.Add(1)
	go loop("b", b, nil)
	time.Sleep(2 * time.Second) // b's join waits for a, which holds a batch
	wg.Add(1)
	go loop("a", a, first) // a's first Poll, first in hand, must hold the rebalance
	wg.Wait()
	if t.Failed() {
		return
	}
	split(t, brokers, prefix, group, tally, want, a, b)
}
