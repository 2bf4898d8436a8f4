package app

import (
	"strings"
	"testing"

	"github.com/vigilhq/vigil/integrations/codehost/automation"
	"github.com/vigilhq/vigil/integrations/codehost/hostapi"
)

// TestCodehostAutomation: branch protection is enabled with Vigil's
// checks, read, and its required checks added and removed; validation and
// comparison check runs land on the commit with their conclusion; pull
// request comments are posted, and PUT's running comment is posted once
// and then updated in place through its hidden marker.
func TestCodehostAutomation(t *testing.T) {
	f := newForge(t)
	f.addRepo("octo", "models", true, true)
	eachBackend(t, f.config, func(t *testing.T, s *server) {
		f.mu.Lock()
		f.checkRuns, f.comments, f.protections = nil, map[int][]forgeComment{}, map[string]hostapi.Protection{}
		f.mu.Unlock()
		admin := s.admin()
		repo, _ := hookRepo(t, s, f, admin, nil)
		base := "/codehost/automation/repositories/" + repo

		p := s.do("POST", base+"/branch-protection/enable", admin, map[string]any{"branches": []string{"main", "release/1.0"},
			"require_comparison": true, "strict": true}).want(t, 200)
		if n := len(p.at("protections").([]any)); n != 2 {
			t.Fatalf("got %s, want two branches protected", p.raw)
		}
		got := s.do("GET", base+"/branch-protection/release%2F1.0", admin, nil).want(t, 200)
		if got.str("branch") != "release/1.0" || got.at("strict") != true || len(got.at("required_checks").([]any)) != 2 {
			t.Fatalf("got %s, want release/1.0 strict with validation and comparison required", got.raw)
		}
		s.do("GET", base+"/branch-protection/dev", admin, nil).wantError(t, 404, "NOT_FOUND")
		added := s.do("POST", base+"/branch-protection/main/required-checks", admin, map[string]any{"check_context": "ci/tests"}).want(t, 200)
		if cs := added.at("required_checks").([]any); len(cs) != 3 || cs[2] != "ci/tests" {
			t.Fatalf("got %s, want ci/tests added", added.raw)
		}
		s.do("POST", base+"/branch-protection/main/required-checks", admin, map[string]any{"check_context": "bad context"}).wantField(t, "check_context")
		removed := s.do("DELETE", base+"/branch-protection/main/required-checks?check_context="+automation.CheckComparison, admin, nil).want(t, 200)
		if cs := removed.at("required_checks").([]any); len(cs) != 2 || cs[0] != automation.CheckValidation || cs[1] != "ci/tests" {
			t.Fatalf("got %s, want vigil/comparison removed", removed.raw)
		}
		f.mu.Lock()
		if cs := f.protections["main"].Contexts; len(cs) != 2 {
			t.Errorf("the forge holds %v, want 2 required checks", cs)
		}
		f.mu.Unlock()

		sha := "0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c"
		v := s.do("POST", base+"/checks/validation", admin, map[string]any{"head_sha": sha, "model_name": "churn",
			"validation_passed": false, "validation_details": map[string]any{"accuracy": 0.61, "min_accuracy": 0.8},
			"dashboard_url": "https://vigil.example.com/models/churn"}).want(t, 201)
		if v.str("conclusion") != "failure" || v.str("name") != automation.CheckValidation || v.str("check_run_id") == "" {
			t.Errorf("got %s, want a failed validation check", v.raw)
		}
		s.do("POST", base+"/checks/comparison", admin, map[string]any{"head_sha": sha, "model_name": "churn", "comparison_passed": true,
			"baseline_version": "1", "candidate_version": "2", "metrics": map[string]any{"accuracy": map[string]any{"baseline": 0.8, "candidate": 0.85}}}).want(t, 201)
		s.do("POST", base+"/checks/validation", admin, map[string]any{"head_sha": "abc", "model_name": "churn", "validation_passed": true}).wantField(t, "head_sha")
		f.mu.Lock()
		runs := cloneRuns(f.checkRuns)
		f.mu.Unlock()
		if len(runs) != 2 || runs[0]["conclusion"] != "failure" || runs[0]["status"] != "completed" || runs[1]["conclusion"] != "success" ||
			runs[0]["details_url"] != "https://vigil.example.com/models/churn" ||
			!strings.Contains(runs[1]["output"].(map[string]any)["summary"].(string), "| accuracy | 0.8 | 0.85 |") {
			t.Fatalf("got check runs %v, want the failed validation and the passed comparison", runs)
		}

		s.do("POST", base+"/pr-comments/7/validation", admin, map[string]any{"model_name": "churn", "validation_passed": true}).want(t, 201)
		s.do("POST", base+"/pr-comments/7/comparison", admin, map[string]any{"model_name": "churn", "comparison_passed": false,
			"metrics": map[string]any{}}).want(t, 201)
		first := s.do("PUT", base+"/pr-comments/7", admin, map[string]any{"comment_body": "Drift: none", "comment_identifier": "drift-report"}).want(t, 201)
		second := s.do("PUT", base+"/pr-comments/7", admin, map[string]any{"comment_body": "Drift: high", "comment_identifier": "drift-report"}).want(t, 200)
		other := s.do("PUT", base+"/pr-comments/7", admin, map[string]any{"comment_body": "Bias: none", "comment_identifier": "bias"}).want(t, 201)
		if second.at("updated") != true || second.str("comment_id") != first.str("comment_id") || other.str("comment_id") == first.str("comment_id") {
			t.Fatalf("got %s then %s and %s, want the drift comment updated in place and the bias one apart", first.raw, second.raw, other.raw)
		}
		s.do("PUT", base+"/pr-comments/0", admin, map[string]any{"comment_body": "x", "comment_identifier": "a"}).wantField(t, "pr_number")
		s.do("PUT", base+"/pr-comments/7", admin, map[string]any{"comment_body": "x", "comment_identifier": "a -->"}).wantField(t, "comment_identifier")
		f.mu.Lock()
		cs := f.comments[7]
		f.mu.Unlock()
		if len(cs) != 4 {
			t.Fatalf("got %d comments on the pull request, want 4 (validation, comparison, drift, bias)", len(cs))
		}
		if body := cs[2].Body; !strings.HasPrefix(body, "Drift: high") || !strings.Contains(body, automation.Marker("drift-report")) {
			t.Errorf("got the running comment %q, want the new body with its marker", body)
		}
		if !strings.Contains(cs[0].Body, "Validation of churn passed") || !strings.Contains(cs[1].Body, "Comparison of churn failed") {
			t.Errorf("got %q and %q, want the validation and comparison results", cs[0].Body, cs[1].Body)
		}
		viewer := s.user(admin, "vic", "viewer")
		s.do("GET", base+"/branch-protection/main", viewer, nil).want(t, 200)
		s.do("PUT", base+"/pr-comments/7", viewer, map[string]any{"comment_body": "x", "comment_identifier": "a"}).wantError(t, 403, "INSUFFICIENT_PERMISSIONS")
	})
}

func cloneRuns(runs []map[string]any) []map[string]any { return append([]map[string]any(nil), runs...) }
