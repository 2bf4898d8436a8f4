package risk

import "time"

// view is an entry as the API answers it: absent optional values are null.
type view struct {
	ID             string     `json:"id"`
	Title          string     `json:"title"`
	Description    string     `json:"description"`
	Category       string     `json:"category"`
	Likelihood     int        `json:"likelihood"`
	Impact         int        `json:"impact"`
	Score          int        `json:"risk_score"`
	Severity       string     `json:"severity"`
	Status         Status     `json:"status"`
	OwnerID        *string    `json:"owner_id"`
	MitigationPlan string     `json:"mitigation_plan"`
	TargetDate     *string    `json:"target_resolution_date"`
	Cadence        *int       `json:"review_cadence_days"`
	NextReview     *time.Time `json:"next_review_at"`
	ModelIDs       []string   `json:"model_ids"`
	SourceType     *string    `json:"source_type"`
	SourceID       *string    `json:"source_id"`
	ClosedAt       *time.Time `json:"closed_at"`
	CreatedBy      *string    `json:"created_by"`
	CreatedAt      time.Time  `json:"created_at"`
	UpdatedAt      time.Time  `json:"updated_at"`
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func newView(e Entry) view {
	v := view{ID: e.ID, Title: e.Title, Description: e.Description, Category: e.Category, Likelihood: e.Likelihood,
		Impact: e.Impact, Score: e.Score, Severity: e.Severity, Status: e.Status, OwnerID: nullable(e.OwnerID),
		MitigationPlan: e.MitigationPlan, TargetDate: nullable(e.TargetDate), NextReview: e.NextReview,
		ModelIDs: orEmpty(e.ModelIDs), SourceType: nullable(e.SourceType), SourceID: nullable(e.SourceID),
		ClosedAt: e.ClosedAt, CreatedBy: nullable(e.CreatedBy), CreatedAt: e.CreatedAt, UpdatedAt: e.UpdatedAt}
	if e.Cadence > 0 {
		v.Cadence = &e.Cadence
	}
	return v
}

func newViews(es []Entry) []view {
	out := make([]view, 0, len(es))
	for _, e := range es {
		out = append(out, newView(e))
	}
	return out
}

// eventView is one event of the audit trail as answered.
type eventView struct {
	ID          string         `json:"id"`
	Action      string         `json:"event_action"`
	Description string         `json:"description"`
	Details     map[string]any `json:"details"`
	UserID      *string        `json:"user_id"`
	Username    string         `json:"username"`
	CreatedAt   time.Time      `json:"created_at"`
}

// history is the body of GET /risk-register/{entry_id}/history.
type history struct {
	EntryID string      `json:"risk_entry_id"`
	Events  []eventView `json:"events"`
}

// portfolio is the body of GET /risk-register/portfolio.
type portfolio struct {
	Heatmap        []Cell         `json:"heatmap"`
	TopRisks       []view         `json:"top_risks"`
	OpenCount      int            `json:"open_count"`
	OpenBySeverity map[string]int `json:"open_by_severity"`
}

// newPortfolio lays counts out as the 5x5 grid, likelihood then impact
// ascending, every cell present.
func newPortfolio(c Counts, top []Entry) portfolio {
	p := portfolio{Heatmap: make([]Cell, 0, 25), TopRisks: newViews(top), OpenBySeverity: map[string]int{}}
	for l := 1; l <= 5; l++ {
		for i := 1; i <= 5; i++ {
			n := c.Cells[l*10+i]
			p.Heatmap = append(p.Heatmap, Cell{Likelihood: l, Impact: i, Count: n})
			p.OpenCount += n
		}
	}
	for _, s := range Severities {
		p.OpenBySeverity[s] = c.BySeverity[s]
	}
	return p
}

// AsOf is e as it stood just before at, from its audit trail evs (oldest
// first): each status change and each likelihood or impact edit made at
// or after at undone, the score recomputed. The severity is left as
// stored (the thresholds of the time are not kept). An entry created at
// or after at did not exist then: the caller leaves it out.
func AsOf(e Entry, evs []Event, at time.Time) Entry {
	for i := len(evs) - 1; i >= 0; i-- {
		ev := evs[i]
		if ev.CreatedAt.Before(at) {
			break
		}
		switch ev.Action {
		case ActionStatusChange:
			if from, ok := ev.Details["from"].(string); ok {
				e.Status = Status(from)
			}
		case ActionUpdate:
			from, ok := ev.Details["from"].(float64) // a number read back from JSON
			switch {
			case !ok:
			case ev.Details["field"] == "likelihood":
				e.Likelihood = int(from)
			case ev.Details["field"] == "impact":
				e.Impact = int(from)
			}
		}
	}
	e.Score = e.Likelihood * e.Impact
	return e
}
