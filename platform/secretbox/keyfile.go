package secretbox

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Parse reads keys written one per line as "id:base64" (standard or URL
// base64 of KeySize bytes), the first line current; blank lines and lines
// starting with # are ignored. Commas separate keys too, so that one
// environment variable can hold a ring.
func Parse(text string) (*Keyring, error) {
	var ids []string
	var keys [][]byte
	var lines []string
	for _, l := range strings.Split(text, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "#") {
			lines = append(lines, strings.Split(l, ",")...)
		}
	}
	for _, line := range lines {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		id, enc, ok := strings.Cut(line, ":")
		if !ok {
			return nil, fmt.Errorf("secretbox: key line %q: want id:base64", redact(line))
		}
		key, err := decodeKey(strings.TrimSpace(enc))
		if err != nil {
			return nil, fmt.Errorf("secretbox: key %q: %w", id, err)
		}
		ids = append(ids, strings.TrimSpace(id))
		keys = append(keys, key)
	}
	return NewKeyring(ids, keys)
}

// LoadFile reads the key file at path. When no file is there it creates
// one with a new random key (mode 0600, its folder 0700 if new) and reports
// created, so that the caller can tell the operator to back it up: without
// it, what was sealed cannot be opened.
func LoadFile(path string) (k *Keyring, created bool, err error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return create(path)
	}
	if err != nil {
		return nil, false, fmt.Errorf("secretbox: read key file: %w", err)
	}
	if fi, err := os.Stat(path); err == nil && fi.Mode().Perm()&0o077 != 0 {
		return nil, false, fmt.Errorf("secretbox: key file %s is readable by others (mode %v): chmod 600 it", path, fi.Mode().Perm())
	}
	k, err = Parse(string(b))
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", path, err)
	}
	return k, false, nil
}

// NewKeyLine returns a new random key as a key-file line "id:base64"; the
// id is the date and a random suffix, e.g. 20260101-3f9a.
func NewKeyLine() (string, error) {
	key := make([]byte, KeySize+2)
	if _, err := rand.Read(key); err != nil {
		return "", fmt.Errorf("secretbox: new key: %w", err)
	}
	id := fmt.Sprintf("%s-%x", time.Now().UTC().Format("20060102"), key[KeySize:])
	return id + ":" + base64.StdEncoding.EncodeToString(key[:KeySize]), nil
}

// create writes a new key file at path, failing if one appeared meanwhile.
func create(path string) (*Keyring, bool, error) {
	line, err := NewKeyLine()
	if err != nil {
		return nil, false, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, false, fmt.Errorf("secretbox: create key file folder: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		k, _, err := LoadFile(path)
		return k, false, err
	}
	if err != nil {
		return nil, false, fmt.Errorf("secretbox: create key file: %w", err)
	}
	content := "# Vigil master key: the first line seals, later lines only open.\n" +
		"# Back this file up apart from the database; without it sealed secrets are lost.\n" + line + "\n"
	if _, err := f.WriteString(content); err != nil {
		f.Close()
		return nil, false, fmt.Errorf("secretbox: write key file: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return nil, false, fmt.Errorf("secretbox: write key file: %w", err)
	}
	if err := f.Close(); err != nil {
		return nil, false, fmt.Errorf("secretbox: write key file: %w", err)
	}
	k, err := Parse(line)
	return k, true, err
}

// decodeKey decodes standard or URL base64, padded or not, of KeySize bytes.
func decodeKey(s string) ([]byte, error) {
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil {
			if len(b) != KeySize {
				return nil, fmt.Errorf("got %d bytes, want %d", len(b), KeySize)
			}
			return b, nil
		}
	}
	return nil, errors.New("not base64")
}

// redact keeps a key line's id and hides the rest, for error messages.
func redact(line string) string {
	if len(line) > 8 {
		return line[:8] + "..."
	}
	return line
}

// Load returns the ring written in inline (Parse) when it is set, else the
// ring in the key file at path (LoadFile), reporting whether it created
// that file.
func Load(inline, path string) (k *Keyring, created bool, err error) {
	if strings.TrimSpace(inline) != "" {
		k, err = Parse(inline)
		return k, false, err
	}
	if path == "" {
		return nil, false, errors.New("secretbox: no master key: set a key ring or a key file path")
	}
	return LoadFile(path)
}
