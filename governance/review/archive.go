package review

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/vigilhq/vigil/identity"
	"github.com/vigilhq/vigil/platform/formula"
	"github.com/vigilhq/vigil/platform/web"
	"github.com/vigilhq/vigil/registry"
	"github.com/vigilhq/vigil/store"
)

// MaxExport is the most requests one export holds.
const MaxExport = 10000

// maxSearchText bounds the text filter.
const maxSearchText = 500

// filterBody is the archive's filters, shared by search and export.
type filterBody struct {
	Status    *string `json:"status"`
	Outcome   *string `json:"outcome"`
	ModelID   *string `json:"model_id"`
	BoardID   *string `json:"board_id"`
	StartDate *string `json:"start_date"`
	EndDate   *string `json:"end_date"`
	Text      *string `json:"text"`
}

// searchBody is the body of POST .../archive/search.
type searchBody struct {
	filterBody
	Page     *web.Int `json:"page"`
	PageSize *web.Int `json:"page_size"`
}

// exportBody is the body of POST .../archive/export.
type exportBody struct {
	filterBody
	Format *string `json:"format"`
}

// filter checks the filters and returns them as a Filter: 422 naming a
// bad field, 404 for a model or board that is not the organization's
// (deleted boards are still the archive's).
func (a *API) filter(c *fiber.Ctx, b filterBody, v *web.Problems) (Filter, error) {
	var f Filter
	if b.Status != nil {
		if !isStatus(*b.Status) {
			v.Add("status", "must be one of draft, submitted, finalized")
		}
		f.Status = Status(*b.Status)
	}
	if b.Outcome != nil {
		v.OneOf("outcome", *b.Outcome, Outcomes...)
		v.Required("outcome", *b.Outcome)
		f.Outcome = *b.Outcome
	}
	for name, p := range map[string]*string{"model_id": b.ModelID, "board_id": b.BoardID} {
		if p != nil {
			v.Required(name, *p)
		}
	}
	f.From, f.To = v.Time("start_date", b.StartDate), v.Time("end_date", b.EndDate)
	if !f.From.IsZero() && !f.To.IsZero() && !f.To.After(f.From) {
		v.Add("end_date", "must be after start_date")
	}
	if b.Text != nil {
		v.MaxLen("text", *b.Text, maxSearchText)
		f.Text = strings.TrimSpace(*b.Text)
	}
	if len(*v) > 0 {
		return f, nil
	}
	org, ctx := identity.OrgID(c), c.UserContext()
	if b.ModelID != nil {
		if _, err := registry.Find(ctx, a.Store, org, *b.ModelID); err != nil {
			return f, err
		}
		f.ModelID = *b.ModelID
	}
	if b.BoardID != nil {
		if _, err := a.Store.Board(ctx, org, *b.BoardID); errors.Is(err, store.ErrNotFound) {
			return f, web.NotFound("review board")
		} else if err != nil {
			return f, err
		}
		f.BoardID = *b.BoardID
	}
	return f, nil
}

func isStatus(s string) bool {
	for _, st := range Statuses {
		if string(st) == s {
			return true
		}
	}
	return false
}

// search answers POST .../archive/search: every request of the
// organization matching the filters, newest first, paged with page and
// page_size (default 50, at most 1000) in the body.
//
// Search and export take the filters status, outcome, model_id, board_id,
// start_date and end_date (over created_at; start inclusive, end
// exclusive) and text (a case-insensitive substring of the title or the
// description); search pages with page and page_size in its body and
// answers the pagination envelope with the requests under "requests". The
// export (format csv, the default, or json) is an attachment of at most
// MaxExport requests; a CSV cell a spreadsheet would evaluate is written
// with a leading apostrophe.
func (a *API) search(c *fiber.Ctx) error {
	var b searchBody
	if err := web.Decode(c, &b); err != nil {
		return err
	}
	var v web.Problems
	page, size := 1, 50
	if b.Page != nil {
		if page = int(*b.Page); page < 1 || page > 1<<30 {
			v.Add("page", "must be between 1 and 1073741824")
		}
	}
	if b.PageSize != nil {
		if size = int(*b.PageSize); size < 1 || size > 1000 {
			v.Add("page_size", "must be between 1 and 1000")
		}
	}
	f, err := a.filter(c, b.filterBody, &v)
	if err != nil {
		return err
	}
	if err := v.Err(); err != nil {
		return err
	}
	f.Limit, f.Offset = size, (page-1)*size
	rs, total, err := a.Store.ReviewRequests(c.UserContext(), identity.OrgID(c), f)
	if err != nil {
		return err
	}
	uid, _ := actor(c)
	return c.JSON(newRequestPage(rs, total, page, size, uid))
}

// export answers POST .../archive/export: the requests matching the
// filters, newest first, as a CSV or JSON attachment.
func (a *API) export(c *fiber.Ctx) error {
	var b exportBody
	if err := web.Decode(c, &b); err != nil {
		return err
	}
	var v web.Problems
	format := "csv"
	if b.Format != nil {
		format = *b.Format
		if format != "csv" && format != "json" {
			v.Add("format", "must be one of csv, json")
		}
	}
	f, err := a.filter(c, b.filterBody, &v)
	if err != nil {
		return err
	}
	if err := v.Err(); err != nil {
		return err
	}
	f.Limit = MaxExport + 1
	rs, total, err := a.Store.ReviewRequests(c.UserContext(), identity.OrgID(c), f)
	if err != nil {
		return err
	}
	if total > MaxExport {
		return web.Invalid("start_date", fmt.Sprintf("the filters match %d requests, more than the %d one export holds: narrow the date range", total, MaxExport))
	}
	now := a.Clock.Now()
	name := "review-archive-" + now.Format("20060102T150405Z") + "." + format
	c.Set(fiber.HeaderContentDisposition, `attachment; filename="`+name+`"`)
	if format == "json" {
		c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSONCharsetUTF8)
		uid, _ := actor(c)
		doc := exportDoc{ExportedAt: now, Total: total, Requests: make([]requestView, 0, len(rs))}
		for _, r := range rs {
			doc.Requests = append(doc.Requests, newRequestView(r, uid))
		}
		out, err := json.Marshal(doc)
		if err != nil {
			return err
		}
		return c.Send(out)
	}
	c.Set(fiber.HeaderContentType, "text/csv; charset=utf-8")
	var sb strings.Builder
	if err := WriteCSV(&sb, rs); err != nil {
		return err
	}
	return c.SendString(sb.String())
}

// exportDoc is the JSON export.
type exportDoc struct {
	ExportedAt time.Time     `json:"exported_at"`
	Total      int64         `json:"total"`
	Requests   []requestView `json:"requests"`
}

// CSVColumns are the columns of the CSV export, in order.
var CSVColumns = []string{"id", "board_id", "board_name", "model_id", "title", "description", "requested_decision",
	"status", "outcome", "quorum", "voting_members", "approve", "deny", "request_changes", "decisions",
	"created_by", "created_at", "submitted_at", "finalized_at", "finalized_by"}

// WriteCSV writes rs as RFC 4180 CSV under a header of CSVColumns. Times
// are RFC 3339 UTC, absent values empty; decisions lists each decision as
// "username=decision: comment", separated by " | ". A cell that a
// spreadsheet would read as a formula (starting with =, +, -, @, a tab or
// a carriage return) is written with a leading apostrophe (formula.Defuse).
func WriteCSV(w io.Writer, rs []Request) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(CSVColumns); err != nil {
		return err
	}
	tm := func(t *time.Time) string {
		if t == nil {
			return ""
		}
		return t.Format(time.RFC3339Nano)
	}
	for _, r := range rs {
		t := r.Tally()
		ds := make([]string, 0, len(r.Decisions))
		for _, d := range r.Decisions {
			s := d.Username + "=" + d.Decision
			if d.Comment != "" {
				s += ": " + d.Comment
			}
			ds = append(ds, s)
		}
		quorum := ""
		if r.Quorum > 0 {
			quorum = strconv.Itoa(r.Quorum)
		}
		row := []string{r.ID, r.BoardID, r.BoardName, r.ModelID, r.Title, r.Description, r.RequestedDecision,
			string(r.Status), r.Outcome, quorum, strconv.Itoa(t.Voting), strconv.Itoa(t.Approve), strconv.Itoa(t.Deny),
			strconv.Itoa(t.RequestChanges), strings.Join(ds, " | "), r.CreatedBy, tm(&r.CreatedAt), tm(r.SubmittedAt),
			tm(r.FinalizedAt), r.FinalizedBy}
		for i, cell := range row {
			row[i] = formula.Defuse(cell)
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
