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
	noIssued := good
	noIssued.IssuedAt = nil
	yearLong := good
	yearLong.ExpiresAt = jwt.NewNumericDate(now.Add(365 * 24 * time.Hour))
	overCap := good
	overCap.ExpiresAt = jwt.NewNumericDate(now.Add(TokenLifetime + TokenLeeway + time.Second))
	issuedLater := good // issued in the future: its lifetime looks short
	issuedLater.IssuedAt = jwt.NewNumericDate(now.Add(time.Hour))
	issuedLater.ExpiresAt = jwt.NewNumericDate(now.Add(time.Hour + time.Minute))
	for name, tok := range map[string]string{
		"alg none":     sign(jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, good),
		"HS512":        sign(jwt.SigningMethodHS512, secret, good),
		"wrong secret": sign(jwt.SigningMethodHS256, []byte("another secret, 32 bytes long!!!"), good),
		"no expiry":    sign(jwt.SigningMethodHS256, secret, noExp),
		"other issuer": sign(jwt.SigningMethodHS256, secret, otherIssuer),
		"no org":       sign(jwt.SigningMethodHS256, secret, noOrg),
		"no iat":       sign(jwt.SigningMethodHS256, secret, noIssued),
		"a year long":  sign(jwt.SigningMethodHS256, secret, yearLong),
		"over the cap": sign(jwt.SigningMethodHS256, secret, overCap),
		"iat ahead":    sign(jwt.SigningMethodHS256, secret, issuedLater),
		"not a token":  "abc",
		"two segments": "a.b",
	} {
		if _, _, err := tokens.Verify(tok); !errors.Is(err, ErrTokenInvalid) {
			t.Errorf("%s: got %v, want ErrTokenInvalid", name, err)
		}
	}
	atCap := good
	atCap.ExpiresAt = jwt.NewNumericDate(now.Add(TokenLifetime + TokenLeeway))
	for name, c := range map[string]claims{"good": good, "at the cap": atCap} {
		if _, _, err := tokens.Verify(sign(jwt.SigningMethodHS256, secret, c)); err != nil {
			t.Errorf("%s: got %v, want nil", name, err)
		}
	}
}
