package app

import (
	"fmt"
	"testing"
)

// TestRiskHistory: the audit trail holds the create, one event per edited
// field with old and new value, and each status change with its reason,
// each with the acting user and time; refused changes write nothing.
func TestRiskHistory(t *testing.T) {
	eachBackend(t, nil, func(t *testing.T, s *server) {
		admin := s.admin()
		editor := s.user(admin, "eddie", "editor")
		id := s.do("POST", "/risk-register", admin, riskEntry(nil)).want(t, 201).str("id")
		s.do("PATCH", "/risk-register/"+id, editor, map[string]any{"title": "new title", "impact": 5, "description": ""}).want(t, 200)
		s.do("PATCH", "/risk-register/"+id, editor, map[string]any{"status": "closed", "status_reason": "accepted"}).want(t, 200)
		s.do("PATCH", "/risk-register/"+id, editor, map[string]any{"status": "mitigated", "status_reason": "no"}).wantField(t, "status")
		s.do("PATCH", "/risk-register/"+id, editor, map[string]any{"status": "closed", "status_reason": "again"}).want(t, 200)
		h := s.do("GET", "/risk-register/"+id+"/history", editor, nil).want(t, 200)
		if h.str("risk_entry_id") != id {
			t.Fatalf("got %s, want the entry's id", h.raw)
		}
		var got []string
		for _, e := range h.at("events").([]any) {
			e := e.(map[string]any)
			if e["created_at"] == nil || e["user_id"] == nil {
				t.Errorf("event %v: want a time and the acting user", e)
			}
			got = append(got, fmt.Sprint(e["event_action"], " ", e["username"], " ", e["details"]))
		}
		want := []string{
			"create admin map[category:drift impact:4 likelihood:3 risk_score:12 severity:high status:identified title:Credit model drifts on income]",
			"update eddie map[field:title from:Credit model drifts on income to:new title]",
			"update eddie map[field:impact from:4 to:5]",
			"status_change eddie map[from:identified reason:accepted to:closed]",
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("got events\n%v\nwant\n%v", got, want)
		}
		s.do("GET", "/risk-register/00000000-0000-0000-0000-000000000000/history", editor, nil).wantError(t, 404, "NOT_FOUND")
	})
}

// TestRiskPortfolio: the heat map counts open entries per cell, every
// cell present; top risks are the most severe open ones.
func TestRiskPortfolio(t *testing.T) {
	eachBackend(t, nil, func(t *testing.T, s *server) {
		admin := s.admin()
		empty := s.do("GET", "/risk-register/portfolio", admin, nil).want(t, 200)
		if len(empty.at("heatmap").([]any)) != 25 || empty.at("open_count") != float64(0) || len(empty.at("top_risks").([]any)) != 0 ||
			fmt.Sprint(empty.at("open_by_severity")) != "map[critical:0 high:0 low:0 medium:0]" {
			t.Fatalf("got %s, want 25 empty cells and no risks", empty.raw)
		}
		add := func(title string, l, i int) string {
			return s.do("POST", "/risk-register", admin, riskEntry(map[string]any{"title": title, "likelihood": l, "impact": i})).want(t, 201).str("id")
		}
		add("a", 5, 5)
		add("b", 3, 4)
		add("c", 3, 4)
		add("d", 1, 2)
		closed := add("e", 5, 4)
		s.do("PATCH", "/risk-register/"+closed, admin, map[string]any{"status": "closed", "status_reason": "gone"}).want(t, 200)
		p := s.do("GET", "/risk-register/portfolio?limit=2", admin, nil).want(t, 200)
		cells := map[string]float64{}
		for _, c := range p.at("heatmap").([]any) {
			c := c.(map[string]any)
			if c["count"] != float64(0) {
				cells[fmt.Sprint(c["likelihood"], "x", c["impact"])] = c["count"].(float64)
			}
		}
		if fmt.Sprint(cells) != "map[1x2:1 3x4:2 5x5:1]" || p.at("open_count") != float64(4) ||
			fmt.Sprint(p.at("open_by_severity")) != "map[critical:1 high:2 low:1 medium:0]" {
			t.Fatalf("got %s, want the four open entries counted", p.raw)
		}
		top := p.at("top_risks").([]any)
		if len(top) != 2 || top[0].(map[string]any)["title"] != "a" || top[1].(map[string]any)["title"] != "c" {
			t.Fatalf("got top risks %v, want a then c (the newer of the two highs)", top)
		}
		s.do("GET", "/risk-register/portfolio?limit=0", admin, nil).wantField(t, "limit")
	})
}
