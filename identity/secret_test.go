package identity_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vigilhq/vigil/identity"
	"github.com/vigilhq/vigil/platform/secretbox"
	"github.com/vigilhq/vigil/platform/testenv"
	"github.com/vigilhq/vigil/sqlstore"
	"github.com/vigilhq/vigil/sqlstore/postgres"
	"github.com/vigilhq/vigil/sqlstore/sqlitestore"
)

// eachStore runs f on a fresh SQLite store (dir is its folder) and a fresh
// PostgreSQL schema (dir is "").
func eachStore(t *testing.T, f func(t *testing.T, st *sqlstore.DB, dir string)) {
	t.Run("sqlite", func(t *testing.T) {
		dir := t.TempDir()
		st, err := sqlitestore.Open(t.Context(), dir)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		f(t, st, dir)
	})
	t.Run("postgres", func(t *testing.T) {
		st, err := postgres.Open(t.Context(), testenv.PostgresSchema(t))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		f(t, st, "")
	})
}

// keys returns the ring of key lines, the first current.
func keys(t *testing.T, lines ...string) *secretbox.Keyring {
	t.Helper()
	k, err := secretbox.Parse(strings.Join(lines, "\n"))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func keyLine(t *testing.T) string {
	t.Helper()
	l, err := secretbox.NewKeyLine()
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// storedSecret returns the jwt_secret row as a dump shows it.
func storedSecret(t *testing.T, st *sqlstore.DB) string {
	t.Helper()
	var v string
	if err := st.SQL().QueryRowContext(t.Context(), `SELECT value FROM settings WHERE key = 'jwt_secret'`).Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// signingSecret calls identity.SigningSecret with box, failing t on error.
func signingSecret(t *testing.T, st *sqlstore.DB, box *secretbox.Keyring) []byte {
	t.Helper()
	s, err := identity.SigningSecret(context.Background(), st, "", box)
	if err != nil {
		t.Fatalf("SigningSecret: %v", err)
	}
	return s
}

// TestSigningSecretSealed: the generated secret is stored sealed (neither
// the row nor the SQLite files hold it in any spelling) and every later
// start gets the same one back.
func TestSigningSecretSealed(t *testing.T) {
	eachStore(t, func(t *testing.T, st *sqlstore.DB, dir string) {
		box := keys(t, keyLine(t))
		secret := signingSecret(t, st, box)
		if len(secret) != 32 {
			t.Fatalf("got a secret of %d bytes, want 32", len(secret))
		}
		row := storedSecret(t, st)
		if !secretbox.IsSealed(row) {
			t.Fatalf("stored %q, want a sealed value", row)
		}
		spellings := [][]byte{secret, []byte(base64.RawStdEncoding.EncodeToString(secret)),
			[]byte(base64.StdEncoding.EncodeToString(secret)), []byte(base64.RawURLEncoding.EncodeToString(secret))}
		for _, s := range spellings {
			if strings.Contains(row, string(s)) {
				t.Fatalf("stored row %q holds the secret", row)
			}
		}
		if dir != "" {
			files, _ := filepath.Glob(filepath.Join(dir, "*"))
			for _, name := range files {
				b, err := os.ReadFile(name)
				if err != nil {
					t.Fatal(err)
				}
				for _, s := range spellings {
					if bytes.Contains(b, s) {
						t.Fatalf("%s holds the secret", name)
					}
				}
			}
		}
		if again := signingSecret(t, st, box); !bytes.Equal(again, secret) {
			t.Fatalf("second start: got another secret, want the same")
		}
	})
}

// TestSigningSecretLegacy: a plaintext row from before sealing is sealed
// in place on the first start and keeps its value, so that tokens signed
// with it stay valid.
func TestSigningSecretLegacy(t *testing.T) {
	eachStore(t, func(t *testing.T, st *sqlstore.DB, _ string) {
		legacy := bytes.Repeat([]byte{7}, 32)
		if _, err := st.Secret(t.Context(), "jwt_secret", base64.RawStdEncoding.EncodeToString(legacy)); err != nil {
			t.Fatal(err)
		}
		if got := signingSecret(t, st, keys(t, keyLine(t))); !bytes.Equal(got, legacy) {
			t.Fatalf("got %x, want the legacy secret %x", got, legacy)
		}
		if row := storedSecret(t, st); !secretbox.IsSealed(row) {
			t.Fatalf("stored %q after the first start, want it sealed", row)
		}
	})
}

// TestSigningSecretRotation: with a new key first and the old one after,
// the row is sealed again under the new key and opens with it alone.
func TestSigningSecretRotation(t *testing.T) {
	eachStore(t, func(t *testing.T, st *sqlstore.DB, _ string) {
		oldKey, newKey := keyLine(t), keyLine(t)
		secret := signingSecret(t, st, keys(t, oldKey))
		rotated := keys(t, newKey, oldKey)
		if got := signingSecret(t, st, rotated); !bytes.Equal(got, secret) {
			t.Fatalf("after rotation: got another secret, want the same")
		}
		if id, _ := secretbox.KeyID(storedSecret(t, st)); id != rotated.Current() {
			t.Fatalf("sealed with key %q after rotation, want %q", id, rotated.Current())
		}
		if got := signingSecret(t, st, keys(t, newKey)); !bytes.Equal(got, secret) {
			t.Fatalf("with the new key alone: got another secret, want the same")
		}
		if _, err := identity.SigningSecret(t.Context(), st, "", keys(t, oldKey)); !errors.Is(err, secretbox.ErrOpen) {
			t.Fatalf("with the retired key alone: got %v, want an error wrapping ErrOpen", err)
		}
	})
}

// TestSigningSecretTampered: a row changed by someone without the key
// stops the start with an error instead of yielding another secret.
func TestSigningSecretTampered(t *testing.T) {
	eachStore(t, func(t *testing.T, st *sqlstore.DB, _ string) {
		box := keys(t, keyLine(t))
		signingSecret(t, st, box)
		row := storedSecret(t, st)
		b := []byte(row)
		b[len(b)-5] ^= 0x01
		if ok, err := st.ReplaceSecret(t.Context(), "jwt_secret", row, string(b)); err != nil || !ok {
			t.Fatalf("ReplaceSecret: got %v, %v", ok, err)
		}
		if got, err := identity.SigningSecret(t.Context(), st, "", box); !errors.Is(err, secretbox.ErrOpen) || got != nil {
			t.Fatalf("got %x, %v, want nil and an error wrapping ErrOpen", got, err)
		}
	})
}
