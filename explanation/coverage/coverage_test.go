package coverage

import (
	"context"
	"testing"
	"time"
)

// counts answers fixed counts and keeps the coverages stored.
type counts struct {
	models    [][2]string
	explained map[string]int64
	logged    map[string]int64
	put       map[string]Coverage
}

func (s *counts) CoverageModels(context.Context) ([][2]string, error) { return s.models, nil }

func (s *counts) ExplainedCounts(_ context.Context, _ string, _ []string, _, _ time.Time) (map[string]int64, error) {
	return s.explained, nil
}

func (s *counts) LoggedCounts(_ context.Context, _ string, _ []string, _, _ time.Time) (map[string]int64, error) {
	return s.logged, nil
}

func (s *counts) PutExplanationCoverage(_ context.Context, c Coverage, _ time.Time) (bool, error) {
	s.put[c.ModelID] = c
	return true, nil
}

// TestRefresh: the ratio is explained over logged over the window; the
// logged count is at least the explained one (the rollups lag), and a
// model with nothing logged keeps its last ratio (nothing stored).
func TestRefresh(t *testing.T) {
	now := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	s := &counts{models: [][2]string{{"o", "half"}, {"o", "lagging"}, {"o", "quiet"}},
		explained: map[string]int64{"half": 2, "lagging": 5},
		logged:    map[string]int64{"half": 4, "lagging": 3},
		put:       map[string]Coverage{}}
	c := &Coverer{Store: s, Logged: s, Clock: func() time.Time { return now }}
	changed, err := c.Refresh(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if changed != 2 || len(s.put) != 2 {
		t.Fatalf("got %d changed, %v stored; want 2 (quiet has nothing logged)", changed, s.put)
	}
	for _, w := range []Coverage{{ModelID: "half", Explained: 2, Logged: 4, Ratio: 0.5}, {ModelID: "lagging", Explained: 5, Logged: 5, Ratio: 1}} {
		got := s.put[w.ModelID]
		if got.Explained != w.Explained || got.Logged != w.Logged || got.Ratio != w.Ratio {
			t.Errorf("%s: got %d of %d, ratio %v; want %d of %d, ratio %v", w.ModelID, got.Explained, got.Logged, got.Ratio, w.Explained, w.Logged, w.Ratio)
		}
		if !got.To.Equal(now) || !got.From.Equal(now.Add(-RatioWindow)) {
			t.Errorf("%s: got window [%v, %v), want the %v before %v", w.ModelID, got.From, got.To, RatioWindow, now)
		}
	}
}
