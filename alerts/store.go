package alerts

import (
	"context"
	"time"

	"github.com/vigilhq/vigil/registry"
)

// Store keeps rules and instances in the transactional store. Every method
// takes the caller's organization; another organization's rule, instance
// or model is store.ErrNotFound like a missing one.
type Store interface {
	// Model returns the model; store.ErrNotFound when the organization
	// has no such model.
	Model(ctx context.Context, orgID, id string) (registry.Model, error)
	// Models lists the organization's models (a dry run of a rule over
	// every model observes each).
	Models(ctx context.Context, orgID string, f registry.Filter) ([]registry.Model, error)
	// CreateAlertRule stores a new rule; store.ErrNotFound when it names
	// a model the organization does not have.
	CreateAlertRule(ctx context.Context, r Rule) error
	// AlertRule returns one rule.
	AlertRule(ctx context.Context, orgID, id string) (Rule, error)
	// AlertRules returns one page of rules matching f, newest first, and
	// how many match in all.
	AlertRules(ctx context.Context, orgID string, f RuleFilter) ([]Rule, int64, error)
	// UpdateAlertRule applies change to the rule inside one transaction
	// and returns the stored result; an error from change aborts it, and
	// a model_id the organization does not have is store.ErrNotFound.
	// When the conditions change, the rule's instances of the old
	// condition set that are not resolved are resolved in the same
	// transaction (SystemUser, note "rule conditions changed"): nothing
	// evaluates them any more.
	UpdateAlertRule(ctx context.Context, orgID, id string, change func(*Rule) error) (Rule, error)
	// DeleteAlertRule deletes the rule and, in the same transaction,
	// resolves its instances that are not resolved (action resolve by
	// userID at at, note "rule deleted"); the instances are kept.
	DeleteAlertRule(ctx context.Context, orgID, id, userID string, at time.Time) error
	// AlertInstance returns one instance.
	AlertInstance(ctx context.Context, orgID, id string) (Instance, error)
	// AlertInstances returns one page of instances matching f, newest
	// trigger first, and how many match in all.
	AlertInstances(ctx context.Context, orgID string, f InstanceFilter) ([]Instance, int64, error)
	// UpdateAlertInstance applies change to the instance inside one
	// transaction (the row locked) and returns the stored result; an
	// error from change aborts it and is returned as is.
	UpdateAlertInstance(ctx context.Context, orgID, id string, change func(*Instance) error) (Instance, error)
}

// Target is one rule and one model it watches.
type Target struct {
	Rule    Rule
	ModelID string
}

// Outbox returns the deliveries an alert's write owes its channels (none
// when the write announces nothing): in is the instance as written,
// created whether the write opened it.
type Outbox func(in Instance, created bool) ([]Delivery, error)

// Ledger is the transactional store as the evaluation uses it, across
// every organization.
type Ledger interface {
	// AlertTargets returns every enabled rule with each model it watches:
	// its model, or every model of its organization that is not archived.
	AlertTargets(ctx context.Context) ([]Target, error)
	// OpenAlert returns the instance of the rule, model and condition key
	// that is not resolved; store.ErrNotFound when there is none.
	OpenAlert(ctx context.Context, orgID, ruleID, modelID, key string) (Instance, error)
	// FireAlert records that in's rule held for its model: when an
	// instance of the rule, model and condition key is not resolved,
	// change is applied to it in one transaction (the row locked) and it
	// is stored and returned with created false; else, unless an instance
	// of the rule and model was resolved after since, in is inserted and
	// returned with created true. With neither (a cooldown) it returns
	// the zero Instance, false. At most one unresolved instance exists
	// per rule, model and condition key whatever the replicas do: a
	// concurrent insert loses on the unique key and is retried as an
	// update. When outbox is set it is called inside the same
	// transaction with the instance written and whether it was created,
	// and the deliveries it returns are stored there too: the alert and
	// the deliveries it owes commit together or not at all, and an error
	// from outbox aborts both.
	FireAlert(ctx context.Context, in Instance, since time.Time, change func(*Instance) error, outbox Outbox) (Instance, bool, error)
	// FireAlerts is FireAlert for many holding rules in one transaction:
	// each Fire written as FireAlert writes it, with the same guarantees
	// (one unresolved instance per rule, model and condition key; each
	// alert with its deliveries), all of them or none. The answers are in
	// fires' order. A batch that loses a race on the unique key is run
	// again whole, so each Change must set its outcome afresh when called.
	FireAlerts(ctx context.Context, fires []Fire) ([]Fired, error)
	// UpdateAlertInstance is Store's.
	UpdateAlertInstance(ctx context.Context, orgID, id string, change func(*Instance) error) (Instance, error)
}

// Fire is one holding rule's write in a FireAlerts batch: FireAlert's
// arguments.
type Fire struct {
	Instance Instance
	Since    time.Time
	Change   func(*Instance) error
	Outbox   Outbox
}

// Fired is FireAlert's answer for one Fire: the instance written (zero in
// a cooldown) and whether the write opened it.
type Fired struct {
	Instance Instance
	Created  bool
}
