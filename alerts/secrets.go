package alerts

import (
	"context"
	"errors"
	"fmt"

	"github.com/vigilhq/vigil/platform/secretbox"
	"github.com/vigilhq/vigil/platform/target"
	"github.com/vigilhq/vigil/store"
)

// ChannelLabel is the secretbox label of an organization's sealed channel
// targets (platform/target.Label).
func ChannelLabel(orgID string) string { return target.Label(orgID) }

// SecretChannel reports whether a channel's target is a secret
// (platform/target.Secret): a Slack incoming-webhook URL, or a webhook URL
// with a query, where receivers usually take a token (user info is
// refused in a webhook URL). Such a target is sealed at rest and masked
// in every response; a webhook URL without a query stays in clear.
func SecretChannel(ch Channel) bool { return target.Secret(ch.Type, ch.Target) }

// MaskTarget is how a secret target is shown (platform/target.Mask).
func MaskTarget(t string) string { return target.Mask(t) }

// OpenTarget returns a channel's target in clear (platform/target.Open):
// opened with box when it is sealed, as is otherwise.
func OpenTarget(box *secretbox.Keyring, orgID, t string) (string, error) {
	return target.Open(box, orgID, t)
}

// openChannels returns chans with every target in clear; a target that
// does not open is left sealed (it is masked, never shown).
func (a *API) openChannels(orgID string, chans []Channel) []Channel {
	out := make([]Channel, len(chans))
	for i, ch := range chans {
		out[i] = ch
		if t, err := OpenTarget(a.Box, orgID, ch.Target); err == nil {
			out[i].Target = t
		}
	}
	return out
}

// sealChannels seals the secret targets of chans that are in clear (with
// no Box, the API of a test, they stay in clear).
func (a *API) sealChannels(orgID string, chans []Channel) ([]Channel, error) {
	out, _, err := SealTargets(a.Box, orgID, chans)
	return out, err
}

// SealTargets returns chans with every secret target that is in clear
// sealed with box for the organization, and whether any was; with no box
// they stay as they are.
func SealTargets(box *secretbox.Keyring, orgID string, chans []Channel) ([]Channel, bool, error) {
	out := make([]Channel, len(chans))
	sealed := false
	for i, ch := range chans {
		t, did, err := target.Seal(box, orgID, ch.Type, ch.Target)
		if err != nil {
			return nil, false, fmt.Errorf("seal a channel target: %w", err)
		}
		out[i], sealed = Channel{Type: ch.Type, Target: t}, sealed || did
	}
	return out, sealed, nil
}

// Resealer is what Reseal needs of the transactional store.
type Resealer interface {
	// UserAlertRules returns every organization's rules that users
	// define (no managed_by).
	UserAlertRules(ctx context.Context) ([]Rule, error)
	// UpdateAlertRule is Store's.
	UpdateAlertRule(ctx context.Context, orgID, id string, change func(*Rule) error) (Rule, error)
}

// Reseal seals the secret targets that rules stored before sealing (or
// before a kind of target counted as secret) still hold in clear, and
// returns how many rules it changed; a rule's other fields, updated_at
// included, stay. Rules a drift configuration manages are left to it.
// The processor role runs it once at start.
func Reseal(ctx context.Context, st Resealer, box *secretbox.Keyring) (int, error) {
	if box == nil {
		return 0, nil
	}
	rules, err := st.UserAlertRules(ctx)
	if err != nil {
		return 0, fmt.Errorf("list alert rules: %w", err)
	}
	n := 0
	for _, r := range rules {
		if _, sealed, err := SealTargets(box, r.OrgID, r.Channels); err != nil || !sealed {
			continue
		}
		_, err := st.UpdateAlertRule(ctx, r.OrgID, r.ID, func(cur *Rule) error {
			chans, _, err := SealTargets(box, cur.OrgID, cur.Channels)
			cur.Channels = chans
			return err
		})
		if err != nil && !errors.Is(err, store.ErrNotFound) { // a rule deleted meanwhile needs nothing
			return n, fmt.Errorf("reseal rule %s: %w", r.ID, err)
		}
		if err == nil {
			n++
		}
	}
	return n, nil
}

// unmask replaces each secret target of a request that is the mask of one
// of the stored channels (clear) by that channel's target
// (platform/target.Kept): a PATCH that sends back the channels it read
// keeps their secrets.
func unmask(req []Channel, stored []Channel) {
	each := func(yield func(kind, target string) bool) {
		for _, s := range stored {
			if !yield(s.Type, s.Target) {
				return
			}
		}
	}
	for i, ch := range req {
		if t, ok := target.Kept(nil, "", ch.Type, ch.Target, each); ok {
			req[i].Target = t
		}
	}
}

// view is r as answered: secret targets masked.
func (a *API) view(r Rule) ruleView {
	v := newRuleView(r)
	chans := make([]Channel, len(v.Channels))
	for i, ch := range v.Channels {
		chans[i] = Channel{Type: ch.Type, Target: target.Shown(a.Box, r.OrgID, ch.Type, ch.Target)}
	}
	v.Channels = chans
	return v
}
