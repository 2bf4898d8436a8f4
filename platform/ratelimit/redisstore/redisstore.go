// Package redisstore implements ratelimit.Store on Redis, so that every
// replica of Vigil shares rate-limit counters and login lockouts.
//
// It imports ratelimit alone.
package redisstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/vigilhq/vigil/platform/ratelimit"
)

// Store is a ratelimit.Store on Redis. Incr, Get, Block and Blocked are each
// one atomic Redis command or script, so replicas may share keys freely;
// Delete pipelines one DEL per Redis key.
//
// Key k's counter lives at prefix+"c:"+k and its block at prefix+"b:"+k; each
// command touches one Redis key, so a Store works on Redis Cluster too.
// Errors wrap ratelimit.ErrUnavailable and the go-redis error.
type Store struct {
	client redis.UniversalClient
	prefix string
}

var _ ratelimit.Store = (*Store)(nil)

// New returns a Store keeping its keys under prefix, e.g. "vigil:ratelimit:",
// in client. Stores with different prefixes do not see each other's keys.
func New(client redis.UniversalClient, prefix string) *Store {
	return &Store{client: client, prefix: prefix}
}

// Open returns a client for a redis:// or rediss:// URL such as
// redis://:password@localhost:6379/0. It does not connect: the first command
// does. The caller closes the client.
func Open(url string) (redis.UniversalClient, error) {
	opts, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("redisstore: parse URL: %w", err)
	}
	return redis.NewClient(opts), nil
}

// incrScript adds 1 to KEYS[1] and sets its expiry to ARGV[1] ms when the key
// is new (or, defensively, has lost its expiry).
var incrScript = redis.NewScript(`
local n = redis.call('INCR', KEYS[1])
local ttl = tonumber(ARGV[1])
if ttl > 0 and (n == 1 or redis.call('PTTL', KEYS[1]) < 0) then
	redis.call('PEXPIRE', KEYS[1], ttl)
end
return n
`)

// blockScript blocks KEYS[1] for ARGV[1] ms unless it stays blocked longer.
var blockScript = redis.NewScript(`
local ms = tonumber(ARGV[1])
if redis.call('PTTL', KEYS[1]) >= ms then
	return 0
end
redis.call('SET', KEYS[1], '1', 'PX', ms)
return 1
`)

// slideScript is ratelimit.Step in one round trip: KEYS[1] and KEYS[2] are
// the previous and the current window's counters, ARGV the limit, the
// window and the time elapsed in it (nanoseconds) and the counter's ttl
// (ms). It counts the request (INCR, expiry as incrScript) when
// cur + ceil(prev * (window-elapsed) / window) + 1 <= limit, decided
// exactly: as prev * (window-elapsed) <= (limit-1-cur) * window, both
// products taken in 18-bit limbs, since Lua's numbers are float64 and
// the products reach 2^106 (every input is below 2^53, ratelimit.MaxSlide).
// It returns {prev, cur, counted}.
var slideScript = redis.NewScript(`
local R = 262144
local function limbs(x)
	local a = {}
	for i = 1, 3 do
		local d = x % R
		a[i] = d
		x = (x - d) / R
	end
	return a
end
local function mul(x, y)
	local a, b, c = limbs(x), limbs(y), {0, 0, 0, 0, 0, 0, 0}
	for i = 1, 3 do
		for j = 1, 3 do
			c[i + j - 1] = c[i + j - 1] + a[i] * b[j]
		end
	end
	for k = 1, 6 do
		local d = c[k] % R
		c[k + 1] = c[k + 1] + (c[k] - d) / R
		c[k] = d
	end
	return c
end
local function le(x, y)
	for k = 7, 1, -1 do
		if x[k] ~= y[k] then
			return x[k] < y[k]
		end
	end
	return true
end
local prev = tonumber(redis.call('GET', KEYS[1]) or '0')
local cur = tonumber(redis.call('GET', KEYS[2]) or '0')
local limit, window, elapsed, ttl = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local room = limit - 1 - cur
local fits = room >= 0
if fits and prev > 0 and elapsed < window then
	fits = le(mul(prev, window - elapsed), mul(room, window))
end
if not fits then
	return {prev, cur, 0}
end
cur = redis.call('INCR', KEYS[2])
if cur == 1 or redis.call('PTTL', KEYS[2]) < 0 then
	redis.call('PEXPIRE', KEYS[2], ttl)
end
return {prev, cur, 1}
`)

var _ ratelimit.Slider = (*Store)(nil)

// Slide implements ratelimit.Slider in one round trip (EVALSHA, falling
// back to EVAL when Redis does not hold the script yet). Its two keys
// share a Redis Cluster hash tag (see ratelimit's window keys).
func (s *Store) Slide(ctx context.Context, step ratelimit.Step) (prev, cur int64, counted bool, err error) {
	res, err := slideScript.Run(ctx, s.client, []string{s.counter(step.PrevKey), s.counter(step.CurKey)},
		step.Limit, int64(step.Window), int64(step.Elapsed), millis(2*step.Window)).Int64Slice()
	if err != nil {
		return 0, 0, false, wrap("slide", step.CurKey, err)
	}
	if len(res) != 3 {
		return 0, 0, false, wrap("slide", step.CurKey, fmt.Errorf("script answered %d values, want 3", len(res)))
	}
	return res[0], res[1], res[2] == 1, nil
}

// Incr implements ratelimit.Store.
func (s *Store) Incr(ctx context.Context, key string, ttl time.Duration) (int64, error) {
	var ms int64
	if ttl > 0 {
		ms = millis(ttl)
	}
	n, err := incrScript.Run(ctx, s.client, []string{s.counter(key)}, ms).Int64()
	if err != nil {
		return 0, wrap("incr", key, err)
	}
	return n, nil
}

// Get implements ratelimit.Store.
func (s *Store) Get(ctx context.Context, key string) (int64, error) {
	n, err := s.client.Get(ctx, s.counter(key)).Int64()
	if errors.Is(err, redis.Nil) {
		return 0, nil
	}
	if err != nil {
		return 0, wrap("get", key, err)
	}
	return n, nil
}

// Block implements ratelimit.Store.
func (s *Store) Block(ctx context.Context, key string, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	if err := blockScript.Run(ctx, s.client, []string{s.block(key)}, millis(d)).Err(); err != nil {
		return wrap("block", key, err)
	}
	return nil
}

// Blocked implements ratelimit.Store. It has millisecond resolution.
func (s *Store) Blocked(ctx context.Context, key string) (time.Duration, error) {
	d, err := s.client.PTTL(ctx, s.block(key)).Result()
	if err != nil {
		return 0, wrap("blocked", key, err)
	}
	switch {
	case d == -1: // exists without expiry: not written by Block
		return 0, wrap("blocked", key, errors.New("block has no expiry"))
	case d < 0: // -2: missing
		return 0, nil
	}
	return d, nil
}

// Delete implements ratelimit.Store. It sends one DEL per Redis key in a
// single pipeline, so that the keys may live in different cluster slots.
func (s *Store) Delete(ctx context.Context, keys ...string) error {
	if len(keys) == 0 {
		return nil
	}
	_, err := s.client.Pipelined(ctx, func(p redis.Pipeliner) error {
		for _, k := range keys {
			p.Del(ctx, s.counter(k))
			p.Del(ctx, s.block(k))
		}
		return nil
	})
	if err != nil {
		return wrap("delete", keys[0], err)
	}
	return nil
}

func (s *Store) counter(key string) string { return s.prefix + "c:" + key }
func (s *Store) block(key string) string   { return s.prefix + "b:" + key }

// millis returns d in milliseconds, rounded up so that a short positive d
// does not become 0 (which Redis rejects or treats as "expire now").
func millis(d time.Duration) int64 {
	ms := int64(d / time.Millisecond)
	if d%time.Millisecond != 0 {
		ms++
	}
	return ms
}

// wrap marks err, from Redis operation op on key, as ratelimit.ErrUnavailable.
func wrap(op, key string, err error) error {
	return fmt.Errorf("redisstore: %s %q: %w: %w", op, key, ratelimit.ErrUnavailable, err)
}
