package modelserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/vigilhq/vigil/platform/outbound"
)

// Protocols a served model speaks.
const (
	KServeV2 = "kserve_v2"
	KServeV1 = "kserve_v1"
	MLflow   = "mlflow"
)

// Protocols lists every protocol.
var Protocols = []string{KServeV2, KServeV1, MLflow}

// maxAnswer caps one answer's body (16 MiB).
const maxAnswer = 16 << 20

// ErrBudget is the error of a call that would exceed the request budget.
var ErrBudget = errors.New("request budget exhausted")

// An Endpoint is where and how a model is served.
type Endpoint struct {
	Protocol string
	// URL is the server's base URL (scheme, host, optional path prefix);
	// the protocol's path is appended.
	URL string
	// ModelName names the model on a KServe server ("" for MLflow).
	ModelName string
	// Features names the columns in the order the model reads them
	// (MLflow's dataframe columns).
	Features []string
	// OutputIndex picks the column of a two-dimensional output (a
	// classifier's class probabilities); a one-dimensional output must
	// leave it 0.
	OutputIndex int
	// OutputName names the output tensor a V2 answer is read from (KServe
	// models may answer several, e.g. predict and predict_proba, in any
	// order); empty reads the first.
	OutputName string
	// Timeout bounds each request; MaxBatch the rows of one request;
	// RequestBudget the requests of one Client.
	Timeout       time.Duration
	MaxBatch      int
	RequestBudget int
	// Headers are sent with every request (e.g. Authorization).
	Headers map[string]string
}

// Path returns the protocol's path under the base URL.
func (e *Endpoint) Path() string {
	switch e.Protocol {
	case KServeV2:
		return "/v2/models/" + url.PathEscape(e.ModelName) + "/infer"
	case KServeV1:
		return "/v1/models/" + url.PathEscape(e.ModelName) + ":predict"
	}
	return "/invocations"
}

// A Client calls one Endpoint for one explanation: its request count
// grows with each call until the budget.
type Client struct {
	end      Endpoint
	target   string
	http     *http.Client
	requests int
}

// New checks e's URL against guard and returns its Client, whose every
// connection passes the guard.
func New(guard *outbound.Guard, e Endpoint) (*Client, error) {
	if _, err := guard.CheckURL(e.URL); err != nil {
		return nil, err
	}
	if e.MaxBatch <= 0 || e.RequestBudget <= 0 || e.Timeout <= 0 {
		return nil, errors.New("modelserver: max batch, request budget and timeout must be positive")
	}
	return &Client{end: e, target: strings.TrimSuffix(e.URL, "/") + e.Path(), http: guard.Client(e.Timeout)}, nil
}

// Requests returns how many requests the Client has sent.
func (c *Client) Requests() int { return c.requests }

// Predict returns the model's output for each row: ceil(rows/MaxBatch)
// requests, refused with ErrBudget before the first when they would take
// the Client past its budget.
func (c *Client) Predict(ctx context.Context, rows [][]float64) ([]float64, error) {
	need := (len(rows) + c.end.MaxBatch - 1) / c.end.MaxBatch
	if c.requests+need > c.end.RequestBudget {
		return nil, fmt.Errorf("%w: %d rows need %d requests of at most %d rows; %d of the budget of %d are left",
			ErrBudget, len(rows), need, c.end.MaxBatch, c.end.RequestBudget-c.requests, c.end.RequestBudget)
	}
	out := make([]float64, 0, len(rows))
	for start := 0; start < len(rows); start += c.end.MaxBatch {
		batch := rows[start:min(start+c.end.MaxBatch, len(rows))]
		ys, err := c.call(ctx, batch)
		if err != nil {
			return nil, err
		}
		out = append(out, ys...)
	}
	return out, nil
}

// call sends one batch and reads its outputs.
func (c *Client) call(ctx context.Context, rows [][]float64) ([]float64, error) {
	for _, r := range rows {
		if len(r) != len(c.end.Features) {
			return nil, fmt.Errorf("modelserver: a row has %d values; the model reads %d features", len(r), len(c.end.Features))
		}
		for _, v := range r {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, errors.New("modelserver: a row holds a missing or infinite value, which JSON cannot carry")
			}
		}
	}
	body, err := json.Marshal(c.body(rows))
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.target, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range c.end.Headers {
		req.Header.Set(k, v)
	}
	c.requests++
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("model server: %w", err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer+1))
	if err != nil {
		return nil, fmt.Errorf("model server: reading the answer: %w", err)
	}
	if len(raw) > maxAnswer {
		return nil, fmt.Errorf("model server: the answer exceeds %d bytes", maxAnswer)
	}
	if resp.StatusCode/100 != 2 {
		return nil, fmt.Errorf("model server answered %d: %s", resp.StatusCode, snippet(raw))
	}
	ys, err := c.read(raw, len(rows))
	if err != nil {
		return nil, fmt.Errorf("model server: %w", err)
	}
	return ys, nil
}

// snippet is the start of an answer, for an error message.
func snippet(raw []byte) string {
	s := strings.TrimSpace(string(raw))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
