package toxicity

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/vigilhq/vigil/eventlog"
)

// Heads are the six scores of every result, in the specification's order.
var Heads = []string{"toxicity", "severe_toxicity", "obscene", "threat", "insult", "identity_attack"}

// DefaultThreshold is the score at which a head is flagged.
const DefaultThreshold = 0.5

// Scores are a text's scores by head, each from 0 to 1.
type Scores map[string]float64

// Scorer scores texts.
type Scorer interface {
	// Name names the scorer on every result ("builtin-lexicon-v1",
	// "http:perspective").
	Name() string
	// Score returns the text's score for every head of Heads.
	Score(ctx context.Context, text string) (Scores, error)
}

// Checker scores texts with a Scorer and flags them against a threshold.
type Checker struct {
	Scorer Scorer
	// Threshold flags a head whose score reaches it; DefaultThreshold
	// when zero.
	Threshold float64
	// SampleRate is the share of logged completions checked on arrival,
	// from 0 (none) to 1 (all).
	SampleRate float64
}

// Check scores text: the scorer's name, its scores and whether a head
// reached the threshold.
func (c *Checker) Check(ctx context.Context, text string) (eventlog.Toxicity, error) {
	s, err := c.Scorer.Score(ctx, text)
	if err != nil {
		return eventlog.Toxicity{}, fmt.Errorf("toxicity scorer %s: %w", c.Scorer.Name(), err)
	}
	out := eventlog.Toxicity{Scorer: c.Scorer.Name(), Scores: map[string]float64{}}
	for _, h := range Heads {
		v := min(max(s[h], 0), 1)
		out.Scores[h] = v
		if v >= c.threshold() {
			out.Flagged = true
		}
	}
	return out, nil
}

func (c *Checker) threshold() float64 {
	if c.Threshold > 0 {
		return c.Threshold
	}
	return DefaultThreshold
}

// Detected reports whether t's toxicity head reached the threshold.
func (c *Checker) Detected(t eventlog.Toxicity) bool { return t.Scores["toxicity"] >= c.threshold() }

// OnArrival checks a logged completion's text when the sample draws it:
// nil when it does not, or when the scorer fails (the completion is
// logged unchecked rather than refused).
func (c *Checker) OnArrival(ctx context.Context, text string) *eventlog.Toxicity {
	if c == nil || c.SampleRate <= 0 || text == "" || rand.Float64() >= c.SampleRate {
		return nil
	}
	t, err := c.Check(ctx, text)
	if err != nil {
		return nil
	}
	return &t
}
