package identity

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"hash/crc32"
	"math/big"
	"strings"
)

// API keys read vgl_live_<32 base62 characters><6 base62 characters of
// checksum>. The 32 random characters carry 190 bits; the checksum (CRC-32
// of everything before it) lets a mistyped or made-up key be refused
// without touching the database.
const (
	KeyPrefix      = "vgl_live_"
	keyRandomLen   = 32
	keyChecksumLen = 6
	keyLen         = len(KeyPrefix) + keyRandomLen + keyChecksumLen
	base62         = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
)

// ErrMalformedKey reports a string that is not a well-formed API key.
var ErrMalformedKey = errors.New("malformed API key")

// NewKey returns a fresh API key.
func NewKey() (string, error) {
	var b strings.Builder
	b.WriteString(KeyPrefix)
	max := big.NewInt(int64(len(base62)))
	for range keyRandomLen {
		n, err := rand.Int(rand.Reader, max)
		if err != nil {
			return "", err
		}
		b.WriteByte(base62[n.Int64()])
	}
	b.WriteString(keyChecksum(b.String()))
	return b.String(), nil
}

// ParseKey checks key's shape and checksum, without any lookup.
func ParseKey(key string) error {
	if len(key) != keyLen || !strings.HasPrefix(key, KeyPrefix) {
		return ErrMalformedKey
	}
	for i := len(KeyPrefix); i < len(key); i++ {
		if strings.IndexByte(base62, key[i]) < 0 {
			return ErrMalformedKey
		}
	}
	body := key[:len(key)-keyChecksumLen]
	if keyChecksum(body) != key[len(body):] {
		return ErrMalformedKey
	}
	return nil
}

// keyChecksum is CRC-32 of s in keyChecksumLen base62 digits.
func keyChecksum(s string) string {
	n := crc32.ChecksumIEEE([]byte(s))
	out := make([]byte, keyChecksumLen)
	for i := keyChecksumLen - 1; i >= 0; i-- {
		out[i] = base62[n%62]
		n /= 62
	}
	return string(out)
}

// HashKey is what the store keeps of a key: hex SHA-256. A slow hash is not
// needed for 190 random bits.
func HashKey(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// KeyHint is the key's display form: its prefix, first four and last four
// characters.
func KeyHint(key string) string {
	if len(key) < keyLen {
		return KeyPrefix + "…"
	}
	return key[:len(KeyPrefix)+4] + "…" + key[len(key)-4:]
}
