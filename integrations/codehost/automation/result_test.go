package automation

import (
	"strings"
	"testing"
)

// TestResultCheck: a body is checked as the kind it was posted as; a
// member of the other kind's body is refused.
func TestResultCheck(t *testing.T) {
	yes := true
	sha := strings.Repeat("a", 40)
	f := func(what string, r result, comparison, withSHA, wantOK bool) {
		t.Helper()
		if err := r.check(comparison, withSHA); (err == nil) != wantOK {
			t.Errorf("%s: got %v, want ok %v", what, err, wantOK)
		}
	}
	f("a validation check", result{HeadSHA: sha, ModelName: "m", ValidationPassed: &yes}, false, true, true)
	f("no verdict", result{HeadSHA: sha, ModelName: "m"}, false, true, false)
	f("a short sha", result{HeadSHA: "abc", ModelName: "m", ValidationPassed: &yes}, false, true, false)
	f("a comparison comment", result{ModelName: "m", ComparisonPassed: &yes, Metrics: map[string]mPair{"auc": {0.8, 0.9}}}, true, false, true)
	f("a sha in a comment", result{HeadSHA: sha, ModelName: "m", ComparisonPassed: &yes}, true, false, false)
	f("metrics in a validation", result{ModelName: "m", ValidationPassed: &yes, Metrics: map[string]mPair{}}, false, false, false)
	f("a javascript dashboard", result{ModelName: "m", ValidationPassed: &yes, DashboardURL: "javascript:alert(1)"}, false, false, false)
}

// TestMarkdownEscapes: text from the body cannot break the table or
// inject HTML, and the running comment's marker is kept once at the end.
func TestMarkdownEscapes(t *testing.T) {
	no := false
	r := result{ModelName: "m|<b>", ComparisonPassed: &no, BaselineVersion: "1", CandidateVersion: "2",
		Metrics: map[string]mPair{"a|b\nc": {1, 2}}}
	md := r.markdown(true)
	for _, want := range []string{"### ❌ Comparison of m\\|&lt;b&gt; failed", "| a\\|b c | 1 | 2 | +1 |"} {
		if !strings.Contains(md, want) {
			t.Errorf("got %q, want it to hold %q", md, want)
		}
	}
	if got, want := withMarker("body\n\n", "run-1"), "body\n\n"+Marker("run-1"); got != want {
		t.Errorf("withMarker: got %q, want %q", got, want)
	}
}
