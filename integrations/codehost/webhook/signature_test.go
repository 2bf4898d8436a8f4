package webhook

import (
	"errors"
	"strings"
	"testing"
)

// The published test vector of the platform's webhook documentation.
const (
	vectorSecret    = "It's a Secret to Everybody"
	vectorPayload   = "Hello, World!"
	vectorSignature = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"
)

func TestVerify(t *testing.T) {
	secret, body := []byte(vectorSecret), []byte(vectorPayload)
	if err := Verify(secret, body, vectorSignature); err != nil {
		t.Fatalf("the published test vector: got %v, want it to verify", err)
	}
	if got := Sign(secret, body); got != vectorSignature {
		t.Fatalf("Sign: got %s, want %s", got, vectorSignature)
	}
	f := func(what, body, header string, want error) {
		t.Helper()
		if err := Verify(secret, []byte(body), header); !errors.Is(err, want) {
			t.Errorf("%s: got %v, want %v", what, err, want)
		}
	}
	f("one changed byte of the body", "Hello, World?", vectorSignature, ErrSignatureMismatch)
	f("one byte more", vectorPayload+" ", vectorSignature, ErrSignatureMismatch)
	f("one changed digit of the signature", vectorPayload, vectorSignature[:len(vectorSignature)-1]+"6", ErrSignatureMismatch)
	f("missing header", vectorPayload, "", ErrNoSignature)
	f("sha1=", vectorPayload, "sha1=01dc10d0c83e72ed246219cdd91669667fe2ca59", ErrSignatureFormat)
	f("sha1= with the sha256 digest", vectorPayload, "sha1="+vectorSignature[7:], ErrSignatureFormat)
	f("truncated", vectorPayload, vectorSignature[:len(vectorSignature)-2], ErrSignatureFormat)
	f("one digit short", vectorPayload, vectorSignature[:len(vectorSignature)-1], ErrSignatureFormat)
	f("longer", vectorPayload, vectorSignature+"00", ErrSignatureFormat)
	f("no prefix", vectorPayload, vectorSignature[7:], ErrSignatureFormat)
	f("upper-case prefix", vectorPayload, "SHA256="+vectorSignature[7:], ErrSignatureFormat)
	f("not hexadecimal", vectorPayload, "sha256="+string(make([]byte, 64)), ErrSignatureFormat)
	f("another secret", vectorPayload, Sign([]byte("another secret"), []byte(vectorPayload)), ErrSignatureMismatch)
}

// FuzzVerify: no input crashes the check, and only the right signature
// verifies.
func FuzzVerify(f *testing.F) {
	f.Add([]byte(vectorSecret), []byte(vectorPayload), vectorSignature)
	f.Add([]byte(""), []byte(""), "sha256=")
	f.Add([]byte("k"), []byte("{}"), "sha1=abc")
	f.Fuzz(func(t *testing.T, secret, body []byte, header string) {
		err := Verify(secret, body, header)
		// Hexadecimal digits may be upper case; the prefix may not.
		right := strings.HasPrefix(header, "sha256=") && "sha256="+strings.ToLower(header[7:]) == Sign(secret, body)
		if (err == nil) != right {
			t.Fatalf("Verify(%q, %q, %q): got %v, want verified %v", secret, body, header, err, right)
		}
	})
}
