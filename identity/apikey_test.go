package identity

import (
	"strings"
	"testing"
)

func TestNewKey(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		k, err := NewKey()
		if err != nil {
			t.Fatal(err)
		}
		if err := ParseKey(k); err != nil {
			t.Fatalf("got %v for fresh key %q, want it accepted", err, k)
		}
		if len(k) != keyLen || !strings.HasPrefix(k, KeyPrefix) {
			t.Fatalf("got key %q, want %d characters starting %s", k, keyLen, KeyPrefix)
		}
		if seen[k] {
			t.Fatalf("got key %q twice", k)
		}
		seen[k] = true
	}
}

func TestParseKey(t *testing.T) {
	k, _ := NewKey()
	flip := func(i int) string {
		b := []byte(k)
		if b[i] == 'a' {
			b[i] = 'b'
		} else {
			b[i] = 'a'
		}
		return string(b)
	}
	for name, bad := range map[string]string{
		"empty":              "",
		"prefix only":        KeyPrefix,
		"wrong prefix":       "vgl_test_" + k[len(KeyPrefix):],
		"one char short":     k[:len(k)-1],
		"one char long":      k + "a",
		"random part typo":   flip(len(KeyPrefix) + 3),
		"checksum typo":      flip(len(k) - 1),
		"non-base62":         k[:len(KeyPrefix)] + "-" + k[len(KeyPrefix)+1:],
		"jwt-looking string": "eyJhbGciOiJIUzI1NiJ9.e30.sig",
	} {
		if err := ParseKey(bad); err == nil {
			t.Errorf("%s: got %q accepted, want ErrMalformedKey", name, bad)
		}
	}
}

// TestParseKeyAllocations: checking a key, which every request with one
// does, allocates nothing.
func TestParseKeyAllocations(t *testing.T) {
	k, _ := NewKey()
	if n := testing.AllocsPerRun(100, func() { _ = ParseKey(k) }); n != 0 {
		t.Errorf("got %v allocations a ParseKey, want 0", n)
	}
}

func TestKeyHintAndHash(t *testing.T) {
	k, _ := NewKey()
	h := KeyHint(k)
	if !strings.HasPrefix(h, k[:13]) || !strings.HasSuffix(h, k[len(k)-4:]) || strings.Contains(h, k[13:len(k)-4]) {
		t.Fatalf("got hint %q, want prefix and last four only", h)
	}
	if HashKey(k) == HashKey(k+"x") || len(HashKey(k)) != 64 || strings.Contains(HashKey(k), k) {
		t.Fatalf("got hash %q, want a distinct hex SHA-256", HashKey(k))
	}
}

func FuzzParseKey(f *testing.F) {
	k, _ := NewKey()
	f.Add(k)
	f.Add("vgl_live_")
	f.Add("")
	f.Fuzz(func(t *testing.T, s string) {
		if ParseKey(s) == nil && (len(s) != keyLen || keyChecksum(s[:len(s)-keyChecksumLen]) != s[len(s)-keyChecksumLen:]) {
			t.Fatalf("accepted %q without a valid checksum", s)
		}
	})
}
