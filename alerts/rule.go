package alerts

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Alert types a rule may carry (alert_type): the spec shows performance
// and fairness; the others name the rest of the catalogue's sources.
var AlertTypes = []string{"performance", "drift", "fairness", "data_quality", "llm", "custom"}

// Severities a rule may carry, lowest first.
var Severities = []string{"low", "medium", "high", "critical"}

// Operators compare an observed value with a condition's threshold.
var Operators = []string{"gt", "gte", "lt", "lte", "eq", "ne"}

// Channel types a rule may deliver to.
var ChannelTypes = []string{"webhook", "slack", "email"}

// Limits of a rule.
const (
	// MaxConditions bounds the conditions of one rule.
	MaxConditions = 10
	// MaxChannels bounds the notification channels of one rule.
	MaxChannels = 10
	// MaxWindowMinutes is the longest window a condition may read: 7 days.
	MaxWindowMinutes = 7 * 24 * 60
	// MaxCooldownMinutes is the longest cooldown: 7 days.
	MaxCooldownMinutes = 7 * 24 * 60
	// DefaultCooldownMinutes is the cooldown of a rule that names none.
	DefaultCooldownMinutes = 15
	// DefaultWindowMinutes is the window of a condition that names none.
	DefaultWindowMinutes = 5
)

// Condition is one test of a rule: the metric observed over the last
// WindowMinutes whole minutes, compared with Threshold by Operator.
type Condition struct {
	MetricName    string  `json:"metric_name"`
	Operator      string  `json:"operator"`
	Threshold     float64 `json:"threshold"`
	WindowMinutes int     `json:"window_minutes"`
}

// Holds reports whether value v meets the condition.
func (c Condition) Holds(v float64) bool {
	switch c.Operator {
	case "gt":
		return v > c.Threshold
	case "gte":
		return v >= c.Threshold
	case "lt":
		return v < c.Threshold
	case "lte":
		return v <= c.Threshold
	case "eq":
		return v == c.Threshold
	case "ne":
		return v != c.Threshold
	}
	return false
}

// Window is the condition's window as a duration.
func (c Condition) Window() time.Duration { return time.Duration(c.WindowMinutes) * time.Minute }

// Channel is where a rule's alerts are delivered: a webhook or Slack
// incoming-webhook URL, or an e-mail address.
type Channel struct {
	Type   string `json:"type"`
	Target string `json:"target"`
}

// Rule is an alert rule of one organization. ModelID "" watches every
// model of the organization. All conditions must hold for the rule to
// fire.
type Rule struct {
	ID          string
	OrgID       string
	Name        string
	Description string
	AlertType   string
	Severity    string
	ModelID     string
	Conditions  []Condition
	Channels    []Channel
	Enabled     bool
	// CooldownMinutes: after an instance of the rule and a model is
	// resolved, no new one opens for that model until they have passed.
	CooldownMinutes int
	// ManagedBy names the resource that manages the rule ("" for a rule
	// users define): ManagedByDrift for a drift configuration's
	// alert_config. Users see a managed rule but cannot change or delete
	// it through the alerts API.
	ManagedBy string
	CreatedBy string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Cooldown is the rule's cooldown as a duration.
func (r Rule) Cooldown() time.Duration { return time.Duration(r.CooldownMinutes) * time.Minute }

// ConditionKey is a digest of the rule's conditions: an instance belongs to
// one rule, model and condition set, so that editing a rule's conditions
// opens a new instance rather than updating one raised by other tests.
func (r Rule) ConditionKey() string {
	var b strings.Builder
	for _, c := range r.Conditions {
		fmt.Fprintf(&b, "%q %s %s %d\n", c.MetricName, c.Operator, strconv.FormatFloat(c.Threshold, 'g', -1, 64), c.WindowMinutes)
	}
	sum := sha256.Sum256([]byte(b.String()))
	return hex.EncodeToString(sum[:16])
}

// Span is the longest window of the rule's conditions.
func (r Rule) Span() time.Duration {
	var w time.Duration
	for _, c := range r.Conditions {
		w = max(w, c.Window())
	}
	return w
}

// RuleFilter selects rules of one organization for a list, newest first.
type RuleFilter struct {
	// ModelID keeps the rules of one model (and not those over every
	// model); Enabled, when set, keeps the enabled or the disabled ones.
	ModelID string
	Enabled *bool
	// Limit and Offset page the list; Limit 0 means no limit.
	Limit, Offset int
}
