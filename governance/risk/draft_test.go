package risk

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/vigilhq/vigil/governance"
)

func TestDraft(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	f := func(src, severity, title, category string, l, i int, sev string) {
		t.Helper()
		ev := governance.Event{OrgID: "o", ModelID: "m", SourceType: src, SourceID: "s1", Severity: severity, Summary: "Q3 launch"}
		e, err := Draft(ev, "credit v1", Default().Thresholds, at)
		if err != nil {
			t.Fatalf("%s %s: got error %v", src, severity, err)
		}
		if e.Title != title || e.Category != category || e.Likelihood != l || e.Impact != i || e.Severity != sev ||
			e.Status != StatusIdentified || e.SourceType != src || e.SourceID != "s1" || e.CreatedBy != "" || e.ModelIDs[0] != "m" {
			t.Errorf("%s %s: got %+v, want %q %s %d/%d %s", src, severity, e, title, category, l, i, sev)
		}
	}
	f(SourceBiasAudit, "high", "Bias/fairness threshold breach for credit v1", "bias", 4, 4, "high")
	f(SourceBiasAudit, "critical", "Bias/fairness threshold breach for credit v1", "bias", 5, 4, "critical")
	f(SourceDriftReport, "high", "High-severity drift detected for credit v1", "drift", 4, 3, "high")
	f(SourceDriftReport, "critical", "High-severity drift detected for credit v1", "drift", 5, 3, "high")
	f(SourceGovernanceReview, "denied", "Governance review flagged: Q3 launch", "operational", 3, 3, "medium")
	f(SourceGovernanceReview, "changes_requested", "Governance review flagged: Q3 launch", "operational", 3, 3, "medium")
	for _, ev := range []governance.Event{{SourceType: "alert", Severity: "high"}, {SourceType: SourceDriftReport, Severity: "medium"}} {
		if _, err := Draft(ev, "m", Default().Thresholds, at); !errors.Is(err, ErrNoRule) {
			t.Errorf("%+v: got %v, want ErrNoRule", ev, err)
		}
	}
	e, _ := Draft(governance.Event{SourceType: SourceGovernanceReview, Severity: "denied", Summary: strings.Repeat("é", 600)}, "m", Default().Thresholds, at)
	if n := len([]rune(e.Title)); n != MaxTitle {
		t.Errorf("long title: got %d characters, want %d", n, MaxTitle)
	}
}
