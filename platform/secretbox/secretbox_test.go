package secretbox_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vigilhq/vigil/platform/secretbox"
)

// ring parses key-file text, failing t on error.
func ring(t *testing.T, text string) *secretbox.Keyring {
	t.Helper()
	k, err := secretbox.Parse(text)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return k
}

func newLine(t *testing.T) string {
	t.Helper()
	l, err := secretbox.NewKeyLine()
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestSealOpen(t *testing.T) {
	k := ring(t, newLine(t))
	secret := []byte("the signing secret")
	sealed, err := k.Seal(secret, "jwt_secret")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(sealed, string(secret)) || !secretbox.IsSealed(sealed) {
		t.Fatalf("got %q, want a sealed value without the plaintext", sealed)
	}
	if again, _ := k.Seal(secret, "jwt_secret"); again == sealed {
		t.Errorf("got the same sealed value twice, want a fresh nonce each time")
	}
	got, err := k.Open(sealed, "jwt_secret")
	if err != nil || !bytes.Equal(got, secret) {
		t.Fatalf("Open: got %q, %v, want %q", got, err, secret)
	}
}

// TestOpenRefuses: tampering anywhere, another label, an unknown key or a
// value that is not sealed is an error wrapping ErrOpen, never garbage.
func TestOpenRefuses(t *testing.T) {
	k := ring(t, newLine(t))
	sealed, err := k.Seal([]byte("the signing secret"), "jwt_secret")
	if err != nil {
		t.Fatal(err)
	}
	f := func(name, value, label string, k *secretbox.Keyring) {
		t.Helper()
		if got, err := k.Open(value, label); !errors.Is(err, secretbox.ErrOpen) || got != nil {
			t.Errorf("%s: got %q, %v, want nil and an error wrapping ErrOpen", name, got, err)
		}
	}
	body := strings.LastIndex(sealed, ":") + 1
	for i := body; i < len(sealed); i++ {
		b := []byte(sealed)
		if b[i] == 'A' {
			b[i] = 'B'
		} else {
			b[i] = 'A'
		}
		f(fmt.Sprintf("character %d changed", i), string(b), "jwt_secret", k)
	}
	// The last character carries spare bits, which a lenient decoder
	// ignores: each change of it must be refused, whatever the seal.
	for _, c := range []byte("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_") {
		if c != sealed[len(sealed)-1] {
			f(fmt.Sprintf("last character %q", c), sealed[:len(sealed)-1]+string(c), "jwt_secret", k)
		}
	}
	f("truncated", sealed[:len(sealed)-4], "jwt_secret", k)
	f("another label", sealed, "other", k)
	f("another key", sealed, "jwt_secret", ring(t, newLine(t)))
	f("zero keyring", sealed, "jwt_secret", &secretbox.Keyring{})
	f("plaintext", "c2VjcmV0", "jwt_secret", k)
	f("bad key id", "sb1:a b:xyz", "jwt_secret", k)
}

// TestRotation: a ring with a new key first and the old one after opens
// what the old one sealed and seals with the new one.
func TestRotation(t *testing.T) {
	oldLine, newKeyLine := newLine(t), newLine(t)
	old := ring(t, oldLine)
	sealed, err := old.Seal([]byte("s3"), "x")
	if err != nil {
		t.Fatal(err)
	}
	both := ring(t, "# rotated\n"+newKeyLine+"\n"+oldLine+"\n")
	if got, err := both.Open(sealed, "x"); err != nil || string(got) != "s3" {
		t.Fatalf("Open of the old key's value: got %q, %v, want s3", got, err)
	}
	resealed, err := both.Seal([]byte("s3"), "x")
	if err != nil {
		t.Fatal(err)
	}
	if id, _ := secretbox.KeyID(resealed); id != both.Current() || id == old.Current() {
		t.Fatalf("resealed with %q: want the new key %q", id, both.Current())
	}
	if _, err := ring(t, newKeyLine).Open(resealed, "x"); err != nil {
		t.Fatalf("Open with the new key alone: %v", err)
	}
	// Commas separate keys too, for an environment variable.
	if got := ring(t, newKeyLine+","+oldLine).Current(); got != both.Current() {
		t.Errorf("comma-separated ring: got current %q, want %q", got, both.Current())
	}
}

func TestParseRefuses(t *testing.T) {
	line := newLine(t)
	id, _, _ := strings.Cut(line, ":")
	for name, text := range map[string]string{
		"empty":        "",
		"no id":        "c2VjcmV0",
		"short key":    "k1:c2VjcmV0",
		"not base64":   "k1:!!!",
		"duplicate id": line + "\n" + line,
		"bad id":       "a b" + line[len(id):],
	} {
		if _, err := secretbox.Parse(text); err == nil {
			t.Errorf("Parse(%s): got nil error, want one", name)
		}
	}
}

// TestLoadFile: a missing key file is created 0600 once and read back the
// same; a file others may read is refused.
func TestLoadFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "conf", "master.key")
	k1, created, err := secretbox.LoadFile(path)
	if err != nil || !created {
		t.Fatalf("first LoadFile: got created %v, %v, want true, nil", created, err)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file: got %v, %v, want mode 0600", fi, err)
	}
	k2, created, err := secretbox.LoadFile(path)
	if err != nil || created || k2.Current() != k1.Current() {
		t.Fatalf("second LoadFile: got %q, created %v, %v, want %q, false, nil", k2.Current(), created, err, k1.Current())
	}
	sealed, _ := k1.Seal([]byte("v"), "l")
	if _, err := k2.Open(sealed, "l"); err != nil {
		t.Fatalf("Open with the reloaded key: %v", err)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := secretbox.LoadFile(path); err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Fatalf("LoadFile of a 0644 file: got %v, want a refusal", err)
	}
}
