package codehost

import (
	"context"
	"time"
)

// Connection authentication types.
const (
	AuthOAuth = "oauth"
	AuthPAT   = "pat"
)

// Webhook statuses of a tracked repository.
const (
	WebhookInactive = "inactive"
	WebhookActive   = "active"
)

// Connection statuses: active, or reauthorization_required once the code
// host refused to refresh an OAuth connection's token (revoked, expired
// or spent): nothing works until the user authorizes again.
const (
	StatusActive      = "active"
	StatusReauthorize = "reauthorization_required"
)

// Connection is an organization's link to an account on the code host.
type Connection struct {
	ID       string   `json:"id"`
	OrgID    string   `json:"-"`
	AuthType string   `json:"auth_type"`
	Status   string   `json:"status"`
	Username string   `json:"codehost_username"`
	Email    string   `json:"codehost_email"`
	Scopes   []string `json:"scopes"`
	// SealedToken is the access token sealed with secretbox (label
	// TokenLabel(ID)); it never leaves the server.
	SealedToken string `json:"-"`
	// SealedRefreshToken is the refresh token of an OAuth connection
	// whose access token expires, sealed with label RefreshLabel(ID);
	// empty otherwise.
	SealedRefreshToken string `json:"-"`
	// ExpiresAt is when the access token expires; zero when it does not.
	ExpiresAt time.Time `json:"token_expires_at,omitzero"`
	CreatedAt time.Time `json:"created_at"`
}

// Repository is a tracked repository.
type Repository struct {
	ID              string   `json:"id"`
	OrgID           string   `json:"-"`
	ConnectionID    string   `json:"connection_id"`
	Owner           string   `json:"owner"`
	Name            string   `json:"name"`
	FullName        string   `json:"full_name"`
	DefaultBranch   string   `json:"default_branch"`
	IsPrivate       bool     `json:"is_private"`
	TrackedBranches []string `json:"tracked_branches"`
	// TrackTags and TrackReleases register on tag creation and release
	// publication; AutoRegister registers detected models instead of
	// logging them for review.
	TrackTags     bool `json:"tracked_tags"`
	TrackReleases bool `json:"tracked_releases"`
	AutoRegister  bool `json:"auto_register_enabled"`
	// ModelPathPatterns are the globs of model files.
	ModelPathPatterns []string `json:"model_path_patterns"`
	WebhookStatus     string   `json:"webhook_status"`
	// WebhookID is the code host's id of the webhook setup created; 0
	// before.
	WebhookID int64 `json:"-"`
	// TrackedBy is the user who tracked it; the model versions registered
	// from it are theirs.
	TrackedBy string `json:"-"`
	// SealedWebhookSecret is the webhook's secret sealed with secretbox
	// (label SecretLabel(ID)); empty until the webhook is set up.
	SealedWebhookSecret   string    `json:"-"`
	TotalCommitsProcessed int64     `json:"total_commits_processed"`
	TotalModelsRegistered int64     `json:"total_models_registered"`
	CreatedAt             time.Time `json:"created_at"`
	// Revision counts the changes of options and webhook; an update is
	// conditional on it (UpdateCodehostRepository).
	Revision int64 `json:"-"`
}

// Delivery statuses.
const (
	// DeliveryReceived: a subscribed event, kept for processing.
	DeliveryReceived = "received"
	// DeliveryIgnored: an event nothing subscribes to (ping, ...).
	DeliveryIgnored = "ignored"
)

// Delivery is one event delivery the code host made.
type Delivery struct {
	RepositoryID string
	OrgID        string
	// ID is the platform's delivery id (X-GitHub-Delivery).
	ID      string
	Event   string
	Payload []byte
	Status  string
	// ReceivedAt is when it first arrived.
	ReceivedAt time.Time
}

// OAuthState is one OAuth authorization in flight: its nonce is stored
// when authorize hands out the state, and consumed once by the callback.
type OAuthState struct {
	Nonce     string
	OrgID     string
	UserID    string
	ExpiresAt time.Time
}

// TokenLabel and SecretLabel bind a sealed value to its record, so that a
// value copied onto another record does not open.
func TokenLabel(connectionID string) string { return "codehost-token:" + connectionID }

// RefreshLabel is the label of a connection's sealed refresh token.
func RefreshLabel(connectionID string) string { return "codehost-refresh-token:" + connectionID }

// SecretLabel is the label of a repository's sealed webhook secret.
func SecretLabel(repositoryID string) string { return "codehost-webhook-secret:" + repositoryID }

// Store keeps connections, tracked repositories and deliveries, the
// latter as a Queue. Methods that take an organization treat another
// organization's records as missing (store.ErrNotFound).
type Store interface {
	Queue
	CreateCodehostConnection(ctx context.Context, c Connection) error
	CodehostConnection(ctx context.Context, orgID, id string) (Connection, error)
	// CodehostConnections returns the organization's connections, oldest
	// first.
	CodehostConnections(ctx context.Context, orgID string) ([]Connection, error)
	// ClaimCodehostRefresh claims the refresh of the connection's token
	// until until, unless another claim holds at now: whether it did.
	ClaimCodehostRefresh(ctx context.Context, orgID, id string, now, until time.Time) (bool, error)
	// UpdateCodehostTokens stores c's status, sealed tokens and expiry,
	// and ends the claim of its refresh; store.ErrNotFound when the
	// organization has no such connection.
	UpdateCodehostTokens(ctx context.Context, c Connection) error
	// DeleteCodehostConnection removes the connection with its tracked
	// repositories and their deliveries.
	DeleteCodehostConnection(ctx context.Context, orgID, id string) error
	// CreateCodehostRepository stores r; store.ErrNotFound when its
	// connection is not the organization's, store.ErrConflict when the
	// organization tracks that full name already.
	CreateCodehostRepository(ctx context.Context, r Repository) error
	// CodehostRepository returns the organization's tracked repository.
	CodehostRepository(ctx context.Context, orgID, id string) (Repository, error)
	// CodehostRepositories returns a page of the organization's tracked
	// repositories, oldest first, and how many it tracks.
	CodehostRepositories(ctx context.Context, orgID string, offset, limit int) ([]Repository, int64, error)
	// UpdateCodehostRepository stores r's tracking options and webhook
	// (tracked branches, tags, releases, auto-register, patterns, webhook
	// status, id and sealed secret) if the stored revision is still
	// r.Revision, and increments it; store.ErrConflict when it is not (the
	// repository changed since r was read: nothing is written),
	// store.ErrNotFound when the organization has no such repository.
	UpdateCodehostRepository(ctx context.Context, r Repository) error
	// DeleteCodehostRepository untracks the repository, its deliveries
	// with it.
	DeleteCodehostRepository(ctx context.Context, orgID, id string) error
	// WebhookRepository returns the tracked repository id of whichever
	// organization: a delivery names no organization, its signature
	// proves it. store.ErrNotFound when none.
	WebhookRepository(ctx context.Context, id string) (Repository, error)
	// WebhookRepositoriesNamed returns at most limit tracked repositories
	// of whichever organization whose full name is fullName (compared
	// without case, as code hosts do) and whose webhook has a secret: the
	// candidates of a delivery to the spec's path, which names the
	// repository only in its payload.
	WebhookRepositoriesNamed(ctx context.Context, fullName string, limit int) ([]Repository, error)
	// RecordDelivery stores d unless its repository has a delivery with
	// its id already, and reports whether it stored it.
	RecordDelivery(ctx context.Context, d Delivery) (bool, error)
	// Deliveries returns the repository's deliveries, oldest first.
	Deliveries(ctx context.Context, orgID, repositoryID string) ([]Delivery, error)
	// CreateCodehostOAuthState stores an authorization in flight (and may
	// drop those expired at now).
	CreateCodehostOAuthState(ctx context.Context, s OAuthState, now time.Time) error
	// ConsumeCodehostOAuthState removes the state of s's nonce, organization
	// and user unless it expired at now, atomically: store.ErrNotFound when
	// there is none (never stored, used already, expired, another user's).
	ConsumeCodehostOAuthState(ctx context.Context, s OAuthState, now time.Time) error
}
