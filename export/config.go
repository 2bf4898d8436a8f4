package export

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/vigilhq/vigil/platform/web"
	"github.com/vigilhq/vigil/report"
)

// Date range rules of a configuration: the period a report made from it
// covers, counted back from the day it is made (UTC). RangeCustom takes
// the configuration's own Start and End.
const (
	RangeLast7Days     = "last_7_days"
	RangeLast30Days    = "last_30_days"
	RangeLast90Days    = "last_90_days"
	RangeMonthToDate   = "month_to_date"
	RangePreviousMonth = "previous_month"
	RangeCustom        = "custom"
)

// DateRanges lists every date range rule.
var DateRanges = []string{RangeLast7Days, RangeLast30Days, RangeLast90Days, RangeMonthToDate, RangePreviousMonth, RangeCustom}

// Delivery methods of spec 1. A configuration lists where its reports go;
// download is always possible, the others are carried out by the delivery
// channels once they exist (until then a configuration only records them).
const (
	DeliverDownload = "download"
	DeliverEmail    = "email"
	DeliverWebhook  = "webhook"
	DeliverS3       = "s3"
	DeliverSFTP     = "sftp"
	DeliverAPI      = "api"
)

// DeliveryMethods lists every delivery method.
var DeliveryMethods = []string{DeliverDownload, DeliverEmail, DeliverWebhook, DeliverS3, DeliverSFTP, DeliverAPI}

// MaxRecipients bounds the addresses of an email delivery.
const MaxRecipients = 50

// Email is the pattern of an e-mail address a configuration accepts (the
// OpenAPI document states the same).
var Email = regexp.MustCompile(`^[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,24}$`)

// Delivery is one place a configuration's reports go: Method, and for
// email the Recipients.
type Delivery struct {
	Method     string   `json:"method"`
	Recipients []string `json:"recipients,omitempty"`
}

// Config says how a report is produced and delivered: the template, the
// models, the format, the period (a DateRange rule, Start and End for
// custom), the sections when they differ from the template's, and the
// deliveries.
type Config struct {
	ID          string     `json:"id"`
	OrgID       string     `json:"-"`
	Name        string     `json:"name"`
	Description string     `json:"description"`
	TemplateID  string     `json:"template_id"`
	ModelIDs    []string   `json:"model_ids"`
	Format      string     `json:"format"`
	DateRange   string     `json:"date_range"`
	Start       string     `json:"start,omitempty"`
	End         string     `json:"end,omitempty"`
	Sections    []string   `json:"sections"`
	Delivery    []Delivery `json:"delivery"`
	CreatedAt   time.Time  `json:"created_at"`
	UpdatedAt   time.Time  `json:"updated_at"`
}

// ConfigStore keeps an organization's configurations. A record of another
// organization is store.ErrNotFound, as a missing one.
type ConfigStore interface {
	CreateExportConfig(ctx context.Context, c Config) error
	ExportConfig(ctx context.Context, orgID, id string) (Config, error)
	// ExportConfigs lists the organization's configurations oldest first
	// with their total.
	ExportConfigs(ctx context.Context, orgID string, offset, limit int) ([]Config, int64, error)
	UpdateExportConfig(ctx context.Context, c Config) error
	DeleteExportConfig(ctx context.Context, orgID, id string) error
}

// Validate checks a configuration's own fields (whether its template and
// models are the organization's is the caller's to check): 422 naming
// each field. It puts the sections in report order and leaves Sections
// empty for "the template's".
func (c *Config) Validate() error {
	var v web.Problems
	if strings.TrimSpace(c.Name) == "" || len([]rune(c.Name)) > MaxName {
		v.Add("name", fmt.Sprintf("must be 1 to %d characters", MaxName))
	}
	v.MaxLen("description", c.Description, MaxDescription)
	checkModels(&v, c.ModelIDs)
	if !slices.Contains(report.Formats, c.Format) {
		v.Add("format", "must be one of "+strings.Join(report.Formats, ", "))
	}
	switch {
	case !slices.Contains(DateRanges, c.DateRange):
		v.Add("date_range", "must be one of "+strings.Join(DateRanges, ", "))
	case c.DateRange == RangeCustom:
		checkPeriod(&v, c.Start, c.End)
	case c.Start != "" || c.End != "":
		v.Add("start", "is taken only with date_range custom")
	}
	if c.Sections != nil {
		t := Template{Name: "-", ReportCategory: CategoryCustom, Sections: c.Sections}
		if err := t.Validate(); err != nil {
			v.Add("sections", fmt.Sprint(err.Details["sections"]))
		}
		c.Sections = t.Sections
	}
	checkDelivery(&v, c.Delivery)
	return v.Err()
}

// checkDelivery checks a configuration's deliveries: each method once,
// email with 1 to MaxRecipients distinct addresses, the others with none.
func checkDelivery(v *web.Problems, ds []Delivery) {
	seen := map[string]bool{}
	for i, d := range ds {
		path := fmt.Sprintf("delivery[%d]", i)
		if !slices.Contains(DeliveryMethods, d.Method) {
			v.Add(path+".method", "must be one of "+strings.Join(DeliveryMethods, ", "))
			continue
		}
		if seen[d.Method] {
			v.Add(path+".method", "names a method twice")
		}
		seen[d.Method] = true
		if d.Method != DeliverEmail {
			if d.Recipients != nil {
				v.Add(path+".recipients", "is taken only by the email method")
			}
			continue
		}
		if n := len(d.Recipients); n == 0 || n > MaxRecipients {
			v.Add(path+".recipients", fmt.Sprintf("must name 1 to %d e-mail addresses", MaxRecipients))
		}
		for j, r := range d.Recipients {
			if !Email.MatchString(r) {
				v.Add(fmt.Sprintf("%s.recipients[%d]", path, j), "must be an e-mail address such as audit@example.com")
			} else if slices.Index(d.Recipients, r) != j {
				v.Add(fmt.Sprintf("%s.recipients[%d]", path, j), "repeats an address")
			}
		}
	}
}

// Period is the first and last day (UTC midnights) of a report made from
// c on the day of now.
func (c Config) Period(now time.Time) (start, end time.Time) {
	today := now.UTC().Truncate(24 * time.Hour)
	switch c.DateRange {
	case RangeLast7Days:
		return today.AddDate(0, 0, -6), today
	case RangeLast90Days:
		return today.AddDate(0, 0, -89), today
	case RangeMonthToDate:
		return today.AddDate(0, 0, 1-today.Day()), today
	case RangePreviousMonth:
		first := today.AddDate(0, 0, 1-today.Day())
		return first.AddDate(0, -1, 0), first.AddDate(0, 0, -1)
	case RangeCustom:
		start, _ = time.Parse(time.DateOnly, c.Start)
		end, _ = time.Parse(time.DateOnly, c.End)
		return start, end
	}
	return today.AddDate(0, 0, -29), today
}
