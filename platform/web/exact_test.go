package web

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// TestDecodeBytesExactNames: a key that names a field only
// case-insensitively is refused as an unknown field is, named as sent
// after its path; exact names, escaped or not, and the keys of maps and
// raw documents are taken as they are.
func TestDecodeBytesExactNames(t *testing.T) {
	type tokens struct {
		Prompt int64 `json:"prompt_tokens"`
	}
	type base struct {
		Version string `json:"version"`
	}
	type item struct {
		Latency *float64 `json:"latency_ms"`
	}
	type body struct {
		base
		ModelID string            `json:"model_id"`
		Tokens  *tokens           `json:"tokens"`
		Items   []item            `json:"predictions"`
		Pair    [2]tokens         `json:"pair"`
		Input   json.RawMessage   `json:"input_data"`
		Meta    map[string]tokens `json:"metadata"`
		Any     any               `json:"any"`
		Skipped string            `json:"-"`
		Plain   string
	}
	f := func(in, field string) {
		t.Helper()
		var v body
		err := DecodeBytes([]byte(in), &v)
		if field == "" {
			if err != nil {
				t.Errorf("%s: got %v, want nil", in, err)
			}
			return
		}
		var e *Error
		want := map[string]any{field: "is not an accepted field"}
		if !errors.As(err, &e) || e.Status != 422 || !reflect.DeepEqual(e.Details, want) {
			t.Errorf("%s: got %v (details %v), want 422 %v", in, err, detailsOf(e), want)
		}
	}
	f(`{"model_id":"m","tokens":{"prompt_tokens":1},"predictions":[{"latency_ms":1}],"version":"v","Plain":"p"}`, "")
	f(`{"model\u005fid":"m","tok\u0065ns":{}}`, "")
	f(`{"input_data":{"Model_ID":1},"metadata":{"K":{"prompt_tokens":1}},"any":{"X":1}}`, "")
	f(`{"model_id":"m","predictions":[{"latency_ms":1,"latency_ms":2}]}`, "")
	f(`{"Model_ID":"m"}`, "Model_ID")
	f(`{"MODEL\u005fID":"m"}`, "MODEL_ID")
	f(`{"model_id":"m","tokens":{"Prompt_Tokens":1}}`, "tokens.Prompt_Tokens")
	f(`{"predictions":[{"latency_ms":1},{"LATENCY_MS":2}]}`, "predictions[1].LATENCY_MS")
	f(`{"pair":[{},{"PROMPT_TOKENS":1}]}`, "pair[1].PROMPT_TOKENS")
	f(`{"metadata":{"k":{"Prompt_tokens":1}}}`, "metadata.k.Prompt_tokens")
	f(`{"Version":"v"}`, "Version")
	f(`{"plain":"p"}`, "plain")
	f(`{"latency_ms":1,"Latency_MS":2,"latency_ms":3}`, "latency_ms")
	f(`{"Latency_MS":1,"latency_ms":2}`, "Latency_MS")
	f(`{"tokens":{"prompt_tokens":1},"Tokens":{"Prompt_Tokens":1}}`, "Tokens")
}

// detailsOf returns the details of e, nil for none.
func detailsOf(e *Error) map[string]any {
	if e == nil {
		return nil
	}
	return e.Details
}

// TestDecodeMembersExactNames: DecodeMembers refuses a key in a member's
// value that names a field only case-insensitively.
func TestDecodeMembersExactNames(t *testing.T) {
	type item struct {
		Latency *float64 `json:"latency_ms"`
	}
	f := func(body string, ok bool) {
		t.Helper()
		var items []item
		err := DecodeMembers([]byte(body), func(name string) any {
			if name == "items" {
				return &items
			}
			return nil
		})
		if (err == nil) != ok {
			t.Errorf("%s: got error %v, want ok %v", body, err, ok)
		}
	}
	f(`{"items":[{"latency_ms":1},{}]}`, true)
	f(`{"it\u0065ms":[{"latency\u005fms":1}]}`, true)
	f(`{"items":[{"latency_ms":1},{"Latency_MS":2}]}`, false)
}

// BenchmarkExactNames times the check alone on a batch of 1000 copies of
// a prediction shaped as benchmarks/jsondecode_test.go's (its documents
// skipped, not decoded), against the decode it follows.
func BenchmarkExactNames(b *testing.B) {
	type prediction struct {
		PredictionID string          `json:"prediction_id"`
		InputData    json.RawMessage `json:"input_data"`
		OutputData   json.RawMessage `json:"output_data"`
		LatencyMS    *float64        `json:"latency_ms"`
		Metadata     json.RawMessage `json:"metadata"`
	}
	type batch struct {
		ModelID     string       `json:"model_id"`
		Predictions []prediction `json:"predictions"`
	}
	const item = `{"prediction_id":"pred-00000042","input_data":{"age":60,"tenure_months":42,"monthly_charges":23.7,` +
		`"total_charges":1276.56,"plan":"pro","contract":"month-to-month","payment_method":"credit_card",` +
		`"paperless_billing":true,"services":["phone","internet","streaming_tv"],"address":{"country":"DE",` +
		`"city":"Berlin","postcode":"10115","lat":52.52,"lon":13.405}},"output_data":{"churn":true,"score":0.042,` +
		`"label":"retain"},"latency_ms":42.25,"metadata":{"region":"eu-west-1","model_version":"v3.2.1",` +
		`"request_id":"req-00000042"}}`
	body := []byte(`{"model_id":"m","predictions":[` + strings.Repeat(item+",", 999) + item + `]}`)
	b.Run("check", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			if err := exactNames(body, new(batch)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("decode", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		for b.Loop() {
			if err := DecodeBytes(body, new(batch)); err != nil {
				b.Fatal(err)
			}
		}
	})
}
