package commonpasswords_test

import (
	"testing"

	"github.com/vigilhq/vigil/identity/commonpasswords"
)

func TestListed(t *testing.T) {
	for _, tc := range []struct {
		password string
		want     bool
	}{
		{"manchesterunited", true},          // listed, 16 characters
		{"ManchesterUnited", true},          // case does not matter
		{"1q2w3e4r5t6y7u8i", true},          // listed keyboard walk
		{"passwordpassword", true},          // a listed password repeated
		{"qwertyqwertyqwerty", true},        // another
		{"abcdabcdabcdabcd", true},          // a short run repeated
		{"aaaaaaaaaaaaaaa", true},           // one character repeated
		{"password", true},                  // listed, short
		{"correct horse battery", false},    // not listed
		{"tangerine-voltage-harbor", false}, // not listed
		{"saxophonesaxophone1", false},      // not a pure repetition
		{"Kaffee und Kuchen am Sonntag", false},
	} {
		if got := commonpasswords.Listed(tc.password); got != tc.want {
			t.Errorf("Listed(%q): got %v, want %v", tc.password, got, tc.want)
		}
	}
}
