package explanation

import (
	"context"
	"testing"
	"time"
)

// progressStore keeps the progress writes; nothing else of Store is used.
type progressStore struct {
	Store
	got []Progress
}

func (s *progressStore) ExplanationProgress(_ context.Context, _, _ string, p Progress) error {
	s.got = append(s.got, p)
	return nil
}

// TestRunnerProgress: LIME's sample is labelled in whole batches of the
// served model's size (no extra request) and each step reported; the
// runner stores the first report, then at most one a second, and the
// last.
func TestRunnerProgress(t *testing.T) {
	now := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
	s := &progressStore{}
	r := &Runner{Store: s, Clock: func() time.Time { return now }}
	rows := make([][]float64, DefaultNumSamples)
	var calls []int
	model := func(tick time.Duration) func([][]float64) ([]float64, error) {
		return func(batch [][]float64) ([]float64, error) {
			calls = append(calls, len(batch))
			now = now.Add(tick)
			return make([]float64, len(batch)), nil
		}
	}
	rep := r.reporter(t.Context(), Explanation{ID: "e", OrgID: "o"}).served(64)
	if _, err := rep.label(model(300*time.Millisecond), rows); err != nil {
		t.Fatal(err)
	}
	total := 0
	for i, n := range calls {
		total += n
		if i < len(calls)-1 && n%64 != 0 {
			t.Errorf("call %d: got %d rows, want whole batches of 64", i, n)
		}
	}
	if total != DefaultNumSamples || len(calls) < 10 {
		t.Fatalf("got %d rows in %d calls, want %d in about %d", total, len(calls), DefaultNumSamples, 20)
	}
	if len(s.got) >= len(calls) || len(s.got) < 3 {
		t.Errorf("got %d writes for %d reports 0.3 s apart, want fewer, at least 3", len(s.got), len(calls))
	}
	for i, p := range s.got {
		if p.Unit != ProgressRows || p.Total != DefaultNumSamples || (i > 0 && p.Done <= s.got[i-1].Done) {
			t.Fatalf("got writes %v, want rows climbing to %d", s.got, DefaultNumSamples)
		}
	}
	if last := s.got[len(s.got)-1]; last.Done != DefaultNumSamples {
		t.Errorf("got last write %v, want all %d rows done", last, DefaultNumSamples)
	}
	if first := s.got[0]; first.Done != int64(calls[0]) {
		t.Errorf("got first write %v, want the first step, %d rows", first, calls[0])
	}
}
