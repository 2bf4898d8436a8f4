package query

import (
	"encoding/json"
	"testing"

	"github.com/vigilhq/vigil/platform/web/webtest"
)

// TestDecodeSameAsStd holds web.DecodeBytes to encoding/json on this
// package's request types.
func TestDecodeSameAsStd(t *testing.T) {
	bodies := append(webtest.Bodies(),
		[]byte(`{"model_id":"m","start_time":"2026-11-01T00:00:00Z","limit":"10","offset":-1}`),
		[]byte(`{"model_id":"m","y_true":[1,0,1],"y_pred":[1,1,"0"],"metric_types":["accuracy","f1_score"],"y_true":[]}`))
	for _, body := range bodies {
		webtest.SameAsStd(t, body,
			func() any { return new(queryRequest) },
			func() any { return new(map[string]json.RawMessage) }) // calculate's
	}
}
