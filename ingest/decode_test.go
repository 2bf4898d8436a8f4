package ingest

import (
	"testing"

	"github.com/vigilhq/vigil/platform/web/webtest"
)

// requestTypes make a new zero value of each request type of this package.
var requestTypes = []func() any{
	func() any { return new(predictionRequest) },
	func() any { return new(metricRequest) },
	func() any { return new(completionRequest) },
}

// decodeBodies are webtest.Bodies and this package's own.
func decodeBodies() [][]byte {
	return append(webtest.Bodies(),
		[]byte(`{"model_id":"`+benchModel+`",`+benchPrediction(7)[1:]),
		[]byte(`{"model_id":"m","metric_type":"accuracy","value":0.91,"metadata":{"split":"test","n":[1,2]}}`),
		[]byte(`{"model_id":"m","metric_type":"accuracy","value":"0.91"}`),
		[]byte(`{"model_id":"m","provider":"openai","model_name":"gpt-4o","prompt":"hi","completion":"hello",`+
			`"tokens":{"prompt_tokens":3,"completion_tokens":5},"latency_ms":420,"cost":0.0002,"metadata":{}}`),
		[]byte(`{"model_id":"m","provider":"openai","tokens":{"prompt_tokens":3,"completion_tokens":-5.0}}`))
}

// TestDecodeSameAsStd holds web.DecodeBytes to encoding/json on this
// package's request types.
func TestDecodeSameAsStd(t *testing.T) {
	for _, body := range decodeBodies() {
		webtest.SameAsStd(t, body, requestTypes...)
	}
}

// FuzzDecodeSameAsStd is TestDecodeSameAsStd on arbitrary bodies. Run it
// with
//
//	go test -run '^$' -fuzz FuzzDecodeSameAsStd -fuzztime 3m ./ingest/
func FuzzDecodeSameAsStd(f *testing.F) {
	for _, body := range decodeBodies() {
		f.Add(body)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		webtest.SameAsStd(t, body, requestTypes...)
	})
}
