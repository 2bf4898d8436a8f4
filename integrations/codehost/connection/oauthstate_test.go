package connection

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestOAuthState: a signed state opens to itself until it expires; a
// changed byte anywhere, another key, a state cut short or one past its
// ten minutes does not.
func TestOAuthState(t *testing.T) {
	key := []byte(strings.Repeat("k", MinStateKey))
	now := time.Unix(1_800_000_000, 0)
	s := NewOAuthState("org-1", "user-1", now)
	tok := SignState(key, s)
	got, err := OpenState(key, tok, now.Add(StateTTL-time.Second))
	if err != nil || got != s {
		t.Fatalf("got %+v, %v, want %+v", got, err, s)
	}
	f := func(what, tok string, key []byte, at time.Time, want error) {
		t.Helper()
		if _, err := OpenState(key, tok, at); !errors.Is(err, want) {
			t.Errorf("%s: got %v, want %v", what, err, want)
		}
	}
	for i := range tok {
		b := []byte(tok)
		b[i] ^= 1
		f("byte "+string(tok[i])+" changed", string(b), key, now, ErrStateForged)
	}
	f("another key", tok, []byte(strings.Repeat("j", MinStateKey)), now, ErrStateForged)
	f("cut short", tok[:len(tok)-3], key, now, ErrStateForged)
	f("no signature", strings.Split(tok, ".")[0], key, now, ErrStateForged)
	f("empty", "", key, now, ErrStateForged)
	f("at expiry", tok, key, now.Add(StateTTL), ErrStateExpired)
	f("an hour later", tok, key, now.Add(time.Hour), ErrStateExpired)
	other := SignState(key, NewOAuthState("org-1", "user-1", now))
	if other == tok {
		t.Error("two states for the same user are equal, want a fresh nonce each")
	}
}
