package kafka

import (
	"context"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// reachability lets Append say within a second that no broker can be
// reached, rather than at its timeout (issue 33: a stopped Kafka cost the
// first client 10 s, later ones 3.4 s). The producer's clients report
// each failed dial to it (OnBrokerConnect); an Append waiting for its
// records then asks the cluster (Ping, within probeTimeout) and gives up
// when no broker answers. Once the brokers were found unreachable, each
// Append asks before its records are handed to a client, and fails at
// once while none answers: its records are never sent, so nothing is
// written after the 503, and the client's retry is the only copy.
type reachability struct {
	// down is whether the last probe found no broker.
	down atomic.Bool

	mu sync.Mutex
	// dialFailed is closed at the next failed dial, then replaced.
	dialFailed chan struct{}
}

// probeTimeout bounds a probe of the brokers: a stopped broker refuses at
// once, an unreachable host is given this long.
const probeTimeout = 500 * time.Millisecond

var _ kgo.HookBrokerConnect = (*reachability)(nil)

// OnBrokerConnect implements kgo.HookBrokerConnect: a failed dial wakes
// the Appends waiting.
func (r *reachability) OnBrokerConnect(_ kgo.BrokerMetadata, _ time.Duration, _ net.Conn, err error) {
	if err == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.dialFailed != nil {
		close(r.dialFailed)
	}
	r.dialFailed = make(chan struct{})
}

// failedDial returns a channel closed at the next failed dial.
func (r *reachability) failedDial() <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.dialFailed == nil {
		r.dialFailed = make(chan struct{})
	}
	return r.dialFailed
}

// probe asks whether any broker answers cl, within probeTimeout, and
// keeps the answer.
func (r *reachability) probe(ctx context.Context, cl *kgo.Client) error {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	err := cl.Ping(ctx)
	r.down.Store(err != nil)
	return err
}
