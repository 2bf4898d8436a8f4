package kafka

// The consumer: a group (franz-go) that implements eventlog.Source and
// eventlog.PrefixCommitter with at-least-once delivery.
//
// The group commits only what the processor reported processed: Commit
// (everything Poll returned) or CommitThrough (a batch and those before
// it, while later batches are still being processed) marks the batches'
// last records and commits the marks synchronously. Poll blocks
// rebalancing (kgo.BlockRebalanceOnPoll) while any batch it returned is
// in hand, so a member never commits records of a partition it no longer
// owns, and the revoke callback commits what was marked and nothing more.
// When a rebalance waits (kgo.OnPartitionsCallbackBlocked), Poll stops
// handing out batches, waits for the commits of those in hand, and then
// lets it run (kgo.AllowRebalance). The price: a rebalance waits for the
// batches in hand (a processor's pipeline holds at most three), so
// processing them must stay well within the group's rebalance timeout
// (kgo's default: one minute).

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
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
// end to end and halved its freshness lag
// (benchmarks/history/issue-15.md).
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
// broker's CPU there (benchmarks/history/issue-15.md). The wait bounds
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
// event log. It implements eventlog.Source and eventlog.PrefixCommitter.
// Poll must not be called concurrently with itself, nor with Commit;
// CommitThrough may run beside a Poll; Close may be called at any time.
type Source struct {
	cl     *kgo.Client
	prefix string
	max    int
	min    int
	linger time.Duration
	log    *slog.Logger

	// epoch counts the assignments of partitions (Message.Epoch).
	epoch atomic.Uint64
	// deferred is a fetch error that came with records, for the next
	// Poll; only Poll touches it.
	deferred error

	mu sync.Mutex
	// batches are the batches Poll returned that are not committed, in
	// log order. While any is in hand the group does not rebalance.
	batches []polled
	// rebalance: a rebalance waits for this member to let it run
	// (kgo.OnPartitionsCallbackBlocked).
	rebalance bool
	// interrupt ends the fetch of the Poll in progress, if any.
	interrupt context.CancelFunc
	// drained is signalled when the last batch in hand is committed.
	drained chan struct{}
}

// polled is a batch Poll returned: the address of its first message, by
// which CommitThrough knows it, and its last record of each partition.
type polled struct {
	first *eventlog.Message
	last  map[partition]*kgo.Record
}

type partition struct {
	topic string
	p     int32
}

var (
	_ eventlog.Source          = (*Source)(nil)
	_ eventlog.PrefixCommitter = (*Source)(nil)
)

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
		drained: make(chan struct{}, 1),
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
		kgo.OnPartitionsCallbackBlocked(func(context.Context, *kgo.Client) { s.rebalanceWaits() }),
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
// was marked processed and drops the batches still in hand, whose records
// are left to the partitions' next owner. Because the group rebalances
// only once every batch is committed (see Poll), the batches are in hand
// here only when the member closes or its partitions are lost; after a
// loss the commit is likely refused, which is harmless: the new owner
// reads from the last commit.
func (s *Source) commitMarked(why string) func(context.Context, *kgo.Client, map[string][]int32) {
	return func(ctx context.Context, cl *kgo.Client, parts map[string][]int32) {
		s.mu.Lock()
		s.batches = nil
		s.mu.Unlock()
		if err := cl.CommitMarkedOffsets(ctx); err != nil {
			s.log.Warn("kafka: commit of processed offsets failed", "partitions", why, "err", err)
		}
	}
}

// rebalanceWaits records that a rebalance waits for this member and ends
// the fetch of a Poll in progress, so that Poll lets it run as soon as the
// batches in hand are committed.
func (s *Source) rebalanceWaits() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rebalance = true
	if s.interrupt != nil {
		s.interrupt()
	}
}

// Poll implements eventlog.Source: it returns up to Options.PollMax
// messages in order per partition, waiting until one arrives or ctx ends
// (the error then wraps ctx.Err()), and then up to Options.Linger more
// while it has fewer than Options.MinBatch. Fetch errors are returned; one
// that came with messages is returned by the next Poll instead, so that
// no message is dropped. Fetch errors are retryable unless the client is
// closed.
//
// The group does not rebalance while a batch Poll returned is in hand
// (kgo.BlockRebalanceOnPoll), so a member never commits records of a
// partition it no longer owns. When a rebalance waits, Poll returns
// nothing more until every batch in hand is committed (by Commit or
// CommitThrough in another goroutine), then lets it run.
func (s *Source) Poll(ctx context.Context) ([]eventlog.Message, error) {
	if err := s.deferred; err != nil {
		s.deferred = nil
		return nil, err
	}
	for {
		if err := s.yield(ctx); err != nil {
			return nil, err
		}
		fctx, done := s.fetchContext(ctx)
		last := map[partition]*kgo.Record{}
		msgs, err := s.fetch(fctx, nil, s.max, last)
		if len(msgs) > 0 && len(msgs) < s.min && err == nil && s.linger > 0 {
			msgs, err = s.gather(fctx, msgs, last)
		}
		done()
		s.mu.Lock()
		if len(msgs) > 0 {
			s.batches = append(s.batches, polled{&msgs[0], last})
		}
		idle := len(s.batches) == 0
		s.mu.Unlock()
		if len(msgs) > 0 {
			s.deferred = err
			return msgs, nil
		}
		if idle {
			// Nothing in hand: no reason to hold up a rebalance.
			s.cl.AllowRebalance()
		}
		if err != nil {
			return nil, err
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("kafka: poll: %w", ctx.Err())
		}
	}
}

// yield lets a waiting rebalance run once no batch is in hand, waiting
// for the commits of those that are; it returns an error only when ctx
// ends first.
func (s *Source) yield(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.rebalance {
		return nil
	}
	for len(s.batches) > 0 {
		s.mu.Unlock()
		select {
		case <-s.drained:
		case <-ctx.Done():
			s.mu.Lock()
			return fmt.Errorf("kafka: poll: %w", ctx.Err())
		}
		s.mu.Lock()
	}
	s.rebalance = false
	s.cl.AllowRebalance()
	return nil
}

// fetchContext returns the context of one fetch: ctx, ended early when a
// rebalance waits (rebalanceWaits).
func (s *Source) fetchContext(ctx context.Context) (context.Context, func()) {
	fctx, cancel := context.WithCancel(ctx)
	s.mu.Lock()
	s.interrupt = cancel
	if s.rebalance {
		cancel() // it came after yield looked
	}
	s.mu.Unlock()
	return fctx, func() {
		s.mu.Lock()
		s.interrupt = nil
		s.mu.Unlock()
		cancel()
	}
}

// fetch appends to msgs the records of one PollRecords of at most max,
// keeping each partition's last in last, and returns the fetch errors
// worth the caller's attention: a context's end is not one of them.
func (s *Source) fetch(ctx context.Context, msgs []eventlog.Message, max int, last map[partition]*kgo.Record) ([]eventlog.Message, error) {
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
		last[partition{r.Topic, r.Partition}] = r
	})
	return msgs, s.fetchErr(fs)
}

// gather fetches more after msgs until the batch has Options.MinBatch
// messages or Options.Linger has passed. The linger's deadline, or ctx
// ending, returns what is gathered without an error; a fetch error
// returns it with the error, which Poll defers to the next call.
func (s *Source) gather(ctx context.Context, msgs []eventlog.Message, last map[partition]*kgo.Record) ([]eventlog.Message, error) {
	lctx, cancel := context.WithTimeout(ctx, s.linger)
	defer cancel()
	for len(msgs) < s.min && lctx.Err() == nil {
		var err error
		if msgs, err = s.fetch(lctx, msgs, s.max-len(msgs), last); err != nil {
			return msgs, err
		}
	}
	return msgs, nil
}

// fetchErr returns the fetch errors of fs worth the caller's attention:
// not a context's end, which the caller sees on its context.
func (s *Source) fetchErr(fs kgo.Fetches) error {
	var errs []error
	fs.EachError(func(topic string, p int32, err error) {
		if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
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

// Commit implements eventlog.Source: it marks the records of every batch
// Poll returned, synchronously commits every marked offset (never beyond
// them), and then lets a waiting rebalance proceed. On error the marks
// remain, and the next commit, the revoke callback or the periodic
// autocommit commits them; the error is retryable.
func (s *Source) Commit(ctx context.Context) error {
	s.mu.Lock()
	s.markThrough(len(s.batches) - 1)
	s.mu.Unlock()
	err := s.commit(ctx)
	s.cl.AllowRebalance()
	return err
}

// CommitThrough implements eventlog.PrefixCommitter: it marks the records
// of msgs, a batch Poll returned, and of the batches returned before it,
// and synchronously commits every marked offset; the batches returned
// after it stay in hand. A batch committed through before (a commit that
// failed, retried) is committed again. It may run while a Poll waits; a
// rebalance waiting for the batches runs at Poll's next call once none is
// in hand. Errors are retryable, as Commit's.
func (s *Source) CommitThrough(ctx context.Context, msgs []eventlog.Message) error {
	if len(msgs) == 0 {
		return nil
	}
	s.mu.Lock()
	s.markThrough(slices.IndexFunc(s.batches, func(b polled) bool { return b.first == &msgs[0] }))
	s.mu.Unlock()
	return s.commit(ctx)
}

// markThrough marks the records of batches[:i+1] for the commit and drops
// those batches from the ones in hand; it does nothing for i < 0. The
// caller holds s.mu.
func (s *Source) markThrough(i int) {
	if i < 0 {
		return
	}
	last := map[partition]*kgo.Record{}
	for _, b := range s.batches[:i+1] {
		maps.Copy(last, b.last) // later batches are further along
	}
	if len(last) > 0 {
		s.cl.MarkCommitRecords(slices.Collect(maps.Values(last))...)
	}
	s.batches = slices.Delete(s.batches, 0, i+1)
	if len(s.batches) == 0 {
		select {
		case s.drained <- struct{}{}:
		default:
		}
	}
}

// commit synchronously commits every marked offset.
func (s *Source) commit(ctx context.Context) error {
	if err := s.cl.CommitMarkedOffsets(ctx); err != nil {
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
