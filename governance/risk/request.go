package risk

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/vigilhq/vigil/platform/web"
)

// Limits of an entry's fields.
const (
	MaxTitle    = 500
	maxText     = 10000
	maxModelIDs = 100
	maxCadence  = 3650
)

// fields are the writable fields of an entry, shared by create and update.
type fields struct {
	Title          *string   `json:"title"`
	Description    *string   `json:"description"`
	Category       *string   `json:"category"`
	Likelihood     *web.Int  `json:"likelihood"`
	Impact         *web.Int  `json:"impact"`
	OwnerID        *string   `json:"owner_id"`
	MitigationPlan *string   `json:"mitigation_plan"`
	TargetDate     *string   `json:"target_resolution_date"`
	Cadence        *web.Int  `json:"review_cadence_days"`
	ModelIDs       *[]string `json:"model_ids"`
}

// createRequest is the body of POST /risk-register.
type createRequest struct {
	fields
}

// updateRequest is the body of PATCH /risk-register/{entry_id}.
type updateRequest struct {
	fields
	Status       *string `json:"status"`
	StatusReason *string `json:"status_reason"`
}

// check validates the fields that are present against cfg; create says
// whether the required ones must be (on update an empty owner_id,
// target_resolution_date or model_ids, or a cadence of 0, clears it).
func (f fields) check(v *web.Problems, cfg Config, create bool) {
	if create {
		for name, p := range map[string]bool{"title": f.Title == nil, "category": f.Category == nil,
			"likelihood": f.Likelihood == nil, "impact": f.Impact == nil} {
			if p {
				v.Add(name, "is required")
			}
		}
	}
	if f.Title != nil {
		v.Required("title", *f.Title)
		v.MaxLen("title", *f.Title, MaxTitle)
	}
	if f.Description != nil {
		v.MaxLen("description", *f.Description, maxText)
	}
	if f.MitigationPlan != nil {
		v.MaxLen("mitigation_plan", *f.MitigationPlan, maxText)
	}
	if f.Category != nil && !slices.Contains(cfg.Categories, *f.Category) {
		v.Add("category", "must be one of the organization's categories: "+strings.Join(cfg.Categories, ", "))
	}
	for name, n := range map[string]*web.Int{"likelihood": f.Likelihood, "impact": f.Impact} {
		if n != nil && (*n < 1 || *n > 5) {
			v.Add(name, "must be between 1 and 5")
		}
	}
	if f.TargetDate != nil && (create || *f.TargetDate != "") {
		if _, err := time.Parse(time.DateOnly, *f.TargetDate); err != nil {
			v.Add("target_resolution_date", "must be a date such as 2026-12-31")
		}
	}
	if f.Cadence != nil && (create || *f.Cadence != 0) && (*f.Cadence < 1 || *f.Cadence > maxCadence) {
		v.Add("review_cadence_days", fmt.Sprintf("must be between 1 and %d", maxCadence))
	}
	if f.OwnerID != nil && create {
		v.Required("owner_id", *f.OwnerID)
	}
	if f.ModelIDs != nil {
		ids := *f.ModelIDs
		if len(ids) > maxModelIDs {
			v.Add("model_ids", fmt.Sprintf("must list at most %d models", maxModelIDs))
		}
		seen := map[string]bool{}
		for _, id := range ids {
			switch {
			case strings.TrimSpace(id) == "":
				v.Add("model_ids", "must not hold an empty id")
			case seen[id]:
				v.Add("model_ids", "repeats "+id)
			}
			seen[id] = true
		}
	}
}

// validate checks the update; status needs status_reason, and the move
// must be allowed from the entry's current status, which the handler
// checks under the entry's lock.
func (r updateRequest) validate(cfg Config) error {
	var v web.Problems
	r.check(&v, cfg, false)
	if r.Status != nil {
		v.OneOf("status", *r.Status, statusNames()...)
		if *r.Status == "" {
			v.Add("status", "must be one of "+strings.Join(statusNames(), ", "))
		}
		if r.StatusReason == nil || strings.TrimSpace(*r.StatusReason) == "" {
			v.Add("status_reason", "is required when status is given")
		}
	}
	if r.StatusReason != nil {
		if r.Status == nil {
			v.Add("status_reason", "is accepted only with status")
		}
		v.MaxLen("status_reason", *r.StatusReason, maxText)
	}
	return v.Err()
}

// nulls applies the fields body sends as JSON null: a field that can be
// cleared (description, owner_id, mitigation_plan,
// target_resolution_date, review_cadence_days, model_ids) is set to its
// empty value, which clears it; any other answers 422 naming it.
func (r *updateRequest) nulls(body []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(body, &raw); err != nil {
		return nil // Decode has judged the body already
	}
	empty, zero, none := "", web.Int(0), []string{}
	var v web.Problems
	for name, val := range raw {
		if string(bytes.TrimSpace(val)) != "null" {
			continue
		}
		switch name {
		case "description":
			r.Description = &empty
		case "owner_id":
			r.OwnerID = &empty
		case "mitigation_plan":
			r.MitigationPlan = &empty
		case "target_resolution_date":
			r.TargetDate = &empty
		case "review_cadence_days":
			r.Cadence = &zero
		case "model_ids":
			r.ModelIDs = &none
		default:
			v.Add(name, "cannot be cleared: leave it out to keep its value")
		}
	}
	return v.Err()
}

func statusNames() []string {
	out := make([]string, len(Statuses))
	for i, s := range Statuses {
		out[i] = string(s)
	}
	return out
}

// change is one field's edit, for the audit trail.
type change struct {
	field    string
	from, to any
}

// apply sets e's fields from f and returns the edits that changed a
// value, in the order of the fields.
func (f fields) apply(e *Entry) []change {
	var out []change
	set := func(name string, dst *string, v *string) {
		if v != nil && *v != *dst {
			out = append(out, change{name, orNull(*dst), orNull(*v)})
			*dst = *v
		}
	}
	setInt := func(name string, dst *int, v *web.Int) {
		if v != nil && int(*v) != *dst {
			out = append(out, change{name, intOrNull(*dst), intOrNull(int(*v))})
			*dst = int(*v)
		}
	}
	set("title", &e.Title, f.Title)
	set("description", &e.Description, f.Description)
	set("category", &e.Category, f.Category)
	setInt("likelihood", &e.Likelihood, f.Likelihood)
	setInt("impact", &e.Impact, f.Impact)
	set("owner_id", &e.OwnerID, f.OwnerID)
	set("mitigation_plan", &e.MitigationPlan, f.MitigationPlan)
	set("target_resolution_date", &e.TargetDate, f.TargetDate)
	setInt("review_cadence_days", &e.Cadence, f.Cadence)
	if f.ModelIDs != nil {
		next := slices.Clone(*f.ModelIDs)
		slices.Sort(next)
		if !slices.Equal(next, e.ModelIDs) {
			out = append(out, change{"model_ids", orEmpty(e.ModelIDs), orEmpty(next)})
			e.ModelIDs = next
		}
	}
	return out
}

func orNull(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func intOrNull(n int) any {
	if n == 0 {
		return nil
	}
	return n
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// schedule sets the entry's next review: at plus its cadence while it is
// open, none without a cadence or once closed. It runs on create and on
// every update that changes something, each of which is a review.
func schedule(e *Entry, at time.Time) {
	e.NextReview = nil
	if e.Cadence > 0 && e.Status.Open() {
		t := at.AddDate(0, 0, e.Cadence)
		e.NextReview = &t
	}
}

// score sets the entry's score and its severity under t.
func score(e *Entry, t Thresholds) {
	e.Score = e.Likelihood * e.Impact
	e.Severity = t.Severity(e.Score)
}
