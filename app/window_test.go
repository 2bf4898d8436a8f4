package app

import (
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/vigilhq/vigil/drift"
)

// TestDriftReportWindow: GET /drift/reports keeps the reports written in
// [start_date, end_date), as every time window of the API does: one on
// start_date is listed, one on end_date is not, nor a microsecond either
// side outside; on both transactional stores.
func TestDriftReportWindow(t *testing.T) {
	eachBackend(t, nil, func(t *testing.T, s *server) {
		a := s.admin()
		model := s.model(a, "churn", "1")
		org := s.do("GET", "/auth/me", a, nil).want(t, 200).str("user.organization_id")
		start := time.Date(2026, 3, 1, 12, 0, 0, 123456000, time.UTC)
		end := start.Add(time.Hour)
		us := time.Microsecond
		written := map[string]time.Time{}
		for _, at := range []time.Time{start.Add(-us), start, start.Add(us), end.Add(-us), end, end.Add(us)} {
			r := drift.Report{ID: uuid.NewString(), OrgID: org, ModelID: model, DriftType: drift.TypeData, Severity: drift.Low,
				WindowStart: at.Add(-time.Hour), WindowEnd: at, CreatedAt: at}
			if err := s.app.store.CreateDriftReport(t.Context(), r); err != nil {
				t.Fatalf("CreateDriftReport: %v", err)
			}
			written[r.ID] = at
		}
		f := func(from, to time.Time, want ...time.Time) {
			t.Helper()
			q := url.Values{"model_id": {model}, "start_date": {from.Format(time.RFC3339Nano)}, "end_date": {to.Format(time.RFC3339Nano)}}
			var got []time.Time
			for _, r := range s.do("GET", "/drift/reports?"+q.Encode(), a, nil).want(t, 200).at("reports").([]any) {
				got = append(got, written[r.(map[string]any)["id"].(string)])
			}
			slices.SortFunc(got, time.Time.Compare)
			if !slices.EqualFunc(got, want, time.Time.Equal) {
				t.Errorf("[%v, %v): got reports written at %v, want %v", from, to, got, want)
			}
		}
		f(start, end, start, start.Add(us), end.Add(-us))
		f(start.Add(us), end.Add(us), start.Add(us), end.Add(-us), end)
		f(start.Add(-us), start, start.Add(-us))
	})
}
