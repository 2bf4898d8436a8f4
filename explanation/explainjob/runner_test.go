package explainjob

import (
	"context"
	"testing"
	"time"

	"github.com/vigilhq/vigil/explanation"
	"github.com/vigilhq/vigil/explanation/artifact"
)

// progressStore keeps the progress writes; nothing else of Store is used.
type progressStore struct {
	explanation.Store
	got []artifact.Progress
}

func (s *progressStore) ExplanationProgress(_ context.Context, _, _ string, p artifact.Progress) error {
	s.got = append(s.got, p)
	return nil
}

// TestRunnerProgress: of reports 0.3 s apart, the runner stores the
// first, then at most one a second, and the last (all done).
func TestRunnerProgress(t *testing.T) {
	now := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
	s := &progressStore{}
	r := &Runner{Store: s, Clock: func() time.Time { return now }}
	report := r.progress(t.Context(), explanation.Explanation{ID: "e", OrgID: "o"})
	const total, step = 5000, 256
	reports := 0
	for done := int64(step); ; done += step {
		done = min(done, total)
		report(artifact.Progress{Done: done, Total: total, Unit: artifact.ProgressRows})
		reports++
		now = now.Add(300 * time.Millisecond)
		if done == total {
			break
		}
	}
	if len(s.got) >= reports || len(s.got) < 3 {
		t.Errorf("got %d writes for %d reports 0.3 s apart, want fewer, at least 3", len(s.got), reports)
	}
	for i, p := range s.got {
		if i > 0 && p.Done <= s.got[i-1].Done {
			t.Fatalf("got writes %v, want rows climbing to %d", s.got, total)
		}
		if i > 0 && p.Done < total && p.Done-s.got[i-1].Done < 4*step {
			t.Errorf("got writes %v, want at most one a second (4 reports) before the last", s.got)
		}
	}
	if first := s.got[0]; first.Done != step {
		t.Errorf("got first write %v, want the first report, %d rows", first, step)
	}
	if last := s.got[len(s.got)-1]; last.Done != total {
		t.Errorf("got last write %v, want all %d rows done", last, total)
	}
}
