package identity

import (
	"errors"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

func TestTokenLifetime(t *testing.T) {
	issued := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	secret := []byte("0123456789abcdef0123456789abcdef")
	tok, err := (&Tokens{Secret: secret, Now: func() time.Time { return issued }}).Issue(User{ID: "u1", OrgID: "o1"})
	if err != nil {
		t.Fatal(err)
	}
	f := func(after time.Duration, want error) {
		t.Helper()
		org, user, err := (&Tokens{Secret: secret, Now: func() time.Time { return issued.Add(after) }}).Verify(tok)
		if !errors.Is(err, want) {
			t.Fatalf("at +%v: got %v, want %v", after, err, want)
		}
		if want == nil && (org != "o1" || user != "u1") {
			t.Fatalf("got org %q user %q, want o1 u1", org, user)
		}
	}
	f(0, nil)
	f(29*time.Minute+59*time.Second, nil)
	f(30*time.Minute+TokenLeeway-time.Second, nil)
	f(30*time.Minute+TokenLeeway+time.Second, ErrTokenExpired)
	f(-time.Minute, ErrTokenInvalid) // not valid before it was issued
}

func TestTokenRejects(t *testing.T) {
	secret := []byte("0123456789abcdef0123456789abcdef")
	tokens := &Tokens{Secret: secret}
	sign := func(m jwt.SigningMethod, key any, c jwt.Claims) string {
		s, err := jwt.NewWithClaims(m, c).SignedString(key)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	now := time.Now()
	good := claims{Org: "o1", RegisteredClaims: jwt.RegisteredClaims{Issuer: tokenIssuer, Subject: "u1",
		IssuedAt: jwt.NewNumericDate(now), ExpiresAt: jwt.NewNumericDate(now.Add(time.Minute))}}
	noExp := good
	noExp.ExpiresAt = nil
	otherIssuer := good
	otherIssuer.Issuer = "someone"
	noOrg := good
	noOrg.Org = ""
	for name, tok := range map[string]string{
		"alg none":     sign(jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, good),
		"HS512":        sign(jwt.SigningMethodHS512, secret, good),
		"wrong secret": sign(jwt.SigningMethodHS256, []byte("another secret, 32 bytes long!!!"), good),
		"no expiry":    sign(jwt.SigningMethodHS256, secret, noExp),
		"other issuer": sign(jwt.SigningMethodHS256, secret, otherIssuer),
		"no org":       sign(jwt.SigningMethodHS256, secret, noOrg),
		"not a token":  "abc",
		"two segments": "a.b",
	} {
		if _, _, err := tokens.Verify(tok); !errors.Is(err, ErrTokenInvalid) {
			t.Errorf("%s: got %v, want ErrTokenInvalid", name, err)
		}
	}
	if _, _, err := tokens.Verify(sign(jwt.SigningMethodHS256, secret, good)); err != nil {
		t.Fatalf("got %v for a good token, want nil", err)
	}
}
