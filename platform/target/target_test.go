package target

import (
	"testing"

	"github.com/vigilhq/vigil/platform/secretbox"
)

func TestSecret(t *testing.T) {
	f := func(kind, target string, want bool) {
		t.Helper()
		if got := Secret(kind, target); got != want {
			t.Errorf("Secret(%q, %q): got %v, want %v", kind, target, got, want)
		}
	}
	f("slack", "https://hooks.slack.com/services/T/B/x", true)
	f("webhook", "https://hooks.example.com/in?token=abc", true)
	f("webhook", "https://hooks.example.com/in", false)
	f("email", "oncall@example.com", false)
}

func TestSealOpenMaskKept(t *testing.T) {
	box, err := secretbox.NewKeyring([]string{"k1"}, [][]byte{[]byte("0123456789abcdef0123456789abcdef")})
	if err != nil {
		t.Fatal(err)
	}
	const clear = "https://hooks.slack.com/services/T/B/s3cr3tabcd"
	sealed, did, err := Seal(box, "org-1", "slack", clear)
	if err != nil || !did || !secretbox.IsSealed(sealed) {
		t.Fatalf("Seal: got %q, %v, %v, want a sealed target", sealed, did, err)
	}
	if again, did, _ := Seal(box, "org-1", "slack", sealed); did || again != sealed {
		t.Fatalf("Seal of a sealed target: got %q, %v, want it as it is", again, did)
	}
	if got, err := Open(box, "org-1", sealed); err != nil || got != clear {
		t.Fatalf("Open: got %q, %v, want %q", got, err, clear)
	}
	if _, err := Open(box, "org-2", sealed); err == nil {
		t.Fatal("Open in another organization: got nil error, want a refusal")
	}
	const shown = "https://hooks.slack.com/…/****abcd"
	if got := Shown(box, "org-1", "slack", sealed); got != shown {
		t.Fatalf("Shown: got %q, want %q", got, shown)
	}
	stored := func(yield func(kind, target string) bool) {
		_ = yield("email", "a@example.com") && yield("slack", sealed)
	}
	if got, ok := Kept(box, "org-1", "slack", shown, stored); !ok || got != sealed {
		t.Fatalf("Kept of the mask: got %q, %v, want the stored sealed target", got, ok)
	}
	if _, ok := Kept(box, "org-1", "slack", "https://hooks.slack.com/services/new", stored); ok {
		t.Fatal("Kept of a new URL: got true, want false")
	}
}
