package export

import (
	"net/http"
	"slices"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/vigilhq/vigil/identity"
	"github.com/vigilhq/vigil/platform/web"
)

// PackDays is the period of an evidence pack that names none: the days
// up to and including today (UTC).
const PackDays = 90

// packBody is the body of POST /export/evidence-pack.
type packBody struct {
	ModelIDs *[]string `json:"model_ids"`
	Format   *string   `json:"format"`
	Start    *string   `json:"start"`
	End      *string   `json:"end"`
	// Archive "zip" asks for a ZIP of the document, its sections as JSON
	// and a manifest; absent or null: the one document.
	Archive *string `json:"archive"`
}

// createPack answers POST /export/evidence-pack: 202 with the pending
// export of kind evidence_pack, rendered by a runner like a report: one
// document in the format asked for, or a ZIP with archive "zip".
func (a *API) createPack(c *fiber.Ctx) error {
	var b packBody
	if err := web.Decode(c, &b); err != nil {
		return err
	}
	var v web.Problems
	ids := deref(b.ModelIDs)
	checkModels(&v, ids)
	checkFormat(&v, b.Format)
	now := a.Clock.Now().Truncate(time.Microsecond)
	end := now.UTC().Truncate(24 * time.Hour)
	start := end.AddDate(0, 0, 1-PackDays)
	if b.Start != nil || b.End != nil {
		start, end = checkPeriod(&v, deref(b.Start), deref(b.End))
	}
	kind := KindEvidencePack
	switch deref(b.Archive) {
	case "zip":
		kind = KindEvidenceZip
	case "":
		if b.Archive != nil {
			v.Add("archive", "must be zip or absent")
		}
	default:
		v.Add("archive", "must be zip or absent")
	}
	if err := v.Err(); err != nil {
		return err
	}
	ctx, org := c.UserContext(), identity.OrgID(c)
	models, err := findModels(ctx, a.Models, org, ids)
	if err != nil {
		return err
	}
	tpl, _ := findTemplate(ctx, a.Templates, org, builtinID(slices.Index(Categories, CategoryCompliance)))
	j := Job{ID: uuid.Must(uuid.NewV7()).String(), OrgID: org, Kind: kind, Template: tpl, Models: models,
		Format: *b.Format, Start: start, End: end, Status: StatusPending, CreatedAt: now, UpdatedAt: now}
	if err := a.Jobs.CreateExportJob(ctx, j); err != nil {
		return err
	}
	a.Runner.Wake()
	c.Set(fiber.HeaderLocation, "/api/v1/export/exports/"+j.ID)
	return c.Status(http.StatusAccepted).JSON(newJobView(j))
}
