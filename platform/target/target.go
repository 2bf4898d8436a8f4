// Package target keeps the secret ones among notification targets: which
// targets are secrets (a Slack incoming-webhook URL, whose path is the
// credential to post, and a webhook URL with a query, where receivers
// usually take a token), sealing them at rest with secretbox under their
// organization's label, opening them, and masking them for answers. Alert
// rules and drift configurations' alert_config share it, so a target
// sealed by either opens for the channels that deliver.
//
// It imports platform/secretbox alone.
package target

import (
	"fmt"
	"net/url"

	"github.com/vigilhq/vigil/platform/secretbox"
)

// Label is the secretbox label of an organization's sealed targets: a
// sealed target opens only in its organization.
func Label(orgID string) string { return "alert_channel:" + orgID }

// Secret reports whether a target of kind (slack, webhook, email) is a
// secret; a sealed target is one.
func Secret(kind, target string) bool {
	if secretbox.IsSealed(target) {
		return true
	}
	switch kind {
	case "slack":
		return true
	case "webhook":
		u, err := url.Parse(target)
		return err == nil && (u.User != nil || u.RawQuery != "")
	}
	return false
}

// Mask is how a secret target in clear is shown: its scheme and host, an
// ellipsis and its last four characters, https://hooks.slack.com/…/****abcd.
func Mask(target string) string {
	last := target
	if r := []rune(target); len(r) > 4 {
		last = string(r[len(r)-4:])
	}
	if u, err := url.Parse(target); err == nil && u.Scheme != "" && u.Host != "" {
		return u.Scheme + "://" + u.Host + "/…/****" + last
	}
	return "****" + last
}

// Seal returns the target sealed with box for the organization when it is
// a secret in clear, and whether it sealed it; otherwise, or with no box,
// the target as it is.
func Seal(box *secretbox.Keyring, orgID, kind, target string) (string, bool, error) {
	if box == nil || !Secret(kind, target) || secretbox.IsSealed(target) {
		return target, false, nil
	}
	s, err := box.Seal([]byte(target), Label(orgID))
	if err != nil {
		return "", false, fmt.Errorf("seal a target: %w", err)
	}
	return s, true, nil
}

// Open returns a target in clear: opened with box when it is sealed, as
// it is otherwise.
func Open(box *secretbox.Keyring, orgID, target string) (string, error) {
	if !secretbox.IsSealed(target) {
		return target, nil
	}
	if box == nil {
		return "", fmt.Errorf("a sealed target and no master key to open it")
	}
	b, err := box.Open(target, Label(orgID))
	if err != nil {
		return "", fmt.Errorf("open a target: %w", err)
	}
	return string(b), nil
}

// Shown is a target as an answer shows it: a secret masked (a sealed one
// that does not open masked as empty), any other as it is.
func Shown(box *secretbox.Keyring, orgID, kind, target string) string {
	if !Secret(kind, target) {
		return target
	}
	clear, err := Open(box, orgID, target)
	if err != nil {
		clear = ""
	}
	return Mask(clear)
}

// Kept returns the stored target (of the same kind) whose mask a request
// sent back, so that an edit of an answer keeps the secret; false when the
// request's target is no such mask.
func Kept(box *secretbox.Keyring, orgID, kind, requested string, stored func(yield func(kind, target string) bool)) (string, bool) {
	found, ok := "", false
	stored(func(k, t string) bool {
		if k == kind && Secret(k, t) && Shown(box, orgID, k, t) == requested {
			found, ok = t, true
			return false
		}
		return true
	})
	return found, ok
}
