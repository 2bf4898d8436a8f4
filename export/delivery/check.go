package delivery

import (
	"fmt"
	"net"
	netmail "net/mail"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/crypto/ssh"

	"github.com/vigilhq/vigil/platform/web"
)

// settingsOf and secretsOf list the settings and the secrets each type of
// integration takes; any other one set is a problem.
var (
	settingsOf = map[string][]string{
		TypeEmail:   {"recipients"},
		TypeWebhook: {"url"},
		TypeS3:      {"endpoint", "bucket", "region", "prefix", "path_style"},
		TypeSFTP:    {"host", "port", "username", "directory", "host_key"},
	}
	secretsOf = map[string][]string{
		TypeWebhook: {"signing_secret"},
		TypeS3:      {"access_key_id", "secret_access_key"},
		TypeSFTP:    {"private_key"},
	}
)

// check validates the body for its type: 422 naming the field. keep
// says whether stored secrets stand in for absent ones.
func (a *API) check(b body, keep bool) error {
	var v web.Problems
	if b.Name == nil || strings.TrimSpace(*b.Name) == "" || utf8.RuneCountInString(*b.Name) > 200 {
		v.Add("name", "is required: 1 to 200 characters")
	}
	if b.Type == nil || !slices.Contains(Types, *b.Type) {
		v.Add("type", "must be one of "+strings.Join(Types, ", "))
		return v.Err()
	}
	s, sec := Settings{}, Secrets{}
	if b.Settings != nil {
		s = *b.Settings
	}
	if b.Secrets != nil {
		sec = *b.Secrets
	}
	switch *b.Type {
	case TypeEmail:
		checkEmail(&v, s)
	case TypeWebhook:
		a.checkWebhook(&v, s, sec, keep)
	case TypeS3:
		a.checkS3(&v, s, sec, keep)
	case TypeSFTP:
		a.checkSFTP(&v, s, sec, keep)
	}
	checkOthers(&v, *b.Type, s, sec)
	return v.Err()
}

// checkEmail checks an email integration's recipients.
func checkEmail(v *web.Problems, s Settings) {
	if len(s.Recipients) == 0 || len(s.Recipients) > MaxRecipients {
		v.Add("settings.recipients", fmt.Sprintf("must name 1 to %d addresses", MaxRecipients))
	}
	for i, r := range s.Recipients {
		if addr, err := netmail.ParseAddress(r); err != nil || addr.Address != r || len(r) > 254 {
			v.Add(fmt.Sprintf("settings.recipients[%d]", i), "must be an e-mail address (user@example.com)")
		}
	}
}

// checkWebhook checks a webhook integration's URL and signing secret.
func (a *API) checkWebhook(v *web.Problems, s Settings, sec Secrets, keep bool) {
	if _, err := a.guard().CheckURL(s.URL); err != nil {
		v.Add("settings.url", "must be an http(s) URL the outbound guard allows: "+err.Error())
	}
	checkSecret(v, "signing_secret", sec.SigningSecret, 16, keep)
}

// checkS3 checks an S3 integration's endpoint, bucket, region, prefix
// and keys.
func (a *API) checkS3(v *web.Problems, s Settings, sec Secrets, keep bool) {
	if _, err := a.guard().CheckURL(s.Endpoint); err != nil {
		v.Add("settings.endpoint", "must be an http(s) URL the outbound guard allows: "+err.Error())
	}
	if n := len(s.Bucket); n < 3 || n > 63 || strings.ToLower(s.Bucket) != s.Bucket || strings.ContainsAny(s.Bucket, "/ ") {
		v.Add("settings.bucket", "must be a bucket name: 3 to 63 lower-case characters, no slash")
	}
	if len(s.Region) > 64 || len(s.Prefix) > 512 {
		v.Add("settings.prefix", "region at most 64 and prefix at most 512 characters")
	}
	checkSecret(v, "access_key_id", sec.AccessKeyID, 3, keep)
	checkSecret(v, "secret_access_key", sec.SecretAccessKey, 8, keep)
}

// checkSFTP checks an SFTP integration's server, user, host key and
// private key.
func (a *API) checkSFTP(v *web.Problems, s Settings, sec Secrets, keep bool) {
	a.checkSFTPHost(v, s)
	if s.Username == "" || len(s.Username) > 64 {
		v.Add("settings.username", "is required: 1 to 64 characters")
	}
	if _, err := ParseHostKey(s.HostKey); err != nil {
		v.Add("settings.host_key", "must be the server's public key in authorized_keys form (ssh-ed25519 AAAA...)")
	}
	checkSecret(v, "private_key", sec.PrivateKey, 32, keep)
	if sec.PrivateKey != "" && len(sec.PrivateKey) <= 16384 {
		if _, err := ssh.ParsePrivateKey([]byte(sec.PrivateKey)); err != nil {
			v.Add("secrets.private_key", "must be an unencrypted private key (PEM: OpenSSH, PKCS#1, PKCS#8 or EC)")
		}
	}
}

// checkSFTPHost checks an SFTP server's port (22 when 0) and host, which
// the outbound guard must allow.
func (a *API) checkSFTPHost(v *web.Problems, s Settings) {
	port := int(s.Port)
	if port == 0 {
		port = 22
	}
	switch {
	case port < 1 || port > 65535:
		v.Add("settings.port", "must be 1 to 65535")
	case s.Host == "" || strings.ContainsAny(s.Host, "/@ "):
		v.Add("settings.host", "must be a host name or address")
	default:
		if _, err := a.guard().CheckURL("https://" + net.JoinHostPort(s.Host, strconv.Itoa(port)) + "/"); err != nil {
			v.Add("settings.host", "must be a host the outbound guard allows: "+err.Error())
		}
	}
}

// checkSecret checks a secret of at least min characters: required
// unless keep lets the stored one stand in for an absent one.
func checkSecret(v *web.Problems, field, value string, min int, keep bool) {
	switch {
	case value == "" && keep:
	case value == "":
		v.Add("secrets."+field, "is required")
	case utf8.RuneCountInString(value) < min || len(value) > 16384:
		v.Add("secrets."+field, fmt.Sprintf("must be %d to 16384 characters", min))
	}
}

// checkOthers refuses the settings and secrets set that the type does
// not take (settingsOf, secretsOf).
func checkOthers(v *web.Problems, typ string, s Settings, sec Secrets) {
	for name, set := range map[string]bool{"recipients": len(s.Recipients) > 0, "url": s.URL != "", "endpoint": s.Endpoint != "",
		"bucket": s.Bucket != "", "region": s.Region != "", "prefix": s.Prefix != "", "path_style": s.PathStyle, "host": s.Host != "",
		"port": s.Port != 0, "username": s.Username != "", "directory": s.Directory != "", "host_key": s.HostKey != ""} {
		if set && !slices.Contains(settingsOf[typ], name) {
			v.Add("settings."+name, "is not a setting of a "+typ+" integration")
		}
	}
	for name, set := range map[string]bool{"signing_secret": sec.SigningSecret != "", "access_key_id": sec.AccessKeyID != "",
		"secret_access_key": sec.SecretAccessKey != "", "private_key": sec.PrivateKey != ""} {
		if set && !slices.Contains(secretsOf[typ], name) {
			v.Add("secrets."+name, "is not a secret of a "+typ+" integration")
		}
	}
}
