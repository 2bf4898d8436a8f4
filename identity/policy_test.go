package identity_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/vigilhq/vigil/identity"
	"github.com/vigilhq/vigil/sqlstore"
	"github.com/vigilhq/vigil/sqlstore/sqlitestore"
)

// TestPasswordProblem: the NIST SP 800-63B rev. 4 policy, counted in code
// points after NFC normalisation, with no composition rules.
func TestPasswordProblem(t *testing.T) {
	decomposed := "de\u0301ja\u0300 vu, encore" // 17 code points, 15 after NFC
	for _, tc := range []struct {
		name, username, password, want string
	}{
		{"14 characters", "ann", "fourteen chars", "must be 15 to 256 characters, got 14"},
		{"15 characters", "ann", "fifteen chars!!", ""},
		{"lower-case letters only", "ann", "nothingbutlowercaseletters", ""},
		{"15 after NFC", "ann", decomposed, ""},
		{"14 after NFC", "ann", decomposed[:len(decomposed)-1], "must be 15 to 256 characters, got 14"},
		{"256 characters", "ann", strings.Repeat("tangerine ", 25) + "voltag", ""},
		{"257 characters", "ann", strings.Repeat("tangerine ", 25) + "voltage", "must be 15 to 256 characters, got 257"},
		{"common", "ann", "ManchesterUnited", "is a commonly used password"},
		{"common repeated", "ann", "passwordpassword", "is a commonly used password"},
		{"username inside", "Alice", "my name is ALICE and I like tea", "must not contain the username"},
	} {
		if got := identity.PasswordProblem(tc.username, tc.password); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestPasswordNotTruncated: a long password is hashed whole, and the same
// password typed decomposed (NFD) matches.
func TestPasswordNotTruncated(t *testing.T) {
	long := strings.Repeat("a long passphrase ", 14) // 252 characters
	h, err := identity.HashPassword(long)
	if err != nil {
		t.Fatal(err)
	}
	for pw, want := range map[string]bool{long: true, long[:len(long)-1]: false, long[:72]: false} {
		if ok, err := identity.CheckPassword(h, pw); err != nil || ok != want {
			t.Errorf("CheckPassword of %d characters: got %v, %v, want %v", len(pw), ok, err, want)
		}
	}
	h, err = identity.HashPassword("caf\u00e9 au lait every morning")
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := identity.CheckPassword(h, "cafe\u0301 au lait every morning"); err != nil || !ok {
		t.Errorf("CheckPassword in NFD: got %v, %v, want true", ok, err)
	}
}

// TestBootstrapPasswordPolicy: a configured admin password that fails the
// policy refuses the start and says why; a generated one passes it.
func TestBootstrapPasswordPolicy(t *testing.T) {
	ctx := context.Background()
	open := func() *sqlstore.DB {
		t.Helper()
		st, err := sqlitestore.Open(ctx, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}
	for _, pw := range []string{"change me", "manchesterunited", "admin's very own password"} {
		err := identity.Bootstrap(ctx, open(), "admin", pw, slogDiscard())
		if err == nil || !strings.Contains(err.Error(), "VIGIL_ADMIN_PASSWORD") || !strings.Contains(err.Error(), identity.PasswordRule) {
			t.Errorf("Bootstrap with %q: got %v, want an error naming VIGIL_ADMIN_PASSWORD and the rule", pw, err)
		}
	}
	var buf bytes.Buffer
	if err := identity.Bootstrap(ctx, open(), "admin", "", slog.New(slog.NewJSONHandler(&buf, nil))); err != nil {
		t.Fatalf("Bootstrap with a generated password: %v", err)
	}
	var password string
	for _, l := range bytes.Split(buf.Bytes(), []byte("\n")) {
		var line struct{ Password string }
		if json.Unmarshal(l, &line) == nil && line.Password != "" {
			password = line.Password
		}
	}
	if password == "" {
		t.Fatalf("log %s: got no line with the password, want one", buf.Bytes())
	}
	if p := identity.PasswordProblem("admin", password); p != "" {
		t.Errorf("generated password %q: got problem %q, want none", password, p)
	}
}
