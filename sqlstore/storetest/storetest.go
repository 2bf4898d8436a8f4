// Package storetest is the contract suite of Vigil's transactional store:
// the behaviour of identity.Store and registry.Store that every engine
// (sqlstore/sqlitestore, sqlstore/postgres) must show. An engine's test calls Run with
// a function that opens a fresh, empty store.
//
// It imports the store errors, the schemas and the packages whose stores it
// checks; it must not import an engine (each engine's tests call Run).
package storetest

import (
	"context"
	"database/sql"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/vigilhq/vigil/alerts"
	"github.com/vigilhq/vigil/bias"
	"github.com/vigilhq/vigil/drift"
	"github.com/vigilhq/vigil/explanation"
	"github.com/vigilhq/vigil/explanation/artifact"
	"github.com/vigilhq/vigil/explanation/autoexplain"
	"github.com/vigilhq/vigil/explanation/coverage"
	"github.com/vigilhq/vigil/explanation/serving"
	"github.com/vigilhq/vigil/export"
	"github.com/vigilhq/vigil/export/delivery"
	"github.com/vigilhq/vigil/export/reportschedule"
	"github.com/vigilhq/vigil/export/share"
	"github.com/vigilhq/vigil/governance/review"
	"github.com/vigilhq/vigil/governance/risk"
	"github.com/vigilhq/vigil/governance/trust"
	"github.com/vigilhq/vigil/identity"
	"github.com/vigilhq/vigil/integrations/codehost"
	"github.com/vigilhq/vigil/integrations/kserve"
	"github.com/vigilhq/vigil/integrations/workflow"
	"github.com/vigilhq/vigil/pricing"
	"github.com/vigilhq/vigil/registry"
)

// Store is what the suite tests: every store on one engine.
type Store interface {
	identity.Store
	registry.Store
	pricing.Store
	kserve.Store
	DriftConfig(ctx context.Context, orgID, modelID string) (drift.Config, error)
	CreateDriftConfig(ctx context.Context, c drift.Config) error
	UpdateDriftConfig(ctx context.Context, base drift.Config, change func(*drift.Config) error) (drift.Config, error)
	EnsureDefaultDriftRule(ctx context.Context, orgID, modelID string, at time.Time) error
	drift.ReportStore
	NewestDriftReports(ctx context.Context, orgID string, from time.Time) ([]drift.Report, error)
	drift.ReferenceStore
	CreateBiasAudit(ctx context.Context, a bias.Audit) error
	BiasAudit(ctx context.Context, orgID, id string) (bias.Audit, error)
	BiasAudits(ctx context.Context, orgID string, f bias.Filter) ([]bias.Audit, int64, error)
	UpdateBiasAudit(ctx context.Context, a bias.Audit) error
	TouchBiasAudits(ctx context.Context, ids []string, at time.Time) error
	FailStaleBiasAudits(ctx context.Context, before, at time.Time, reason string) (int64, error)
	DeleteBiasAudit(ctx context.Context, orgID, id string, at time.Time) error
	BiasGovernancePending(ctx context.Context, limit int) ([]bias.Audit, error)
	BiasGovernanceSent(ctx context.Context, orgID, id string) error
	RiskConfig(ctx context.Context, orgID string) (risk.Override, error)
	PutRiskConfig(ctx context.Context, orgID string, o risk.Override, at time.Time) error
	CreateRiskEntry(ctx context.Context, e risk.Entry, ev risk.Event) (bool, error)
	CreateRiskEntries(ctx context.Context, ds []risk.Drafted) ([]bool, error)
	RiskEntry(ctx context.Context, orgID, id string) (risk.Entry, error)
	RiskEntries(ctx context.Context, orgID string, f risk.Filter) ([]risk.Entry, int64, error)
	UpdateRiskEntry(ctx context.Context, orgID, id string, change func(*risk.Entry) ([]risk.Event, error)) (risk.Entry, error)
	RiskHistory(ctx context.Context, orgID, id string) ([]risk.Event, error)
	RiskCounts(ctx context.Context, orgID string) (risk.Counts, error)
	TopRisks(ctx context.Context, orgID string, limit int) ([]risk.Entry, error)
	CreateBoard(ctx context.Context, b review.Board) error
	Board(ctx context.Context, orgID, id string) (review.Board, error)
	Boards(ctx context.Context, orgID string, limit, offset int) ([]review.Board, int64, error)
	UpdateBoard(ctx context.Context, orgID, id string, change func(*review.Board) error) (review.Board, error)
	DeleteBoard(ctx context.Context, orgID, id string, at time.Time) error
	CreateReviewRequest(ctx context.Context, r review.Request) error
	ReviewRequest(ctx context.Context, orgID, id string) (review.Request, error)
	UpdateReviewRequest(ctx context.Context, orgID, id string, change func(*review.Request, review.Board) error) (review.Request, error)
	ReviewRequests(ctx context.Context, orgID string, f review.Filter) ([]review.Request, int64, error)
	ReviewGovernancePending(ctx context.Context, limit int) ([]review.Request, error)
	ReviewGovernanceSent(ctx context.Context, orgID, id string) error
	TrustConfig(ctx context.Context, orgID string) (trust.Config, error)
	PutTrustConfig(ctx context.Context, orgID string, w trust.Weights, changeID string, at time.Time) error
	TrustLatest(ctx context.Context, orgID, modelID string) (trust.Snapshot, error)
	TrustPortfolio(ctx context.Context, orgID string) ([]trust.Latest, error)
	TrustHistory(ctx context.Context, orgID, modelID string, from time.Time, limit int) ([]trust.Snapshot, error)
	workflow.Store
	codehost.Store
	artifact.Store
	serving.Store
	explanation.Store
	explanation.ConfigStore
	autoexplain.Store
	coverage.Store
	explanation.ReferenceSample
	export.Store
	export.JobStore
	export.ConfigStore
	export.BrandingStore
	share.Store
	reportschedule.Store
	delivery.Store
	delivery.DeliveryStore
	CreateAlertRule(ctx context.Context, r alerts.Rule) error
	AlertRule(ctx context.Context, orgID, id string) (alerts.Rule, error)
	AlertRules(ctx context.Context, orgID string, f alerts.RuleFilter) ([]alerts.Rule, int64, error)
	UpdateAlertRule(ctx context.Context, orgID, id string, change func(*alerts.Rule) error) (alerts.Rule, error)
	DeleteAlertRule(ctx context.Context, orgID, id, userID string, at time.Time) error
	AlertInstance(ctx context.Context, orgID, id string) (alerts.Instance, error)
	AlertInstances(ctx context.Context, orgID string, f alerts.InstanceFilter) ([]alerts.Instance, int64, error)
	UpdateAlertInstance(ctx context.Context, orgID, id string, change func(*alerts.Instance) error) (alerts.Instance, error)
	alerts.Ledger
	alerts.Deliveries
	alerts.Statistics
}

// drift.Store shares Model with registry.Store, so it cannot be embedded
// beside it; this checks the suite's Store still covers it.
var _ drift.Store = Store(nil)

// bias.Store shares Model with registry.Store too.
var _ bias.Store = Store(nil)

// risk.Store shares Model and User with the identity and registry stores.
var _ risk.Store = Store(nil)

// review.Store shares Model and User with the identity and registry stores.
var _ review.Store = Store(nil)

// trust.Store shares Model with registry.Store too.
var _ trust.Store = Store(nil)

// alerts.Store shares Model and Models with registry.Store too.
var _ alerts.Store = Store(nil)

// test is one case of the suite; it gets a fresh, empty store.
type test struct {
	name string
	fn   func(t *testing.T, s Store)
}

// Run runs the contract suite. open must return a fresh, empty, migrated
// store and close it when t ends (t.Cleanup); every subtest calls it once.
func Run(t *testing.T, open func(t *testing.T) Store) {
	var tests []test
	tests = append(tests, identityTests...)
	tests = append(tests, modelTests...)
	tests = append(tests, driftTests...)
	tests = append(tests, reportTests...)
	tests = append(tests, referenceTests...)
	tests = append(tests, biasTests...)
	tests = append(tests, biasOwedTests...)
	tests = append(tests, riskTests...)
	tests = append(tests, reviewTests...)
	tests = append(tests, trustTests...)
	tests = append(tests, workflowTests...)
	tests = append(tests, codehostTests...)
	tests = append(tests, alertTests...)
	tests = append(tests, alertDeliveryTests...)
	tests = append(tests, alertBatchTests...)
	tests = append(tests, artifactTests...)
	tests = append(tests, servingTests...)
	tests = append(tests, explanationTests...)
	tests = append(tests, exportTemplateTests...)
	tests = append(tests, exportJobTests...)
	tests = append(tests, exportConfigTests...)
	tests = append(tests, brandingTests...)
	tests = append(tests, exportShareTests...)
	tests = append(tests, exportScheduleTests...)
	tests = append(tests, exportIntegrationTests...)
	tests = append(tests, priceTests...)
	tests = append(tests, kserveTests...)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := open(t)
			if s == nil {
				t.Fatal("open returned a nil store")
			}
			tc.fn(t, s)
		})
	}
}

// base is the clock of the fixtures: not UTC and with nanoseconds, so that
// every test also checks times come back in UTC at microsecond precision.
var base = time.Date(2024, 5, 6, 7, 8, 9, 123456789, time.FixedZone("UTC+5", 5*3600))

// at returns base plus n seconds.
func at(n int) time.Time { return base.Add(time.Duration(n) * time.Second) }

// stored is t as the store gives it back: UTC, whole microseconds.
func stored(t time.Time) time.Time { return t.Truncate(time.Microsecond).UTC() }

func storedPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	v := stored(*t)
	return &v
}

func ptr[T any](v T) *T { return &v }

func newID() string { return uuid.NewString() }

// must fails the test on an unexpected error.
func must(t *testing.T, err error, what string) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: got error %v, want nil", what, err)
	}
}

// wantErr fails the test unless err wraps target.
func wantErr(t *testing.T, err, target error, what string) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("%s: got error %v, want %v", what, err, target)
	}
}

// checkUTC fails the test unless every time is in UTC.
func checkUTC(t *testing.T, what string, times ...*time.Time) {
	t.Helper()
	for i, tm := range times {
		if tm != nil && tm.Location() != time.UTC {
			t.Errorf("%s: time %d is in %v, want UTC", what, i, tm.Location())
		}
	}
}

// equal fails the test unless got and want are deeply equal.
func equal[T any](t *testing.T, what string, got, want T) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s:\n got %+v\nwant %+v", what, got, want)
	}
}

// org is an organization created by newOrg, with its built-in roles and
// first user (an admin).
type org struct {
	identity.Organization
	Roles []identity.Role
	Admin identity.User
}

// newOrg creates an organization with the built-in roles and an admin.
func newOrg(t *testing.T, s Store) org {
	t.Helper()
	id := newID()
	o := org{Organization: identity.Organization{ID: id, Name: "org-" + id[:8], CreatedAt: at(0)}}
	o.Roles = builtInRoles(o.ID)
	o.Admin = newUser(o.ID, "admin-"+o.ID[:8], identity.RoleAdmin, at(0))
	must(t, s.CreateOrganization(ctx(t), o.Organization, o.Roles, o.Admin), "CreateOrganization")
	return o
}

func builtInRoles(orgID string) []identity.Role {
	roles := identity.BuiltInRoles()
	for i := range roles {
		roles[i].ID = newID()
		roles[i].OrgID = orgID
		roles[i].CreatedAt = at(0)
	}
	return roles
}

func newUser(orgID, username, role string, created time.Time) identity.User {
	return identity.User{ID: newID(), OrgID: orgID, Username: username, Email: username + "@example.com",
		FullName: "Full " + username, PasswordHash: "$argon2id$v=19$hash-of-" + username, Role: role, Active: true,
		CreatedAt: created, UpdatedAt: created.Add(time.Millisecond)}
}

// storedUser is u as the store gives it back.
func storedUser(u identity.User) identity.User {
	u.CreatedAt, u.UpdatedAt = stored(u.CreatedAt), stored(u.UpdatedAt)
	return u
}

func storedRole(r identity.Role) identity.Role {
	r.CreatedAt = stored(r.CreatedAt)
	return r
}

func storedKey(k identity.APIKey) identity.APIKey {
	k.CreatedAt = stored(k.CreatedAt)
	k.LastUsedAt, k.ExpiresAt, k.RevokedAt = storedPtr(k.LastUsedAt), storedPtr(k.ExpiresAt), storedPtr(k.RevokedAt)
	return k
}

func storedModel(m registry.Model) registry.Model {
	m.CreatedAt, m.UpdatedAt = stored(m.CreatedAt), stored(m.UpdatedAt)
	m.LastPredictionAt, m.ArchivedAt = storedPtr(m.LastPredictionAt), storedPtr(m.ArchivedAt)
	return m
}

func ctx(t *testing.T) context.Context { return t.Context() }

// sqlDB returns the store's database/sql pool when it has one, for the few
// checks the interfaces cannot see (orphan rows).
func sqlDB(s Store) *sql.DB {
	if d, ok := s.(interface{ SQL() *sql.DB }); ok {
		return d.SQL()
	}
	return nil
}

// parallel runs fn(i) for i in [0, n) in n goroutines, started together,
// and returns their errors.
func parallel(n int, fn func(i int) error) []error {
	errs := make([]error, n)
	start := make(chan struct{})
	done := make(chan struct{})
	for i := range n {
		go func() {
			defer func() { done <- struct{}{} }()
			<-start
			errs[i] = fn(i)
		}()
	}
	close(start)
	for range n {
		<-done
	}
	return errs
}
