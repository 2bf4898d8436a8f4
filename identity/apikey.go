package identity

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"hash/crc32"
	"math/big"
	"strings"
	"unsafe"
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
	var sum [keyChecksumLen]byte
	if string(appendChecksum(sum[:0], body)) != key[len(body):] {
		return ErrMalformedKey
	}
	return nil
}

// keyChecksum is CRC-32 of s in keyChecksumLen base62 digits.
func keyChecksum(s string) string { return string(appendChecksum(nil, s)) }

// appendChecksum appends keyChecksum(s) to dst, allocating nothing when
// dst has room (ParseKey runs on every request with a key).
func appendChecksum(dst []byte, s string) []byte {
	n := crc32.ChecksumIEEE(bytesOf(s))
	var out [keyChecksumLen]byte
	for i := keyChecksumLen - 1; i >= 0; i-- {
		out[i] = base62[n%62]
		n /= 62
	}
	return append(dst, out[:]...)
}

// HashKey is what the store keeps of a key: hex SHA-256. A slow hash is not
// needed for 190 random bits.
func HashKey(key string) string {
	sum := keyDigest(key)
	return hex.EncodeToString(sum[:])
}

// keyDigest is the SHA-256 of key, which HashKey writes in hex.
func keyDigest(key string) [sha256.Size]byte { return sha256.Sum256(bytesOf(key)) }

// bytesOf is s's bytes without a copy, for functions that only read them.
func bytesOf(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// KeyHint is the key's display form: its prefix, first four and last four
// characters.
func KeyHint(key string) string {
	if len(key) < keyLen {
		return KeyPrefix + "…"
	}
	return key[:len(KeyPrefix)+4] + "…" + key[len(key)-4:]
}
