package export

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"

	"github.com/vigilhq/vigil/platform/web"
	"github.com/vigilhq/vigil/registry"
	"github.com/vigilhq/vigil/report"
	"github.com/vigilhq/vigil/store"
)

// NewJob is a pending job of the organization: the template of
// templateID (built-in or the organization's own: 404 otherwise) over
// the models of modelIDs (each the organization's: 404 otherwise) for
// the days start..end, rendered as format, asked for at now.
func NewJob(ctx context.Context, templates Store, models registry.Finder, orgID, templateID string, modelIDs []string,
	format string, start, end, now time.Time) (Job, error) {
	tpl, err := findTemplate(ctx, templates, orgID, templateID)
	if err != nil {
		return Job{}, err
	}
	ms, err := findModels(ctx, models, orgID, modelIDs)
	if err != nil {
		return Job{}, err
	}
	now = now.Truncate(time.Microsecond)
	return Job{ID: uuid.Must(uuid.NewV7()).String(), OrgID: orgID, Template: tpl, Models: ms, Format: format,
		Start: start, End: end, Status: StatusPending, CreatedAt: now, UpdatedAt: now}, nil
}

// findTemplate returns the built-in or the organization's template of
// that id: 404 for another organization's, as for a missing one.
func findTemplate(ctx context.Context, templates Store, org, id string) (Template, error) {
	if t, ok := Builtin(id); ok {
		return t, nil
	}
	t, err := templates.ExportTemplate(ctx, org, id)
	if errors.Is(err, store.ErrNotFound) {
		return t, web.NotFound("template")
	}
	return t, err
}

// findModels resolves model ids inside the organization.
func findModels(ctx context.Context, models registry.Finder, org string, ids []string) ([]report.Model, error) {
	out := make([]report.Model, 0, len(ids))
	for _, id := range ids {
		m, err := registry.Find(ctx, models, org, id)
		if err != nil {
			return nil, err
		}
		out = append(out, report.Model{ID: m.ID, Name: m.Name})
	}
	return out, nil
}
