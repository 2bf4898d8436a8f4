package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/vigilhq/vigil/integrations/codehost"
	"github.com/vigilhq/vigil/integrations/codehost/connection"
	"github.com/vigilhq/vigil/integrations/codehost/hostapi"
	"github.com/vigilhq/vigil/integrations/codehost/monitorfile"
	"github.com/vigilhq/vigil/platform/clock"
	"github.com/vigilhq/vigil/platform/secretbox"
	"github.com/vigilhq/vigil/registry"
	"github.com/vigilhq/vigil/store"
)

// Models is the part of the registry the processor writes to.
type Models interface {
	CreateModel(ctx context.Context, m registry.Model) error
	ModelVersions(ctx context.Context, orgID, name string) ([]registry.Model, error)
}

// Processor works the queue of received deliveries (the processor role):
// it leases them, reads the event, finds the model files, registers them
// or logs them for review, and records the outcome; a delivery whose
// processing fails (the code host unreachable, the store down) is retried
// with exponential backoff, MaxAttempts times in all, then kept as failed
// with its last error. A processor that dies holding a lease loses it
// when it runs out, and another claims the delivery again.
//
// A received delivery is a row of a durable queue: Processor leases it,
// counts the attempt, and either records the outcome (processed) or, when
// the code host or the store fails, releases it for a retry after a
// doubling backoff (the host's rate-limit reset when later), failed for
// good after MaxAttempts. A push to a tracked branch (changed files), a
// tag created or a release published (the files of the tag's tree) is
// matched against the model path patterns; the model files that a model
// of .monitor.yml describes are registered as model versions when
// auto-register is on, and logged for review otherwise, as are all of
// them when the file is missing or invalid (its problems are kept).
type Processor struct {
	Queue  codehost.Queue
	Repos  codehost.Store
	Models Models
	Host   hostapi.Host
	Box    *secretbox.Keyring
	// OAuth refreshes expiring OAuth tokens; nil: none is refreshed.
	OAuth *hostapi.OAuth
	Clock clock.Clock
	Log   *slog.Logger
	// Owner names this processor's leases; a random id when empty.
	Owner string
	// Lease, Poll, Backoff and MaxAttempts default to 2 minutes, 2
	// seconds, 10 seconds (doubling each attempt, at most an hour) and 8.
	Lease, Poll, Backoff time.Duration
	MaxAttempts          int

	tokens *connection.Tokens
}

// accessTokens is the processor's Tokens, one for its life.
func (p *Processor) accessTokens() *connection.Tokens {
	if p.tokens == nil {
		p.tokens = &connection.Tokens{Store: p.Repos, Box: p.Box, OAuth: p.OAuth, Clock: p.Clock}
	}
	return p.tokens
}

func (p *Processor) defaults() {
	p.accessTokens()
	if p.Owner == "" {
		p.Owner = uuid.NewString()
	}
	if p.Lease == 0 {
		p.Lease = 2 * time.Minute
	}
	if p.Poll == 0 {
		p.Poll = 2 * time.Second
	}
	if p.Backoff == 0 {
		p.Backoff = 10 * time.Second
	}
	if p.MaxAttempts == 0 {
		p.MaxAttempts = 8
	}
	if p.Log == nil {
		p.Log = slog.New(slog.DiscardHandler)
	}
}

// Run drains the queue every Poll until ctx ends.
func (p *Processor) Run(ctx context.Context) error {
	p.defaults()
	clock.Every(ctx, p.Poll, func(ctx context.Context) error { _, err := p.Drain(ctx); return err },
		func(err error) { p.Log.Warn("code-host deliveries", "err", err) })
	return nil
}

// Drain processes the deliveries due now until none is left, and returns
// how many it finished (processed or given up).
func (p *Processor) Drain(ctx context.Context) (int, error) {
	p.defaults()
	done := 0
	for {
		ds, err := p.Queue.ClaimDeliveries(ctx, p.Owner, p.Clock.Now(), p.Lease, 10)
		if err != nil || len(ds) == 0 {
			return done, err
		}
		for _, d := range ds {
			ok, err := p.one(ctx, d)
			if err != nil {
				return done, err
			}
			if ok {
				done++
			}
		}
	}
}

// one processes a leased delivery; true when it left the queue.
func (p *Processor) one(ctx context.Context, d codehost.QueuedDelivery) (bool, error) {
	o, commits, models, err := p.process(ctx, d)
	if err == nil {
		err = p.Queue.FinishDelivery(ctx, p.Owner, d, o, commits, models, p.Clock.Now())
		if errors.Is(err, store.ErrConflict) {
			return false, nil // the lease ran out; its new holder finishes it
		}
		return err == nil, err
	}
	giveUp := d.Attempts >= p.MaxAttempts
	wait := min(p.Backoff<<min(d.Attempts-1, 20), time.Hour)
	var busy *hostapi.Busy
	if errors.As(err, &busy) {
		wait = max(wait, busy.Wait) // the host's rate limit resets then
	}
	p.Log.Warn("code-host delivery failed", "delivery", d.ID, "attempt", d.Attempts, "give_up", giveUp, "err", err)
	err = p.Queue.RetryDelivery(ctx, p.Owner, d, err.Error(), p.Clock.Now().Add(wait), giveUp)
	if errors.Is(err, store.ErrConflict) {
		err = nil
	}
	return giveUp && err == nil, err
}

// process works out one delivery. Its error is one worth retrying (the
// code host or the store); what is wrong with the delivery itself (an
// untracked branch, an invalid .monitor.yml) is part of the outcome.
func (p *Processor) process(ctx context.Context, d codehost.QueuedDelivery) (o codehost.Outcome, commits, models int64, err error) {
	o = codehost.Outcome{ConfigProblems: []string{}, Files: []string{}, Registered: []codehost.Registered{}, Review: []codehost.Review{}}
	repo, err := p.Repos.WebhookRepository(ctx, d.RepositoryID)
	if err != nil {
		return o, 0, 0, err
	}
	var e event
	if err := json.Unmarshal(d.Payload, &e); err != nil {
		o.Skipped = "the payload is not the event's JSON"
		return o, 0, 0, nil
	}
	conn, err := p.Repos.CodehostConnection(ctx, repo.OrgID, repo.ConnectionID)
	if err != nil {
		return o, 0, 0, err
	}
	// A 401 on any call renews the token (Tokens.Bind).
	ctx, token, err := p.accessTokens().Call(ctx, conn)
	if err != nil {
		return o, 0, 0, err
	}
	files, err := p.changedFiles(ctx, token, repo, d.Event, e, &o)
	if err != nil || o.Skipped != "" {
		return o, 0, 0, err
	}
	if d.Event == "push" {
		commits = int64(len(e.Commits))
	}
	o.Files = modelFiles(repo, files)
	if len(o.Files) == 0 {
		return o, commits, 0, nil
	}
	ref := o.Ref
	if d.Event == "push" {
		ref = e.After
	}
	cfg, ok, err := p.monitorFile(ctx, token, repo, ref, &o)
	if err != nil {
		return o, 0, 0, err
	}
	if !ok {
		return o, commits, 0, nil
	}
	if models, err = p.registerFiles(ctx, repo, cfg, d, &o); err != nil {
		return o, 0, 0, err
	}
	return o, commits, models, nil
}

// changedFiles lists the files the event of kind brings: those its
// commits added or modified (a push to a tracked branch), or all the
// tag's (a tag created or a release published, when tracked). It sets o's
// Ref and Version, or Skipped when the event is not one to process.
func (p *Processor) changedFiles(ctx context.Context, token string, repo codehost.Repository, kind string, e event, o *codehost.Outcome) ([]string, error) {
	switch kind {
	case "push":
		if o.Ref, o.Skipped = e.pushed(repo); o.Skipped != "" {
			return nil, nil
		}
		o.Version = e.After[:min(12, len(e.After))]
		return e.changed(), nil
	case "create", "release":
		if o.Ref, o.Skipped = e.tagged(kind, repo); o.Skipped != "" {
			return nil, nil
		}
		o.Version = o.Ref
		return p.Host.Tree(ctx, token, repo.Owner, repo.Name, o.Ref)
	}
	o.Skipped = "event " + kind + " is not processed"
	return nil, nil
}

// modelFiles keeps the files that match one of the repository's model
// path patterns.
func modelFiles(repo codehost.Repository, files []string) []string {
	out := []string{}
	for _, f := range files {
		if slices.ContainsFunc(repo.ModelPathPatterns, func(pat string) bool { return monitorfile.Match(pat, f) }) {
			out = append(out, f)
		}
	}
	return out
}

// monitorFile reads the repository's .monitor.yml at ref. When it is
// missing or invalid, every model file of o is logged for review with the
// reason (and the file's problems), and ok is false.
func (p *Processor) monitorFile(ctx context.Context, token string, repo codehost.Repository, ref string, o *codehost.Outcome) (cfg monitorfile.File, ok bool, err error) {
	raw, err := p.Host.File(ctx, token, repo.Owner, repo.Name, monitorfile.Path, ref)
	if errors.Is(err, hostapi.ErrNoRepository) {
		reviewAll(o, "the repository has no "+monitorfile.Path)
		return cfg, false, nil
	}
	if err != nil {
		return cfg, false, err
	}
	cfg, problems := monitorfile.Parse(raw)
	if len(problems) > 0 {
		o.ConfigProblems = problems
		reviewAll(o, monitorfile.Path+" is invalid")
		return cfg, false, nil
	}
	return cfg, true, nil
}

// reviewAll logs every model file of o for review, for the reason.
func reviewAll(o *codehost.Outcome, reason string) {
	for _, f := range o.Files {
		o.Review = append(o.Review, codehost.Review{Path: f, Reason: reason})
	}
}

// registerFiles registers each model file of o as the model of cfg it
// matches, when auto-register is on, or logs it for review; it returns
// how many it registered.
func (p *Processor) registerFiles(ctx context.Context, repo codehost.Repository, cfg monitorfile.File, d codehost.QueuedDelivery, o *codehost.Outcome) (int64, error) {
	auto := repo.AutoRegister
	if cfg.Codehost.AutoRegister != nil {
		auto = *cfg.Codehost.AutoRegister
	}
	var models int64
	for _, f := range o.Files {
		i := slices.IndexFunc(cfg.Models, func(m monitorfile.Model) bool { return monitorfile.Match(m.Path, f) })
		switch {
		case i < 0:
			o.Review = append(o.Review, codehost.Review{Path: f, Reason: "no model of " + monitorfile.Path + " matches it"})
		case !auto:
			o.Review = append(o.Review, codehost.Review{Path: f, Reason: "auto-register is off"})
		default:
			r, reason, err := p.register(ctx, repo, cfg.Models[i], f, o.Version, d)
			if err != nil {
				return 0, err
			}
			if reason != "" {
				o.Review = append(o.Review, codehost.Review{Path: f, Reason: reason})
				continue
			}
			o.Registered = append(o.Registered, r)
			models++
		}
	}
	return models, nil
}

// register creates the model version of file f; a version an earlier
// attempt created counts as registered. reason, when not empty, says why
// it is logged for review instead.
func (p *Processor) register(ctx context.Context, repo codehost.Repository, m monitorfile.Model, f, version string, d codehost.QueuedDelivery) (codehost.Registered, string, error) {
	name := m.Name
	if name == "" {
		name = strings.TrimSuffix(path.Base(f), path.Ext(f))
	}
	mt := m.ModelType
	if mt == "" {
		mt = "classification"
	}
	if !slices.Contains(registry.ModelTypes, mt) {
		return codehost.Registered{}, fmt.Sprintf("model_type %q is none the registry knows (%s)", mt, strings.Join(registry.ModelTypes, ", ")), nil
	}
	if len(name) > 255 || len(version) > 100 {
		return codehost.Registered{}, "the model's name or version is too long", nil
	}
	if len(m.Tags) > 50 || slices.ContainsFunc(m.Tags, func(t string) bool {
		return t == "" || t != strings.TrimSpace(t) || len([]rune(t)) > 100 || strings.Contains(t, ",")
	}) {
		return codehost.Registered{}, "its tags are not the registry's (at most 50, each 1-100 characters without commas)", nil
	}
	now := p.Clock.Now()
	model := registry.Model{ID: uuid.Must(uuid.NewV7()).String(), OrgID: repo.OrgID, Name: name, Version: version,
		Description: "registered from " + repo.FullName + ":" + f, ModelType: mt, Framework: m.Framework,
		Status: registry.StatusActive, OwnerID: repo.TrackedBy, TargetVariable: m.TargetVariable,
		Metadata:        map[string]any{"source": "codehost", "repository": repo.FullName, "path": f, "ref": version, "delivery_id": d.ID},
		BaselineMetrics: map[string]float64{}, MonitoringConfig: map[string]any{}, MonitoringEnabled: true,
		Features: orEmpty(m.Features), FairnessAttributes: []string{}, ProtectedGroups: map[string]any{}, Tags: orEmpty(m.Tags),
		CreatedAt: now, UpdatedAt: now}
	err := p.Models.CreateModel(ctx, model)
	if errors.Is(err, store.ErrConflict) {
		vs, err := p.Models.ModelVersions(ctx, repo.OrgID, name)
		if err != nil {
			return codehost.Registered{}, "", err
		}
		for _, v := range vs {
			if v.Version == version {
				return codehost.Registered{Path: f, ModelID: v.ID, Name: name, Version: version}, "", nil
			}
		}
		return codehost.Registered{}, "", err
	}
	if err != nil {
		return codehost.Registered{}, "", err
	}
	return codehost.Registered{Path: f, ModelID: model.ID, Name: name, Version: version}, "", nil
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
