package identity

import (
	"errors"
	"fmt"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"
)

// Login tokens are HS256 JWTs that live TokenLifetime, accepted up to
// TokenLeeway past their expiry to absorb clock skew between replicas. A
// token must say when it was issued, and one whose expiry lies more than
// TokenLifetime plus TokenLeeway after that is refused whatever its
// signature: no token lives longer than Vigil issues them.
const (
	TokenLifetime = 30 * time.Minute
	TokenLeeway   = 5 * time.Second
	tokenIssuer   = "vigil"
)

var (
	// ErrTokenExpired reports a login token past its expiry.
	ErrTokenExpired = errors.New("token expired")
	// ErrTokenInvalid reports a token that is malformed, forged, or signed
	// with another algorithm.
	ErrTokenInvalid = errors.New("invalid token")
)

// Tokens issues and verifies login tokens. Now defaults to time.Now.
type Tokens struct {
	Secret []byte
	Now    func() time.Time
}

type claims struct {
	Org string `json:"org"`
	jwt.RegisteredClaims
}

func (t *Tokens) now() time.Time {
	if t.Now != nil {
		return t.Now()
	}
	return time.Now()
}

// Issue returns a token for user valid for TokenLifetime.
func (t *Tokens) Issue(u User) (string, error) {
	now := t.now()
	c := claims{Org: u.OrgID, RegisteredClaims: jwt.RegisteredClaims{
		Issuer:    tokenIssuer,
		Subject:   u.ID,
		ID:        uuid.NewString(),
		IssuedAt:  jwt.NewNumericDate(now),
		NotBefore: jwt.NewNumericDate(now),
		ExpiresAt: jwt.NewNumericDate(now.Add(TokenLifetime)),
	}}
	s, err := jwt.NewWithClaims(jwt.SigningMethodHS256, c).SignedString(t.Secret)
	if err != nil {
		return "", fmt.Errorf("sign token: %w", err)
	}
	return s, nil
}

// Verify checks token's algorithm, signature, issuer, expiry and
// lifetime and returns its organization and user ids.
func (t *Tokens) Verify(token string) (orgID, userID string, err error) {
	var c claims
	_, err = jwt.ParseWithClaims(token, &c, func(*jwt.Token) (any, error) { return t.Secret, nil },
		jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}),
		jwt.WithIssuer(tokenIssuer),
		jwt.WithExpirationRequired(),
		jwt.WithIssuedAt(),
		jwt.WithLeeway(TokenLeeway),
		jwt.WithTimeFunc(t.now),
	)
	switch {
	case errors.Is(err, jwt.ErrTokenExpired):
		return "", "", ErrTokenExpired
	case err != nil:
		return "", "", fmt.Errorf("%w: %v", ErrTokenInvalid, err)
	case c.Subject == "" || c.Org == "":
		return "", "", fmt.Errorf("%w: missing subject", ErrTokenInvalid)
	case c.IssuedAt == nil:
		return "", "", fmt.Errorf("%w: no issue time", ErrTokenInvalid)
	case c.ExpiresAt.Sub(c.IssuedAt.Time) > TokenLifetime+TokenLeeway:
		return "", "", fmt.Errorf("%w: lifetime %v beyond %v", ErrTokenInvalid, c.ExpiresAt.Sub(c.IssuedAt.Time), TokenLifetime)
	}
	return c.Org, c.Subject, nil
}
