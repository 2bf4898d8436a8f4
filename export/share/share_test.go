package share

import (
	"regexp"
	"testing"
)

// TestCodes: passcodes are 8 digits, spread over the space; hashes bind
// a code to its share; tokens and slugs differ each time.
func TestCodes(t *testing.T) {
	digits := regexp.MustCompile(`^[0-9]{8}$`)
	seen := map[string]bool{}
	for range 1000 {
		c, err := NewCode()
		if err != nil {
			t.Fatal(err)
		}
		if !digits.MatchString(c) {
			t.Fatalf("got passcode %q, want 8 digits", c)
		}
		seen[c] = true
	}
	if len(seen) < 990 {
		t.Fatalf("got %d distinct passcodes in 1000, want them spread over 10^8", len(seen))
	}
	if HashCode("a", "12345678") == HashCode("b", "12345678") || HashCode("a", "12345678") != HashCode("a", "12345678") {
		t.Fatal("want a code's hash bound to its share and stable")
	}
	r1, h1, _ := NewToken()
	r2, h2, _ := NewToken()
	if r1 == r2 || h1 == h2 || HashToken(r1) != h1 {
		t.Fatal("want fresh tokens whose hash is HashToken's")
	}
	s1, _ := NewSlug()
	s2, _ := NewSlug()
	if s1 == s2 || len(s1) != 22 {
		t.Fatalf("got slugs %q and %q, want two distinct 22-character slugs", s1, s2)
	}
}
