package ingest

import (
	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/vigilhq/vigil/eventlog"
	"github.com/vigilhq/vigil/identity"
	"github.com/vigilhq/vigil/platform/web"
)

type completionRequest struct {
	ModelID string `json:"model_id"`
	// CompletionID is the caller's id of the completion: one sent again
	// with the same id is stored once.
	CompletionID string         `json:"completion_id"`
	Provider     string         `json:"provider"`
	ModelName    string         `json:"model_name"`
	Prompt       string         `json:"prompt"`
	Completion   string         `json:"completion"`
	Tokens       *tokensInput   `json:"tokens"`
	LatencyMS    *float64       `json:"latency_ms"`
	Cost         *float64       `json:"cost"`
	Metadata     map[string]any `json:"metadata"`
	// Error is the provider's error when the call failed.
	Error string `json:"error"`
}

// maxCost bounds one completion's cost, so that the sums GET /llm/metrics
// answers stay finite: two costs near the float64 maximum add up to +Inf,
// which JSON cannot carry.
const maxCost = 1e9

// maxTokens bounds each token count of one completion, for the same
// reason: the sums of GET /llm/metrics stay within int64 (9.2e18) over
// billions of completions.
const maxTokens = 1_000_000_000

// tokensInput is Tokens as a request sends it: integers written as any
// integer-valued number (12.0), as the document's type integer allows.
type tokensInput struct {
	PromptTokens     web.Int `json:"prompt_tokens"`
	CompletionTokens web.Int `json:"completion_tokens"`
	TotalTokens      web.Int `json:"total_tokens"`
}

func (r *completionRequest) model() string      { return r.ModelID }
func (r *completionRequest) setModel(id string) { r.ModelID = id }

func (r *completionRequest) validate() error {
	var v web.Problems
	v.Required("model_id", r.ModelID)
	v.MaxLen("completion_id", r.CompletionID, 128)
	v.Text("completion_id", r.CompletionID)
	v.Required("provider", r.Provider)
	v.MaxLen("provider", r.Provider, 100)
	v.Required("model_name", r.ModelName)
	v.MaxLen("model_name", r.ModelName, 200)
	if t := r.Tokens; t != nil {
		if t.PromptTokens < 0 || t.CompletionTokens < 0 || t.TotalTokens < 0 {
			v.Add("tokens", "counts must not be negative")
		}
		for _, c := range []struct {
			name string
			n    web.Int
		}{{"prompt_tokens", t.PromptTokens}, {"completion_tokens", t.CompletionTokens}, {"total_tokens", t.TotalTokens}} {
			if c.n > maxTokens {
				v.Add("tokens."+c.name, "must be at most 1000000000")
			}
		}
		if t.TotalTokens != 0 && t.TotalTokens != t.PromptTokens+t.CompletionTokens {
			v.Add("tokens.total_tokens", "must equal prompt_tokens + completion_tokens, or be left out")
		}
	}
	v.MaxLen("error", r.Error, 1000)
	checkLatency(&v, r.LatencyMS)
	if r.Cost != nil && (*r.Cost < 0 || *r.Cost > maxCost) {
		v.Add("cost", "must be between 0 and 1e9")
	}
	return v.Err()
}

func (r *completionRequest) event(a *API, c *fiber.Ctx) (eventlog.Completion, error) {
	var t eventlog.Tokens
	if in := r.Tokens; in != nil {
		t = eventlog.Tokens{PromptTokens: int64(in.PromptTokens), CompletionTokens: int64(in.CompletionTokens), TotalTokens: int64(in.TotalTokens)}
	}
	if t.TotalTokens == 0 {
		t.TotalTokens = t.PromptTokens + t.CompletionTokens
	}
	var cost float64
	if r.Cost != nil {
		cost = *r.Cost
	} else if a.Cost != nil {
		var err error
		if cost, err = a.Cost(c.UserContext(), identity.OrgID(c), r.Provider, r.ModelName, t); err != nil {
			return eventlog.Completion{}, err
		}
	}
	id := r.CompletionID
	if id == "" {
		id = uuid.Must(uuid.NewV7()).String()
	}
	var tox *eventlog.Toxicity
	if a.Toxicity != nil {
		tox = a.Toxicity(c.UserContext(), r.Completion)
	}
	return eventlog.Completion{OrgID: identity.OrgID(c), ID: id, Toxicity: tox, ModelID: r.ModelID,
		Provider: r.Provider, ModelName: r.ModelName, Prompt: r.Prompt, Completion: r.Completion, Tokens: t,
		LatencyMS: r.LatencyMS, Cost: cost, Metadata: orEmpty(r.Metadata), Error: r.Error, Timestamp: a.Clock.Now()}, nil
}

func (a *API) logCompletion(c *fiber.Ctx) error {
	return logOne[completionRequest, eventlog.Completion](a, c, eventlog.KindCompletion)
}

func (a *API) logCompletions(c *fiber.Ctx) error {
	return logBatch[completionRequest, eventlog.Completion](a, c, eventlog.KindCompletion, "completions", MaxCompletionsPerBatch)
}
