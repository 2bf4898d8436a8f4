package export

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sort"

	"github.com/gofiber/fiber/v2"

	"github.com/vigilhq/vigil/identity"
	"github.com/vigilhq/vigil/platform/web"
)

// MaxBulk is the most exports one POST /export/exports/bulk asks for.
const MaxBulk = 50

// Quota takes one more unit of the organization's report-generation quota
// (the route's own request took the first): nil, or the 429 to answer.
type Quota func(ctx context.Context, orgID string) error

// bulkBody is the body of POST /export/exports/bulk: export requests as
// POST /export/exports takes them.
type bulkBody struct {
	Exports *[]jobBody `json:"exports"`
}

// itemError names what is wrong with one export of a bulk request: the
// field (empty when the whole item), the error code and the problem.
type itemError struct {
	Index   int    `json:"index"`
	Field   string `json:"field"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

// bulkResult answers a bulk request: the exports queued, in the order
// asked, and the errors of those that were not.
type bulkResult struct {
	Total   int         `json:"total"`
	Queued  int         `json:"queued"`
	Failed  int         `json:"failed"`
	Exports []jobView   `json:"exports"`
	Errors  []itemError `json:"errors"`
}

// createBulk answers POST /export/exports/bulk: every export is validated
// and queued on its own, as POST /export/exports would, and each one
// queued takes a unit of the report-generation quota. 202 when at least
// one was queued, with the errors of the others by index; when none was,
// 429 if the quota refused them all, 404 if each named a template or model
// not the organization's, 422 otherwise, each with every item's errors.
func (a *API) createBulk(c *fiber.Ctx) error {
	var b bulkBody
	if err := web.Decode(c, &b); err != nil {
		return err
	}
	if b.Exports == nil || len(*b.Exports) == 0 || len(*b.Exports) > MaxBulk {
		return web.Invalid("exports", fmt.Sprintf("must hold 1 to %d export requests", MaxBulk))
	}
	ctx, org := c.UserContext(), identity.OrgID(c)
	out := bulkResult{Total: len(*b.Exports), Exports: []jobView{}, Errors: []itemError{}}
	var last *web.Error
	failedItems := map[string]int{}
	for i, item := range *b.Exports {
		j, err := a.prepare(ctx, org, item)
		if err == nil && out.Queued > 0 && a.Quota != nil {
			err = a.Quota(ctx, org)
		}
		if err == nil {
			err = a.create(ctx, j, ToIntegrations(deref(item.Deliveries)))
		}
		if err == nil {
			out.Queued++
			out.Exports = append(out.Exports, newJobView(j))
			continue
		}
		var e *web.Error
		if !errors.As(err, &e) {
			return err
		}
		last = e
		failedItems[itemKind(e)]++
		out.Failed++
		out.Errors = append(out.Errors, itemErrors(i, e)...)
	}
	if out.Queued > 0 {
		a.Runner.Wake()
		return c.Status(http.StatusAccepted).JSON(out)
	}
	details := map[string]any{"errors": out.Errors}
	switch {
	case failedItems["quota"] == out.Failed:
		return &web.Error{Status: http.StatusTooManyRequests, Code: web.CodeRateLimitExceeded,
			Message: "the report-generation quota is spent: no export was queued", Details: details, RetryAfter: last.RetryAfter}
	case failedItems["missing"] == out.Failed:
		return &web.Error{Status: http.StatusNotFound, Code: last.Code, Message: "no export was queued: " + last.Message,
			Details: details}
	}
	return &web.Error{Status: http.StatusUnprocessableEntity, Code: web.CodeValidation, Message: "no export of the request is valid",
		Details: details}
}

// itemKind sorts an item's error: quota, missing or invalid.
func itemKind(e *web.Error) string {
	switch e.Status {
	case http.StatusTooManyRequests:
		return "quota"
	case http.StatusNotFound:
		return "missing"
	}
	return "invalid"
}

// itemErrors turns item i's error into its errors, one per field named,
// in field order.
func itemErrors(i int, e *web.Error) []itemError {
	if e.Status != http.StatusUnprocessableEntity || len(e.Details) == 0 {
		return []itemError{{Index: i, Code: e.Code, Message: e.Message}}
	}
	fields := make([]string, 0, len(e.Details))
	for f := range e.Details {
		fields = append(fields, f)
	}
	sort.Strings(fields)
	out := make([]itemError, 0, len(fields))
	for _, f := range fields {
		out = append(out, itemError{Index: i, Field: f, Code: e.Code, Message: fmt.Sprint(e.Details[f])})
	}
	return out
}
