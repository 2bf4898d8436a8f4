package app

import (
	"context"
	"fmt"
	"testing"

	"github.com/vigilhq/vigil/platform/config"
)

// TestToxicity scores texts and a logged completion with the built-in
// scorer, and checks every completion on arrival (100% sampled): the
// checks count in GET /llm/metrics' toxicity rate.
func TestToxicity(t *testing.T) {
	eachPipelineWith(t, func(c *config.Config) { c.Toxicity.SamplePercent = 100 }, testToxicity)
}

func testToxicity(t *testing.T, s *server) {
	key, _ := s.key(s.admin(), "read", "write")
	model := s.model(key, "assistant", "1")
	r := s.do("POST", "/llm/toxicity", key, map[string]any{"text": "You are a stupid idiot and I will kill you"}).want(t, 200)
	if r.at("flagged") != true || r.at("toxicity_detected") != true || r.str("scorer") != "builtin-lexicon-v1" ||
		r.at("completion_id") != nil || r.at("scores.threat").(float64) < 0.5 || len(r.at("scores").(map[string]any)) != 6 {
		t.Errorf("got %s, want a flagged threat and insult, scored by the built-in lexicon, six heads", r.raw)
	}
	if r := s.do("POST", "/llm/toxicity", key, map[string]any{"text": "Thanks, that answer was helpful."}).want(t, 200); r.at("flagged") != false {
		t.Errorf("got %s, want a polite text not flagged", r.raw)
	}
	for i, text := range []string{"Here is your summary.", "shut up, you pathetic moron"} {
		s.do("POST", "/llm/completions", key, map[string]any{"model_id": model, "completion_id": []string{"ok", "rude"}[i],
			"provider": "openai", "model_name": "gpt-4o", "prompt": "p", "completion": text}).want(t, 201)
	}
	var m response
	waitFor(t, "the completions counted", func() bool {
		m = s.do("GET", "/llm/metrics?model_id="+model, key, nil).want(t, 200)
		return m.at("totals.completions") == 2.0
	})
	if m.at("totals.toxicity_checked") != 2.0 || m.at("totals.toxicity_rate") != 0.5 {
		t.Errorf("got %s, want both completions checked on arrival, one flagged", m.raw)
	}
	r = s.do("POST", "/llm/toxicity", key, map[string]any{"completion_id": "rude"}).want(t, 200)
	if r.str("completion_id") != "rude" || r.at("flagged") != true {
		t.Errorf("got %s, want the logged completion rude scored and flagged", r.raw)
	}
	s.do("POST", "/llm/toxicity", key, map[string]any{"completion_id": "never-logged"}).wantError(t, 404, "NOT_FOUND")
	// Issue 41, point 5: with a text, an id no logged completion has is
	// echoed and the text scored; another organization's id alike.
	echo := func(token, id string) {
		t.Helper()
		r := s.do("POST", "/llm/toxicity", token, map[string]any{"text": "have a lovely day", "completion_id": id}).want(t, 200)
		if r.str("completion_id") != id || r.at("flagged") != false || len(r.at("scores").(map[string]any)) != 6 {
			t.Errorf("text with completion_id %s: got %s, want the text scored and the id echoed", id, r.raw)
		}
	}
	echo(key, "never-logged")
	echoKey, _ := s.key(s.signUp("echoother"), "read", "write")
	echo(echoKey, "rude")
	s.do("POST", "/llm/toxicity", key, map[string]any{}).wantField(t, "text")
	other := s.signUp("other")
	otherKey, _ := s.key(other, "read", "write")
	s.do("POST", "/llm/toxicity", otherKey, map[string]any{"completion_id": "rude"}).wantError(t, 404, "NOT_FOUND")
}

// TestToxicityAttached attaches a later check to a logged completion
// (issue 41, point 5): the completion reads back with it and GET
// /llm/metrics counts it once, even when the same check is asked twice;
// another organization's id is scored, echoed and attaches nothing.
func TestToxicityAttached(t *testing.T) { eachPipeline(t, testToxicityAttached) }

func testToxicityAttached(t *testing.T, s *server) {
	admin := s.admin()
	key, _ := s.key(admin, "read", "write")
	org := s.do("GET", "/auth/me", admin, nil).want(t, 200).str("user.organization_id")
	model := s.model(key, "assistant", "1")
	for _, id := range []string{"first", "second"} {
		s.do("POST", "/llm/completions", key, map[string]any{"model_id": model, "completion_id": id,
			"provider": "openai", "model_name": "gpt-4o", "prompt": "p", "completion": "Here is your summary."}).want(t, 201)
	}
	metrics := func() string {
		t.Helper()
		m := s.do("GET", "/llm/metrics?model_id="+model, key, nil).want(t, 200)
		return fmt.Sprintf("completions=%v checked=%v rate=%v gpt-4o checked=%v", m.at("totals.completions"),
			m.at("totals.toxicity_checked"), m.at("totals.toxicity_rate"), m.at("by_model.gpt-4o.toxicity_checked"))
	}
	waitFor(t, "the completions counted", func() bool { return metrics() == "completions=2 checked=0 rate=<nil> gpt-4o checked=0" })
	toxic := map[string]any{"text": "shut up, you pathetic moron", "completion_id": "first"}
	for range 2 {
		if r := s.do("POST", "/llm/toxicity", key, toxic).want(t, 200); r.str("completion_id") != "first" || r.at("flagged") != true {
			t.Errorf("got %s, want the text flagged and the id echoed", r.raw)
		}
		if got, want := metrics(), "completions=2 checked=1 rate=1 gpt-4o checked=1"; got != want {
			t.Errorf("metrics: got %s, want %s", got, want)
		}
	}
	c, err := s.app.analytics.Completion(context.Background(), org, "first")
	if err != nil {
		t.Fatal(err)
	}
	if c.Toxicity == nil || !c.Toxicity.Flagged || c.Toxicity.Scorer != "builtin-lexicon-v1" || c.Toxicity.Scores["insult"] < 0.5 {
		t.Errorf("stored completion: got %+v, want the flagged check attached", c.Toxicity)
	}
	otherKey, _ := s.key(s.signUp("other"), "read", "write")
	if r := s.do("POST", "/llm/toxicity", otherKey, map[string]any{"text": "you moron", "completion_id": "second"}).want(t, 200); r.str("completion_id") != "second" {
		t.Errorf("other organization: got %s, want the id echoed", r.raw)
	}
	if got, want := metrics(), "completions=2 checked=1 rate=1 gpt-4o checked=1"; got != want {
		t.Errorf("after another organization's check: got %s, want %s", got, want)
	}
	if c, err := s.app.analytics.Completion(context.Background(), org, "second"); err != nil || c.Toxicity != nil {
		t.Errorf("completion second: got %+v, %v, want no check attached", c.Toxicity, err)
	}
}
