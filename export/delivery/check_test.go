package delivery

import (
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/vigilhq/vigil/platform/testenv"
	"github.com/vigilhq/vigil/platform/web"
)

// TestCheck: each type of integration takes its own settings and
// secrets, checked one by one; any other one set is named; with keep, a
// stored secret stands in for an absent one. The fields named are the
// whole answer.
func TestCheck(t *testing.T) {
	hostKey, privateKey := testenv.NewSSHKey(t)
	a := &API{}
	f := func(typ string, s Settings, sec Secrets, keep bool, want ...string) {
		t.Helper()
		name := "files"
		err := a.check(body{Name: &name, Type: &typ, Settings: &s, Secrets: &sec}, keep)
		var got []string
		var we *web.Error
		if errors.As(err, &we) {
			got = slices.Sorted(maps.Keys(we.Details))
		} else if err != nil {
			t.Fatalf("%s: got error %v, want a validation error", typ, err)
		}
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s %+v %+v keep %v: got problems %v, want %v", typ, s, sec, keep, got, want)
		}
	}
	f(TypeEmail, Settings{Recipients: []string{"a@example.com"}}, Secrets{}, false)
	f(TypeEmail, Settings{}, Secrets{}, false, "settings.recipients")
	f(TypeEmail, Settings{Recipients: []string{"a@example.com", "A <b@example.com>"}, URL: "https://example.com"},
		Secrets{SigningSecret: strings.Repeat("s", 16)}, false, "settings.recipients[1]", "settings.url", "secrets.signing_secret")
	f(TypeWebhook, Settings{URL: "https://hooks.example.com/x"}, Secrets{SigningSecret: strings.Repeat("s", 16)}, false)
	f(TypeWebhook, Settings{URL: "https://hooks.example.com/x"}, Secrets{}, false, "secrets.signing_secret")
	f(TypeWebhook, Settings{URL: "https://hooks.example.com/x"}, Secrets{}, true)
	f(TypeWebhook, Settings{URL: "ftp://example.com"}, Secrets{SigningSecret: "short"}, true, "settings.url", "secrets.signing_secret")
	f(TypeS3, Settings{Endpoint: "https://s3.example.com", Bucket: "reports", Region: "eu", PathStyle: true},
		Secrets{AccessKeyID: "AKIA", SecretAccessKey: strings.Repeat("k", 8)}, false)
	f(TypeS3, Settings{Endpoint: "https://s3.example.com", Bucket: "Reports/x", Prefix: strings.Repeat("p", 513)},
		Secrets{SecretAccessKey: "k"}, false, "settings.bucket", "settings.prefix", "secrets.access_key_id", "secrets.secret_access_key")
	f(TypeSFTP, Settings{Host: "sftp.example.com", Username: "vigil", HostKey: hostKey}, Secrets{PrivateKey: privateKey}, false)
	f(TypeSFTP, Settings{Host: "sftp.example.com", Port: 70000, HostKey: "ssh-ed25519 AAAA"},
		Secrets{PrivateKey: strings.Repeat("k", 40)}, false, "settings.port", "settings.username", "settings.host_key", "secrets.private_key")
	f(TypeSFTP, Settings{Host: "a@b", Username: "vigil", HostKey: hostKey}, Secrets{}, true, "settings.host")
	f(TypeAPI, Settings{}, Secrets{}, false)
	f(TypeAPI, Settings{Port: 22, Directory: "/x"}, Secrets{PrivateKey: privateKey}, false,
		"settings.port", "settings.directory", "secrets.private_key")
	f("ftp", Settings{}, Secrets{}, false, "type")
}
