package ingest

import (
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"

	"github.com/vigilhq/vigil/eventlog"
	"github.com/vigilhq/vigil/identity"
	"github.com/vigilhq/vigil/ingest/otlp"
	"github.com/vigilhq/vigil/platform/web"
	"github.com/vigilhq/vigil/registry"
	"github.com/vigilhq/vigil/store"
)

// TracesPath is the OTLP/HTTP traces path, served under /api/v1 and, as
// OTLP exporters expect it, at the server's root.
const TracesPath = "/v1/traces"

// maxInflated bounds a gzipped export once inflated.
const maxInflated = 64 << 20

// maxRejectMessages bounds the problems partial_success names.
const maxRejectMessages = 5

// TraceRoutes is the OTLP/HTTP traces receiver alone, which the server
// also mounts at its root.
func (a *API) TraceRoutes() []web.Route {
	return []web.Route{{Method: fiber.MethodPost, Path: TracesPath, Permission: "llm:write",
		Bucket: web.BucketPredictions, RawBody: true, Handler: a.logTraces}}
}

// logTraces takes an OTLP/HTTP trace export and logs its LLM spans as
// completions through the path of POST /llm/completions/batch: each span's
// completion_id is its trace id and span id, so an export sent again is
// stored once. Spans that are not LLM calls are dropped without being
// counted as rejected; LLM spans whose model cannot be found or made, or
// whose values are invalid, are rejected and counted in partial_success.
func (a *API) logTraces(c *fiber.Ctx) error {
	format, err := otlp.Format(string(c.Request().Header.ContentType()))
	if err != nil {
		return &web.Error{Status: http.StatusUnsupportedMediaType, Code: web.CodeUnsupportedMediaType,
			Message: "send OTLP as Content-Type: application/x-protobuf or application/json",
			Details: map[string]any{"Content-Type": "got " + string(c.Request().Header.ContentType()) +
				", want application/x-protobuf or application/json"}}
	}
	// The raw body: Fiber's c.Body() would inflate it without a bound.
	body, err := otlp.Inflate(c.Request().Body(), c.Get(fiber.HeaderContentEncoding), maxInflated)
	switch {
	case errors.Is(err, otlp.ErrTooLarge):
		return &web.Error{Status: http.StatusRequestEntityTooLarge, Code: web.CodePayloadTooLarge,
			Message: fmt.Sprintf("the export inflates past %d bytes; send smaller batches", maxInflated)}
	case err != nil:
		return web.BadRequest(err.Error())
	}
	batches, _, err := otlp.DecodeCalls(body, format)
	if err != nil {
		return web.BadRequest("not an OTLP trace export: " + err.Error())
	}
	var recs []eventlog.Record
	var rej rejects
	for _, b := range batches {
		m, err := a.traceModel(c, b)
		if err != nil {
			if !rej.add(err, len(b.Calls), resourceName(b)) {
				return err
			}
			continue
		}
		for _, call := range b.Calls {
			r := completionFromCall(m.ID, b, call)
			if err := r.validate(); err != nil {
				if !rej.add(err, 1, "span "+call.SpanID) {
					return err
				}
				continue
			}
			rec, err := logRecord[completionRequest, eventlog.Completion](a, c, eventlog.KindCompletion, m.ID, &r)
			if err != nil {
				return err
			}
			recs = append(recs, rec)
		}
	}
	if len(recs) > 0 {
		if err := a.appendRecords(c, recs); err != nil {
			return err
		}
	}
	out, err := otlp.Encode(rej.response(), format)
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderContentType, format)
	return c.Status(http.StatusOK).Send(out)
}

// rejects counts the rejected spans and keeps the first problems.
type rejects struct {
	n    int64
	msgs []string
}

// add counts n spans rejected by err about what, and reports whether err
// is a rejection at all: a 5xx (an outage) fails the whole export instead.
func (r *rejects) add(err error, n int, what string) bool {
	var e *web.Error
	if !errors.As(err, &e) || e.Status >= 500 {
		return false
	}
	r.n += int64(n)
	if len(r.msgs) < maxRejectMessages {
		msg := e.Message
		if len(e.Details) > 0 {
			var parts []string
			for k, v := range e.Details {
				parts = append(parts, fmt.Sprintf("%s: %v", k, v))
			}
			sort.Strings(parts)
			msg = strings.Join(parts, ", ")
		}
		r.msgs = append(r.msgs, what+": "+msg)
	}
	return true
}

// response is OTLP's answer: partial_success only when a span was rejected.
func (r *rejects) response() *coltracepb.ExportTraceServiceResponse {
	resp := &coltracepb.ExportTraceServiceResponse{}
	if r.n > 0 {
		resp.PartialSuccess = &coltracepb.ExportTracePartialSuccess{RejectedSpans: r.n,
			ErrorMessage: strings.Join(r.msgs, "; ")}
	}
	return resp
}

func resourceName(b otlp.Batch) string {
	if b.ModelID != "" {
		return otlp.AttrModelID + " " + b.ModelID
	}
	return otlp.AttrServiceName + " " + b.ServiceName
}

// completionFromCall is the completion an LLM span logs for model.
func completionFromCall(modelID string, b otlp.Batch, call otlp.Call) completionRequest {
	r := completionRequest{ModelID: modelID, Provider: call.Provider, ModelName: call.ModelName, Prompt: call.Prompt,
		Completion: call.Completion, LatencyMS: call.LatencyMS, Error: call.Error,
		Metadata: map[string]any{"source": "otlp", "otel.span_name": call.Name, "otel.service_name": b.ServiceName}}
	if r.Provider == "" {
		r.Provider = "unknown"
	}
	if len(r.Error) > 1000 {
		r.Error = r.Error[:1000]
	}
	if call.TraceID != "" && call.SpanID != "" {
		r.CompletionID = call.TraceID + "-" + call.SpanID
		r.Metadata["otel.trace_id"], r.Metadata["otel.span_id"] = call.TraceID, call.SpanID
	}
	if call.InputTokens >= 0 || call.OutputTokens >= 0 || call.TotalTokens >= 0 {
		t := &tokensInput{PromptTokens: web.Int(max(call.InputTokens, 0)), CompletionTokens: web.Int(max(call.OutputTokens, 0))}
		if call.InputTokens < 0 && call.OutputTokens < 0 {
			t.PromptTokens = web.Int(max(call.TotalTokens, 0))
		} else if call.TotalTokens == call.InputTokens+call.OutputTokens {
			t.TotalTokens = web.Int(call.TotalTokens)
		}
		if call.InputTokens < -1 || call.OutputTokens < -1 || call.TotalTokens < -1 {
			t.PromptTokens = -1
		}
		r.Tokens = t
	}
	return r
}

// modelNameTTL is how long a model found by name for OTLP is trusted.
const modelNameTTL = 2 * time.Second

// traceModel is the model a resource's spans are logged for: the one its
// vigil.model_id names, else the newest version of the model named by its
// service.name, registered (type llm, version 1) on first sight when the
// caller may write models. Answers with a 4xx web.Error when there is none
// to log for.
func (a *API) traceModel(c *fiber.Ctx, b otlp.Batch) (registry.Model, error) {
	if b.ModelID != "" {
		return a.model(c, b.ModelID)
	}
	name := b.ServiceName
	if name == "" {
		name = "unknown_service"
	}
	if len(name) > 255 || strings.IndexByte(name, 0) >= 0 {
		return registry.Model{}, web.Invalid(otlp.AttrServiceName, "must be 1-255 characters without NUL to name a model")
	}
	orgID := identity.OrgID(c)
	m, err := a.modelCache().Get(modelKey{org: orgID, name: name}, a.Clock.Now(), func() (registry.Model, error) {
		return a.modelNamed(c, orgID, name)
	})
	if err != nil {
		return m, err
	}
	if m.Status == registry.StatusArchived {
		return m, web.Conflict("the model " + name + " is archived: monitoring has stopped; restore it to log again")
	}
	return m, nil
}

func (a *API) modelNamed(c *fiber.Ctx, orgID, name string) (registry.Model, error) {
	p := identity.FromCtx(c)
	if a.Registry == nil {
		return registry.Model{}, errNoModel(name)
	}
	now := a.Clock.Now()
	m, err := registry.FindOrRegister(c.UserContext(), a.Registry, registry.Model{ID: uuid.Must(uuid.NewV7()).String(),
		OrgID: orgID, Name: name, Version: "1", ModelType: "llm", Framework: "opentelemetry", Status: registry.StatusActive,
		Description: "Registered on its first OpenTelemetry spans (service.name " + name + ").",
		OwnerID:     p.UserID, Metadata: map[string]any{"registered_by": "otlp"}, MonitoringEnabled: true,
		CreatedAt: now, UpdatedAt: now}, p.Can("models:write"))
	if errors.Is(err, store.ErrNotFound) {
		return m, errNoModel(name)
	}
	return m, err
}

// errNoModel answers spans whose service.name names no model that the
// caller could register.
func errNoModel(name string) error {
	return &web.Error{Status: http.StatusNotFound, Code: web.CodeModelNotFound,
		Message: "no model is named " + name + ": register it, set the resource attribute vigil.model_id, " +
			"or export with a key that may write models (models:write)"}
}
