package app

import (
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
