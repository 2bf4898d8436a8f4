package analyticstest

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/vigilhq/vigil/analytics"
	"github.com/vigilhq/vigil/eventlog"
	"github.com/vigilhq/vigil/store"
)

// testAttachToxicity writes three completions in one minute (one checked
// on arrival and flagged) and one in the next hour, then attaches a
// flagged check to an unchecked one, twice, and a clean check in place
// of the flagged one: the completion reads back with its check, and the
// LLM minutes, hours and groups count each check once. Another
// organization's id, or an unknown one, is not found and changes nothing.
func testAttachToxicity(t *testing.T, s Store) {
	ctx := context.Background()
	cs := []eventlog.Completion{
		completion("o1", "m1", "gpt-4o", 1, 1, 1, nil),
		completion("o1", "m1", "gpt-4o", 2, 1, 1, nil),
		completion("o1", "m1", "gpt-4o", 3, 1, 1, nil),
		completion("o1", "m1", "gpt-4o", 3601, 1, 1, nil),
		completion("o2", "m1", "gpt-4o", 4, 1, 1, nil),
	}
	cs[2].Toxicity = &eventlog.Toxicity{Scorer: "test", Scores: map[string]float64{"toxicity": 0.9}, Flagged: true}
	if err := s.Write(ctx, analytics.Batch{Completions: cs}); err != nil {
		t.Fatalf("Write: %v", err)
	}
	sums := func() string {
		t.Helper()
		var out string
		for _, r := range []analytics.Range{
			{From: base, To: base.Add(time.Minute)},   // minutes
			{From: base, To: base.Add(2 * time.Hour)}, // hours
			{From: base.Add(time.Hour), To: base.Add(2 * time.Hour)},
		} {
			gs, err := s.LLMGroups(ctx, "o1", "m1", r)
			if err != nil {
				t.Fatalf("LLMGroups: %v", err)
			}
			for _, g := range gs {
				out += fmt.Sprintf("n=%d scored=%d flagged=%d; ", g.Completions, g.Scored, g.Flagged)
			}
		}
		return out
	}
	check := func(flagged bool) eventlog.Toxicity {
		return eventlog.Toxicity{Scorer: "later", Scores: map[string]float64{"toxicity": 0.8, "insult": 0.1}, Flagged: flagged}
	}
	f := func(name, org, id string, tox eventlog.Toxicity, wantErr error, want string) {
		t.Helper()
		if err := s.AttachToxicity(ctx, org, id, tox); !errors.Is(err, wantErr) {
			t.Fatalf("%s: AttachToxicity: got %v, want %v", name, err, wantErr)
		}
		if got := sums(); got != want {
			t.Errorf("%s: got %s, want %s", name, got, want)
		}
	}
	f("written", "o1", "c-m1-1", check(true), nil, "n=3 scored=2 flagged=2; n=4 scored=2 flagged=2; n=1 scored=0 flagged=0; ")
	f("again", "o1", "c-m1-1", check(true), nil, "n=3 scored=2 flagged=2; n=4 scored=2 flagged=2; n=1 scored=0 flagged=0; ")
	f("replaced", "o1", "c-m1-3", check(false), nil, "n=3 scored=2 flagged=1; n=4 scored=2 flagged=1; n=1 scored=0 flagged=0; ")
	f("next hour", "o1", "c-m1-3601", check(true), nil, "n=3 scored=2 flagged=1; n=4 scored=3 flagged=2; n=1 scored=1 flagged=1; ")
	f("other organization", "o1", "c-m1-4", check(true), store.ErrNotFound, "n=3 scored=2 flagged=1; n=4 scored=3 flagged=2; n=1 scored=1 flagged=1; ")
	f("unknown", "o1", "never", check(true), store.ErrNotFound, "n=3 scored=2 flagged=1; n=4 scored=3 flagged=2; n=1 scored=1 flagged=1; ")
	got, err := s.Completion(ctx, "o1", "c-m1-1")
	if err != nil {
		t.Fatalf("Completion: %v", err)
	}
	if tox := got.Toxicity; tox == nil || tox.Scorer != "later" || !tox.Flagged || tox.Scores["toxicity"] != 0.8 ||
		!got.Timestamp.Equal(cs[0].Timestamp) || got.Completion != "c" {
		t.Errorf("Completion: got %+v, want the later flagged check attached", got)
	}
	if other, err := s.Completion(ctx, "o2", "c-m1-4"); err != nil || other.Toxicity != nil {
		t.Errorf("other organization's completion: got %+v, %v, want it unchecked", other, err)
	}
}
