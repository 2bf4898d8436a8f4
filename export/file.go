package export

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/gofiber/fiber/v2"

	"github.com/vigilhq/vigil/platform/web"
	"github.com/vigilhq/vigil/report"
)

// SendFile answers the completed job's file from the runner's folder dir,
// as an attachment with the format's media type: 409 until completed,
// 404 when the file is gone.
func SendFile(c *fiber.Ctx, dir string, j Job) error {
	if j.Status != StatusCompleted {
		return web.Conflict("the export is " + j.Status + ", not completed")
	}
	f, err := os.Open(filepath.Join(dir, j.File))
	if errors.Is(err, os.ErrNotExist) {
		return web.NotFound("export file")
	} else if err != nil {
		return err
	}
	c.Set(fiber.HeaderContentType, report.ContentTypes[j.Format])
	c.Set(fiber.HeaderContentDisposition, fmt.Sprintf(`attachment; filename="vigil-%s-%s.%s"`, j.Template.ReportCategory,
		j.ID, extensions[j.Format]))
	return c.SendStream(f, int(j.Size))
}
