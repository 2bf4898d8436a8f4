package alerts

import (
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"
)

// Status is where an alert instance is in its life.
//
// The evaluation (processors/alerting) opens an instance when a rule holds
// for a model. A rule, model and condition set (Rule.ConditionKey) has at
// most one instance that is not resolved; while the rule keeps holding,
// each newly evaluated window updates it (observations, count, window_end,
// last_triggered_at) rather than opening another. The states and the
// operations that move them:
//
//	from                          operation (who)                  to
//	(none)                        trigger (evaluation)             open
//	open, snoozed                 acknowledge (user)               acknowledged
//	open, acknowledged, snoozed   snooze until a time (user)       snoozed
//	open, acknowledged, snoozed   resolve (user)                   resolved
//	snoozed, its time passed      reopen (evaluation: still holds) open
//	open, acknowledged, snoozed   auto_resolve (evaluation: a      resolved
//	                              complete window where it no
//	                              longer holds)
//
// resolved is final; any other move answers 409 naming the status and the
// statuses the move starts from. Deleting a rule resolves its instances
// (note "rule deleted") and keeps them. Every move is appended to the
// instance's history with the user (SystemUser for the evaluation), the
// time and, for a snooze, its end. After an instance is resolved, the
// rule opens no new one for the model until cooldown_minutes have passed.
type Status string

// The statuses of an instance. Every one but resolved is "not resolved":
// a rule, model and condition set has at most one such instance.
const (
	StatusOpen         Status = "open"
	StatusAcknowledged Status = "acknowledged"
	StatusSnoozed      Status = "snoozed"
	StatusResolved     Status = "resolved"
)

// Statuses lists every status.
var Statuses = []Status{StatusOpen, StatusAcknowledged, StatusSnoozed, StatusResolved}

// Actions move an instance (Move.Action).
const (
	ActionTrigger     = "trigger"     // the evaluation opened it
	ActionAcknowledge = "acknowledge" // a user
	ActionSnooze      = "snooze"      // a user, until a time
	ActionResolve     = "resolve"     // a user
	ActionReopen      = "reopen"      // the evaluation: a snooze ended and the rule still holds
	ActionAutoResolve = "auto_resolve"
)

// SystemUser is the user of the moves the evaluation makes.
const SystemUser = "system"

// moves is the state machine: for each action, the statuses it may start
// from and the status it leads to. Any other move is illegal (409).
var moves = map[string]struct {
	from []Status
	to   Status
}{
	ActionAcknowledge: {[]Status{StatusOpen, StatusSnoozed}, StatusAcknowledged},
	ActionSnooze:      {[]Status{StatusOpen, StatusAcknowledged, StatusSnoozed}, StatusSnoozed},
	ActionResolve:     {[]Status{StatusOpen, StatusAcknowledged, StatusSnoozed}, StatusResolved},
	ActionReopen:      {[]Status{StatusSnoozed}, StatusOpen},
	ActionAutoResolve: {[]Status{StatusOpen, StatusAcknowledged, StatusSnoozed}, StatusResolved},
}

// Move is one recorded change of an instance's status.
type Move struct {
	Action string    `json:"action"`
	From   Status    `json:"from"`
	To     Status    `json:"to"`
	UserID string    `json:"user_id"`
	At     time.Time `json:"at"`
	// Until is the end of a snooze; Note says why (a resolution note, the
	// evaluation's reason).
	Until *time.Time `json:"until,omitempty"`
	Note  string     `json:"note,omitempty"`
}

// Observation is one condition of a rule with the value observed over its
// window; Value is nil when the window held no data for it.
type Observation struct {
	Condition
	Value *float64 `json:"value"`
	Holds bool     `json:"holds"`
}

// Instance is one alert raised by a rule for a model.
type Instance struct {
	ID, OrgID, RuleID, ModelID string
	// ConditionKey is the rule's ConditionKey when it fired.
	ConditionKey string
	// RuleName, AlertType and Severity are the rule's when it fired.
	RuleName, AlertType, Severity string
	Status                        Status
	// Observations are the conditions with their values at the last
	// window in which the rule held.
	Observations []Observation
	// Count is how many evaluated windows the rule held in, WindowEnd the
	// end of the last one.
	Count           int64
	WindowEnd       time.Time
	TriggeredAt     time.Time
	LastTriggeredAt time.Time
	AcknowledgedAt  *time.Time
	AcknowledgedBy  string
	SnoozedUntil    *time.Time
	ResolvedAt      *time.Time
	ResolvedBy      string
	// Resolution is "manual" or "auto" once resolved.
	Resolution string
	History    []Move
	UpdatedAt  time.Time
}

// IllegalMove is the error of a move the instance's status does not
// allow: the API answers it 409 naming the status.
type IllegalMove struct {
	Action string
	Status Status
}

func (e *IllegalMove) Error() string {
	return fmt.Sprintf("cannot %s an alert that is %s", e.Action, e.Status)
}

// Apply moves in by action, recording who and when; until is the end of
// a snooze and note is kept with the move. It changes nothing and returns
// *IllegalMove when in's status does not allow the action.
//
// A move is never dated before in's last change: at is raised to
// UpdatedAt when it is earlier. An evaluation reads its clock when its
// tick starts and another replica (or a clock a little ahead) may have
// updated the alert since, so without this an automatic resolution could
// come before the trigger and give a negative time to resolve.
func (in *Instance) Apply(action, userID string, at time.Time, until *time.Time, note string) error {
	m, ok := moves[action]
	if !ok || !slices.Contains(m.from, in.Status) {
		return &IllegalMove{Action: action, Status: in.Status}
	}
	// Times are kept as the store keeps them: UTC, whole microseconds.
	at = NotBefore(at, in.UpdatedAt)
	if action != ActionSnooze {
		until = nil // only a snooze has an end
	}
	if until != nil {
		u := until.UTC().Truncate(time.Microsecond)
		until = &u
	}
	from := in.Status
	in.Status, in.UpdatedAt = m.to, at
	switch action {
	case ActionAcknowledge:
		if in.AcknowledgedAt == nil {
			in.AcknowledgedAt = &at
		}
		in.AcknowledgedBy, in.SnoozedUntil = userID, nil
	case ActionSnooze:
		in.SnoozedUntil = until
	case ActionReopen:
		in.SnoozedUntil = nil
	case ActionResolve, ActionAutoResolve:
		in.ResolvedAt, in.ResolvedBy, in.SnoozedUntil = &at, userID, nil
		in.Resolution = "manual"
		if action == ActionAutoResolve {
			in.Resolution = "auto"
		}
	}
	in.History = append(in.History, Move{Action: action, From: from, To: m.to, UserID: userID, At: at, Until: until, Note: note})
	return nil
}

// InstanceFilter selects instances of one organization for a list,
// newest trigger first.
type InstanceFilter struct {
	Status   Status
	Severity string
	ModelID  string
	RuleID   string
	// From and To bound triggered_at: [From, To); zero is unbounded.
	From, To time.Time
	// Limit and Offset page the list; Limit 0 means no limit.
	Limit, Offset int
}

// NewInstance is the instance r opens for the model when it holds in the
// window ending at end, with the observations, at time now.
func NewInstance(r Rule, modelID string, end time.Time, obs []Observation, now time.Time) Instance {
	now = now.UTC().Truncate(time.Microsecond)
	return Instance{ID: newID(), OrgID: r.OrgID, RuleID: r.ID, ModelID: modelID, ConditionKey: r.ConditionKey(),
		RuleName: r.Name, AlertType: r.AlertType, Severity: r.Severity, Status: StatusOpen, Observations: obs, Count: 1,
		WindowEnd: end, TriggeredAt: now, LastTriggeredAt: now, UpdatedAt: now,
		History: []Move{{Action: ActionTrigger, To: StatusOpen, UserID: SystemUser, At: now}}}
}

// NotBefore is t in UTC and whole microseconds (as the store keeps times),
// raised to floor when it is earlier.
func NotBefore(t, floor time.Time) time.Time {
	t = t.UTC().Truncate(time.Microsecond)
	if t.Before(floor) {
		return floor.UTC().Truncate(time.Microsecond)
	}
	return t
}

// newID is a new instance id: a UUIDv7, which sorts by time.
func newID() string {
	id, err := uuid.NewV7()
	if err != nil {
		return uuid.NewString()
	}
	return id.String()
}
