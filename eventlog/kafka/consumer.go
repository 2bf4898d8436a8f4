package kafka

// The consumer: a group (franz-go) that implements eventlog.Source with
// at-least-once delivery.
//
// The group commits only what the processor reported processed. Poll
// returns records and blocks rebalancing (kgo.BlockRebalanceOnPoll);
// Commit marks exactly those records, commits them synchronously and only
// then allows a rebalance (kgo.AllowRebalance). A rebalance therefore runs
// only between a Commit and the next Poll that returns records, so a
// member never commits records of a partition it no longer owns, and the
// revoke callback commits what was marked processed and nothing more. The
// price: between a Poll that returned records and its Commit the member
// holds up every rebalance of the group, so processing one batch must stay
// well within the group's rebalance timeout (kgo's default: one minute).

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/vigilhq/vigil/eventlog"
)

// The defaults of Options.PollMax, MinBatch and Linger. A batch is what
// a processor writes to the analytical store in one INSERT per table, and
// ClickHouse pays a fixed cost per INSERT (a new part on disk, merged
// later), so batches are kept large: up to 20,000 messages while a
// backlog drains, and under a steady load at least 1,000 (or what 100 ms
// brings) instead of each small fetch. Against 5,000 and no linger this
// took the ClickHouse pipeline from about 30k to 45k predictions a second
// end to end and halved its freshness lag (benchmarks/RESULTS.md,
// issue 15).
const (
	DefaultPollMax  = 20_000
	DefaultMinBatch = 1000
	DefaultLinger   = 100 * time.Millisecond
)

// fetchMinBytes and fetchMaxWait: the broker answers a fetch once it has
// fetchMinBytes for it, or after fetchMaxWait. With franz-go's default of
// one byte, a consumer under a trickle of records (single events) sent a
// fetch per round trip, each answered at once with a few records; waiting
// for 64 KiB (a few hundred predictions) took about a sixth off the
// broker's CPU there (benchmarks/RESULTS.md, issue 15). The wait bounds
// what it adds to the lag (DefaultLinger's worth); a long one also holds
// a new assignment's first records back: franz-go's default of 5 s
// delayed them by 5 s whenever one topic's offsets loaded after
// another's.
const (
	fetchMinBytes = 64 << 10
	fetchMaxWait  = 100 * time.Millisecond
)

// Options configures a Source.
type Options struct {
	// Brokers are the seed brokers; required.
	Brokers []string
	// Group is the consumer group; required.
	Group string
	// Prefix starts every topic's name (DefaultPrefix).
	Prefix string
	// Kinds are the kinds of event read (eventlog.Kinds).
	Kinds []string
	// InstanceID, when set, makes the member static (kgo.InstanceID): a
	// restart with the same id gets its partitions back without waiting
	// for the group to expire the old member. It does not leave the group
	// on Close.
	InstanceID string
	// PollMax is the most messages one Poll returns (DefaultPollMax).
	PollMax int
	// MinBatch and Linger: a Poll that has fewer than MinBatch messages
	// keeps fetching for up to Linger after its first message, then
	// returns what it has (DefaultMinBatch, DefaultLinger; a negative
	// Linger returns the first fetch at once).
	MinBatch int
	Linger   time.Duration
	// Logger receives commit errors of rebalances and informational
	// fetch errors (slog.Default()).
	Logger *slog.Logger
}

// Source is a member of a Kafka consumer group reading the topics of the
// event log. It implements eventlog.Source. Poll and Commit must not be
// called concurrently with each other; Close may be called at any time.
type Source struct {
	cl     *kgo.Client
	prefix string
	max    int
	min    int
	linger time.Duration
	log    *slog.Logger

	// epoch counts the assignments of partitions (Message.Epoch).
	epoch atomic.Uint64

	mu       sync.Mutex
	pending  map[partition]*kgo.Record // last record per partition returned by Poll since Commit
	blocking bool                      // a Poll returned records: rebalances wait for Commit
	deferred error                     // a fetch error that came with records, for the next Poll
}

type partition struct {
	topic string
	p     int32
}

var _ eventlog.Source = (*Source)(nil)

// New joins the consumer group o.Group, lazily: the first Poll connects. A
// group without committed offsets starts at the earliest offset of every
// partition. opts are added to the client's options.
func New(o Options, opts ...kgo.Opt) (*Source, error) {
	if o.Group == "" {
		return nil, errors.New("kafka: consumer: no group")
	}
	if o.Prefix == "" {
		o.Prefix = DefaultPrefix
	}
	if len(o.Kinds) == 0 {
		o.Kinds = eventlog.Kinds
	}
	if o.PollMax <= 0 {
		o.PollMax = DefaultPollMax
	}
	if o.MinBatch <= 0 {
		o.MinBatch = DefaultMinBatch
	}
	if o.Linger == 0 {
		o.Linger = DefaultLinger
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	s := &Source{
		prefix:  o.Prefix,
		max:     o.PollMax,
		min:     min(o.MinBatch, o.PollMax),
		linger:  o.Linger,
		log:     o.Logger.With("group", o.Group),
		pending: make(map[partition]*kgo.Record),
	}
	topics := make([]string, len(o.Kinds))
	for i, k := range o.Kinds {
		topics[i] = Topic(o.Prefix, k)
	}
	base := []kgo.Opt{
		kgo.ConsumerGroup(o.Group),
		kgo.ConsumeTopics(topics...),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		// Only records marked by Commit are ever committed, by Commit
		// itself, on revoke, or by the periodic autocommit retrying a
		// failed Commit.
		kgo.AutoCommitMarks(),
		kgo.BlockRebalanceOnPoll(),
		// One fetch is in flight per broker, and a partition assigned
		// while it waits joins the next one (see fetchMaxWait).
		kgo.FetchMaxWait(fetchMaxWait),
		kgo.FetchMinBytes(fetchMinBytes),
		kgo.OnPartitionsAssigned(func(context.Context, *kgo.Client, map[string][]int32) { s.epoch.Add(1) }),
		kgo.OnPartitionsRevoked(s.commitMarked("revoked")),
		kgo.OnPartitionsLost(s.commitMarked("lost")),
	}
	if o.InstanceID != "" {
		base = append(base, kgo.InstanceID(o.InstanceID))
	}
	cl, err := NewClient(o.Brokers, append(base, opts...)...)
	if err != nil {
		return nil, err
	}
	s.cl = cl
	return s, nil
}

// commitMarked returns the revoke (or lost) callback: it commits what
// Commit marked processed. Because Poll blocks rebalancing until Commit,
// nothing is pending when it runs but for a Close, whose records stay
// uncommitted. After partitions are lost the commit is likely refused,
// which is harmless: the new owner reads from the last commit.
func (s *Source) commitMarked(why string) func(context.Context, *kgo.Client, map[string][]int32) {
	return func(ctx context.Context, cl *kgo.Client, parts map[string][]int32) {
		if err := cl.CommitMarkedOffsets(ctx); err != nil {
			s.log.Warn("kafka: commit of processed offsets failed", "partitions", why, "err", err)
		}
	}
}

// Poll implements eventlog.Source: it returns up to Options.PollMax
// messages in order per partition, waiting until one arrives or ctx ends
// (the error then wraps ctx.Err()), and then up to Options.Linger more
// while it has fewer than Options.MinBatch. Until the next Commit or
// Close, the group does not rebalance. Fetch errors are returned; one
// that came with messages is returned by the next Poll instead, so that
// no message is dropped. Fetch errors are retryable unless the client is
// closed.
func (s *Source) Poll(ctx context.Context) ([]eventlog.Message, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.deferred; err != nil {
		s.deferred = nil
		return nil, err
	}
	for {
		msgs, err := s.fetch(ctx, nil, s.max, false)
		if len(msgs) > 0 && len(msgs) < s.min && err == nil && s.linger > 0 {
			msgs, err = s.gather(ctx, msgs)
		}
		if len(msgs) == 0 {
			// This poll returned nothing to commit: it need not hold up
			// a rebalance (unless an earlier one still does).
			if !s.blocking {
				s.cl.AllowRebalance()
			}
			if err != nil {
				return nil, err
			}
			if ctx.Err() != nil {
				return nil, fmt.Errorf("kafka: poll: %w", ctx.Err())
			}
			continue
		}
		s.blocking = true
		s.deferred = err
		return msgs, nil
	}
}

// fetch appends to msgs the records of one PollRecords of at most max,
// remembering each partition's last for Commit, and returns the fetch
// errors worth the caller's attention; with lingering, ctx ending is not
// one of them.
func (s *Source) fetch(ctx context.Context, msgs []eventlog.Message, max int, lingering bool) ([]eventlog.Message, error) {
	fs := s.cl.PollRecords(ctx, max)
	fs.EachRecord(func(r *kgo.Record) {
		msgs = append(msgs, eventlog.Message{
			Kind:      strings.TrimPrefix(r.Topic, s.prefix),
			Key:       string(r.Key),
			Value:     r.Value,
			Partition: r.Partition,
			Offset:    r.Offset,
			Epoch:     s.epoch.Load(),
		})
		s.pending[partition{r.Topic, r.Partition}] = r
	})
	return msgs, s.fetchErr(fs, lingering)
}

// gather fetches more after msgs until the batch has Options.MinBatch
// messages or Options.Linger has passed. The linger's deadline, or ctx
// ending, returns what is gathered without an error; a fetch error
// returns it with the error, which Poll defers to the next call.
func (s *Source) gather(ctx context.Context, msgs []eventlog.Message) ([]eventlog.Message, error) {
	lctx, cancel := context.WithTimeout(ctx, s.linger)
	defer cancel()
	for len(msgs) < s.min && lctx.Err() == nil {
		var err error
		if msgs, err = s.fetch(lctx, msgs, s.max-len(msgs), true); err != nil {
			return msgs, err
		}
	}
	return msgs, nil
}

// fetchErr returns the fetch errors of fs worth the caller's attention;
// with lingering, not the context's end.
func (s *Source) fetchErr(fs kgo.Fetches, lingering bool) error {
	var errs []error
	fs.EachError(func(topic string, p int32, err error) {
		if lingering && (errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)) {
			return
		}
		var loss *kgo.ErrDataLoss
		if errors.As(err, &loss) {
			// Informational: the client already resumed where it could.
			s.log.Warn("kafka: data loss detected", "topic", topic, "partition", p, "err", err)
			return
		}
		if topic == "" {
			errs = append(errs, err) // closed client, ctx, group session
			return
		}
		errs = append(errs, fmt.Errorf("%s[%d]: %w", topic, p, err))
	})
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("kafka: poll: %w", errors.Join(errs...))
}

// Commit implements eventlog.Source: it marks the records Poll returned
// since the last Commit, synchronously commits every marked offset (never
// beyond them), and then lets a waiting rebalance proceed. On error the
// marks remain, and the next Commit, the revoke callback or the periodic
// autocommit commits them; the error is retryable.
func (s *Source) Commit(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.pending) > 0 {
		recs := make([]*kgo.Record, 0, len(s.pending))
		for _, r := range s.pending {
			recs = append(recs, r)
		}
		s.cl.MarkCommitRecords(recs...)
		clear(s.pending)
	}
	err := s.cl.CommitMarkedOffsets(ctx)
	if s.blocking {
		s.blocking = false
		s.cl.AllowRebalance()
	}
	if err != nil {
		return fmt.Errorf("kafka: commit: %w", err)
	}
	return nil
}

// Client returns the source's client, for readiness checks.
func (s *Source) Client() *kgo.Client { return s.cl }

// Close implements eventlog.Source: it leaves the group, committing what
// Commit marked; messages Poll returned since the last Commit are not
// committed and are read again by the group. A Poll waiting in another
// goroutine returns an error.
func (s *Source) Close() error {
	s.cl.CloseAllowingRebalance()
	return nil
}
