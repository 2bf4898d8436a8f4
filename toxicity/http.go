package toxicity

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/vigilhq/vigil/platform/outbound"
)

// Request shapes an HTTP scorer speaks.
const (
	// FormatPerspective posts {"comment":{"text":…},"requestedAttributes":
	// {"TOXICITY":{},…}} and reads attributeScores.X.summaryScore.value;
	// the key goes in the key query parameter.
	FormatPerspective = "perspective"
	// FormatOpenAI posts {"input":…} and reads results[0].category_scores
	// (harassment, hate, sexual, violence and their /threatening forms);
	// the key goes in Authorization: Bearer.
	FormatOpenAI = "openai"
	// FormatPlain posts {"text":…} and reads {"scores":{"toxicity":…,…}}
	// with the six heads' names; the key goes in Authorization: Bearer.
	FormatPlain = "plain"
)

// HTTP scores texts with a model server. Its target passes the outbound
// guard: a private or loopback address only when the operator allows it.
type HTTP struct {
	URL, Format, Key string
	Client           *http.Client
}

// NewHTTP checks the target and format and returns the adapter, whose
// client passes guard and gives up after timeout.
func NewHTTP(guard *outbound.Guard, url, format, key string, timeout time.Duration) (*HTTP, error) {
	if _, err := guard.CheckURL(url); err != nil {
		return nil, fmt.Errorf("toxicity scorer url: %w", err)
	}
	switch format {
	case FormatPerspective, FormatOpenAI, FormatPlain:
	default:
		return nil, fmt.Errorf("toxicity scorer format %q: want perspective, openai or plain", format)
	}
	return &HTTP{URL: url, Format: format, Key: key, Client: guard.Client(timeout)}, nil
}

// Name implements Scorer.
func (h *HTTP) Name() string { return "http:" + h.Format }

// perspectiveNames are Perspective's attributes for the six heads.
var perspectiveNames = map[string]string{"toxicity": "TOXICITY", "severe_toxicity": "SEVERE_TOXICITY",
	"obscene": "PROFANITY", "threat": "THREAT", "insult": "INSULT", "identity_attack": "IDENTITY_ATTACK"}

// openAIHeads map each head to the moderation categories whose highest
// score it takes.
var openAIHeads = map[string][]string{
	"toxicity":        {"harassment", "harassment/threatening", "hate", "hate/threatening", "sexual", "violence"},
	"severe_toxicity": {"harassment/threatening", "hate/threatening"},
	"obscene":         {"sexual"},
	"threat":          {"violence", "harassment/threatening", "hate/threatening"},
	"insult":          {"harassment"},
	"identity_attack": {"hate", "hate/threatening"},
}

// Score implements Scorer.
func (h *HTTP) Score(ctx context.Context, text string) (Scores, error) {
	var body any
	url := h.URL
	switch h.Format {
	case FormatPerspective:
		attrs := map[string]struct{}{}
		for _, a := range perspectiveNames {
			attrs[a] = struct{}{}
		}
		body = map[string]any{"comment": map[string]string{"text": text}, "requestedAttributes": attrs}
		if h.Key != "" {
			url += "?key=" + h.Key
		}
	case FormatOpenAI:
		body = map[string]any{"input": text}
	default:
		body = map[string]any{"text": text}
	}
	b, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	if h.Key != "" && h.Format != FormatPerspective {
		req.Header.Set("Authorization", "Bearer "+h.Key)
	}
	resp, err := h.Client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode/100 != 2 {
		return nil, fmt.Errorf("answered %d", resp.StatusCode)
	}
	return h.read(raw)
}

// read turns an answer of h's format into scores.
func (h *HTTP) read(raw []byte) (Scores, error) {
	out := Scores{}
	switch h.Format {
	case FormatPerspective:
		var a struct {
			AttributeScores map[string]struct {
				SummaryScore struct{ Value float64 } `json:"summaryScore"`
			} `json:"attributeScores"`
		}
		if err := json.Unmarshal(raw, &a); err != nil {
			return nil, fmt.Errorf("perspective answer: %w", err)
		}
		for head, name := range perspectiveNames {
			out[head] = a.AttributeScores[name].SummaryScore.Value
		}
	case FormatOpenAI:
		var a struct {
			Results []struct {
				CategoryScores map[string]float64 `json:"category_scores"`
			} `json:"results"`
		}
		if err := json.Unmarshal(raw, &a); err != nil || len(a.Results) == 0 {
			return nil, fmt.Errorf("moderation answer without results: %v", err)
		}
		for head, cats := range openAIHeads {
			for _, c := range cats {
				out[head] = max(out[head], a.Results[0].CategoryScores[c])
			}
		}
	default:
		var a struct {
			Scores map[string]float64 `json:"scores"`
		}
		if err := json.Unmarshal(raw, &a); err != nil || a.Scores == nil {
			return nil, fmt.Errorf("plain answer without scores: %v", err)
		}
		for _, head := range Heads {
			out[head] = a.Scores[head]
		}
	}
	return out, nil
}
