// Package fanout tells every replica of Vigil about a change it must act
// on at once, such as a revoked API key, through Redis publish/subscribe.
// Delivery is best effort: a replica that misses a message (Redis
// restarting, a dropped connection) must bound its staleness some other
// way, such as a short cache lifetime.
//
// It imports nothing of Vigil.
package fanout

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"
)

// Redis publishes and subscribes on Redis channels named Prefix+channel.
// The zero value is not usable: set Client.
type Redis struct {
	Client redis.UniversalClient
	Prefix string
}

// Publish sends msg to every subscriber of channel, this process's
// included.
func (r *Redis) Publish(ctx context.Context, channel, msg string) error {
	if err := r.Client.Publish(ctx, r.Prefix+channel, msg).Err(); err != nil {
		return fmt.Errorf("fanout publish: %w", err)
	}
	return nil
}

// Subscribe calls fn with each message on channel until ctx ends. Once
// Subscribe has returned ready (closed), messages published afterwards
// reach fn. The subscription survives reconnects of the client.
func (r *Redis) Subscribe(ctx context.Context, channel string, fn func(msg string)) (ready <-chan struct{}, done <-chan error) {
	readyc, donec := make(chan struct{}), make(chan error, 1)
	go func() {
		ps := r.Client.Subscribe(ctx, r.Prefix+channel)
		defer ps.Close()
		if _, err := ps.Receive(ctx); err != nil {
			close(readyc)
			donec <- fmt.Errorf("fanout subscribe: %w", err)
			return
		}
		close(readyc)
		ch := ps.Channel()
		for {
			select {
			case <-ctx.Done():
				donec <- nil
				return
			case m, ok := <-ch:
				if !ok {
					donec <- nil
					return
				}
				fn(m.Payload)
			}
		}
	}()
	return readyc, donec
}
