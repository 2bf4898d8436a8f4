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
	tpl, ok := Builtin(templateID)
	if !ok {
		var err error
		if tpl, err = templates.ExportTemplate(ctx, orgID, templateID); errors.Is(err, store.ErrNotFound) {
			return Job{}, web.NotFound("template")
		} else if err != nil {
			return Job{}, err
		}
	}
	ms := make([]report.Model, 0, len(modelIDs))
	for _, id := range modelIDs {
		m, err := registry.Find(ctx, models, orgID, id)
		if err != nil {
			return Job{}, err
		}
		ms = append(ms, report.Model{ID: m.ID, Name: m.Name})
	}
	now = now.Truncate(time.Microsecond)
	return Job{ID: uuid.Must(uuid.NewV7()).String(), OrgID: orgID, Template: tpl, Models: ms, Format: format,
		Start: start, End: end, Status: StatusPending, CreatedAt: now, UpdatedAt: now}, nil
}
