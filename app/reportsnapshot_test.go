package app

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/vigilhq/vigil/export"
)

// builtinOf is the id of the built-in template of a report category.
func builtinOf(t *testing.T, category string) string {
	t.Helper()
	for _, tpl := range export.Builtins() {
		if tpl.ReportCategory == category {
			return tpl.ID
		}
	}
	t.Fatalf("no built-in template of %s", category)
	return ""
}

// reportSections exports the JSON report of the template over the models
// for the days from..to and returns its sections by id.
func reportSections(t *testing.T, s *server, token, template string, models []string, from, to time.Time) map[string]map[string]any {
	t.Helper()
	id := s.do("POST", "/export/exports", token, map[string]any{"template_id": template, "model_ids": models, "format": "json",
		"start": from.Format(time.DateOnly), "end": to.Format(time.DateOnly)}).want(t, 202).str("export_id")
	if r := s.exportDone(t, token, id); r.str("status") != export.StatusCompleted {
		t.Fatalf("got %s, want the export completed", r.raw)
	}
	var doc struct {
		Sections []map[string]any `json:"sections"`
	}
	if err := json.Unmarshal(s.do("GET", "/export/exports/"+id+"/download", token, nil).want(t, 200).raw, &doc); err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]any{}
	for _, sec := range doc.Sections {
		out[sec["id"].(string)] = sec
	}
	return out
}

// TestReportSnapshot: a report is a snapshot of its period. One for a
// period before any data shows no risk entry and no trust score; one
// ending on the day an entry was filed shows it with the status it had
// then, though it was closed since.
func TestReportSnapshot(t *testing.T) {
	eachBackend(t, nil, func(t *testing.T, s *server) {
		admin := s.admin()
		model := s.model(admin, "credit", "1")
		fairAudit(t, s, admin, model)
		entry := s.do("POST", "/risk-register", admin, map[string]any{"title": "Credit model drifts", "category": "drift",
			"likelihood": 3, "impact": 4, "model_ids": []string{model}}).want(t, 201).str("id")
		compliance := builtinOf(t, export.CategoryCompliance)
		today := time.Now().UTC()

		before := reportSections(t, s, admin, compliance, []string{model}, today.AddDate(0, 0, -60), today.AddDate(0, 0, -30))
		for _, id := range []string{"risk_register", "trust_score"} {
			if before[id]["empty"] != true {
				t.Errorf("got the %s section %v of a period before any data, want it empty", id, before[id])
			}
		}

		s.skewTo(today.Add(72 * time.Hour))
		s.do("PATCH", "/risk-register/"+entry, admin, map[string]any{"status": "closed", "status_reason": "accepted",
			"likelihood": 1}).want(t, 200)
		then := reportSections(t, s, admin, compliance, []string{model}, today.AddDate(0, 0, -1), today)
		rows, _ := then["risk_register"]["table"].(map[string]any)["rows"].([]any)
		if len(rows) != 1 {
			t.Fatalf("got risk rows %v, want the entry as it stood", then["risk_register"])
		}
		row := rows[0].([]any)
		if row[0] != "Credit model drifts" || row[2] != "3" || row[4] != "12" || row[6] != "identified" {
			t.Errorf("got the row %v, want the entry identified, likelihood 3, score 12, as it stood at the period's end", row)
		}
		if then["trust_score"]["empty"] != false {
			t.Errorf("got the trust section %v of the audit's day, want its score", then["trust_score"])
		}
	})
}
