package drift

import (
	"errors"
	"net/http"

	"github.com/gofiber/fiber/v2"

	"github.com/vigilhq/vigil/identity"
	"github.com/vigilhq/vigil/platform/web"
	"github.com/vigilhq/vigil/store"
)

// putReference answers PUT /drift/reference/{model_id}: the body is
// checked (422 naming the field), profiled and sampled (Sample) and
// stored in place of the model's reference; 200 with its summary.
func (a *API) putReference(c *fiber.Ctx) error { return a.upload(c, false) }

// appendReference answers POST /drift/reference/{model_id}/append: as
// PUT, but the profiles are merged into the model's reference (a first
// append makes it), so that a reference larger than one request body is
// sent in parts; its rows are offered to the reference's Sample. The
// summary answered is of the whole reference.
func (a *API) appendReference(c *fiber.Ctx) error { return a.upload(c, true) }

// upload stores a body's profiles in place of the model's reference, or
// merged into it.
func (a *API) upload(c *fiber.Ctx, merge bool) error {
	modelID := c.Params("model_id")
	var body referenceBody
	if err := web.Decode(c, &body); err != nil {
		return err
	}
	var v web.Problems
	if body.ModelID != nil && *body.ModelID != modelID {
		v.Add("model_id", "must be the model_id of the path, or left out")
	}
	in := profileSide(&v, "reference_data", body.ReferenceData, true)
	out := profileSide(&v, "prediction_data", body.PredictionData, false)
	if err := v.Err(); err != nil {
		return err
	}
	now := a.Clock.Now().UTC()
	change := func(u *Uploaded, exists bool) error {
		u.UploadedAt = now
		if !merge || !exists {
			u.Input, u.Output, u.Sample = *in, out, Sample{}
		} else if err := u.merge(in, out); err != nil {
			return err
		}
		u.Sample.sampleRows(body.ReferenceData, SampleSeed(modelID))
		return nil
	}
	orgID := identity.OrgID(c)
	u, err := a.References.UpdateDriftReference(c.UserContext(), orgID, modelID, change)
	if errors.Is(err, store.ErrConflict) {
		// Another first upload won the race: apply this one on top of it.
		u, err = a.References.UpdateDriftReference(c.UserContext(), orgID, modelID, change)
	}
	if errors.Is(err, store.ErrNotFound) {
		return web.NotFound("model")
	}
	if err != nil {
		return err
	}
	return c.Status(http.StatusOK).JSON(u.Summary())
}

// getReference answers GET /drift/reference/{model_id}: the summary of
// the model's uploaded reference.
func (a *API) getReference(c *fiber.Ctx) error {
	u, err := a.reference(c)
	if err != nil {
		return err
	}
	return c.JSON(u.Summary())
}

// deleteReference answers DELETE /drift/reference/{model_id}: 204.
// Scheduled runs of a configuration that names the uploaded reference
// are skipped until another is uploaded.
func (a *API) deleteReference(c *fiber.Ctx) error {
	if _, err := a.reference(c); err != nil {
		return err
	}
	err := a.References.DeleteDriftReference(c.UserContext(), identity.OrgID(c), c.Params("model_id"))
	if errors.Is(err, store.ErrNotFound) {
		return web.NotFound("drift reference")
	}
	if err != nil {
		return err
	}
	return c.SendStatus(http.StatusNoContent)
}

// reference reads the model's reference: 404 naming the model when the
// organization has no such model, naming the reference when none is
// uploaded.
func (a *API) reference(c *fiber.Ctx) (Uploaded, error) {
	orgID, modelID := identity.OrgID(c), c.Params("model_id")
	u, err := a.References.DriftReference(c.UserContext(), orgID, modelID)
	if errors.Is(err, store.ErrNotFound) {
		if err := a.model(c.UserContext(), orgID, modelID); err != nil {
			return u, err
		}
		return u, web.NotFound("drift reference")
	}
	return u, err
}
