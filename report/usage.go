package report

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/vigilhq/vigil/analytics"
	"github.com/vigilhq/vigil/bias"
)

// fairness lists the bias audits completed in the period: per audit its
// attributes, overall fairness score, severity and each metric's score
// and outcome.
func (b builder) fairness() Section {
	return records(b, Section{ID: SectionFairness, Title: "Fairness results", Note: b.truncatedNote("bias audits")}, "audits", b.d.Audits,
		"No bias audit of these models was completed in the period.",
		func(x, y bias.Audit) int {
			return cmp.Or(x.CompletedAt.Compare(*y.CompletedAt), cmp.Compare(x.ID, y.ID))
		},
		[]string{"completed_at", "model", "audit_id", "attributes", "overall_fairness_score", "bias_detected", "severity", "metrics"},
		func(a bias.Audit) []string {
			r := a.Result
			names := make([]string, 0, len(r.Results))
			for n := range r.Results {
				names = append(names, n)
			}
			slices.Sort(names)
			metrics := make([]string, len(names))
			for i, n := range names {
				outcome := "failed"
				if r.Results[n].Passed {
					outcome = "passed"
				}
				metrics[i] = n + " " + fnum(r.Results[n].Score) + " " + outcome
			}
			return []string{ts(a.CompletedAt), b.names[a.ModelID], a.ID, strings.Join(a.Request.Attributes, " "), fnum(r.Score),
				strconv.FormatBool(r.BiasDetected), r.Severity, strings.Join(metrics, "; ")}
		})
}

// llmUsage sums each model's completions of the period by LLM model:
// count, tokens, cost and mean latency.
func (b builder) llmUsage() Section {
	s := Section{ID: SectionLLMUsage, Title: "LLM usage", Note: "The completions logged in the period, by LLM model."}
	if s, ok := b.missing("completions", s); ok {
		return s
	}
	t := &Table{Columns: []string{"model", "llm_model", "completions", "prompt_tokens", "completion_tokens", "total_tokens", "cost_usd",
		"mean_latency_ms"}}
	for _, m := range b.d.Request.Models {
		for _, g := range b.d.LLM[m.ID] {
			cost := g.Cost
			var latency *float64
			if g.LatencyCount > 0 {
				l := g.LatencySum / float64(g.LatencyCount)
				latency = &l
			}
			t.Rows = append(t.Rows, []string{m.Name, g.Model, strconv.FormatInt(g.Completions, 10), strconv.FormatInt(g.PromptTokens, 10),
				strconv.FormatInt(g.CompletionTokens, 10), strconv.FormatInt(g.TotalTokens, 10), fnum(&cost), fnum(latency)})
		}
	}
	if len(t.Rows) == 0 {
		s.Empty, s.Note = true, "No completion of these models was logged in the period."
		return s
	}
	s.Table = t
	return s
}

// usageFigures are the summary's figures of the period's LLM completions
// and bias audits, when there are any.
func (b builder) usageFigures() []Figure {
	var out []Figure
	var sum analytics.CompletionGroup
	for _, gs := range b.d.LLM {
		for _, g := range gs {
			sum.Add(g)
		}
	}
	if sum.Completions > 0 {
		out = append(out, Figure{"Completions", strconv.FormatInt(sum.Completions, 10)},
			Figure{"Tokens", strconv.FormatInt(sum.TotalTokens, 10)}, Figure{"LLM cost (USD)", strconv.FormatFloat(sum.Cost, 'f', 4, 64)})
		if sum.LatencyCount > 0 {
			out = append(out, Figure{"Mean completion latency (ms)", strconv.FormatFloat(sum.LatencySum/float64(sum.LatencyCount), 'f', 1, 64)})
		}
	}
	if n := len(b.d.Audits); n > 0 {
		biased := 0
		for _, a := range b.d.Audits {
			if a.Result.BiasDetected {
				biased++
			}
		}
		out = append(out, Figure{"Bias audits", strconv.Itoa(n) + " (" + strconv.Itoa(biased) + " found bias)"})
	}
	return out
}
