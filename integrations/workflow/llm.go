package workflow

import (
	"context"
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"github.com/google/uuid"
)

// LLMCall is the execution of an AI node whose output reports token
// counts: it counts in the LLM metrics as a completion.
type LLMCall struct {
	// ID is the completion's id, the same for the same organization, run
	// and node position, so that a redelivered report logs it once.
	ID             string
	ToolWorkflowID string
	WorkflowName   string
	ExternalID     string
	AgentName      string
	NodeType       string
	Provider       string
	ModelName      string
	PromptTokens   int64
	// CompletionTokens and TotalTokens as the output reports them
	// (TotalTokens their sum when it reports none).
	CompletionTokens int64
	TotalTokens      int64
	LatencyMS        float64
	// Error is the node's error text when it failed.
	Error string
}

// LLMLog logs LLM calls the way POST /llm/completions logs completions.
type LLMLog interface {
	// LogLLMCalls logs the calls of one run of the organization, made
	// under the key of userID's. Calls logged before (by ID) are stored
	// once.
	LogLLMCalls(ctx context.Context, orgID, userID string, calls []LLMCall) error
}

// tokenShapes are where node outputs report token counts: OpenAI's usage,
// the LangChain nodes' tokenUsage, and Vigil's own tokens.
var tokenShapes = []struct{ key, prompt, completion, total string }{
	{"usage", "prompt_tokens", "completion_tokens", "total_tokens"},
	{"tokenUsage", "promptTokens", "completionTokens", "totalTokens"},
	{"tokens", "prompt_tokens", "completion_tokens", "total_tokens"},
}

// maxTokens bounds one count, as /llm/completions does.
const maxTokens = 1_000_000_000

// tokenCounts returns the token counts an output reports, ok false when
// it reports none (or none that are whole, non-negative and at most
// maxTokens).
func tokenCounts(out map[string]any) (prompt, completion, total int64, ok bool) {
	for _, s := range tokenShapes {
		m, _ := out[s.key].(map[string]any)
		if m == nil {
			continue
		}
		p, pok := count(m[s.prompt])
		c, cok := count(m[s.completion])
		t, tok := count(m[s.total])
		if !pok && !cok && !tok {
			continue
		}
		if !tok {
			t = p + c
		}
		return p, c, t, true
	}
	return 0, 0, 0, false
}

func count(v any) (int64, bool) {
	var f float64
	switch n := v.(type) {
	case float64:
		f = n
	case json.Number:
		var err error
		if f, err = strconv.ParseFloat(string(n), 64); err != nil {
			return 0, false
		}
	default:
		return 0, false
	}
	if f < 0 || f > maxTokens || f != math.Trunc(f) {
		return 0, false
	}
	return int64(f), true
}

// provider names the LLM provider of a node type.
func provider(nodeType string) string {
	t := strings.ToLower(nodeType)
	for _, p := range []string{"openai", "anthropic", "mistral", "ollama", "groq", "cohere"} {
		if strings.Contains(t, p) {
			return p
		}
	}
	if strings.Contains(t, "gemini") || strings.Contains(t, "google") {
		return "google"
	}
	return Source
}

// LLMCalls returns the executions of run's AI nodes whose output reports
// token counts.
//
// An AI node's execution whose output reports token counts (OpenAI's
// usage, the LangChain nodes' tokenUsage, or tokens as /llm/completions
// takes them) is an LLMCall, logged through LLMLog after the record is
// stored: the application appends it to the event log as a completion of
// the tool workflow's model, as POST /llm/completions does, with an id
// derived from the organization, the run and the node's position, so that
// a redelivered report counts it once.
func LLMCalls(run Run) []LLMCall {
	types := map[string]string{}
	for _, a := range run.Agents {
		types[a.Name] = a.Role
	}
	var out []LLMCall
	for _, e := range run.Executions {
		nodeType := types[e.AgentName]
		if Kind(nodeType) != KindAI {
			continue
		}
		p, c, t, ok := tokenCounts(e.Output)
		if !ok {
			continue
		}
		model, _ := e.Output["model"].(string)
		if model == "" || len(model) > 200 {
			model = nodeType
		}
		w := run.Workflow
		id := uuid.NewSHA1(uuid.NameSpaceURL, []byte("vigil:workflow-tool:"+w.OrgID+":"+w.ExternalID+":"+strconv.Itoa(e.Position)))
		out = append(out, LLMCall{ID: id.String(), ToolWorkflowID: w.ToolWorkflowID, WorkflowName: w.Name, ExternalID: w.ExternalID,
			AgentName: e.AgentName, NodeType: nodeType, Provider: provider(nodeType), ModelName: model, PromptTokens: p,
			CompletionTokens: c, TotalTokens: t, LatencyMS: float64(e.ExecutionTimeMS), Error: e.Error})
	}
	return out
}
