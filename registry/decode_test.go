package registry

import (
	"testing"

	"github.com/vigilhq/vigil/platform/web/webtest"
)

// TestDecodeSameAsStd holds web.DecodeBytes to encoding/json on this
// package's request types.
func TestDecodeSameAsStd(t *testing.T) {
	bodies := append(webtest.Bodies(),
		[]byte(`{"name":"churn","model_type":"tabular","metadata":{"team":["a","b"],"n":1e308},"baseline_metrics":{"accuracy":"0.9"}}`),
		[]byte(`{"description":null,"status":"archived","features":["a",null],"protected_groups":{"sex":["f","m"]},"tags":null}`),
		[]byte(`{"baseline_metrics":{"accuracy":0.91,"f1_score":1e-320}}`))
	for _, body := range bodies {
		webtest.SameAsStd(t, body,
			func() any { return new(createRequest) },
			func() any { return new(updateRequest) },
			func() any { // setStatus's
				return new(struct {
					Status string `json:"status"`
				})
			},
			func() any { // setBaseline's
				return new(struct {
					BaselineMetrics map[string]float64 `json:"baseline_metrics"`
				})
			})
	}
}
