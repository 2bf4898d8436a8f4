package export

import (
	"slices"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/vigilhq/vigil/platform/web"
)

// Permissions of exports: viewers read templates and reports.
const (
	PermRead = "reports:read"
)

// API serves /export. This slice serves the template catalogue; the
// stored templates, configurations and export jobs are to come.
type API struct{}

// Routes lists the operations of this package.
func (a *API) Routes() []web.Route {
	return []web.Route{
		{Method: fiber.MethodGet, Path: "/export/templates", Permission: PermRead, Handler: a.listTemplates},
	}
}

// templatePage is a page of templates in the pagination envelope.
type templatePage struct {
	web.Page
	Templates []Template `json:"templates"`
}

// listTemplates answers the built-in templates, of one report_category
// when the query names one, a page at a time.
func (a *API) listTemplates(c *fiber.Ctx) error {
	page, size, err := web.PageQuery(c, 50, 1000)
	if err != nil {
		return err
	}
	ts := Builtins()
	if cat := web.Query(c, "report_category"); cat != nil {
		if !slices.Contains(Categories, *cat) {
			return web.Invalid("report_category", "must be one of "+strings.Join(Categories, ", "))
		}
		ts = slices.DeleteFunc(ts, func(t Template) bool { return t.ReportCategory != *cat })
	}
	total := len(ts)
	from := min((page-1)*size, total)
	out := templatePage{Page: web.NewPage(int64(total), page, size), Templates: ts[from:min(from+size, total)]}
	return c.JSON(out)
}
