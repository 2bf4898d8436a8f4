package export

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/vigilhq/vigil/identity"
	"github.com/vigilhq/vigil/platform/web"
	"github.com/vigilhq/vigil/report"
)

// PathJob is the caller's organization's job of the request path's
// export_id: 404 for a missing one and for another organization's alike.
func PathJob(c *fiber.Ctx, jobs JobStore) (Job, error) {
	return identity.PathRecord(c, "export_id", "export", jobs.ExportJob)
}

// SendFile answers the completed job's file from files, as an attachment
// with the format's media type: 409 until completed, 404 when the file is
// gone, 503 when the file store cannot be reached.
func SendFile(c *fiber.Ctx, files Files, j Job) error {
	if j.Status != StatusCompleted {
		return web.Conflict("the export is " + j.Status + ", not completed")
	}
	// The body is streamed after the handler returns: the read must not
	// end with the request's context.
	f, err := files.Open(context.WithoutCancel(c.UserContext()), j.File)
	if errors.Is(err, ErrNoFile) {
		return web.NotFound("export file")
	} else if err != nil {
		return web.Unavailable("the export file store is unavailable; retry shortly", 5*time.Second, err)
	}
	media := report.ContentTypes[j.Format]
	if j.Zipped() {
		media = "application/zip"
	}
	c.Set(fiber.HeaderContentType, media)
	c.Set(fiber.HeaderContentDisposition, fmt.Sprintf(`attachment; filename="%s"`, j.Filename()))
	return c.SendStream(f, int(j.Size))
}

// Filename is the name the job's file is given to its readers:
// vigil-{report_category}-{export_id}.{extension}, or
// vigil-evidence-pack-{export_id}.{extension} for an evidence pack (.zip
// when asked for as a ZIP).
func (j Job) Filename() string {
	switch {
	case j.Zipped():
		return fmt.Sprintf("vigil-evidence-pack-%s.zip", j.ID)
	case j.Pack():
		return fmt.Sprintf("vigil-evidence-pack-%s.%s", j.ID, extensions[j.Format])
	}
	return fmt.Sprintf("vigil-%s-%s.%s", j.Template.ReportCategory, j.ID, extensions[j.Format])
}
