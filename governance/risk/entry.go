package risk

import (
	"context"
	"time"

	"github.com/vigilhq/vigil/identity"
	"github.com/vigilhq/vigil/registry"
)

// Status is where an entry is in its workflow.
//
// A new entry is identified. The allowed moves (a PATCH with status and
// status_reason; any other move answers 422 naming status):
//
//	identified          -> assessed, closed
//	assessed            -> identified, mitigation_planned, closed
//	mitigation_planned  -> assessed, mitigated, closed
//	mitigated           -> mitigation_planned, closed
//	closed              -> identified (reopen)
//
// Sending the current status is no move and writes nothing. closed_at is
// set on closing and cleared on reopening. Every status other than closed
// is open.
type Status string

// The statuses of an entry, in workflow order.
const (
	StatusIdentified        Status = "identified"
	StatusAssessed          Status = "assessed"
	StatusMitigationPlanned Status = "mitigation_planned"
	StatusMitigated         Status = "mitigated"
	StatusClosed            Status = "closed"
)

// Statuses lists every status, in workflow order.
var Statuses = []Status{StatusIdentified, StatusAssessed, StatusMitigationPlanned, StatusMitigated, StatusClosed}

// transitions are the allowed moves: from a status to the statuses it may
// go to. Every open status may be closed (accepted, transferred or no
// longer relevant); a closed entry only reopens, to identified.
var transitions = map[Status][]Status{
	StatusIdentified:        {StatusAssessed, StatusClosed},
	StatusAssessed:          {StatusIdentified, StatusMitigationPlanned, StatusClosed},
	StatusMitigationPlanned: {StatusAssessed, StatusMitigated, StatusClosed},
	StatusMitigated:         {StatusMitigationPlanned, StatusClosed},
	StatusClosed:            {StatusIdentified},
}

// Allowed returns the statuses s may move to.
func (s Status) Allowed() []Status { return transitions[s] }

// CanMove reports whether an entry in s may move to to.
func (s Status) CanMove(to Status) bool {
	for _, a := range transitions[s] {
		if a == to {
			return true
		}
	}
	return false
}

// Open reports whether an entry in s is open: any status but closed.
func (s Status) Open() bool { return s != StatusClosed }

// Severities, most severe first.
var Severities = []string{"critical", "high", "medium", "low"}

// Source types of a drafted entry; a manual entry has none.
const (
	SourceBiasAudit        = "bias_audit"
	SourceDriftReport      = "drift_report"
	SourceGovernanceReview = "governance_review"
)

// Entry is one risk of an organization's register.
//
// With review_cadence_days set, next_review_at is the time of the last
// review plus the cadence; creating the entry and every PATCH that changes
// something count as a review. A closed entry has none.
type Entry struct {
	ID          string
	OrgID       string
	Title       string
	Description string
	Category    string
	Likelihood  int
	Impact      int
	// Score is Likelihood x Impact; Severity its band under the
	// organization's thresholds when Likelihood or Impact last changed.
	Score    int
	Severity string
	Status   Status
	// OwnerID is the accountable user ("" for none).
	OwnerID        string
	MitigationPlan string
	// TargetDate is YYYY-MM-DD ("" for none).
	TargetDate string
	// Cadence is the review cadence in days (0 for none); NextReview is
	// when the entry is next due for review (nil without a cadence or
	// once closed).
	Cadence    int
	NextReview *time.Time
	ModelIDs   []string
	// SourceType and SourceID name the record a drafted entry came from
	// ("" for a manual entry).
	SourceType string
	SourceID   string
	ClosedAt   *time.Time
	// CreatedBy is the creating user's id ("" for a drafted entry).
	CreatedBy string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Actions of the audit trail.
const (
	ActionCreate       = "create"
	ActionUpdate       = "update"
	ActionStatusChange = "status_change"
)

// Event is one line of an entry's audit trail.
//
// Every create (event_action create), field edit (update: details field,
// from, to; one event per field) and status change (status_change:
// details from, to, reason) is written in the transaction that makes it,
// with the acting user's id and username and the time.
type Event struct {
	ID      string
	OrgID   string
	EntryID string
	// Action is ActionCreate, ActionUpdate (one field's edit; Details
	// holds field, from and to) or ActionStatusChange (Details holds from,
	// to and reason).
	Action      string
	Description string
	Details     map[string]any
	// UserID and Username name the acting user; a drafted entry's create
	// has no user and the username SystemUser.
	UserID    string
	Username  string
	CreatedAt time.Time
}

// SystemUser is the username of the events Vigil writes itself (drafting).
const SystemUser = "system"

// Filter selects entries of one organization, newest first.
type Filter struct {
	Category, ModelID, OwnerID, Severity string
	Status                               Status
	// Limit and Offset page the list; Limit 0 means no limit.
	Limit, Offset int
}

// Cell is one cell of the portfolio's heat map.
type Cell struct {
	Likelihood int `json:"likelihood"`
	Impact     int `json:"impact"`
	Count      int `json:"count"`
}

// Counts are the open entries of an organization: per likelihood x impact
// cell (keyed likelihood*10+impact) and per severity.
type Counts struct {
	Cells      map[int]int
	BySeverity map[string]int
}

// Drafted is an entry to store with its create event, as the drafting of
// a governance event makes them (CreateRiskEntries stores a batch), and
// the severity thresholds in force (for Repeat).
type Drafted struct {
	Entry      Entry
	Event      Event
	Thresholds Thresholds
}

// Store keeps the register. Every method takes the caller's organization;
// another organization's entry is store.ErrNotFound like a missing one.
type Store interface {
	// Model and User resolve the ids an entry names.
	registry.Finder
	User(ctx context.Context, orgID, id string) (identity.User, error)
	// RiskConfig returns the organization's stored override (the zero
	// Override when none is on file).
	RiskConfig(ctx context.Context, orgID string) (Override, error)
	// PutRiskConfig stores the override, replacing the previous one.
	PutRiskConfig(ctx context.Context, orgID string, o Override, at time.Time) error
	// CreateRiskEntry stores a new entry and its create event in one
	// transaction; store.ErrNotFound when a model id is not the
	// organization's. An entry with a source (SourceType, SourceID) is
	// stored at most once per source: a second one changes nothing and
	// answers created false.
	CreateRiskEntry(ctx context.Context, e Entry, ev Event) (created bool, err error)
	// RiskEntry returns one entry.
	RiskEntry(ctx context.Context, orgID, id string) (Entry, error)
	// RiskEntries returns one page of entries matching f, newest first,
	// and how many match in all.
	RiskEntries(ctx context.Context, orgID string, f Filter) ([]Entry, int64, error)
	// UpdateRiskEntry reads the entry, locked, calls change, and stores
	// the entry and the events change returns in one transaction; an
	// error from change is returned and nothing is stored.
	// store.ErrNotFound when a model id is not the organization's.
	UpdateRiskEntry(ctx context.Context, orgID, id string, change func(*Entry) ([]Event, error)) (Entry, error)
	// RiskHistory returns the entry's events, oldest first.
	RiskHistory(ctx context.Context, orgID, id string) ([]Event, error)
	// RiskCounts counts the organization's open entries.
	RiskCounts(ctx context.Context, orgID string) (Counts, error)
	// TopRisks returns up to limit open entries, most severe first (then
	// highest score, then newest).
	TopRisks(ctx context.Context, orgID string, limit int) ([]Entry, error)
}
