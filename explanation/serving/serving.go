package serving

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"

	"github.com/vigilhq/vigil/explanation/modelserver"
	"github.com/vigilhq/vigil/identity"
	"github.com/vigilhq/vigil/platform/clock"
	"github.com/vigilhq/vigil/platform/outbound"
	"github.com/vigilhq/vigil/platform/secretbox"
	"github.com/vigilhq/vigil/platform/web"
	"github.com/vigilhq/vigil/registry"
	"github.com/vigilhq/vigil/store"
)

// Bounds and defaults of a serving endpoint.
const (
	DefaultTimeoutMS     = 5000
	MaxTimeoutMS         = 60000
	DefaultMaxBatch      = 256
	MaxBatchRows         = 10000
	DefaultRequestBudget = 64
	MaxRequestBudget     = 1000
	maxHeaders           = 20
	maxHeaderValue       = 4096
	// HeaderMask is how a stored header value is answered; sent back in a
	// PUT it keeps the stored value.
	HeaderMask = "********"
)

// A Serving is the endpoint a model is served at, which Kernel SHAP and
// LIME call when the model has no artifact (PUT /models/{model_id}/serving).
type Serving struct {
	OrgID, ModelID string
	// Protocol is one of modelserver.Protocols; URL the server's base URL.
	Protocol, URL string
	// ModelName names the model on a KServe server ("" for MLflow).
	ModelName string
	// Features names the inputs in the order the model reads them.
	Features []string
	// OutputIndex picks the column of a two-dimensional output.
	OutputIndex int
	// OutputName names the V2 output tensor to read ("" reads the first).
	OutputName string
	// TimeoutMS bounds each request, MaxBatch the rows of one request,
	// RequestBudget the requests of one explanation.
	TimeoutMS, MaxBatch, RequestBudget int
	// SealedHeaders is the request headers as JSON sealed by secretbox
	// ("" when there are none); HeaderNames names them.
	SealedHeaders string
	HeaderNames   []string
	UpdatedAt     time.Time
}

// Store keeps serving endpoints; the transactional store is one.
type Store interface {
	// PutModelServing stores s in place of the model's endpoint;
	// store.ErrNotFound when the organization has no such model.
	PutModelServing(ctx context.Context, s Serving) error
	// ModelServing returns the model's endpoint; store.ErrNotFound when
	// it has none (or no such model in the organization).
	ModelServing(ctx context.Context, orgID, modelID string) (Serving, error)
	// DeleteModelServing removes the model's endpoint; store.ErrNotFound
	// when it has none.
	DeleteModelServing(ctx context.Context, orgID, modelID string) error
}

// API serves /models/{model_id}/serving.
type API struct {
	Models   registry.Finder
	Servings Store
	// Guard checks the URL (F19); Box seals the headers.
	Guard *outbound.Guard
	Box   *secretbox.Keyring
	Clock clock.Clock
}

// Routes lists the operations of the serving endpoint.
func (a *API) Routes() []web.Route {
	return []web.Route{
		{Method: fiber.MethodPut, Path: "/models/:model_id/serving", Permission: "models:write", Handler: a.put},
		{Method: fiber.MethodGet, Path: "/models/:model_id/serving", Permission: "models:read", Handler: a.get},
		{Method: fiber.MethodDelete, Path: "/models/:model_id/serving", Permission: "models:write", Handler: a.remove},
	}
}

// MaxFeatures caps the features a model names (a serving endpoint's, an
// artifact's), MaxFeatureName the length of each name.
const (
	MaxFeatures    = 10000
	MaxFeatureName = 200
)

// CheckFeatures checks a model's feature names (a serving endpoint's, an
// artifact's): at most MaxFeatures, each non-blank, at most
// MaxFeatureName characters and unique.
func CheckFeatures(v *web.Problems, names []string) {
	if len(names) > MaxFeatures {
		v.Add("features", fmt.Sprintf("must name at most %d features", MaxFeatures))
		return
	}
	seen := map[string]bool{}
	for _, n := range names {
		switch {
		case n == "":
			v.Add("features", "must not hold an empty name")
		case utf8.RuneCountInString(n) > MaxFeatureName:
			v.Add("features", fmt.Sprintf("names must be at most %d characters", MaxFeatureName))
		case seen[n]:
			v.Add("features", fmt.Sprintf("names %q twice", n))
		}
		seen[n] = true
	}
}

// servingBody is the body of PUT /models/{model_id}/serving.
type servingBody struct {
	Protocol      string            `json:"protocol"`
	URL           string            `json:"url"`
	ModelName     string            `json:"model_name"`
	Features      []string          `json:"features"`
	OutputIndex   *web.Int          `json:"output_index"`
	OutputName    *string           `json:"output_name"`
	TimeoutMS     *web.Int          `json:"timeout_ms"`
	MaxBatch      *web.Int          `json:"max_batch"`
	RequestBudget *web.Int          `json:"request_budget"`
	Headers       map[string]string `json:"headers"`
}

// servingView is an endpoint as answered: header values masked.
type servingView struct {
	ModelID       string            `json:"model_id"`
	Protocol      string            `json:"protocol"`
	URL           string            `json:"url"`
	ModelName     *string           `json:"model_name"`
	Features      []string          `json:"features"`
	OutputIndex   int               `json:"output_index"`
	OutputName    *string           `json:"output_name"`
	TimeoutMS     int               `json:"timeout_ms"`
	MaxBatch      int               `json:"max_batch"`
	RequestBudget int               `json:"request_budget"`
	Headers       map[string]string `json:"headers"`
	UpdatedAt     time.Time         `json:"updated_at"`
}

// newServingView is s as answered: headers masked, a name left empty
// null.
func newServingView(s Serving) servingView {
	optional := func(s string) *string {
		if s == "" {
			return nil
		}
		return &s
	}
	v := servingView{ModelID: s.ModelID, Protocol: s.Protocol, URL: s.URL, ModelName: optional(s.ModelName), Features: s.Features,
		OutputIndex: s.OutputIndex, OutputName: optional(s.OutputName), TimeoutMS: s.TimeoutMS, MaxBatch: s.MaxBatch,
		RequestBudget: s.RequestBudget, Headers: map[string]string{}, UpdatedAt: s.UpdatedAt}
	for _, n := range s.HeaderNames {
		v.Headers[n] = HeaderMask
	}
	return v
}

// parseServing checks a body: 422 naming the first field at fault.
func (a *API) parseServing(b *servingBody) (Serving, error) {
	var v web.Problems
	v.Required("protocol", b.Protocol)
	v.OneOf("protocol", b.Protocol, modelserver.Protocols...)
	v.Required("url", b.URL)
	v.MaxLen("url", b.URL, 2048)
	if b.URL != "" {
		if _, err := a.Guard.CheckURL(b.URL); err != nil {
			v.Add("url", err.Error())
		}
	}
	switch {
	case b.Protocol == modelserver.MLflow && b.ModelName != "":
		v.Add("model_name", "must be absent for protocol mlflow: the server serves one model at /invocations")
	case b.Protocol != modelserver.MLflow && b.ModelName == "":
		v.Add("model_name", "is required for protocol "+b.Protocol)
	}
	v.MaxLen("model_name", b.ModelName, 200)
	v.Text("model_name", b.ModelName)
	if len(b.Features) == 0 {
		v.Add("features", "is required: the inputs in the order the model reads them")
	}
	CheckFeatures(&v, b.Features)
	s := Serving{Protocol: b.Protocol, URL: b.URL, ModelName: b.ModelName, Features: b.Features, OutputName: outputName(&v, b),
		OutputIndex:   v.Int("output_index", b.OutputIndex, 0, 0, 1000),
		TimeoutMS:     v.Int("timeout_ms", b.TimeoutMS, DefaultTimeoutMS, 1, MaxTimeoutMS),
		MaxBatch:      v.Int("max_batch", b.MaxBatch, DefaultMaxBatch, 1, MaxBatchRows),
		RequestBudget: v.Int("request_budget", b.RequestBudget, DefaultRequestBudget, 1, MaxRequestBudget)}
	if len(b.Headers) > maxHeaders {
		v.Add("headers", fmt.Sprintf("must hold at most %d headers", maxHeaders))
	}
	for name, value := range b.Headers {
		switch {
		case name == "" || strings.ContainsFunc(name, func(r rune) bool { return r <= ' ' || r >= 0x7f || strings.ContainsRune("\"(),/:;<=>?@[\\]{}", r) }):
			v.Add("headers", fmt.Sprintf("%q is not a header name", name))
		case strings.EqualFold(name, "Content-Type") || strings.EqualFold(name, "Content-Length") || strings.EqualFold(name, "Host"):
			v.Add("headers", name+" is set by Vigil")
		case len(value) > maxHeaderValue || strings.ContainsAny(value, "\r\n\x00"):
			v.Add("headers", fmt.Sprintf("the value of %s must be at most %d characters on one line", name, maxHeaderValue))
		}
	}
	return s, v.Err()
}

// maxOutputName bounds output_name.
const maxOutputName = 200

// outputName checks output_name: for protocol kserve_v2 only, a non-empty
// single-line name of at most maxOutputName characters.
func outputName(v *web.Problems, b *servingBody) string {
	if b.OutputName == nil {
		return ""
	}
	name := *b.OutputName
	switch {
	case b.Protocol != modelserver.KServeV2:
		v.Add("output_name", "is for protocol kserve_v2 only: it names one output tensor of a V2 answer")
	case name == "":
		v.Add("output_name", "must not be empty: leave it out to read the first output")
	}
	v.MaxLen("output_name", name, maxOutputName)
	v.Text("output_name", name)
	return name
}

// label binds a model's sealed headers to it.
func servingLabel(orgID, modelID string) string { return "model-serving:" + orgID + ":" + modelID }

// openHeaders returns s's headers in clear.
func openHeaders(box *secretbox.Keyring, s Serving) (map[string]string, error) {
	out := map[string]string{}
	if s.SealedHeaders == "" {
		return out, nil
	}
	raw, err := box.Open(s.SealedHeaders, servingLabel(s.OrgID, s.ModelID))
	if err != nil {
		return nil, fmt.Errorf("the serving headers cannot be opened: %w", err)
	}
	return out, json.Unmarshal(raw, &out)
}

// put answers PUT /models/{model_id}/serving: the model (404), the body
// (422 naming the field; the URL passes the outbound guard), the headers
// sealed (a value sent back as the mask keeps the stored one); 200 with
// the endpoint, headers masked.
func (a *API) put(c *fiber.Ctx) error {
	ctx, orgID, modelID := c.UserContext(), identity.OrgID(c), c.Params("model_id")
	if _, err := registry.Find(ctx, a.Models, orgID, modelID); err != nil {
		return err
	}
	var b servingBody
	if err := web.Decode(c, &b); err != nil {
		return err
	}
	s, err := a.parseServing(&b)
	if err != nil {
		return err
	}
	s.OrgID, s.ModelID, s.UpdatedAt = orgID, modelID, a.Clock.Now()
	headers := map[string]string{}
	for name, value := range b.Headers {
		headers[name] = value
		if value != HeaderMask {
			continue
		}
		old, err := a.Servings.ModelServing(ctx, orgID, modelID)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
		stored, err := openHeaders(a.Box, old)
		if err != nil {
			return err
		}
		kept, ok := stored[name]
		if !ok {
			return web.Invalid("headers", "the value of "+name+" is the mask, and no value is stored for it: send the value")
		}
		headers[name] = kept
	}
	if len(headers) > 0 {
		raw, err := json.Marshal(headers)
		if err != nil {
			return err
		}
		if s.SealedHeaders, err = a.Box.Seal(raw, servingLabel(orgID, modelID)); err != nil {
			return err
		}
		for name := range headers {
			s.HeaderNames = append(s.HeaderNames, name)
		}
		slices.Sort(s.HeaderNames)
	}
	if err := a.Servings.PutModelServing(ctx, s); errors.Is(err, store.ErrNotFound) {
		return web.NotFound("model")
	} else if err != nil {
		return err
	}
	return c.JSON(newServingView(s))
}

// get answers GET /models/{model_id}/serving: 404 MODEL_NOT_FOUND for no
// such model, NOT_FOUND when it has no endpoint.
func (a *API) get(c *fiber.Ctx) error {
	ctx, orgID, modelID := c.UserContext(), identity.OrgID(c), c.Params("model_id")
	if _, err := registry.Find(ctx, a.Models, orgID, modelID); err != nil {
		return err
	}
	s, err := a.Servings.ModelServing(ctx, orgID, modelID)
	if errors.Is(err, store.ErrNotFound) {
		return web.NotFound("serving")
	} else if err != nil {
		return err
	}
	return c.JSON(newServingView(s))
}

// remove answers DELETE /models/{model_id}/serving: 204, or 404 as get.
func (a *API) remove(c *fiber.Ctx) error {
	ctx, orgID, modelID := c.UserContext(), identity.OrgID(c), c.Params("model_id")
	if _, err := registry.Find(ctx, a.Models, orgID, modelID); err != nil {
		return err
	}
	if err := a.Servings.DeleteModelServing(ctx, orgID, modelID); errors.Is(err, store.ErrNotFound) {
		return web.NotFound("serving")
	} else if err != nil {
		return err
	}
	return c.SendStatus(fiber.StatusNoContent)
}

// Endpoint returns s as the modelserver.Endpoint a Client calls,
// headers opened by box.
func (s Serving) Endpoint(box *secretbox.Keyring) (modelserver.Endpoint, error) {
	headers, err := openHeaders(box, s)
	if err != nil {
		return modelserver.Endpoint{}, err
	}
	return modelserver.Endpoint{Protocol: s.Protocol, URL: s.URL, ModelName: s.ModelName, Features: s.Features,
		OutputIndex: s.OutputIndex, OutputName: s.OutputName, Timeout: time.Duration(s.TimeoutMS) * time.Millisecond, MaxBatch: s.MaxBatch,
		RequestBudget: s.RequestBudget, Headers: headers}, nil
}
