package connection

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/vigilhq/vigil/integrations/codehost"
)

// StateTTL is how long an OAuth state stays usable after authorize.
const StateTTL = 10 * time.Minute

// MinStateKey is the shortest state-signing key the server accepts.
const MinStateKey = 32

// Errors of OpenState.
var (
	ErrStateForged  = errors.New("codehost: the state does not verify")
	ErrStateExpired = errors.New("codehost: the state has expired")
)

// NewOAuthState returns a state for the user of the organization with a
// fresh random nonce, expiring StateTTL after now.
func NewOAuthState(orgID, userID string, now time.Time) codehost.OAuthState {
	return codehost.OAuthState{Nonce: rand.Text(), OrgID: orgID, UserID: userID, ExpiresAt: now.Add(StateTTL).Truncate(time.Second)}
}

// SignState returns the state's anti-forgery token: its fields, then an
// HMAC-SHA256 of them under key, both base64url.
func SignState(key []byte, s codehost.OAuthState) string {
	payload := strings.Join([]string{s.Nonce, s.OrgID, s.UserID, strconv.FormatInt(s.ExpiresAt.Unix(), 10)}, "\n")
	enc := base64.RawURLEncoding
	return enc.EncodeToString([]byte(payload)) + "." + enc.EncodeToString(stateMAC(key, payload))
}

// OpenState checks token's signature under key (constant time) and its
// expiry against now, and returns the state it carries: ErrStateForged
// when it was not signed with key or was changed, ErrStateExpired when its
// time is up. Whether it is still unused is the store's to say.
func OpenState(key []byte, token string, now time.Time) (codehost.OAuthState, error) {
	enc := base64.RawURLEncoding.Strict()
	body, sig, ok := strings.Cut(token, ".")
	if !ok {
		return codehost.OAuthState{}, ErrStateForged
	}
	payload, err1 := enc.DecodeString(body)
	sum, err2 := enc.DecodeString(sig)
	if err1 != nil || err2 != nil || !hmac.Equal(sum, stateMAC(key, string(payload))) {
		return codehost.OAuthState{}, ErrStateForged
	}
	f := strings.Split(string(payload), "\n")
	if len(f) != 4 {
		return codehost.OAuthState{}, ErrStateForged
	}
	exp, err := strconv.ParseInt(f[3], 10, 64)
	if err != nil {
		return codehost.OAuthState{}, ErrStateForged
	}
	s := codehost.OAuthState{Nonce: f[0], OrgID: f[1], UserID: f[2], ExpiresAt: time.Unix(exp, 0)}
	if !now.Before(s.ExpiresAt) {
		return s, ErrStateExpired
	}
	return s, nil
}

func stateMAC(key []byte, payload string) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte("vigil-codehost-oauth-state\n" + payload))
	return h.Sum(nil)
}
