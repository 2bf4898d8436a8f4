package kserve

import (
	"context"
	"encoding/json"
	"time"

	"github.com/vigilhq/vigil/eventlog"
)

// Pair is a request and its response, as far as they have come, under the
// CloudEvents id they share.
type Pair struct {
	OrgID, EventID, ModelID string
	// Request and Response are the payloads; nil until that half came.
	Request, Response json.RawMessage
	// RequestAt and ResponseAt are the halves' ce-time; nil when a half
	// has not come or had no time.
	RequestAt, ResponseAt *time.Time
	// Metadata is the first half's: source, inference service, namespace,
	// component, endpoint.
	Metadata json.RawMessage
	// FirstAt is when the first half was taken.
	FirstAt time.Time
}

// Complete reports whether both halves have come.
func (p Pair) Complete() bool { return p.Request != nil && p.Response != nil }

// Store keeps the halves waiting for their other half.
type Store interface {
	// PutHalf stores p's one half (Request or Response; a half that came
	// already is kept) and returns the pair as stored with it, in one
	// statement, so that two halves taken at once by two replicas see
	// each other.
	PutHalf(ctx context.Context, p Pair) (Pair, error)
	// DeletePair forgets a pair once its prediction is logged.
	DeletePair(ctx context.Context, orgID, eventID string) error
	// StalePairs returns up to limit pairs whose first half came before
	// before, oldest first.
	StalePairs(ctx context.Context, before time.Time, limit int) ([]Pair, error)
}

// Prediction is the prediction a pair logs: the request as input_data,
// the response as output_data ({} for a missing half), the CloudEvents id
// as prediction_id, the time between the halves' ce-time as latency.
func (p Pair) Prediction(now time.Time) eventlog.Prediction {
	in, out := p.Request, p.Response
	if in == nil {
		in = json.RawMessage(`{}`)
	}
	if out == nil {
		out = json.RawMessage(`{}`)
	}
	e := eventlog.Prediction{OrgID: p.OrgID, ModelID: p.ModelID, PredictionID: p.EventID, InputData: in,
		OutputData: out, Metadata: p.Metadata, Timestamp: now}
	if p.RequestAt != nil && p.ResponseAt != nil && !p.ResponseAt.Before(*p.RequestAt) {
		ms := float64(p.ResponseAt.Sub(*p.RequestAt).Microseconds()) / 1e3
		e.LatencyMS = &ms
	}
	return e
}

// Record is the log record of a pair's prediction.
func (p Pair) Record(now time.Time) (eventlog.Record, error) {
	b, err := eventlog.EncodeEvent(p.Prediction(now))
	if err != nil {
		return eventlog.Record{}, err
	}
	return eventlog.Record{Kind: eventlog.KindPrediction, Key: p.OrgID + "/" + p.ModelID, Value: b}, nil
}
