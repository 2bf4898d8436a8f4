package delivery

import (
	"bytes"
	"strings"
	"testing"

	"github.com/vigilhq/vigil/platform/secretbox"
)

// TestSeal: secrets seal for one organization and open only there; the
// masks show at most the last four characters of a long secret; a
// tampered ciphertext is an error.
func TestSeal(t *testing.T) {
	box, err := secretbox.NewKeyring([]string{"k1"}, [][]byte{bytes.Repeat([]byte{7}, 32)})
	if err != nil {
		t.Fatal(err)
	}
	sec := Secrets{AccessKeyID: "AKIA", SecretAccessKey: "wJalrXUtnFEMI/K7MDENG"}
	sealed, masks, err := Seal(box, "org-a", sec)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(sealed, "wJalr") || masks["secret_access_key"] != "****DENG" || masks["access_key_id"] != "****" || len(masks) != 2 {
		t.Fatalf("got sealed %q and masks %v, want the secrets hidden", sealed, masks)
	}
	got, err := Open(box, Integration{OrgID: "org-a", Sealed: sealed})
	if err != nil || got != sec {
		t.Fatalf("got %+v (%v), want %+v", got, err, sec)
	}
	if _, err := Open(box, Integration{OrgID: "org-b", Sealed: sealed}); err == nil {
		t.Fatal("want the secrets of organization A sealed against organization B")
	}
	tampered := sealed[:len(sealed)-2] + "AA"
	if tampered == sealed {
		tampered = sealed[:len(sealed)-2] + "BB"
	}
	if _, err := Open(box, Integration{OrgID: "org-a", Sealed: tampered}); err == nil {
		t.Fatal("want a tampered ciphertext refused")
	}
	if _, masks, _ := Seal(box, "org-a", Secrets{}); len(masks) != 0 {
		t.Fatalf("got masks %v of no secrets, want none", masks)
	}
}
