package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
)

// SignatureHeader is the header a delivery's signature travels in.
const SignatureHeader = "X-Hub-Signature-256"

// Errors of ParseSignature and Verify.
var (
	ErrNoSignature       = errors.New("codehost: no " + SignatureHeader + " header")
	ErrSignatureFormat   = errors.New("codehost: the signature is not sha256= and 64 hexadecimal digits")
	ErrSignatureMismatch = errors.New("codehost: the signature does not match the body")
)

// ParseSignature returns the digest of a header value "sha256=<64 hex
// digits>"; anything else (absent, another algorithm, truncated, longer)
// is an error. It reads the header only, never the body.
func ParseSignature(header string) ([]byte, error) {
	if header == "" {
		return nil, ErrNoSignature
	}
	digits, ok := strings.CutPrefix(header, "sha256=")
	if !ok || len(digits) != 2*sha256.Size {
		return nil, ErrSignatureFormat
	}
	sum, err := hex.DecodeString(digits)
	if err != nil {
		return nil, ErrSignatureFormat
	}
	return sum, nil
}

// Sign returns the header value for body under secret.
func Sign(secret, body []byte) string {
	return "sha256=" + hex.EncodeToString(mac(secret, body))
}

// Verify checks the header value against HMAC-SHA256 of the raw body under
// secret, in constant time.
func Verify(secret, body []byte, header string) error {
	sum, err := ParseSignature(header)
	if err != nil {
		return err
	}
	return match(secret, body, sum)
}

// match checks a parsed digest against the body's, in constant time.
func match(secret, body, sum []byte) error {
	if !hmac.Equal(sum, mac(secret, body)) {
		return ErrSignatureMismatch
	}
	return nil
}

func mac(secret, body []byte) []byte {
	h := hmac.New(sha256.New, secret)
	h.Write(body)
	return h.Sum(nil)
}
