package evaluation

import (
	"errors"
	"math"
	"testing"
)

// FuzzCompute feeds arbitrary bodies through ParseRequest and Compute: no
// panic, errors are always *FieldError, and a success carries exactly the
// requested metrics, all finite. Seeds: the small golden requests and a few
// hand-written bodies.
func FuzzCompute(f *testing.F) {
	for _, c := range loadGolden(f).Cases {
		if len(c.Request) < 4096 {
			f.Add([]byte(c.Request))
		}
	}
	for _, s := range []string{
		`{}`,
		`{"y_true":[0,1],"y_pred":[1,0],"metric_types":["accuracy","precision","recall","f1_score","mse","mae","rmse","r2"]}`,
		`{"y_true":["a","b","c"],"y_pred":["a","c","c"],"y_prob":[[1,0,0],[0,1,0],[0,0,1]],"metric_types":["roc_auc","log_loss","f1_score"],"average":"micro"}`,
		`{"y_true":[0,1,2],"y_prob":[[1,0,0],[0,1,0],[0,0,1]],"labels":[0,1,2,3],"metric_types":["roc_auc"],"average":"weighted"}`,
		`{"y_true":[1e308,-1e308],"y_pred":[-1e308,1e308],"metric_types":["mse","r2"]}`,
		`{"y_true":[0,0],"y_pred":[0,0],"pos_label":5,"metric_types":["precision"]}`,
		`{"y_true":[1],"y_score":[0.5],"labels":[1],"metric_types":["log_loss"]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		req, err := ParseRequest(body)
		if err != nil {
			assertFieldError(t, err)
			return
		}
		res, err := Compute(req)
		if err != nil {
			assertFieldError(t, err)
			return
		}
		want := map[string]bool{}
		for _, m := range req.Metrics {
			want[m] = true
		}
		if len(res.Metrics) != len(want) {
			t.Fatalf("got %d metrics %v, want %d", len(res.Metrics), res.Metrics, len(want))
		}
		for m, v := range res.Metrics {
			if !want[m] || math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("metric %s = %v: want a requested metric with a finite value", m, v)
			}
		}
	})
}

func assertFieldError(t *testing.T, err error) {
	t.Helper()
	var fe *FieldError
	if !errors.As(err, &fe) || !errors.Is(err, ErrInvalid) || fe.Field == "" {
		t.Fatalf("got %T %v, want a *FieldError naming a field", err, err)
	}
}
