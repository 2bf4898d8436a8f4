package codehost

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
	Queue  Queue
	Repos  Store
	Models Models
	Host   Host
	Box    *secretbox.Keyring
	// OAuth refreshes expiring OAuth tokens; nil: none is refreshed.
	OAuth *OAuth
	Clock clock.Clock
	Log   *slog.Logger
	// Owner names this processor's leases; a random id when empty.
	Owner string
	// Lease, Poll, Backoff and MaxAttempts default to 2 minutes, 2
	// seconds, 10 seconds (doubling each attempt, at most an hour) and 8.
	Lease, Poll, Backoff time.Duration
	MaxAttempts          int

	tokens *Tokens
}

// accessTokens is the processor's Tokens, one for its life.
func (p *Processor) accessTokens() *Tokens {
	if p.tokens == nil {
		p.tokens = &Tokens{Store: p.Repos, Box: p.Box, OAuth: p.OAuth, Clock: p.Clock}
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
func (p *Processor) one(ctx context.Context, d QueuedDelivery) (bool, error) {
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
	var busy *Busy
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

// event is the part of a push, release or create payload read.
type event struct {
	Ref     string `json:"ref"`
	RefType string `json:"ref_type"`
	After   string `json:"after"`
	Deleted bool   `json:"deleted"`
	Action  string `json:"action"`
	Commits []struct {
		Added    []string `json:"added"`
		Modified []string `json:"modified"`
	} `json:"commits"`
	Release struct {
		TagName string `json:"tag_name"`
	} `json:"release"`
}

// process works out one delivery. Its error is one worth retrying (the
// code host or the store); what is wrong with the delivery itself (an
// untracked branch, an invalid .monitor.yml) is part of the outcome.
func (p *Processor) process(ctx context.Context, d QueuedDelivery) (o Outcome, commits, models int64, err error) {
	o = Outcome{ConfigProblems: []string{}, Files: []string{}, Registered: []Registered{}, Review: []Review{}}
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

	var files []string
	switch d.Event {
	case "push":
		branch, isBranch := strings.CutPrefix(e.Ref, "refs/heads/")
		o.Ref = branch
		switch {
		case !isBranch:
			o.Skipped = "a push to " + e.Ref + ", not to a branch"
		case e.Deleted:
			o.Skipped = "the branch was deleted"
		case len(repo.TrackedBranches) > 0 && !slices.Contains(repo.TrackedBranches, branch):
			o.Skipped = "branch " + branch + " is not tracked"
		}
		if o.Skipped != "" {
			return o, 0, 0, nil
		}
		o.Version = e.After[:min(12, len(e.After))]
		commits = int64(len(e.Commits))
		for _, c := range e.Commits {
			for _, f := range append(slices.Clone(c.Added), c.Modified...) {
				if !slices.Contains(files, f) {
					files = append(files, f)
				}
			}
		}
	case "create", "release":
		o.Ref = e.Release.TagName
		if d.Event == "create" {
			o.Ref = e.Ref
		}
		switch {
		case d.Event == "create" && e.RefType != "tag":
			o.Skipped = "a " + e.RefType + " was created, not a tag"
		case d.Event == "create" && !repo.TrackTags:
			o.Skipped = "tags are not tracked"
		case d.Event == "release" && e.Action != "published":
			o.Skipped = "release " + e.Action + ", not published"
		case d.Event == "release" && !repo.TrackReleases:
			o.Skipped = "releases are not tracked"
		case o.Ref == "":
			o.Skipped = "the event names no tag"
		}
		if o.Skipped != "" {
			return o, 0, 0, nil
		}
		o.Version = o.Ref
		if files, err = p.Host.Tree(ctx, token, repo.Owner, repo.Name, o.Ref); err != nil {
			return o, 0, 0, err
		}
	default:
		o.Skipped = "event " + d.Event + " is not processed"
		return o, 0, 0, nil
	}
	for _, f := range files {
		if slices.ContainsFunc(repo.ModelPathPatterns, func(pat string) bool { return Match(pat, f) }) {
			o.Files = append(o.Files, f)
		}
	}
	if len(o.Files) == 0 {
		return o, commits, 0, nil
	}
	ref := o.Ref
	if d.Event == "push" {
		ref = e.After
	}
	raw, err := p.Host.File(ctx, token, repo.Owner, repo.Name, ConfigPath, ref)
	if errors.Is(err, ErrNoRepository) {
		for _, f := range o.Files {
			o.Review = append(o.Review, Review{Path: f, Reason: "the repository has no " + ConfigPath})
		}
		return o, commits, 0, nil
	}
	if err != nil {
		return o, 0, 0, err
	}
	cfg, problems := ParseMonitorFile(raw)
	if len(problems) > 0 {
		o.ConfigProblems = problems
		for _, f := range o.Files {
			o.Review = append(o.Review, Review{Path: f, Reason: ConfigPath + " is invalid"})
		}
		return o, commits, 0, nil
	}
	auto := repo.AutoRegister
	if cfg.Codehost.AutoRegister != nil {
		auto = *cfg.Codehost.AutoRegister
	}
	for _, f := range o.Files {
		i := slices.IndexFunc(cfg.Models, func(m ModelEntry) bool { return Match(m.Path, f) })
		switch {
		case i < 0:
			o.Review = append(o.Review, Review{Path: f, Reason: "no model of " + ConfigPath + " matches it"})
		case !auto:
			o.Review = append(o.Review, Review{Path: f, Reason: "auto-register is off"})
		default:
			r, reason, err := p.register(ctx, repo, cfg.Models[i], f, o.Version, d)
			if err != nil {
				return o, 0, 0, err
			}
			if reason != "" {
				o.Review = append(o.Review, Review{Path: f, Reason: reason})
				continue
			}
			o.Registered = append(o.Registered, r)
			models++
		}
	}
	return o, commits, models, nil
}

// register creates the model version of file f; a version an earlier
// attempt created counts as registered. reason, when not empty, says why
// it is logged for review instead.
func (p *Processor) register(ctx context.Context, repo Repository, m ModelEntry, f, version string, d QueuedDelivery) (Registered, string, error) {
	name := m.Name
	if name == "" {
		name = strings.TrimSuffix(path.Base(f), path.Ext(f))
	}
	mt := m.ModelType
	if mt == "" {
		mt = "classification"
	}
	if !slices.Contains(registry.ModelTypes, mt) {
		return Registered{}, fmt.Sprintf("model_type %q is none the registry knows (%s)", mt, strings.Join(registry.ModelTypes, ", ")), nil
	}
	if len(name) > 255 || len(version) > 100 {
		return Registered{}, "the model's name or version is too long", nil
	}
	if len(m.Tags) > 50 || slices.ContainsFunc(m.Tags, func(t string) bool {
		return t == "" || t != strings.TrimSpace(t) || len([]rune(t)) > 100 || strings.Contains(t, ",")
	}) {
		return Registered{}, "its tags are not the registry's (at most 50, each 1-100 characters without commas)", nil
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
			return Registered{}, "", err
		}
		for _, v := range vs {
			if v.Version == version {
				return Registered{Path: f, ModelID: v.ID, Name: name, Version: version}, "", nil
			}
		}
		return Registered{}, "", err
	}
	if err != nil {
		return Registered{}, "", err
	}
	return Registered{Path: f, ModelID: model.ID, Name: name, Version: version}, "", nil
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
