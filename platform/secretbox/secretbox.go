// Package secretbox seals small secrets kept at rest (the login-token
// signing secret, code-host tokens, notification targets, integration
// secrets) with AES-256-GCM under a master
// key that the operator holds outside the database, so that a dump or a
// backup of the database alone reveals none of them.
//
// A Keyring holds one or more named keys. Seal always uses the current
// (first) key and writes its id into the result; Open accepts any key of
// the ring. Rotation is therefore: put a new key first, keep the old ones
// after it, restart; whoever holds sealed values re-seals those whose
// KeyID is not Current (identity.SigningSecret does at start); once nothing
// is sealed with an old key any more, remove it.
//
// A sealed value is text: "sb1:" key id ":" base64url(nonce || ciphertext
// and tag). The caller's label (e.g. the setting's name) is authenticated
// as additional data, so a value moved to another place does not open.
//
// It imports nothing of Vigil.
package secretbox

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// prefix starts every sealed value; the digit is the format's version.
const prefix = "sb1:"

// KeySize is the length of a master key in bytes (AES-256).
const KeySize = 32

// ErrOpen is wrapped by every failure to open a sealed value: unknown key
// id, malformed text, or ciphertext, tag or label that do not match, such
// as after tampering. Open never returns garbage instead.
var ErrOpen = errors.New("secretbox: cannot open sealed value")

var validID = regexp.MustCompile(`^[A-Za-z0-9._-]{1,32}$`)

// Keyring is a set of named master keys, the first of which seals. The
// zero Keyring has no key: Seal and Open fail.
type Keyring struct {
	ids  []string
	aead map[string]cipher.AEAD
}

// NewKeyring returns a ring of keys by id; ids[0] is current. Ids are 1-32
// characters [A-Za-z0-9._-]; keys are KeySize bytes.
func NewKeyring(ids []string, keys [][]byte) (*Keyring, error) {
	if len(ids) == 0 || len(ids) != len(keys) {
		return nil, errors.New("secretbox: want one key per id, at least one")
	}
	k := &Keyring{aead: map[string]cipher.AEAD{}}
	for i, id := range ids {
		if !validID.MatchString(id) {
			return nil, fmt.Errorf("secretbox: key id %q: want 1-32 characters [A-Za-z0-9._-]", id)
		}
		if _, dup := k.aead[id]; dup {
			return nil, fmt.Errorf("secretbox: key id %q appears twice", id)
		}
		if len(keys[i]) != KeySize {
			return nil, fmt.Errorf("secretbox: key %q: got %d bytes, want %d", id, len(keys[i]), KeySize)
		}
		block, err := aes.NewCipher(keys[i])
		if err != nil {
			return nil, fmt.Errorf("secretbox: key %q: %w", id, err)
		}
		aead, err := cipher.NewGCM(block)
		if err != nil {
			return nil, fmt.Errorf("secretbox: key %q: %w", id, err)
		}
		k.ids = append(k.ids, id)
		k.aead[id] = aead
	}
	return k, nil
}

// Current returns the id of the key that seals ("" for the zero Keyring).
func (k *Keyring) Current() string {
	if k == nil || len(k.ids) == 0 {
		return ""
	}
	return k.ids[0]
}

// Seal encrypts plaintext under the current key, binding label to it.
func (k *Keyring) Seal(plaintext []byte, label string) (string, error) {
	id := k.Current()
	if id == "" {
		return "", errors.New("secretbox: no key to seal with")
	}
	aead := k.aead[id]
	nonce := make([]byte, aead.NonceSize(), aead.NonceSize()+len(plaintext)+aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		return "", fmt.Errorf("secretbox: nonce: %w", err)
	}
	out := aead.Seal(nonce, nonce, plaintext, []byte(label))
	return prefix + id + ":" + base64.RawURLEncoding.EncodeToString(out), nil
}

// Open decrypts a value sealed under any key of the ring with the same
// label. Every failure wraps ErrOpen.
func (k *Keyring) Open(sealed, label string) ([]byte, error) {
	id, body, err := split(sealed)
	if err != nil {
		return nil, err
	}
	var aead cipher.AEAD
	if k != nil {
		aead = k.aead[id]
	}
	if aead == nil {
		return nil, fmt.Errorf("%w: sealed with key %q, which is not configured", ErrOpen, id)
	}
	// Strict: a changed character always changes the bytes. Lenient
	// decoding ignores the last character's spare bits, so a value
	// altered there would open as if it were intact.
	raw, err := base64.RawURLEncoding.Strict().DecodeString(body)
	if err != nil || len(raw) < aead.NonceSize()+aead.Overhead() {
		return nil, fmt.Errorf("%w: malformed value sealed with key %q", ErrOpen, id)
	}
	n := aead.NonceSize()
	plain, err := aead.Open(nil, raw[:n], raw[n:], []byte(label))
	if err != nil {
		return nil, fmt.Errorf("%w: key %q does not authenticate it (tampered, or another label)", ErrOpen, id)
	}
	return plain, nil
}

// IsSealed reports whether s looks like a value Seal made (it may still
// fail to Open).
func IsSealed(s string) bool { return strings.HasPrefix(s, prefix) }

// KeyID returns the id of the key s was sealed with.
func KeyID(s string) (string, error) {
	id, _, err := split(s)
	return id, err
}

// split takes a sealed value apart into key id and base64 body.
func split(s string) (id, body string, err error) {
	rest, ok := strings.CutPrefix(s, prefix)
	if !ok {
		return "", "", fmt.Errorf("%w: not a sealed value", ErrOpen)
	}
	id, body, ok = strings.Cut(rest, ":")
	if !ok || !validID.MatchString(id) {
		return "", "", fmt.Errorf("%w: malformed sealed value", ErrOpen)
	}
	return id, body, nil
}
