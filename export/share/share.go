// Package share is the external share of a completed export (spec 1,
// RELIABILITY C9-C13): a share names one recipient e-mail address and
// answers at a public link, /share/{share_slug}, that reveals nothing
// until the recipient proves control of that address with a one-time
// passcode mailed to it; a verified passcode issues a 15-minute download
// token for that one report. Passcodes are 8 digits from crypto/rand,
// valid 10 minutes, single use, burnt for a client after its MaxTries
// wrong tries and for everyone after SharedMaxTries, and stored hashed; requests for codes are capped per share and per
// recipient (429). Every step is written to the share's audit trail.
//
// It imports export (the jobs whose files it serves), identity, the
// platform's plumbing and the store contract; never the store engines
// that keep its records.
package share

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"math/big"
	"time"
)

// Statuses of a share.
const (
	StatusPending  = "pending"
	StatusVerified = "verified"
	StatusRevoked  = "revoked"
)

// Kinds of the share audit trail's events.
const (
	EventCreated       = "created"
	EventCodeRequested = "code_requested"
	EventVerified      = "verified"
	EventDenied        = "denied"
	EventViewed        = "viewed"
	EventRevoked       = "revoked"
)

// Limits of the recipient side.
const (
	// CodeLife is how long a passcode is valid.
	CodeLife = 10 * time.Minute
	// TokenLife is how long a download token is valid.
	TokenLife = 15 * time.Minute
	// MaxTries is how many wrong passcodes one client (address) may try
	// at the current passcode: past them the passcode no longer works for
	// that client, and for it alone, so a stranger cannot lock out the
	// recipient.
	MaxTries = 5
	// SharedMaxTries is how many wrong passcodes, from every client
	// together, burn the current passcode for everyone: the bound on
	// distributed guessing (100 of the 10^8 codes; the recipient asks for
	// a new one).
	SharedMaxTries = 100
	// DefaultLife and MaxLife bound a share's own expiry (days).
	DefaultLife, MaxLife = 7, 90
)

// Share is one share of an export with a recipient.
type Share struct {
	ID, OrgID, ExportID, Slug string
	Recipient                 string
	Status                    string
	Views                     int
	CreatedBy                 string
	CreatedAt, ExpiresAt      time.Time
	VerifiedAt, RevokedAt     *time.Time
	// The current passcode: its hash ("" when none was asked for), its
	// expiry, wrong tries so far and whether it was used.
	CodeHash    string
	CodeExpires time.Time
	CodeTries   int
	CodeUsed    bool
}

// Open reports whether the recipient side of s still answers at now:
// not revoked and not expired.
func (s Share) Open(now time.Time) bool {
	return s.Status != StatusRevoked && now.Before(s.ExpiresAt)
}

// Event is one entry of a share's audit trail.
type Event struct {
	ID, ShareID, OrgID string
	Kind               string
	// Detail says why, for a denial; Actor is the user of a created or
	// revoked event, "recipient" otherwise.
	Detail, Actor string
	At            time.Time
}

// Token is an issued download token: only its hash is stored.
type Token struct {
	Hash               string
	ShareID            string
	CreatedAt, Expires time.Time
}

// Store keeps shares, their tokens and audit trail. A record of another
// organization is store.ErrNotFound, as a missing one.
type Store interface {
	// CreateShare stores s and its created event together.
	CreateShare(ctx context.Context, s Share, created Event) error
	// Share is the organization's share of the slug.
	Share(ctx context.Context, orgID, slug string) (Share, error)
	// ShareBySlug is the share of the slug in any organization, for the
	// recipient side.
	ShareBySlug(ctx context.Context, slug string) (Share, error)
	// Shares lists an export's shares newest first with their total.
	Shares(ctx context.Context, orgID, exportID string, offset, limit int) ([]Share, int64, error)
	// SetShareCode makes hash the share's current passcode until expires
	// (tries 0, unused), with the code_requested event, if the share is
	// not revoked (store.ErrNotFound otherwise).
	SetShareCode(ctx context.Context, shareID, hash string, expires time.Time, requested Event) error
	// VerifyShareCode uses the share's current passcode if its hash is
	// hash, unused, unexpired at ev.At, tried fewer than maxTries times
	// and the share open: then the share is verified, tok stored and ev
	// written, all in one transaction, and it reports true. Of parallel
	// calls with the right code only one reports true.
	VerifyShareCode(ctx context.Context, shareID, hash string, maxTries int, tok Token, ev Event) (bool, error)
	// DenyShareCode counts a wrong try against the current passcode of
	// hash codeHash (when one is given) and writes ev; with codeHash ""
	// it writes ev alone (a refused download).
	DenyShareCode(ctx context.Context, shareID, codeHash string, ev Event) error
	// UseShareToken checks that the token of hash tokenHash belongs to
	// the share of the slug, is unexpired at ev.At and the share not
	// revoked; then counts a view and writes ev (its ShareID and OrgID
	// filled in) and returns the share. store.ErrNotFound otherwise.
	UseShareToken(ctx context.Context, slug, tokenHash string, ev Event) (Share, error)
	// RevokeShare revokes the organization's share of the slug with ev;
	// store.ErrConflict when already revoked.
	RevokeShare(ctx context.Context, orgID, slug string, ev Event) (Share, error)
	// ShareEvents is the share's audit trail, oldest first, with its total.
	ShareEvents(ctx context.Context, orgID, shareID string, offset, limit int) ([]Event, int64, error)
}

// NewCode is a passcode of 8 digits from crypto/rand (26.6 bits).
func NewCode() (string, error) {
	n, err := rand.Int(rand.Reader, big.NewInt(100_000_000))
	if err != nil {
		return "", fmt.Errorf("passcode: %w", err)
	}
	return fmt.Sprintf("%08d", n.Int64()), nil
}

// HashCode is the stored form of a share's passcode: the SHA-256 of the
// share's id and the code, so that equal codes of two shares differ.
func HashCode(shareID, code string) string {
	sum := sha256.Sum256([]byte("vigil-share-code\x00" + shareID + "\x00" + code))
	return hex.EncodeToString(sum[:])
}

// NewToken is a download token (256 random bits) and its stored hash.
func NewToken() (raw, hash string, err error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", "", fmt.Errorf("download token: %w", err)
	}
	raw = "vgs_" + base64.RawURLEncoding.EncodeToString(b)
	return raw, HashToken(raw), nil
}

// HashToken is the stored form of a download token.
func HashToken(raw string) string {
	sum := sha256.Sum256([]byte(raw))
	return hex.EncodeToString(sum[:])
}

// NewSlug is a share's public slug: 128 random bits, URL-safe.
func NewSlug() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("share slug: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}
