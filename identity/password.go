package identity

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"golang.org/x/crypto/argon2"
	"golang.org/x/text/unicode/norm"

	"github.com/vigilhq/vigil/identity/commonpasswords"
)

// Passwords are hashed with Argon2id at OWASP's recommended cost (19 MiB,
// two passes, one lane) and stored in the PHC string format.
const (
	argonMemoryKiB = 19 * 1024
	argonTime      = 2
	argonThreads   = 1
	argonKeyLen    = 32
	// MinPasswordLen and MaxPasswordLen bound passwords, in Unicode code
	// points after NFC normalisation (NIST SP 800-63B rev. 4 for a
	// password used as the single factor: at least 15, and at least 64
	// allowed). Nothing is truncated.
	MinPasswordLen = 15
	MaxPasswordLen = 256
)

// PasswordRule is the whole password policy, as a 422 states it. There are
// no composition rules (NIST SP 800-63B rev. 4, 3.1.1.2).
const PasswordRule = "a password must be 15 to 256 characters (any characters, spaces included), " +
	"not a commonly used password and not contain the username"

// PasswordProblem returns what is wrong with password for the user
// username under PasswordRule, or "" when nothing is. Self-registered,
// admin-created and bootstrapped accounts and password changes all go
// through it.
func PasswordProblem(username, password string) string {
	p := norm.NFC.String(password)
	if n := utf8.RuneCountInString(p); n < MinPasswordLen || n > MaxPasswordLen {
		return fmt.Sprintf("must be %d to %d characters, got %d", MinPasswordLen, MaxPasswordLen, n)
	}
	if commonpasswords.Listed(p) {
		return "is a commonly used password"
	}
	if username != "" && strings.Contains(strings.ToLower(p), strings.ToLower(username)) {
		return "must not contain the username"
	}
	return ""
}

var b64 = base64.RawStdEncoding

// HashPassword returns the PHC-encoded Argon2id hash of password, NFC
// normalised so that the same password typed on any system matches.
func HashPassword(password string) (string, error) {
	password = norm.NFC.String(password)
	salt := make([]byte, 16)
	if _, err := rand.Read(salt); err != nil {
		return "", err
	}
	key := argon2.IDKey([]byte(password), salt, argonTime, argonMemoryKiB, argonThreads, argonKeyLen)
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version,
		argonMemoryKiB, argonTime, argonThreads, b64.EncodeToString(salt), b64.EncodeToString(key)), nil
}

// CheckPassword reports whether password, NFC normalised, matches the
// PHC-encoded hash. A hash made before passwords were normalised is also
// checked against the password as typed.
func CheckPassword(hash, password string) (bool, error) {
	nfc := norm.NFC.String(password)
	ok, err := checkHash(hash, nfc)
	if ok || err != nil || nfc == password {
		return ok, err
	}
	return checkHash(hash, password)
}

// checkHash reports whether password matches the PHC-encoded hash.
func checkHash(hash, password string) (bool, error) {
	parts := strings.Split(hash, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return false, errors.New("unsupported password hash")
	}
	var mem, t uint32
	var p uint8
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &mem, &t, &p); err != nil {
		return false, fmt.Errorf("password hash parameters: %w", err)
	}
	salt, err := b64.DecodeString(parts[4])
	if err != nil {
		return false, fmt.Errorf("password hash salt: %w", err)
	}
	want, err := b64.DecodeString(parts[5])
	if err != nil {
		return false, fmt.Errorf("password hash: %w", err)
	}
	got := argon2.IDKey([]byte(password), salt, t, mem, p, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1, nil
}

// dummyHash is checked against when a username does not exist, so that a
// login takes as long either way and does not reveal which usernames exist.
var dummyHash, _ = HashPassword("vigil-dummy-password")
