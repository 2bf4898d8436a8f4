// Package delivery is the delivery integrations of exports
// (/export/integrations, spec 1's delivery methods): an integration is
// a named target of one type (email, webhook, s3, sftp, api) with its
// settings and its secrets, which are sealed at rest with the master key
// (platform/secretbox) and masked in every answer. Network targets
// (webhook URL, S3 endpoint, SFTP host) must pass the outbound guard.
//
// It imports export (and export/bucket for the S3 client), identity,
// the platform's plumbing and the store contract; never the store engines
// that keep its records.
package delivery

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/vigilhq/vigil/platform/secretbox"
	"github.com/vigilhq/vigil/platform/web"
)

// Types of an integration: spec 1's delivery methods but download, which
// needs none.
const (
	TypeEmail   = "email"
	TypeWebhook = "webhook"
	TypeS3      = "s3"
	TypeSFTP    = "sftp"
	TypeAPI     = "api"
)

// Types lists every integration type.
var Types = []string{TypeEmail, TypeWebhook, TypeS3, TypeSFTP, TypeAPI}

// Settings are an integration's settings in clear; each type uses its
// own (see the API's validation).
type Settings struct {
	// Recipients of an email integration.
	Recipients []string `json:"recipients,omitempty"`
	// URL of a webhook.
	URL string `json:"url,omitempty"`
	// Endpoint (https URL), Bucket, Region, Prefix and PathStyle of an
	// S3-compatible store.
	Endpoint  string `json:"endpoint,omitempty"`
	Bucket    string `json:"bucket,omitempty"`
	Region    string `json:"region,omitempty"`
	Prefix    string `json:"prefix,omitempty"`
	PathStyle bool   `json:"path_style,omitempty"`
	// Host, Port, Username, Directory and HostKey (the server's public
	// key, authorized_keys format) of an SFTP server.
	Host      string  `json:"host,omitempty"`
	Port      web.Int `json:"port,omitempty"`
	Username  string  `json:"username,omitempty"`
	Directory string  `json:"directory,omitempty"`
	HostKey   string  `json:"host_key,omitempty"`
}

// Secrets are an integration's credentials, sealed at rest.
type Secrets struct {
	// SigningSecret signs a webhook's deliveries.
	SigningSecret string `json:"signing_secret,omitempty"`
	// AccessKeyID and SecretAccessKey of an S3-compatible store.
	AccessKeyID     string `json:"access_key_id,omitempty"`
	SecretAccessKey string `json:"secret_access_key,omitempty"`
	// PrivateKey (PEM, OpenSSH or PKCS#8) of an SFTP user.
	PrivateKey string `json:"private_key,omitempty"`
}

// Integration is one delivery target of an organization. Sealed holds
// its Secrets sealed ("" when it has none); Masks each secret's masked
// form, shown in answers.
type Integration struct {
	ID, OrgID, Name, Type string
	Settings              Settings
	Sealed                string
	Masks                 map[string]string
	CreatedAt, UpdatedAt  time.Time
}

// Store keeps integrations. A record of another organization is
// store.ErrNotFound, as a missing one.
type Store interface {
	CreateExportIntegration(ctx context.Context, in Integration) error
	ExportIntegration(ctx context.Context, orgID, id string) (Integration, error)
	// ExportIntegrations lists the organization's integrations oldest
	// first with their total.
	ExportIntegrations(ctx context.Context, orgID string, offset, limit int) ([]Integration, int64, error)
	UpdateExportIntegration(ctx context.Context, in Integration) error
	DeleteExportIntegration(ctx context.Context, orgID, id string) error
}

// label is the secretbox label of an organization's integration secrets:
// sealed secrets open only in their organization.
func label(orgID string) string { return "export_integration:" + orgID }

// Seal seals s for the organization and returns the masks of its
// non-empty members.
func Seal(box *secretbox.Keyring, orgID string, s Secrets) (sealed string, masks map[string]string, err error) {
	masks = map[string]string{}
	raw, err := json.Marshal(s)
	if err != nil {
		return "", nil, err
	}
	var members map[string]string
	if err := json.Unmarshal(raw, &members); err != nil {
		return "", nil, err
	}
	if len(members) == 0 {
		return "", masks, nil
	}
	for k, v := range members {
		masks[k] = Mask(v)
	}
	sealed, err = box.Seal(raw, label(orgID))
	if err != nil {
		return "", nil, fmt.Errorf("seal integration secrets: %w", err)
	}
	return sealed, masks, nil
}

// Open opens an integration's sealed secrets.
func Open(box *secretbox.Keyring, in Integration) (Secrets, error) {
	var s Secrets
	if in.Sealed == "" {
		return s, nil
	}
	raw, err := box.Open(in.Sealed, label(in.OrgID))
	if err != nil {
		return s, fmt.Errorf("open integration secrets: %w", err)
	}
	return s, json.Unmarshal(raw, &s)
}

// Mask is how a secret is shown: four asterisks and, for a secret long
// enough to spare them, its last four characters.
func Mask(secret string) string {
	if r := []rune(secret); len(r) >= 16 {
		return "****" + string(r[len(r)-4:])
	}
	return "****"
}
