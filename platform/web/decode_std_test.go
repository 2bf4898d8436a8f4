package web_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/vigilhq/vigil/platform/web/webtest"
)

// document and record have a field of each kind that the API's request
// types (ingest, identity, query, registry) have, under the names they
// have there, in one of two shapes: documents kept as JSON text (ingest's
// predictions) or decoded into maps. The packages of the request types run
// webtest.SameAsStd on the real ones; here the fuzzer runs on every kind
// at once.
type document struct {
	Batch      []document      `json:"predictions"`
	InputData  json.RawMessage `json:"input_data"`
	LatencyMS  *float64        `json:"latency_ms"`
	Metadata   json.RawMessage `json:"metadata"`
	ModelID    string          `json:"model_id"`
	OutputData json.RawMessage `json:"output_data"`
}

type record struct {
	Baseline map[string]float64 `json:"baseline_metrics"`
	Cost     *float64           `json:"cost"`
	Expires  *int               `json:"expires_in_days"`
	Features *[]string          `json:"features"`
	Groups   *map[string]any    `json:"protected_groups"`
	Metadata map[string]any     `json:"metadata"`
	ModelID  string             `json:"model_id"`
	Scopes   []string           `json:"scopes"`
	Tags     []string           `json:"tags"`
	Tokens   *struct {
		PromptTokens int64 `json:"prompt_tokens"`
	} `json:"tokens"`
	Value       *float64 `json:"value"`
	Description *string  `json:"description"`
}

// requestTypes make a new zero value of each request type.
var requestTypes = []func() any{
	func() any { return new(document) },
	func() any { return new(record) },
	func() any { return new(map[string]json.RawMessage) },
}

// nested is an object nested depth levels deep in input_data.
func nested(depth int) []byte {
	return []byte(`{"input_data":` + strings.Repeat(`{"a":`, depth) + "1" + strings.Repeat("}", depth) + `}`)
}

func TestDecodeBytesSameAsStd(t *testing.T) {
	for _, body := range append(webtest.Bodies(), nested(100), nested(20000)) {
		webtest.SameAsStd(t, body, requestTypes...)
	}
}

// FuzzDecodeBytesSameAsStd holds DecodeBytes (goccy/go-json) to
// DecodeBytesStd (encoding/json) on arbitrary bodies. Run it with
//
//	go test -run '^$' -fuzz FuzzDecodeBytesSameAsStd -fuzztime 3m ./platform/web/
func FuzzDecodeBytesSameAsStd(f *testing.F) {
	for _, body := range webtest.Bodies() {
		f.Add(body)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		webtest.SameAsStd(t, body, requestTypes...)
	})
}
