package alerts

import (
	"context"
	"time"
)

// DeliveryStatus is where a delivery is: pending (to be sent, or retried),
// delivered, or failed (out of attempts, or refused for good).
type DeliveryStatus string

// The statuses of a delivery.
const (
	DeliveryPending   DeliveryStatus = "pending"
	DeliveryDelivered DeliveryStatus = "delivered"
	DeliveryFailed    DeliveryStatus = "failed"
)

// Events a delivery announces.
const (
	EventOpened   = "alert.opened"
	EventReopened = "alert.reopened"
)

// Attempt is one try of a delivery.
type Attempt struct {
	At time.Time `json:"at"`
	// OK is true when the channel took the message.
	OK bool `json:"ok"`
	// StatusCode is the HTTP status of a webhook or Slack answer (0
	// without one); Error says what went wrong.
	StatusCode int     `json:"status_code,omitempty"`
	Error      string  `json:"error,omitempty"`
	DurationMS float64 `json:"duration_ms"`
}

// Delivery is one alert event to one channel of its rule.
type Delivery struct {
	ID, OrgID, AlertID, RuleID string
	Event                      string
	// ChannelIndex is the channel's place in the rule's
	// notification_channels.
	ChannelIndex int
	Channel      Channel
	// Payload is the JSON document delivered (a webhook's body; the
	// source of Slack's text and the e-mail).
	Payload       []byte
	Status        DeliveryStatus
	Attempts      []Attempt
	NextAttemptAt time.Time
	CreatedAt     time.Time
	UpdatedAt     time.Time
}

// Deliveries keeps deliveries in the transactional store.
type Deliveries interface {
	// CreateAlertDeliveries stores new pending deliveries.
	CreateAlertDeliveries(ctx context.Context, ds []Delivery) error
	// ClaimAlertDeliveries returns up to limit pending deliveries of any
	// organization due at now, each moved to be due again at lease (so
	// that no other dispatcher takes it meanwhile).
	ClaimAlertDeliveries(ctx context.Context, now, lease time.Time, limit int) ([]Delivery, error)
	// UpdateAlertDelivery stores d's status, attempts and next attempt.
	UpdateAlertDelivery(ctx context.Context, d Delivery) error
	// AlertDeliveries returns the deliveries of one alert, oldest first.
	AlertDeliveries(ctx context.Context, orgID, alertID string) ([]Delivery, error)
}
