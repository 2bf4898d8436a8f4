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

// Delivery methods of spec 1. A configuration lists where its reports go,
// and each entry is carried out when it runs: email to its recipients
// (or through an email integration), webhook, s3 and sftp through the
// integration the entry names, download and api by leaving the file for
// the API.
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

// Delivery is one place a report goes: Method, for email the Recipients,
// and the delivery integration that carries it out (IntegrationID; for
// webhook, s3 and sftp, which need a target of their own).
type Delivery struct {
	Method        string   `json:"method"`
	Recipients    []string `json:"recipients,omitempty"`
	IntegrationID string   `json:"integration_id,omitempty"`
}

// byIntegration are the methods carried out only through an integration.
var byIntegration = []string{DeliverWebhook, DeliverS3, DeliverSFTP}

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

// checkDelivery checks a configuration's deliveries: each method once;
// email with 1 to MaxRecipients distinct addresses or an integration;
// webhook, s3 and sftp with an integration; none but email with
// recipients, download with nothing.
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
		switch {
		case d.IntegrationID == "" && slices.Contains(byIntegration, d.Method):
			v.Add(path+".integration_id", "is required: the "+d.Method+" integration to deliver through")
		case d.IntegrationID != "" && d.Method == DeliverDownload:
			v.Add(path+".integration_id", "is not taken by the download method")
		case d.IntegrationID != "" && d.Recipients != nil:
			v.Add(path+".recipients", "is not taken with an integration (its own recipients are used)")
		}
		if d.Method != DeliverEmail {
			if d.Recipients != nil {
				v.Add(path+".recipients", "is taken only by the email method")
			}
			continue
		}
		if d.IntegrationID == "" {
			checkRecipients(v, path+".recipients", d.Recipients)
		}
	}
}

// checkRecipients checks 1 to MaxRecipients distinct e-mail addresses.
func checkRecipients(v *web.Problems, path string, rs []string) {
	if n := len(rs); n == 0 || n > MaxRecipients {
		v.Add(path, fmt.Sprintf("must name 1 to %d e-mail addresses", MaxRecipients))
	}
	for j, r := range rs {
		if !Email.MatchString(r) {
			v.Add(fmt.Sprintf("%s[%d]", path, j), "must be an e-mail address such as audit@example.com")
		} else if slices.Index(rs, r) != j {
			v.Add(fmt.Sprintf("%s[%d]", path, j), "repeats an address")
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
